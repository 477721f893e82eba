"""A reshape of a computed tensor moves no data where PyPTO moves none (issue 33, item 5).

PyPTO's reshape of a tensor in global memory relabels the same bytes. PTO Studio folds such a reshape into an
alias of its source: the source's producer writes global memory, the reshape's readers load the same bytes in the
new shape, and the reshape itself has no tile ops, instructions or tasks. So a kernel with the reshape must cost
exactly what the same kernel costs without it (same tasks, same instructions), and compute what numpy computes.
Values are exact: data is only moved and scaled by 2, and the matmuls' fp32 sums are compared at 1e-5.
"""
import unittest

import numpy as np

import pypto
from kernel_checks import assert_functional as simulated

RNG = np.random.default_rng(20261129)
M, K, N, HEADS = 64, 128, 256, 4
BATCHES = 3


@pypto.frontend.jit
def heads_of_projection(a: pypto.Tensor([M, K], pypto.DT_FP32), b: pypto.Tensor([K, N], pypto.DT_FP32),
                        out: pypto.Tensor([M, HEADS, N // HEADS], pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([64, 64], [128, 128], [128, 128])
    y = pypto.matmul(a, b, pypto.DT_FP32)
    pypto.set_vec_tile_shapes(16, HEADS, N // HEADS)
    heads = pypto.reshape(y, [M, HEADS, N // HEADS])
    out[:] = heads * 2.0


@pypto.frontend.jit
def rows_of_projection(a: pypto.Tensor([M, K], pypto.DT_FP32), b: pypto.Tensor([K, N], pypto.DT_FP32),
                       out: pypto.Tensor([M, N], pypto.DT_FP32)):
    # The same kernel without the reshape: what the one above must cost.
    pypto.set_cube_tile_shapes([64, 64], [128, 128], [128, 128])
    y = pypto.matmul(a, b, pypto.DT_FP32)
    pypto.set_vec_tile_shapes(16, N)
    out[:] = y * 2.0


@pypto.frontend.jit
def heads_per_batch(a: pypto.Tensor([BATCHES * M, K], pypto.DT_FP32), b: pypto.Tensor([K, N], pypto.DT_FP32),
                    out: pypto.Tensor([BATCHES * M, HEADS, N // HEADS], pypto.DT_FP32)):
    # A loop whose iterations each make their own projection (each gets its own storage) and read it reshaped
    # in place: the reshape must select the same iteration's bytes.
    pypto.set_cube_tile_shapes([64, 64], [128, 128], [128, 128])
    for i in pypto.loop(0, BATCHES, 1, name="batch", idx_name="i"):
        y = pypto.matmul(pypto.view(a, [M, K], [i * M, 0]), b, pypto.DT_FP32)
        pypto.set_vec_tile_shapes(16, HEADS, N // HEADS)
        heads = pypto.reshape(y, [M, HEADS, N // HEADS], inplace=True)
        pypto.assemble(heads * 2.0, [i * M, 0, 0], out)


@pypto.frontend.jit
def heads_in_the_buffer(x: pypto.Tensor([M, N], pypto.DT_FP32), out: pypto.Tensor([M, HEADS, N // HEADS], pypto.DT_FP32)):
    # The reshape reads whole tiles a vector op wrote: producer, reshape and reader stay in the unified buffer
    # (a move there, as PyPTO reshapes aligned tiles in the buffer) rather than going through global memory.
    pypto.set_vec_tile_shapes(16, N)
    doubled = x * 2.0
    pypto.set_vec_tile_shapes(16, HEADS, N // HEADS)
    out[:] = pypto.reshape(doubled, [M, HEADS, N // HEADS]) + 1.0


class ReshapeMovesNothing(unittest.TestCase):
    def test_a_reshaped_matmul_result_costs_what_the_plain_one_costs(self):
        a = RNG.standard_normal((M, K)).astype(np.float32)
        b = RNG.standard_normal((K, N)).astype(np.float32)
        plain = np.zeros((M, N), np.float32)
        rows_of_projection(a, b, plain)
        without = simulated(self)
        heads = np.zeros((M, HEADS, N // HEADS), np.float32)
        heads_of_projection(a, b, heads)
        reshaped = simulated(self)
        np.testing.assert_allclose(heads, ((a @ b) * 2).reshape(M, HEADS, N // HEADS), rtol=1e-5, atol=1e-5)
        self.assertEqual(reshaped["tasks"], without["tasks"])
        self.assertEqual(reshaped["instructions"], without["instructions"])

    def test_each_iteration_reads_its_own_projection_through_the_reshape(self):
        a = RNG.standard_normal((BATCHES * M, K)).astype(np.float32)
        b = RNG.standard_normal((K, N)).astype(np.float32)
        out = np.zeros((BATCHES * M, HEADS, N // HEADS), np.float32)
        heads_per_batch(a, b, out)
        simulated(self)
        np.testing.assert_allclose(out, ((a @ b) * 2).reshape(BATCHES * M, HEADS, N // HEADS), rtol=1e-5, atol=1e-5)

    def test_aligned_vector_tiles_are_reshaped_on_chip(self):
        x = RNG.standard_normal((M, N)).astype(np.float32)
        out = np.zeros((M, HEADS, N // HEADS), np.float32)
        heads_in_the_buffer(x, out)
        report = simulated(self)
        np.testing.assert_array_equal(out, (x * 2 + 1).reshape(M, HEADS, N // HEADS))
        self.assertEqual(report["tasks"], M // 16)  # one task per row tile: no round trip, no task of its own


if __name__ == "__main__":
    unittest.main()
