"""PyPTO's own operation tests loop over the blocks of a view shape that need not divide the tensor: the last
block's view reaches past the tensor's end, and a view may be larger than a small tensor altogether; valid_shape
(pypto.min(size - i * view, view)) says how much of each block holds data. As in PyPTO, such views are accepted
with offsets from loop indices: the valid part is computed, tiles of the part past the end move nothing, and
the assemble writes the valid part only.

Every kernel runs through the compiler and the functional simulator (checked) and is compared with numpy;
the results are exact (an add of 1.0 and a copy, in fp32). The output is pre-filled with a sentinel so a write
past the valid part would show.
"""
import unittest

import numpy as np

import pypto

import kernel_checks

RNG = np.random.default_rng(20261130)


@pypto.frontend.jit
def blocks_past_the_end(x: pypto.Tensor([16, 384], pypto.DT_FP32), out: pypto.Tensor([16, 384], pypto.DT_FP32)):
    # 4 x 4 blocks of [5, 126]: the last row block holds 1 row, the last column block 6 columns.
    for i in pypto.loop(0, 4, 1, name="rows", idx_name="i"):
        for j in pypto.loop(0, 4, 1, name="columns", idx_name="j"):
            block = pypto.view(x, [5, 126], [i * 5, j * 126],
                               valid_shape=[pypto.min(16 - i * 5, 5), pypto.min(384 - j * 126, 126)])
            pypto.set_vec_tile_shapes(8, 8)
            pypto.assemble(pypto.add(block, 1.0), [i * 5, j * 126], out)


@pypto.frontend.jit
def view_larger_than_the_tensor(x: pypto.Tensor([32, 128, 1, 1], pypto.DT_FP32),
                                out: pypto.Tensor([32, 128, 1, 1], pypto.DT_FP32)):
    # Blocks of [1, 49, 2, 2] over dims of 1: every block is partly outside, in two dims at once.
    for i in pypto.loop(0, 32, 1, name="a", idx_name="i"):
        for j in pypto.loop(0, 3, 1, name="b", idx_name="j"):
            block = pypto.view(x, [1, 49, 2, 2], [i, j * 49, 0, 0],
                               valid_shape=[1, pypto.min(128 - j * 49, 49), 1, 1])
            pypto.set_vec_tile_shapes(1, 16, 2, 8)
            pypto.assemble(pypto.mul(block, 3.0), [i, j * 49, 0, 0], out)


class ViewBlocksPastTheEnd(unittest.TestCase):
    def test_the_last_blocks_compute_their_valid_part_only(self):
        x = RNG.uniform(-1, 1, (16, 384)).astype(np.float32)
        out = np.full((16, 384), 1234.5, np.float32)
        blocks_past_the_end(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, x + np.float32(1))

    def test_a_view_larger_than_a_small_tensor(self):
        x = RNG.uniform(-1, 1, (32, 128, 1, 1)).astype(np.float32)
        out = np.full((32, 128, 1, 1), 1234.5, np.float32)
        view_larger_than_the_tensor(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, x * np.float32(3))


if __name__ == "__main__":
    unittest.main()
