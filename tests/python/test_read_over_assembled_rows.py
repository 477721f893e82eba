"""A tile op that reads a region of which an earlier op of its subgraph wrote only a part, as PyPTO's
DeepSeek-V4 compressor does: it assembles a token's new rows into its paged state (the state passed for
two parameters, so one tensor) and then reads the whole block back (a reshape for the scatter, a
softmax-weighted sum). The read loads the block from GM into a buffer of its own shape; rows written
at a fixed distance from it are laid over the load from the unified buffer, rows written at a distance
known only at run time (a computed row) reach it through GM, stored before the load. Before this the
load landed in the written rows' smaller buffer and the kernel fell back to the reference interpreter.
Each case runs on the functional simulator against numpy: the state must match exactly (only bytes move),
the sums within 1e-5 relative (fp32, 128 terms).
"""
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261130)
BLOCKS, ROWS, WIDTH, NEW, BATCH = 4, 128, 512, 2, 2


def assemble_then_read(row_of):
    @pypto.frontend.jit
    def kernel(x: pypto.Tensor([BATCH, NEW, WIDTH], pypto.DT_FP32),
               state: pypto.Tensor([BLOCKS, ROWS, WIDTH], pypto.DT_FP32),
               table: pypto.Tensor([BATCH], pypto.DT_INT32),
               positions: pypto.Tensor([BATCH], pypto.DT_INT32),
               state_out: pypto.Tensor([BLOCKS, ROWS, WIDTH], pypto.DT_FP32),
               copied: pypto.Tensor([BATCH, ROWS, WIDTH], pypto.DT_FP32),
               sums: pypto.Tensor([BATCH, WIDTH], pypto.DT_FP32)):
        pypto.set_vec_tile_shapes(1, NEW, WIDTH)
        doubled = pypto.mul(x, 2.0)
        for c in pypto.loop(BATCH, name="TOKENS", idx_name="c"):
            block = table[c]
            new_rows = pypto.view(doubled, [1, NEW, WIDTH], [c, 0, 0])
            pypto.set_vec_tile_shapes(1, NEW, WIDTH)
            pypto.assemble(new_rows, [block, row_of(positions, c), 0], state_out)
            whole = pypto.view(state, [1, ROWS, WIDTH], [block, 0, 0])
            pypto.set_vec_tile_shapes(1, 24, WIDTH)
            flat = pypto.reshape(whole, [ROWS, WIDTH])
            pypto.set_vec_tile_shapes(24, WIDTH)
            pypto.assemble(pypto.reshape(flat, [1, ROWS, WIDTH]), [c, 0, 0], copied)
            pypto.set_vec_tile_shapes(1, 128, 128)
            total = pypto.sum(whole, 1)
            pypto.set_vec_tile_shapes(1, WIDTH)
            pypto.assemble(total, [c, 0], sums)
    return kernel


class ReadOverAssembledRows(unittest.TestCase):
    def check(self, row_of, positions):
        x = RNG.standard_normal((BATCH, NEW, WIDTH)).astype(np.float32)
        state = RNG.standard_normal((BLOCKS, ROWS, WIDTH)).astype(np.float32)
        table = np.array([1, 3], dtype=np.int32)
        want = state.copy()
        for c in range(BATCH):
            want[table[c], positions[c]:positions[c] + NEW] = 2 * x[c]
        copied = np.zeros((BATCH, ROWS, WIDTH), np.float32)
        sums = np.zeros((BATCH, WIDTH), np.float32)
        assemble_then_read(row_of)(x, state, table, positions, state, copied, sums)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        np.testing.assert_array_equal(state, want)
        np.testing.assert_array_equal(copied, want[table])
        np.testing.assert_allclose(sums, want[table].astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-4)

    def test_rows_at_a_fixed_distance_are_laid_over_the_load(self):
        self.check(lambda positions, c: ROWS - NEW, np.array([ROWS - NEW] * BATCH, dtype=np.int32))

    def test_rows_at_a_computed_distance_reach_the_read_through_global_memory(self):
        self.check(lambda positions, c: positions[c], np.array([126, 40], dtype=np.int32))


if __name__ == "__main__":
    unittest.main()
