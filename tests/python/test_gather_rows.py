"""Gathers of rows from a source that stays in global memory (MGATHER), as sparse attention picks the KV
rows the indexer chose from a paged cache: `index_select(x, 0, rows)`, `experimental.gather_in_ub` and
`experimental.gather_in_l1` under a vec tile are cut into output tiles that each copy only the rows their
slice of the index names. The source is never loaded whole: a cache of 64K tokens (tens of MiB) is far
beyond the 192 KiB unified buffer, and before this every such gather fell back to the reference
interpreter. Every case runs on the functional simulator and is compared bit for bit with numpy's fancy
indexing (a gather moves bytes: no tolerance).
"""
import unittest

import numpy as np

import pypto
from pypto.experimental import gather_in_l1, gather_in_ub

RNG = np.random.default_rng(20261126)
BLOCK = 128


def run(kernel, *arrays):
    kernel(*arrays)
    report = pypto.last_run()
    return report


def paged_rows(indices, block_table):
    """numpy's reading of PyPTO's paged layout: token t is row t % 128 of block block_table[t // 128]."""
    return block_table[indices // BLOCK] * BLOCK + indices % BLOCK


class GatherRowsFromGlobalMemory(unittest.TestCase):
    def assert_simulated(self, report):
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")

    def test_index_select_from_a_table_larger_than_the_unified_buffer(self):
        rows, width, picked = 65536, 128, 96

        @pypto.frontend.jit
        def pick(table: pypto.Tensor([rows, width], pypto.DT_FP16), where: pypto.Tensor([picked], pypto.DT_INT32),
                 out: pypto.Tensor([picked, width], pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(32, 128)
            # The rows are computed in the kernel (a reversed numbering), so no scalar read can stand in.
            flipped = pypto.sub(pypto.mul(where, -1), -(rows - 1))
            out[:] = pypto.index_select(table, 0, flipped)

        table = RNG.standard_normal((rows, width)).astype(np.float16)  # 16 MiB
        where = RNG.integers(0, rows, picked).astype(np.int32)
        out = np.zeros((picked, width), np.float16)
        report = run(pick, table, where, out)
        self.assert_simulated(report)
        np.testing.assert_array_equal(out, table[rows - 1 - where])

    def test_gather_in_ub_from_a_paged_cache(self):
        # The sparse-attention shape at a reduced size: 512-wide latent rows plus 64 rope columns, bf16
        # stored as fp16 here, 32 blocks of 128 tokens, 256 of the 4 096 positions picked in tiles of 64.
        blocks, width, topk = 32, 576, 256

        @pypto.frontend.jit
        def select(cache: pypto.Tensor([blocks * BLOCK, width], pypto.DT_FP16),
                   topk_indices: pypto.Tensor([1, topk], pypto.DT_INT32),
                   block_table: pypto.Tensor([1, blocks], pypto.DT_INT32),
                   out: pypto.Tensor([topk, width], pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(64, 576)
            out[:] = gather_in_ub(cache, topk_indices, block_table, BLOCK, -2)

        cache = RNG.standard_normal((blocks * BLOCK, width)).astype(np.float16)
        indices = RNG.choice(blocks * BLOCK, topk, replace=False).astype(np.int32).reshape(1, topk)
        block_table = RNG.permutation(blocks).astype(np.int32).reshape(1, blocks)
        out = np.zeros((topk, width), np.float16)
        report = run(select, cache, indices, block_table, out)
        self.assert_simulated(report)
        np.testing.assert_array_equal(out, cache[paged_rows(indices[0], block_table[0])])

    def test_gather_in_l1_feeds_the_matmul_on_the_cube_core(self):
        # The rope part of the keys (the first 64 of 576 columns here), gathered into L1 and multiplied with 32
        # query heads, as PyPTO's sparse attention does with gather_in_l1: the rows never pass through UB.
        blocks, width, size, topk, heads = 8, 576, 64, 128, 32

        @pypto.frontend.jit
        def rope_scores(q: pypto.Tensor([heads, size], pypto.DT_FP16),
                        cache: pypto.Tensor([blocks * BLOCK, width], pypto.DT_FP16),
                        topk_indices: pypto.Tensor([1, topk], pypto.DT_INT32),
                        block_table: pypto.Tensor([1, blocks], pypto.DT_INT32),
                        out: pypto.Tensor([heads, topk], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(64, 64)
            pypto.set_cube_tile_shapes([32, 32], [64, 64], [64, 64])
            keys = gather_in_l1(cache, topk_indices, block_table, BLOCK, size, is_b_matrix=True, is_trans=True)
            out[:] = pypto.matmul(q, keys, pypto.DT_FP32, b_trans=True)

        q = RNG.standard_normal((heads, size)).astype(np.float16)
        cache = RNG.standard_normal((blocks * BLOCK, width)).astype(np.float16)
        indices = RNG.integers(0, blocks * BLOCK, (1, topk)).astype(np.int32)  # repeats allowed
        block_table = RNG.permutation(blocks).astype(np.int32).reshape(1, blocks)
        out = np.zeros((heads, topk), np.float32)
        report = run(rope_scores, q, cache, indices, block_table, out)
        self.assert_simulated(report)
        keys = cache[paged_rows(indices[0], block_table[0])][:, :size].astype(np.float64)
        want = q.astype(np.float64) @ keys.T
        # fp16 products are exact in fp32; 64 fp32 additions each round by at most 2^-24 of the running sum.
        bound = 64 * 2.0**-24 * (np.abs(q.astype(np.float64)) @ np.abs(keys).T) + 1e-30
        self.assertTrue(np.all(np.abs(out - want) <= bound), np.max(np.abs(out - want) / bound))
        # The gathers ran on the cube cores, one task each with its matmul: no vector task touched the keys.
        self.assertEqual(report["tasks_by_core_type"]["AIC"], heads // 32 * topk // 64)

    def test_gather_in_l1_rows_read_by_other_ops_are_gathered_into_ub(self):
        # L1 has no way back to GM or to a vector core, so rows that something other than a matmul reads are
        # gathered into UB on a vector core instead: the same values, and a run on the simulator.
        blocks, width, size, topk = 8, 576, 64, 128

        @pypto.frontend.jit
        def rope_rows(cache: pypto.Tensor([blocks * BLOCK, width], pypto.DT_FP16),
                      topk_indices: pypto.Tensor([1, topk], pypto.DT_INT32),
                      block_table: pypto.Tensor([1, blocks], pypto.DT_INT32),
                      out: pypto.Tensor([topk, size], pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(64, 64)
            out[:] = gather_in_l1(cache, topk_indices, block_table, BLOCK, size, is_b_matrix=True, is_trans=True)

        cache = RNG.standard_normal((blocks * BLOCK, width)).astype(np.float16)
        indices = RNG.integers(0, blocks * BLOCK, (1, topk)).astype(np.int32)
        block_table = RNG.permutation(blocks).astype(np.int32).reshape(1, blocks)
        out = np.zeros((topk, size), np.float16)
        report = run(rope_rows, cache, indices, block_table, out)
        self.assert_simulated(report)
        self.assertEqual(report["tasks_by_core_type"]["AIC"], 0)
        np.testing.assert_array_equal(out, cache[paged_rows(indices[0], block_table[0])][:, :size])

    def test_a_gather_costs_what_loading_its_rows_costs(self):
        # Timing: PyPTO's cost model prices GATHER_IN_UB as a UB copy-in of the gathered bytes, and so does
        # the simulator: 256 picked rows of 64 fp32 take as long as one contiguous load of 256 such rows
        # (within 10 %: the gathered rows always come from HBM, the contiguous ones may hit in L2), and at
        # least their 64 KiB over a2's GM -> UB peak of 100.9 GiB/s (an analytical lower bound, 0.6 us).
        rows, width, picked = 4096, 64, 256

        @pypto.frontend.jit
        def pick(table: pypto.Tensor([rows, width], pypto.DT_FP32), where: pypto.Tensor([picked], pypto.DT_INT32),
                 out: pypto.Tensor([picked, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(256, 64)
            out[:] = pypto.index_select(table, 0, where)

        @pypto.frontend.jit
        def load(table: pypto.Tensor([rows, width], pypto.DT_FP32), out: pypto.Tensor([picked, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(256, 64)
            out[:] = pypto.view(table, [picked, width], [0, 0]) + 0.0

        table = RNG.standard_normal((rows, width)).astype(np.float32)
        where = RNG.integers(0, rows, picked).astype(np.int32)
        out = np.zeros((picked, width), np.float32)
        gathered = run(pick, table, where, out)
        self.assert_simulated(gathered)
        np.testing.assert_array_equal(out, table[where])
        loaded = run(load, table, np.zeros((picked, width), np.float32))
        self.assertAlmostEqual(gathered["makespan_us"] / loaded["makespan_us"], 1.0, delta=0.1)
        self.assertGreaterEqual(gathered["makespan_us"], picked * width * 4 / (100.9 * 2**30) * 1e6)

    def test_an_index_past_the_source_is_an_error_naming_the_line(self):
        rows, width = 1024, 64

        @pypto.frontend.jit
        def pick(table: pypto.Tensor([rows, width], pypto.DT_FP32), where: pypto.Tensor([16], pypto.DT_INT32),
                 out: pypto.Tensor([16, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(16, 64)
            out[:] = pypto.index_select(table, 0, pypto.add(where, 1000))

        table = np.zeros((rows, width), np.float32)
        where = np.arange(16, dtype=np.int32) * 2  # 1000 + 24 = 1024 is the first past row 1023
        out = np.zeros((16, width), np.float32)
        with self.assertRaises(Exception) as raised:
            pick(table, where, out)
        self.assertIn("test_gather_rows.py", str(raised.exception))
        self.assertIn("index 1024", str(raised.exception))  # the first bad one: 1000 + 2 * 12


if __name__ == "__main__":
    unittest.main()
