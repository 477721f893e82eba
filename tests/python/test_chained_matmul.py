"""A matmul whose A or B operand is another matmul's result (issue 33: Qwen3-Next's block inverse).

A matmul result is held in L0C, and the modelled machines move L0C only to GM (and, on the 950, to UB), never
into L1 where the cube reads its operands. Two such matmuls in one subgraph used to read an L1 buffer nothing
had filled: zeros, silently. The partitioner now treats the edge as a read from GM, so the producer stores its
result and the consumer's task loads it. Values against numpy at fp32 (products of three 16 x 16 matrices with
entries in [-1, 1]: rtol 1e-5, atol 1e-5); the second test also counts the tasks (one per matmul).
"""
import unittest

import numpy as np

import pypto
from kernel_checks import assert_functional as simulated

RNG = np.random.default_rng(20261130)
M = 16


@pypto.frontend.jit
def cube_of(x: pypto.Tensor([M, M], pypto.DT_FP32), out: pypto.Tensor([M, M], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(M, M)
    pypto.set_cube_tile_shapes([M, M], [M, M], [M, M])
    square = pypto.matmul(x, x, pypto.DT_FP32)
    out[:] = pypto.matmul(square, x, pypto.DT_FP32)


@pypto.frontend.jit
def block_lower_inverse(a: pypto.Tensor([M, M], pypto.DT_FP32), top: pypto.Tensor([M, M], pypto.DT_FP32),
                        bottom: pypto.Tensor([M, M], pypto.DT_FP32), out: pypto.Tensor([2 * M, 2 * M], pypto.DT_FP32)):
    # Qwen3-Next's inverse_matmul: the lower-left block of a block lower-triangular inverse is
    # (bottom @ a) @ top, assembled with the diagonal blocks into a local tensor.
    pypto.set_vec_tile_shapes(2 * M, 2 * M)
    pypto.set_cube_tile_shapes([M, M], [M, M], [M, M])
    lower_left = pypto.matmul(pypto.matmul(bottom, a, pypto.DT_FP32), top, pypto.DT_FP32)
    whole = pypto.tensor([2 * M, 2 * M], dtype=pypto.DT_FP32)
    whole[0:M, 0:M] = top
    whole[0:M, M:2 * M] = pypto.full(size=[M, M], fill_value=0.0, dtype=pypto.DT_FP32)
    whole[M:2 * M, 0:M] = lower_left
    whole[M:2 * M, M:2 * M] = bottom
    out[:] = whole


class ChainedMatmul(unittest.TestCase):
    def test_a_product_of_a_product(self):
        x = RNG.uniform(-1, 1, (M, M)).astype(np.float32)
        out = np.zeros((M, M), np.float32)
        cube_of(x, out)
        report = simulated(self)
        np.testing.assert_allclose(out, x @ x @ x, rtol=1e-5, atol=1e-5)
        self.assertEqual(report["tasks"], 2)  # the square goes through GM: a task per matmul

    def test_the_block_inverse_assembles_the_chained_product(self):
        a, top, bottom = (RNG.uniform(-1, 1, (M, M)).astype(np.float32) for _ in range(3))
        out = np.zeros((2 * M, 2 * M), np.float32)
        block_lower_inverse(a, top, bottom, out)
        simulated(self)
        expected = np.block([[top, np.zeros((M, M), np.float32)], [bottom @ a @ top, bottom]])
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


if __name__ == "__main__":
    unittest.main()
