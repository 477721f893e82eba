"""A GEMM block as one cube task: cube_nbuffer_setting set inside the kernel (pypto.set_pass_options before the
matmul, as PyPTO's mla_prolog_quant and lightning_indexer_quant do) merges the output tiles of each loop iteration
into one task, and the merged tiles, which read the same A rows and B columns, each load their own operands:
keeping every tile's operands in L0A/L0B or L1 for the whole task would need 256 KiB of L0A and 1.5 MiB of L1.
Before, the in-kernel setting was ignored (only the project's or the decorator's was read) and such a merge was cut
to one tile per task. Compared with numpy: small integers, so every fp32 sum is exact."""
import unittest

import numpy as np

import pypto

import kernel_checks

BLOCKS, BLOCK_ROWS, K, N = 2, 256, 1024, 512


@pypto.frontend.jit
def gemm_by_block(a: pypto.Tensor([BLOCKS * BLOCK_ROWS, K], pypto.DT_FP16), b: pypto.Tensor([K, N], pypto.DT_FP16),
                  c: pypto.Tensor([BLOCKS * BLOCK_ROWS, N], pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([128, 128], [64, 64], [256, 256])
    pypto.set_pass_options(cube_nbuffer_setting={-1: 4})  # the block's 2 x 2 output tiles in one task
    for i in pypto.loop(0, BLOCKS, 1, name="block", idx_name="i"):
        rows = slice(i * BLOCK_ROWS, (i + 1) * BLOCK_ROWS)
        c[rows, :] = pypto.matmul(a[rows, :], b, pypto.DT_FP32)


class CubeBlockPerTask(unittest.TestCase):
    def test_one_task_per_block_matches_numpy(self):
        rng = np.random.default_rng(7)
        a = rng.integers(-2, 3, (BLOCKS * BLOCK_ROWS, K)).astype(np.float16)
        b = rng.integers(-2, 3, (K, N)).astype(np.float16)
        c = np.zeros((BLOCKS * BLOCK_ROWS, N), np.float32)
        gemm_by_block(a, b, c)
        report = kernel_checks.assert_functional(self)
        self.assertEqual(report["tasks"], BLOCKS)
        np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


if __name__ == "__main__":
    unittest.main()
