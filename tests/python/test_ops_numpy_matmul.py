"""pypto's matmul and quantisation ops, run on the reference interpreter and compared with numpy under the
tolerances numpy_op_checks.py states (its docstring says how every numpy op test works)."""
import unittest

import numpy as np

import pypto

from numpy_op_checks import (EPS32, PYPTO, as64, assert_close, assert_equal, assert_within, empty_output, from_output,
                             full_range, random_data, run, saturate, to_argument, ulp, with_specials)


# --- matmul -------------------------------------------------------------------------------------------------

def matmul_kernel(out_dtype, a_trans, b_trans):
    @pypto.frontend.jit
    def k(a: pypto.Tensor(), b: pypto.Tensor(), out: pypto.Tensor()):
        pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
        out[...] = pypto.matmul(a, b, out_dtype, a_trans=a_trans, b_trans=b_trans)
    return k


class Matmul(unittest.TestCase):
    CASES = [((5, 37), (37, 19)), ((1, 1), (1, 1)), ((16, 64), (64, 32)), ((33, 100), (100, 7)),
             ((2, 5, 37), (2, 37, 19)), ((3, 4, 8, 17), (3, 4, 17, 9)), ((3, 6, 10), (1, 10, 5))]

    def check(self, in_dtype, out_dtype, a_shape, b_shape, a_trans, b_trans):
        a = random_data(in_dtype, a_shape, -2.0, 2.0)
        b = random_data(in_dtype, b_shape, -2.0, 2.0)
        a_arg = np.ascontiguousarray(np.swapaxes(a, -1, -2)) if a_trans else a
        b_arg = np.ascontiguousarray(np.swapaxes(b, -1, -2)) if b_trans else b
        out_shape = np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])
        out = empty_output(out_dtype, out_shape)
        matmul_kernel(PYPTO[out_dtype], a_trans, b_trans)(to_argument(in_dtype, a_arg), to_argument(in_dtype, b_arg),
                                                          out)
        expected = np.matmul(as64(a), as64(b))
        bound = a_shape[-1] * EPS32 * np.matmul(np.abs(as64(a)), np.abs(as64(b)))
        if out_dtype != "fp32":
            bound = bound + ulp(out_dtype, expected)
        assert_within(self, from_output(out_dtype, out), expected, bound,
                      f"matmul {in_dtype}->{out_dtype} {a_shape}@{b_shape} a_trans={a_trans} b_trans={b_trans}")

    def test_float_matmul(self):
        for in_dtype, out_dtype in (("fp32", "fp32"), ("fp16", "fp32"), ("fp16", "fp16"), ("bf16", "fp32"),
                                    ("bf16", "bf16")):
            for a_shape, b_shape in self.CASES:
                self.check(in_dtype, out_dtype, a_shape, b_shape, False, False)

    def test_transposed_operands(self):
        for in_dtype, out_dtype in (("fp32", "fp32"), ("fp16", "fp32")):
            for a_shape, b_shape in self.CASES[:5]:
                for a_trans, b_trans in ((True, False), (False, True), (True, True)):
                    self.check(in_dtype, out_dtype, a_shape, b_shape, a_trans, b_trans)

    def test_default_out_dtype_and_int8(self):
        a = random_data("int8", (5, 70), None, None)
        b = random_data("int8", (70, 9), None, None)

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), y: pypto.Tensor()) -> pypto.Tensor():
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
            return pypto.matmul(x, y)

        got = k(a, b)
        self.assertEqual(got.dtype, np.int32)  # int8 operands give int32 by default, accumulated exactly
        assert_equal(self, got, a.astype(np.int64) @ b.astype(np.int64), "int8 matmul")
        h = random_data("fp16", (5, 37))
        got = k(h, random_data("fp16", (37, 3)))
        self.assertEqual(got.dtype, np.float32)  # float operands give fp32 by default

        @pypto.frontend.jit
        def transposed(x: pypto.Tensor(), y: pypto.Tensor()) -> pypto.Tensor():
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
            return pypto.matmul(x, y, pypto.DT_INT32, a_trans=True, b_trans=True)

        a = random_data("int8", (70, 5), None, None)
        b = random_data("int8", (9, 70), None, None)
        assert_equal(self, transposed(a, b), a.T.astype(np.int64) @ b.T.astype(np.int64), "int8 transposed")

    def test_matmul_operator(self):
        a = random_data("fp32", (5, 37))
        b = random_data("fp32", (37, 19))

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), y: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
            out[...] = x @ y

        out = np.zeros((5, 19), np.float32)
        k(a, b, out)
        bound = 37 * EPS32 * (np.abs(as64(a)) @ np.abs(as64(b)))
        assert_within(self, out, as64(a) @ as64(b), bound, "x @ y")


# --- quantisation -------------------------------------------------------------------------------------------

def quantize64(x, scale, zero_points=None):
    """PyPTO's quantize in numpy: the fp32 product (plus the zero points, in fp32), rounded half to even."""
    shifted = x.astype(np.float32) * scale.astype(np.float32)
    if zero_points is not None:
        shifted = shifted + zero_points.astype(np.float32)
    with np.errstate(invalid="ignore"):
        return np.rint(shifted).astype(np.float64)


