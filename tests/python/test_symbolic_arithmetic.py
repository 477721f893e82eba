"""Scalar arithmetic PyPTO's model kernels do on dims. `**` on a dim known while tracing gives a Python number, as
PyPTO's static dims are Python ints: Qwen3-Next's gated delta rule scales queries by `1 / d**0.5` with d a
tensor's last dim; a dim only known when the kernel runs cannot be raised to a power while tracing, and the error
names the kernel line. pypto.ceildiv (DeepSeek-V4's window attention) is (a + b - 1) // b, symbolic for a dim
known when the kernel runs: here it counts the 16-row blocks a loop covers. `pypto.arange(x.shape[1])` is int32,
as PyPTO's arange of ints is (DeepSeek-V4's compressor scatters with it as an index). Compared with numpy."""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
ROWS, D = 16, 64


@pypto.frontend.jit
def scale_by_root_d(q: pypto.Tensor([ROWS, D], pypto.DT_FP32), out: pypto.Tensor([ROWS, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, D)
    d = q.shape[-1]
    scale = 1 / d**0.5
    out[:] = q * scale * (2 ** pypto.SymbolicScalar(1)) * (d**2 / 4096)


@pypto.frontend.jit
def root_of_dynamic_rows(q: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32),
                         out: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, D)
    out[:] = q * (q.shape[0] ** 0.5)  # marker: run-time pow


@pypto.frontend.jit
def blocks_of_rows(q: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32),
                   out: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, D)
    rows = q.shape[0]
    for b in pypto.loop(pypto.ceildiv(rows, 16)):
        valid = (rows - b * 16).min(16)
        block = pypto.view(q, [16, D], [b * 16, 0], valid_shape=[valid, D])
        pypto.assemble(block * 3.0, [b * 16, 0], out)


@pypto.frontend.jit
def positions(q: pypto.Tensor([ROWS, D], pypto.DT_FP32), out: pypto.Tensor([1, D], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(D)
    counting = pypto.arange(q.shape[1])
    pypto.set_vec_tile_shapes(1, D)
    out[:] = pypto.reshape(counting, [1, D]) * 2


class SymbolicArithmetic(unittest.TestCase):
    def test_static_dim_powers_are_numbers(self):
        q = np.random.default_rng(7).standard_normal((ROWS, D)).astype(np.float32)
        out = np.zeros_like(q)
        scale_by_root_d(q, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(out, q * np.float32(1 / 8) * 2, rtol=1e-6, atol=1e-7)

    def test_python_semantics_outside_a_kernel(self):
        n = pypto.SymbolicScalar(16)
        self.assertEqual(n ** 0.5, 4.0)
        self.assertEqual(n ** 2, 256)
        self.assertIsInstance(n ** 2, int)
        self.assertEqual(2 ** pypto.SymbolicScalar(10), 1024)
        self.assertEqual(n ** pypto.SymbolicScalar(2), 256)

    def test_ceildiv(self):
        self.assertEqual((pypto.ceildiv(10, 4), pypto.ceildiv(8, 4), pypto.ceildiv(pypto.SymbolicScalar(130), 64)),
                         (3, 2, 3))
        self.assertEqual(pypto.ceildiv(pypto.SymbolicScalar("n"), 64).evaluate({"n": 129}), 3)
        for rows in (16, 37):  # whole blocks, and a last block of 5 rows
            q = np.random.default_rng(rows).standard_normal((rows, D)).astype(np.float32)
            out = np.zeros_like(q)
            blocks_of_rows(q, out)
            kernel_checks.assert_functional(self)
            np.testing.assert_array_equal(out, q * np.float32(3))

    def test_arange_of_a_dim_is_int32(self):
        out = np.zeros((1, D), np.int32)
        positions(np.zeros((ROWS, D), np.float32), out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, np.arange(D, dtype=np.int32)[None, :] * 2)

    def test_a_run_time_dim_says_where(self):
        q = np.ones((ROWS, D), np.float32)
        with self.assertRaises(pypto.KernelError) as caught:
            root_of_dynamic_rows(q, np.zeros_like(q))
        error = caught.exception
        self.assertEqual((error.file, error.line), (HERE, kernel_checks.line_of(HERE, "marker: run-time pow")))
        self.assertIn("is only known when the kernel runs, so", error.message)
        self.assertIn("** 0.5' cannot be computed while tracing", error.message)


if __name__ == "__main__":
    unittest.main()
