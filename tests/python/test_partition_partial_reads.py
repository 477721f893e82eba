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


class PartialReads(unittest.TestCase):
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
