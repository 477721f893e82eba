"""PyPTO places a tensor with assemble whatever the vec tile in force: Kimi's block attention residuals
assembles a rank-3 batched matmul result under the 2-D vec tile its vector ops use. The assemble is cut by
that tile with 1 in front for the missing leading dims (for that op only; the values do not depend on the
tiling), and ops after it keep the 2-D tile. So is an indexed store, `states[b, h] = y` (Qwen3-Next's gated
delta rule stores its per-head states so). Compared with numpy (fp32 matmul: within 1e-5 relative; the store
of x * 2 + 1 exactly)."""
import unittest

import numpy as np

import pypto

import kernel_checks

B, M, K, N = 2, 16, 32, 64


@pypto.frontend.jit
def batched_into_place(a: pypto.Tensor([B, M, K], pypto.DT_FP32), b: pypto.Tensor([B, K, N], pypto.DT_FP32),
                       out: pypto.Tensor([2 * B, M, N], pypto.DT_FP32), rows: pypto.Tensor([M, N], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 32)
    pypto.set_cube_tile_shapes([16, 16], [32, 32], [64, 64])
    h = pypto.matmul(a, b, pypto.DT_FP32)
    pypto.assemble(h, [B, 0, 0], out)  # rank 3 under the [16, 32] tile
    rows[:] = pypto.view(b, [1, M, N], [0, 0, 0]).reshape([M, N]) + 1.0  # the 2-D tile again


@pypto.frontend.jit
def states_by_head(states: pypto.Tensor([2, 3, 128, 128], pypto.DT_FP32), x: pypto.Tensor([128, 128], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(64, 128)
    for b in pypto.loop(0, 2, 1, name="b", idx_name="b"):
        for h in pypto.loop(0, 3, 1, name="h", idx_name="h"):
            states[b, h] = x * 2.0 + 1.0  # a [128, 128] value into a rank-4 tensor, tile [64, 128]


class AssembleUnderALowerRankTile(unittest.TestCase):
    def test_an_indexed_store_takes_the_tile_of_its_value(self):
        x = np.random.default_rng(9).standard_normal((128, 128)).astype(np.float32)
        states = np.zeros((2, 3, 128, 128), np.float32)
        states_by_head(states, x)
        report = kernel_checks.assert_functional(self)
        self.assertEqual(report["tasks"], 2 * 3 * 2)  # per (b, h), two [64, 128] tiles
        for b in range(2):
            for h in range(3):
                np.testing.assert_array_equal(states[b, h], x * np.float32(2) + np.float32(1))

    def test_values(self):
        rng = np.random.default_rng(8)
        a = rng.standard_normal((B, M, K)).astype(np.float32)
        b = rng.standard_normal((B, K, N)).astype(np.float32)
        out = np.full((2 * B, M, N), 1234.5, np.float32)  # the first B batches are not written
        rows = np.zeros((M, N), np.float32)
        batched_into_place(a, b, out, rows)
        kernel_checks.assert_functional(self)
        expected = np.concatenate([np.full((B, M, N), 1234.5, np.float32),
                                   np.matmul(a.astype(np.float64), b.astype(np.float64))]).astype(np.float32)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(rows, b[0, :M, :] + np.float32(1))


if __name__ == "__main__":
    unittest.main()
