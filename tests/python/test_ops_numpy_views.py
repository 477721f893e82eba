"""[] slicing of pypto tensors (views) on either side of an assignment, run on the reference interpreter and
compared with numpy under the tolerances numpy_op_checks.py states (its docstring says how every numpy op test
works)."""
import unittest

import numpy as np

import pypto

from numpy_op_checks import (LAYOUT_DTYPES, assert_close, assert_equal, from_output, random_data, run, to_argument)


# --- slicing ------------------------------------------------------------------------------------------------

class Slicing(unittest.TestCase):
    def test_reading_with_ints_slices_and_ellipsis(self):
        x = random_data("fp32", (4, 6, 37))
        cases = [(lambda a: a[1:3, :, 5:30], x[1:3, :, 5:30]),
                 (lambda a: a[..., 2:9], x[..., 2:9]),
                 (lambda a: a[2], x[2]),
                 (lambda a: a[-1, 1:4], x[-1, 1:4]),
                 (lambda a: a[:, 3], x[:, 3]),
                 (lambda a: a[1:, ..., -5:], x[1:, ..., -5:]),
                 (lambda a: a[:2, 0:100], x[:2, 0:100]),
                 (lambda a: a[1, 2, 3:4], x[1, 2, 3:4]),
                 (lambda a: a[:, :, 36], x[:, :, 36])]
        for index, (body, expected) in enumerate(cases):
            got = run(body, [("fp32", x)], "fp32", expected.shape, tile=None)
            assert_equal(self, got, expected, f"slicing case {index}")

    def test_slices_feed_vector_ops(self):
        x = random_data("fp16", (4, 6, 37))
        got = run(lambda a: a[1:3, 2:5, :] * 2.0 + a[0:2, 0:3, :], [("fp16", x)], "fp16", (2, 3, 37))
        expected = (x[1:3, 2:5].astype(np.float32) * 2).astype(np.float16).astype(np.float32) + x[0:2, 0:3]
        assert_close(self, "fp16", got, expected.astype(np.float64), "exact", "slices in arithmetic")

    def test_slice_assignment(self):
        x = random_data("fp32", (6, 130))
        before = random_data("fp32", (6, 130))

        @pypto.frontend.jit
        def k(a: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_vec_tile_shapes(4, 64)
            out[1:3, :] = a[0:2, :] + 1.0
            out[4:, 100:] = a[4:, 100:] * 3.0
            out[0, 0:64] = a[5, 0:64]
            out[5, ...] = 7.0
            out[:, 127] = a[:, 0]

        out = before.copy()
        k(x, out)
        expected = before.copy()
        expected[1:3, :] = x[0:2, :] + np.float32(1.0)
        expected[4:, 100:] = x[4:, 100:] * np.float32(3.0)
        expected[0, 0:64] = x[5, 0:64]
        expected[5, ...] = 7.0
        expected[:, 127] = x[:, 0]
        assert_equal(self, out, expected, "slice assignment")

    def test_overlapping_assignment_reads_before_it_writes(self):
        @pypto.frontend.jit
        def right(o: pypto.Tensor()):
            o[:, 1:] = o[:, :-1]

        @pypto.frontend.jit
        def left(o: pypto.Tensor()):
            o[:, :-1] = o[:, 1:]

        for kernel_, shift in ((right, 1), (left, -1)):
            out = random_data("fp32", (3, 37))
            expected = out.copy()
            if shift == 1:
                expected[:, 1:] = out[:, :-1]
            else:
                expected[:, :-1] = out[:, 1:]
            kernel_(out)
            assert_equal(self, out, expected, f"shift {shift}")

    def test_an_output_can_be_read_after_it_is_written(self):
        x = random_data("fp32", (3, 37))

        @pypto.frontend.jit
        def k(a: pypto.Tensor(), o: pypto.Tensor()):
            pypto.set_vec_tile_shapes(4, 64)
            o[...] = a + 1.0
            o[...] = o * 2.0
            o[:, 0:2] = o[:, 0:2] + 100.0

        out = np.zeros_like(x)
        k(x, out)
        expected = (x + np.float32(1)) * np.float32(2)
        expected[:, 0:2] += np.float32(100)
        assert_equal(self, out, expected, "read after write")

    def test_assignment_of_a_broadcast_scalar_in_every_dtype(self):
        for dtype in LAYOUT_DTYPES:
            before = random_data(dtype, (3, 37))

            @pypto.frontend.jit
            def k(out: pypto.Tensor()):
                out[1:, 30:] = 1

            out = to_argument(dtype, before)
            k(out)
            expected = before.copy()
            expected[1:, 30:] = 1
            assert_equal(self, from_output(dtype, out), expected, f"out[1:, 30:] = 1 {dtype}")


if __name__ == "__main__":
    unittest.main()
