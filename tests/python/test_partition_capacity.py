"""GraphPartition bounds a subgraph by the unified buffer, as PyPTO's partitioner bounds it by what fits on chip.

The kernels have the shape of PyPTO's MLA prolog RoPE (mla_prolog_quant_impl.py, rope_3d_v2) after a dequant
whose tile spans several tokens: every token's chain reads the dequant's tiles, so grouping data edges freely
ties all tokens' chains into one vector subgraph. The interleaved-pairs reshape's [1, 64, 32, 2] fp32 tile
pads its last dim of 2 to a 32-byte block (64 KiB in a2's 192 KiB unified buffer), and tile ops are listed
op by op over all tokens, so the one subgraph would hold every token's tiles at once (several hundred KiB).
The partition must cut it into subgraphs that each fit (they are simulated, not run on the reference
interpreter), and the results must match numpy.
"""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import numpy as np

import pypto

T, HEADS, ROPE = 8, 64, 64
BLOCKS = 2
UB_BYTES = 192 * 1024  # a2, per vector core
RNG = np.random.default_rng(20260601)


@pypto.frontend.jit
def dequant_rope(q: pypto.Tensor([BLOCKS * T, HEADS, ROPE], pypto.DT_FP32),
                 scale: pypto.Tensor([BLOCKS * T, HEADS, ROPE], pypto.DT_FP32),
                 cos: pypto.Tensor([BLOCKS * T, 1, ROPE], pypto.DT_FP32),
                 sin: pypto.Tensor([BLOCKS * T, 1, ROPE], pypto.DT_FP32),
                 out: pypto.Tensor([BLOCKS * T, HEADS, ROPE], pypto.DT_FP32)):
    for b in pypto.loop(0, BLOCKS, 1, name="BLOCK", idx_name="b"):
        rows = b * T
        # The dequant: one tile per 16 heads spans all T tokens of the block.
        pypto.set_vec_tile_shapes(T, 16, ROPE)
        x = pypto.view(q, [T, HEADS, ROPE], [rows, 0, 0]) * pypto.view(scale, [T, HEADS, ROPE], [rows, 0, 0])
        c = pypto.view(cos, [T, 1, ROPE], [rows, 0, 0])
        s = pypto.view(sin, [T, 1, ROPE], [rows, 0, 0])
        # rope_3d_v2: (even, odd) pairs de-interleaved into halves, then x * cos + rotate_half(x) * sin.
        pypto.set_vec_tile_shapes(1, 64, 128, 128)
        pairs = pypto.reshape(x, [T, HEADS, ROPE // 2, 2])
        halves = pypto.reshape(pypto.transpose(pairs, 2, 3), [T, HEADS, ROPE])
        pypto.set_vec_tile_shapes(1, 64, 64)
        first = pypto.view(halves, [T, HEADS, ROPE // 2], [0, 0, 0])
        second = pypto.view(halves, [T, HEADS, ROPE // 2], [0, 0, ROPE // 2])
        rotated = pypto.concat([second * -1.0, first], dim=-1)
        pypto.assemble(halves * c + rotated * s, [rows, 0, 0], out)


def dequant_rope_numpy(q, scale, cos, sin):
    # float64, so the reference rounds nothing the kernel's fp32 ops round.
    x = q.astype(np.float64) * scale
    halves = x.reshape(x.shape[0], HEADS, ROPE // 2, 2).transpose(0, 1, 3, 2).reshape(x.shape)
    rotated = np.concatenate([-halves[..., ROPE // 2:], halves[..., :ROPE // 2]], axis=-1)
    return halves * cos + rotated * sin


class PartitionCapacity(unittest.TestCase):
    def test_a_grouping_that_overflows_the_unified_buffer_is_cut_into_subgraphs_that_fit(self):
        shape = (BLOCKS * T, HEADS, ROPE)
        q = RNG.standard_normal(shape).astype(np.float32)
        scale = RNG.uniform(0.5, 2.0, shape).astype(np.float32)
        cos = RNG.uniform(-1.0, 1.0, (BLOCKS * T, 1, ROPE)).astype(np.float32)
        sin = RNG.uniform(-1.0, 1.0, (BLOCKS * T, 1, ROPE)).astype(np.float32)
        out = np.zeros(shape, np.float32)
        dequant_rope(q, scale, cos, sin, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        # Each output element is q*scale*cos + (+-)q'*scale'*sin: four fp32 roundings of values below ~10 in
        # magnitude; 1e-5 relative plus 1e-5 absolute covers them with room against float64 numpy.
        np.testing.assert_allclose(out, dequant_rope_numpy(q, scale, cos, sin), rtol=1e-5, atol=1e-5)
        # More than one vector subgraph per loop body: the block's tokens do not all fit at once.
        self.assertGreater(report["subgraphs"], 2)

    def test_a_pinned_scope_too_large_op_by_op_runs_its_row_chains_one_after_the_other(self):
        # PyPTO's sparse attention pins its whole key gather (2 048 keys in row tiles of 16, a dozen ops each)
        # into one subgraph with sg_set_scope. Listed op by op, every op's tiles would be live at once (here
        # 32 row tiles of 16 KiB per op: 512 KiB each); depth first, one row's chain finishes before the next.
        rows, width = 512, 256

        @pypto.frontend.jit
        def pinned_chain(x: pypto.Tensor([rows, width], pypto.DT_FP32), out: pypto.Tensor([rows, width], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(16, width)
            pypto.set_pass_options(sg_set_scope=7)
            e = pypto.exp(x)
            scaled = e * 0.5 + x
            pypto.assemble(pypto.mul(scaled, e), [0, 0], out)
            pypto.set_pass_options(sg_set_scope=-1)

        x = RNG.uniform(-2.0, 2.0, (rows, width)).astype(np.float32)
        out = np.zeros((rows, width), np.float32)
        pinned_chain(x, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["subgraphs"], 1)  # the scope stays whole
        e = np.exp(x.astype(np.float64))
        # A handful of fp32 roundings of terms below ~8 (about 2e-6 absolute after the last product; e * 0.5 + x
        # cancels near x = -0.35, so relative error alone does not bound it).
        np.testing.assert_allclose(out, (e * 0.5 + x) * e, rtol=1e-5, atol=1e-5)

    def test_chains_sharing_one_small_producer_each_fit(self):
        # The Cmps bit form of PyPTO's operation tests: every row tile's chain (compare, cast, group by 8,
        # weight, sum, cast) reads the one weights tile, so grouping freely puts all chains in the weights' group
        # up to the copy-in bound (lowered here to 512 KiB, about 32 chains; PyPTO's 100 MiB bound does the same
        # at the case's 186M elements). One overfull group makes every op of the scope check its merges: before,
        # only that group's ops were checked in each of three rounds, and the next unchecked chains filled the
        # weights' group again (291 KiB of unified buffer in one subgraph at these 80 chains).
        rows, width = 80 * 23, 176

        @pypto.frontend.jit(pass_options={"mg_copyin_upper_bound": 512 * 1024})
        def packed_compare(x: pypto.Tensor([rows, width], pypto.DT_FP32),
                           out: pypto.Tensor([rows, width // 8], pypto.DT_INT32)):
            pypto.set_vec_tile_shapes(23, width)
            bits = pypto.cast(pypto.ne(x, 0.5), pypto.DT_INT32)
            pypto.set_vec_tile_shapes(23, width // 8, 8)
            grouped = pypto.reshape(bits, [rows, width // 8, 8])
            weights = pypto.full([8], 2, pypto.DT_INT32) + 1
            out[:] = pypto.sum(pypto.mul(grouped, weights), -1)

        x = RNG.choice(np.array([0.5, -1.0], np.float32), (rows, width))
        out = np.zeros((rows, width // 8), np.int32)
        packed_compare(x, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        # Integers: exact. Each output counts its 8 inputs that differ from 0.5, times 3.
        np.testing.assert_array_equal(out, (x != 0.5).reshape(rows, width // 8, 8).sum(-1) * 3)

if __name__ == "__main__":
    unittest.main()
