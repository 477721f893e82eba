"""A loop whose trip count is known only at run time may rebind a name to an in-place reshape of itself: the
same bytes in another shape carry nothing from one iteration to the next, so the body traced once is every
iteration (DeepSeek-V4's compressor: `cache_index = pypto.reshape(cache_index, [1, n], inplace=True)` inside
its batch loop). A value that really is carried (`acc = acc + x`) in such a loop is still an error at the loop's
line. Compared with numpy (exact: adds of small integers in fp32)."""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
N = 32


@pypto.frontend.jit
def add_positions(x: pypto.Tensor([pypto.DYNAMIC, N], pypto.DT_FP32),
                  out: pypto.Tensor([pypto.DYNAMIC, N], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(N)
    positions = pypto.cast(pypto.arange(N), pypto.DT_FP32)
    pypto.set_vec_tile_shapes(1, N)
    for b in pypto.loop(x.shape[0]):
        positions = pypto.reshape(positions, [1, N], inplace=True)
        out[b:b + 1, :] = x[b:b + 1, :] + positions


@pypto.frontend.jit
def running_sum(x: pypto.Tensor([pypto.DYNAMIC, N], pypto.DT_FP32), out: pypto.Tensor([1, N], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, N)
    acc = pypto.full([1, N], 0.0, pypto.DT_FP32)
    for b in pypto.loop(x.shape[0]):  # marker: carried loop
        acc = acc + x[b:b + 1, :]
    out[:] = acc


class LoopRebindsAnInPlaceReshape(unittest.TestCase):
    def test_the_reshape_is_every_iteration(self):
        for rows in (1, 5):
            x = np.arange(rows * N, dtype=np.float32).reshape(rows, N)
            out = np.zeros_like(x)
            add_positions(x, out)
            kernel_checks.assert_functional(self)
            np.testing.assert_array_equal(out, x + np.arange(N, dtype=np.float32))

    def test_a_carried_sum_is_still_refused(self):
        x = np.ones((3, N), np.float32)
        with self.assertRaises(pypto.KernelError) as caught:
            running_sum(x, np.zeros((1, N), np.float32))
        error = caught.exception
        self.assertEqual((error.file, error.line), (HERE, kernel_checks.line_of(HERE, "marker: carried loop")))
        self.assertIn("'acc' is read and then reassigned in the loop body", error.message)


if __name__ == "__main__":
    unittest.main()
