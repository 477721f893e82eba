"""pypto.interleave and pypto.deinterleave, built from modelled ops (concat, integer index arithmetic,
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


class Interleave(unittest.TestCase):
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
