"""A consumer tile whose read is produced by many producer tiles must not share a subgraph with only some of
them. PyPTO's MLA prolog cuts the query projection's reshape `[t, n * 192] -> [t, n, 192]` into `[t, 1, 192]`
tiles (one head each) and then reads `[1, 64, 64]` slices of the rope part across 64 heads: grouping such a
slice's consumer with one head's reshape tile made a subgraph that loads the whole slice from global memory
before storing its own head into it, which the functional simulator could not even lay out
(mla_prolog_quant_impl.py:657). The consumer now starts its own subgraph, after all its producers' tasks.
The kernel is simulated and compared with numpy (exact: copies and a cast of bf16 to fp32 and back lose
nothing; the multiply by 1.0 is exact).
"""
import unittest

import numpy as np
import torch

import pypto

T, HEADS, HEAD_DIM, ROPE = 8, 128, 192, 64


@pypto.frontend.jit
def rope_slices(q: pypto.Tensor([T, HEADS * HEAD_DIM], pypto.DT_BF16),
                out: pypto.Tensor([T, HEADS, ROPE], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(T, HEAD_DIM)
    computed = pypto.mul(q, 1.0)
    pypto.set_vec_tile_shapes(T, 1)  # as the MLA prolog's q_norm_scale leaves it: [T, 1, 192] reshape tiles
    heads = pypto.reshape(computed, [T, HEADS, HEAD_DIM])
    rope = pypto.view(heads, [T, HEADS, ROPE], [0, 0, HEAD_DIM - ROPE])
    pypto.set_vec_tile_shapes(1, 64, ROPE)  # a slice across 64 heads
    pypto.assemble(pypto.cast(rope, pypto.DT_FP32), [0, 0, 0], out)


@pypto.frontend.jit
def scaled_heads(x: pypto.Tensor([T, 64, ROPE], pypto.DT_FP32), c: pypto.Tensor([T, ROPE], pypto.DT_FP32),
                 out: pypto.Tensor([T, 64, ROPE], pypto.DT_FP32)):
    # The MLA prolog's RoPE (mla_prolog_quant_impl.py:359): one operand made in [1, 32, 64] tiles and read as
    # [1, 64, 64] (two pieces), the other a [1, 1, 64] row of a [4, 1, 64] tile made earlier (part of one
    # buffer), in one multiply.
    pypto.set_vec_tile_shapes(4, ROPE)
    row = pypto.reshape(pypto.mul(c, 2.0), [T, 1, ROPE])
    pypto.set_vec_tile_shapes(1, 32, ROPE)
    halves = pypto.mul(x, 3.0)
    pypto.set_vec_tile_shapes(1, 64, ROPE)
    pypto.assemble(pypto.mul(halves, row), [0, 0, 0], out)


class PartialReads(unittest.TestCase):
    def test_an_operand_inside_a_larger_tile_beside_one_in_pieces(self):
        rng = np.random.default_rng(7)
        x = rng.standard_normal((T, 64, ROPE)).astype(np.float32)
        c = rng.standard_normal((T, ROPE)).astype(np.float32)
        out = np.zeros((T, 64, ROPE), np.float32)
        scaled_heads(x, c, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        # fp32 products of exact scalings: (3x) * (2c) rounds once, as numpy's float32 does.
        np.testing.assert_array_equal(out, (x * np.float32(3.0)) * (c * np.float32(2.0))[:, None, :])

    def test_a_slice_across_many_reshape_tiles_is_read_after_all_of_them(self):
        q = torch.randn(T, HEADS * HEAD_DIM).to(torch.bfloat16)
        out = torch.zeros(T, HEADS, ROPE, dtype=torch.float32)
        rope_slices(q, out)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        expected = q.float().reshape(T, HEADS, HEAD_DIM)[:, :, HEAD_DIM - ROPE:]
        np.testing.assert_array_equal(out.numpy(), expected.numpy())


if __name__ == "__main__":
    unittest.main()
