"""An annotation made only of pypto.STATIC / pypto.DYNAMIC markers (and ints) is what PyPTO calls a status shape:
it declares the leading dims, and PyPTO's jit accepts an argument of higher rank, its extra dims static (Kimi's
block attention residuals declares `gamma_fp32: pypto.Tensor([pypto.STATIC, pypto.STATIC])` and passes [1, 1, D]).
An all-int annotation declares an exact rank, and an argument of lower rank is refused either way, at the
kernel's line. Compared with numpy (exact: a multiply by a power of two in fp32)."""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
D = 64


@pypto.frontend.jit
def scale_rows(x: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32),
               gamma: pypto.Tensor([pypto.STATIC, pypto.STATIC], pypto.DT_FP32),
               out: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, D)
    flat = pypto.reshape(gamma, [1, D])  # gamma has the argument's rank, 3
    out[:] = x * flat * 2.0


@pypto.frontend.jit
def exact_rank(gamma: pypto.Tensor([1, D], pypto.DT_FP32),  # marker: exact rank
               out: pypto.Tensor([1, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, D)
    out[:] = gamma + 0.0


class StatusShapeRank(unittest.TestCase):
    def test_a_higher_rank_argument_keeps_its_dims(self):
        rng = np.random.default_rng(11)
        x = rng.standard_normal((16, D)).astype(np.float32)
        gamma = rng.standard_normal((1, 1, D)).astype(np.float32)
        out = np.zeros_like(x)
        scale_rows(x, gamma, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, x * gamma[0] * np.float32(2))

    def test_a_lower_rank_argument_is_refused(self):
        x = np.zeros((16, D), np.float32)
        with self.assertRaises(pypto.KernelError) as caught:
            scale_rows(x, np.zeros((D,), np.float32), np.zeros_like(x))
        self.assertIn("argument 'gamma' has rank 1 [64] but the kernel declares rank 2", caught.exception.message)

    def test_an_all_int_annotation_is_an_exact_rank(self):
        with self.assertRaises(pypto.KernelError) as caught:
            exact_rank(np.zeros((1, 1, D), np.float32), np.zeros((1, D), np.float32))
        error = caught.exception
        self.assertEqual(error.file, HERE)
        self.assertIn("argument 'gamma' has rank 3 [1, 1, 64] but the kernel declares rank 2", error.message)


if __name__ == "__main__":
    unittest.main()