class Quantize(unittest.TestCase):
    """PyPTO's contract: quantize(x, scale, otype, axis, zero_points) = round(x * scale [+ zero_points]) into
    int8 (symmetric) or uint8 (asymmetric), ties to even, saturating; scale holds one value per row (axis -1,
    shape [..., row]) or per column (axis -2, shape [..., col]). dequantize = (float(q) [- zero_points]) * scale
    (PyPTO's on-board Dequantize test's golden)."""

    def test_symmetric_int8_per_row_and_per_column(self):
        x = with_specials(random_data("fp32", (6, 130), -300, 300), [0.5, 1.5, -2.5, 1000.0, -1000.0, np.nan])
        for axis, scale_shape, numpy_shape in ((-1, (6,), (6, 1)), (-2, (130,), (1, 130)), (1, (6,), (6, 1)),
                                               (-1, (6, 1), (6, 1))):
            scale = with_specials(random_data("fp32", scale_shape, 0.5, 2.0), [1.0])
            got = run(lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, axis), [("fp32", x), ("fp32", scale)],
                      "int8", x.shape)
            self.assertEqual(got.dtype, np.int8)
            expected = saturate(quantize64(x, scale.reshape(numpy_shape)), "int8")
            assert_equal(self, got, expected, f"quantize axis {axis} scale {scale_shape}")

    def test_asymmetric_uint8_with_zero_points(self):
        x = random_data("fp32", (3, 2, 37), -200, 200)
        scale = random_data("fp32", (3, 2), 0.25, 1.0)
        zero_points = random_data("fp32", (3, 2), -10.0, 140.0)
        got = run(lambda a, s, z: pypto.quantize(a, s, pypto.DT_UINT8, -1, z),
                  [("fp32", x), ("fp32", scale), ("fp32", zero_points)], "uint8", x.shape)
        self.assertEqual(got.dtype, np.uint8)
        expected = saturate(quantize64(x, scale[..., None], zero_points[..., None]), "uint8")
        assert_equal(self, got, expected, "quantize uint8")

    def test_documented_example(self):
        # PyPTO's page: x rows [1.1, -2.2, 3.3, -4.4], scale 1 -> [1, -2, 3, -4].
        x = np.tile(np.array([1.1, -2.2, 3.3, -4.4], np.float32), (3, 1))
        got = run(lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, -1, None),
                  [("fp32", x), ("fp32", np.ones(3, np.float32))], "int8", x.shape, tile=(4, 32))
        np.testing.assert_array_equal(got, np.tile(np.array([1, -2, 3, -4], np.int8), (3, 1)))

    def test_fp16_and_bf16_inputs_compute_in_fp32(self):
        for dtype in ("fp16", "bf16"):
            x = random_data(dtype, (3, 37), -100, 100)
            scale = random_data(dtype, (3,), 0.5, 2.0)
            got = run(lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, -1), [(dtype, x), (dtype, scale)], "int8",
                      x.shape)
            assert_equal(self, got, saturate(quantize64(x, scale[:, None]), "int8"), f"quantize {dtype}")

    def test_dequantize(self):
        for q_dtype in ("int8", "int16", "uint8"):
            q = full_range(q_dtype, (6, 130))
            scale = random_data("fp32", (130,), 0.001, 0.1)
            got = run(lambda a, s: pypto.dequantize(a, s, pypto.DT_FP32, -2), [(q_dtype, q), ("fp32", scale)],
                      "fp32", q.shape)
            assert_close(self, "fp32", got, (q.astype(np.float32) * scale).astype(np.float64), "exact",
                         f"dequantize {q_dtype}")
        q = full_range("int8", (6, 130))
        scale = random_data("fp32", (6,), 0.001, 0.1)
        zero_points = random_data("fp32", (6,), -3.0, 3.0)
        got = run(lambda a, s, z: pypto.dequantize(a, s, pypto.DT_FP32, -1, z),
                  [("int8", q), ("fp32", scale), ("fp32", zero_points)], "fp32", q.shape)
        expected = (q.astype(np.float32) - zero_points[:, None]) * scale[:, None]
        assert_close(self, "fp32", got, expected.astype(np.float64), "exact", "dequantize with zero points")

    def test_round_trip(self):
        x = random_data("fp32", (6, 130), -1.0, 1.0)
        scale = np.full((6,), 127.0, np.float32)
        inverse = np.full((6,), 1.0 / 127.0, np.float32)
        got = run(lambda a, s, r: pypto.dequantize(pypto.quantize(a, s, pypto.DT_INT8, -1), r, pypto.DT_FP32, -1),
                  [("fp32", x), ("fp32", scale), ("fp32", inverse)], "fp32", x.shape)
        assert_within(self, got, x, 0.5 / 127.0 + 1e-6, "quantize then dequantize")

    def test_errors_name_the_rule(self):
        x = random_data("fp32", (2, 3, 64), -1, 1)
        cases = [
            (lambda a, s: pypto.quantize(a, s, pypto.DT_INT16, -1), np.ones((2, 3), np.float32),
             "otype must be DT_INT8 (symmetric) or DT_UINT8"),
            (lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, 0), np.ones((3, 64), np.float32),
             "axis 0 must be one of the last two dims"),
            (lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, -1), np.ones((2, 64), np.float32),
             "does not broadcast to float32 [2, 3, 64]; give one scale per row with a 1 in dim 2"),
        ]
        for body, scale, message in cases:
            with self.assertRaises(pypto.KernelError) as caught:
                run(body, [("fp32", x), ("fp32", scale)], "int8", x.shape)
            self.assertIn(message, str(caught.exception))


if __name__ == "__main__":
    unittest.main()
