"""Reshapes and concats of computed tensors cut into tiles, as PyPTO's DeepSeek-V3.2 prologs use them: a [t, 64 * 128]
projection seen as [t, 64, 128] heads, the interleaved-RoPE round trip [t, h, 64] -> [t, h, 32, 2] ->
transpose -> [t, h, 64], heads merged into rows. Each would be one whole-tensor tile of 256 KiB or more in the
unified buffer (192 KiB on a2) without the cut, so every case here must be simulated (not fall back to the
reference interpreter), and its outputs must equal numpy's exactly (the data is only moved, scaled by 2 or
added, all exact in fp32).
"""
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261125)
T, HEADS, DIM = 8, 64, 128


def simulated(test):
    report = pypto.last_run()
    test.assertTrue(report["simulated"], report.get("simulation_error"))
    test.assertEqual(report["outputs_from"], "functional")
    return report


@pypto.frontend.jit
def split_heads(x: pypto.Tensor([T, HEADS * DIM], pypto.DT_FP32), out: pypto.Tensor([T, HEADS, DIM], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 2048)
    doubled = x * 2.0
    pypto.set_vec_tile_shapes(1, 16, DIM)
    heads = pypto.reshape(doubled, [T, HEADS, DIM])
    out[:] = heads + 1.0


@pypto.frontend.jit
def merge_heads(x: pypto.Tensor([T, HEADS, DIM], pypto.DT_FP32), out: pypto.Tensor([T * HEADS, DIM], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 16, DIM)
    doubled = x * 2.0
    pypto.set_vec_tile_shapes(24, DIM)   # 24 rows: not a multiple of the 64 heads, so tiles span two tokens
    rows = pypto.reshape(doubled, [T * HEADS, DIM])
    out[:] = rows + 1.0


@pypto.frontend.jit
def interleaved_pairs(x: pypto.Tensor([T, HEADS, 64], pypto.DT_FP32), out: pypto.Tensor([T, HEADS, 64], pypto.DT_FP32)):
    # De-interleave the rope half's (even, odd) pairs into two halves, PyPTO's rope_3d: [t, h, 32, 2] ->
    # transpose -> [t, h, 2, 32] -> [t, h, 64].
    pypto.set_vec_tile_shapes(1, 64, 64)
    doubled = x * 2.0
    pypto.set_vec_tile_shapes(1, 64, 128, 128)
    pairs = pypto.reshape(doubled, [T, HEADS, 32, 2])
    swapped = pypto.transpose(pairs, 2, 3)
    pypto.set_vec_tile_shapes(1, 64, 64)
    out[:] = pypto.reshape(swapped, [T, HEADS, 64]) + 1.0


@pypto.frontend.jit
def rope_halves(x: pypto.Tensor([T, HEADS, 64], pypto.DT_FP32), out: pypto.Tensor([T, HEADS, 64], pypto.DT_FP32)):
    # rotate_half: concat(-x2, x1) along the last dim, cut by tiles 48 wide that straddle the two halves.
    pypto.set_vec_tile_shapes(1, HEADS, 32)
    first = pypto.view(x, [T, HEADS, 32], [0, 0, 0]) * 1.0
    second = pypto.view(x, [T, HEADS, 32], [0, 0, 32]) * -1.0
    pypto.set_vec_tile_shapes(1, HEADS, 48)
    rotated = pypto.concat([second, first], dim=-1)
    pypto.set_vec_tile_shapes(1, HEADS, 64)
    out[:] = rotated + 1.0


class ReshapeTiles(unittest.TestCase):
    def test_split_a_projection_into_heads(self):
        x = RNG.standard_normal((T, HEADS * DIM)).astype(np.float32)
        out = np.zeros((T, HEADS, DIM), np.float32)
        split_heads(x, out)
        report = simulated(self)
        np.testing.assert_array_equal(out, (x * 2 + 1).reshape(T, HEADS, DIM))
        self.assertGreater(report["tasks"], 1)

    def test_merge_heads_into_rows_with_tiles_across_tokens(self):
        x = RNG.standard_normal((T, HEADS, DIM)).astype(np.float32)
        out = np.zeros((T * HEADS, DIM), np.float32)
        merge_heads(x, out)
        simulated(self)
        np.testing.assert_array_equal(out, (x * 2 + 1).reshape(T * HEADS, DIM))

    def test_interleaved_rope_pairs_round_trip(self):
        x = RNG.standard_normal((T, HEADS, 64)).astype(np.float32)
        out = np.zeros((T, HEADS, 64), np.float32)
        interleaved_pairs(x, out)
        simulated(self)
        expected = (x * 2).reshape(T, HEADS, 32, 2).transpose(0, 1, 3, 2).reshape(T, HEADS, 64) + 1
        np.testing.assert_array_equal(out, expected)

    def test_concat_cut_by_tiles_across_its_inputs(self):
        x = RNG.standard_normal((T, HEADS, 64)).astype(np.float32)
        out = np.zeros((T, HEADS, 64), np.float32)
        rope_halves(x, out)
        simulated(self)
        np.testing.assert_array_equal(out, np.concatenate([-x[..., 32:], x[..., :32]], axis=-1) + 1)


if __name__ == "__main__":
    unittest.main()
