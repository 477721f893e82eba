"""pypto.interleave, pypto.deinterleave and pypto.gathermask, built from modelled ops (concat, integer index arithmetic,
index_select along the last dim), through the compiler and the functional simulator with a vec tile that cuts
the rows. numpy gives the expected values (np.stack(...).reshape for the merged row, [0::2] / [1::2] for the
split), compared exactly: both ops only move elements.
"""
import unittest

import numpy as np

import pypto

import kernel_checks

R, N = 8, 64


@pypto.frontend.jit
def both(a: pypto.Tensor([R, N], pypto.DT_FP16), b: pypto.Tensor([R, N], pypto.DT_FP16),
         first: pypto.Tensor([R, N], pypto.DT_FP16), second: pypto.Tensor([R, N], pypto.DT_FP16),
         evens: pypto.Tensor([R, N], pypto.DT_FP16), odds: pypto.Tensor([R, N], pypto.DT_FP16)):
    pypto.set_vec_tile_shapes(2, 64)
    first[:], second[:] = pypto.interleave(a, b)
    evens[:], odds[:] = pypto.deinterleave(a, b)


@pypto.frontend.jit
def split_one(x: pypto.Tensor([R, 2 * N], pypto.DT_INT32), evens: pypto.Tensor([R, N], pypto.DT_INT32),
              odds: pypto.Tensor([R, N], pypto.DT_INT32)):
    pypto.set_vec_tile_shapes(4, 64)
    evens[:], odds[:] = pypto.deinterleave(x)


@pypto.frontend.jit
def masks(x: pypto.Tensor([6, 48], pypto.DT_FP32), halves: pypto.Tensor([6, 24], pypto.DT_FP32),
          quarters: pypto.Tensor([6, 12], pypto.DT_FP32)):
    for b in pypto.loop(0, 2, 1, name="rows", idx_name="b"):
        # View blocks of 4 rows: the second reaches past the end and holds 2 (valid_shape), as PyPTO's tests cut.
        block = pypto.view(x, [4, 48], [b * 4, 0], valid_shape=[pypto.min(6 - b * 4, 4), 48])
        pypto.set_vec_tile_shapes(2, 48)
        pypto.assemble(pypto.gathermask(block, 2), [b * 4, 0], halves)
        pypto.assemble(block.gathermask(5), [b * 4, 0], quarters)


class Interleave(unittest.TestCase):
    def test_gathermask_keeps_one_element_in_two_or_four(self):
        x = np.random.default_rng(6).standard_normal((6, 48)).astype(np.float32)
        halves, quarters = np.zeros((6, 24), np.float32), np.zeros((6, 12), np.float32)
        masks(x, halves, quarters)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(halves, x[:, 1::2])    # mode 2: the second of every two
        np.testing.assert_array_equal(quarters, x[:, 2::4])  # mode 5: the third of every four

    def test_two_rows_merged_and_split(self):
        rng = np.random.default_rng(5)
        a = rng.standard_normal((R, N)).astype(np.float16)
        b = rng.standard_normal((R, N)).astype(np.float16)
        outs = [np.zeros((R, N), np.float16) for _ in range(4)]
        both(a, b, *outs)
        kernel_checks.assert_functional(self)
        merged = np.stack([a, b], -1).reshape(R, 2 * N)
        np.testing.assert_array_equal(outs[0], merged[:, :N])
        np.testing.assert_array_equal(outs[1], merged[:, N:])
        row = np.concatenate([a, b], -1)
        np.testing.assert_array_equal(outs[2], row[:, 0::2])
        np.testing.assert_array_equal(outs[3], row[:, 1::2])

    def test_one_row_split_into_even_and_odd(self):
        x = np.arange(R * 2 * N, dtype=np.int32).reshape(R, 2 * N) * 3 - 500
        evens, odds = np.zeros((R, N), np.int32), np.zeros((R, N), np.int32)
        split_one(x, evens, odds)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(evens, x[:, 0::2])
        np.testing.assert_array_equal(odds, x[:, 1::2])


if __name__ == "__main__":
    unittest.main()
