"""A row view wider than its tensor, at a row known only when the kernel runs: PyPTO's DeepSeek-V4 sparse
attention takes `pypto.view(block_table, [1, MAX_S2 // block_size], [batch_idx, 0])`, a [1, 1024] row of a
[b, 16] block table with b dynamic, and reads only its first 16 entries. As for views past the end with known
offsets, the part inside the tensor holds its data and the rest is zero. Compared with numpy, exactly (int32)."""
import unittest

import numpy as np

import pypto

import kernel_checks

WIDE = 64


@pypto.frontend.jit
def wide_rows(table: pypto.Tensor([pypto.DYNAMIC, 16], pypto.DT_INT32),
              out: pypto.Tensor([pypto.DYNAMIC, WIDE], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(1, WIDE)
    for b in pypto.loop(table.shape[0]):
        row = pypto.view(table, [1, WIDE], [b, 0])
        out[b:b + 1, :] = row + 1


@pypto.frontend.jit
def wide_rows_sum(table: pypto.Tensor([pypto.DYNAMIC, 16], pypto.DT_FP32),
                  out: pypto.Tensor([pypto.DYNAMIC, 1], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, WIDE)
    for b in pypto.loop(table.shape[0]):
        row = pypto.view(table, [1, WIDE], [b, 0])
        out[b:b + 1, :] = pypto.sum(row, dim=-1, keepdim=True)


class RowViewPastTheEnd(unittest.TestCase):
    def test_the_row_holds_the_table_then_zeros(self):
        for batch in (1, 3):
            table = np.arange(batch * 16, dtype=np.int32).reshape(batch, 16) * 7
            out = np.full((batch, WIDE), -99, np.int32)
            wide_rows(table, out)
            kernel_checks.assert_functional(self)
            expected = np.ones((batch, WIDE), np.int32)
            expected[:, :16] = table + 1
            np.testing.assert_array_equal(out, expected)

    def test_a_reduction_sees_zeros_past_the_end(self):
        table = np.random.default_rng(5).uniform(-1, 1, (4, 16)).astype(np.float32)
        out = np.zeros((4, 1), np.float32)
        wide_rows_sum(table, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(out, table.sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-6)


if __name__ == "__main__":
    unittest.main()
