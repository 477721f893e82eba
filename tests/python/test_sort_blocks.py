"""pypto.sort32 and pypto.mrgsort, PyPTO's sort building blocks, as its interpreter defines them
(interface/interpreter/calculator/calc_torch.cpp, BitSort and MrgSort): sort32 sorts each run of 32 values of the
last dim in descending order, equal values by index, and interleaves (value, index) pairs, the index (position in
the row plus `index`) stored as a float value; mrgsort merges a row's pairs into one run sorted the same way.
Both run through the compiler and the functional simulator and are compared with numpy exactly (a sort moves
values, it computes none): numpy's stable argsort of the negated values, run by run, gives the order. Ties are
forced by drawing values from a few levels; a row shorter than a multiple of 32 ends in a short run."""
import unittest

import numpy as np
import torch

import pypto

import kernel_checks

RNG = np.random.default_rng(20261201)
ROWS, WIDTH, TAIL = 8, 96, 40  # three full runs; one full run and one of 8


def numpy_sort32(x, index=0):
    rows, width = x.shape
    out = np.empty((rows, 2 * width), dtype=np.float32)
    for r in range(rows):
        for start in range(0, width, 32):
            run = x[r, start:start + 32]
            order = np.argsort(-run, kind="stable")  # descending; equal values keep index order
            out[r, 2 * start:2 * (start + len(run)):2] = run[order]
            out[r, 2 * start + 1:2 * (start + len(run)):2] = (order + start + index).astype(np.float32)
    return out


def numpy_mrgsort(pairs):
    values, indices = pairs[:, 0::2], pairs[:, 1::2]
    out = np.empty_like(pairs)
    for r in range(pairs.shape[0]):
        order = np.lexsort((indices[r], -values[r]))  # by value descending, then index ascending
        out[r, 0::2], out[r, 1::2] = values[r, order], indices[r, order]
    return out


@pypto.frontend.jit
def sort_then_merge(x: pypto.Tensor([ROWS, WIDTH], pypto.DT_FP32), runs: pypto.Tensor([ROWS, 2 * WIDTH], pypto.DT_FP32),
                    merged: pypto.Tensor([ROWS, 2 * WIDTH], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(4, 2 * WIDTH)
    sorted_runs = pypto.sort32(x, 5)
    runs[:] = sorted_runs
    merged[:] = pypto.mrgsort(sorted_runs, 64)


@pypto.frontend.jit
def sort_tail(x: pypto.Tensor([ROWS, TAIL], pypto.DT_FP32), runs: pypto.Tensor([ROWS, 2 * TAIL], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 2 * TAIL)
    runs[:] = x.sort32()


class SortBlocks(unittest.TestCase):
    def test_sort32_runs_and_their_merge_match_numpy(self):
        x = RNG.integers(-6, 6, size=(ROWS, WIDTH)).astype(np.float32) / 2  # 12 levels: many ties
        x[0, 3] = np.inf
        x[1, 40] = -np.inf
        runs = torch.zeros((ROWS, 2 * WIDTH))
        merged = torch.zeros((ROWS, 2 * WIDTH))
        sort_then_merge(torch.from_numpy(x), runs, merged)
        kernel_checks.assert_functional(self)
        want_runs = numpy_sort32(x, index=5)
        np.testing.assert_array_equal(runs.numpy(), want_runs)
        np.testing.assert_array_equal(merged.numpy(), numpy_mrgsort(want_runs))
        # The merged row is the whole row sorted: the values in descending order, ties by index.
        np.testing.assert_array_equal(merged.numpy()[:, 0::2], -np.sort(-x, axis=1))

    def test_a_row_that_ends_in_a_short_run(self):
        x = RNG.standard_normal((ROWS, TAIL)).astype(np.float32)
        runs = torch.zeros((ROWS, 2 * TAIL))
        sort_tail(torch.from_numpy(x), runs)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(runs.numpy(), numpy_sort32(x))

    def test_refused_where_pypto_refuses(self):
        @pypto.frontend.jit
        def half(x: pypto.Tensor([4, 32], pypto.DT_FP16), y: pypto.Tensor([4, 64], pypto.DT_FP16)):
            pypto.set_vec_tile_shapes(4, 64)
            y[:] = pypto.sort32(x)

        with self.assertRaises(pypto.KernelError) as caught:
            half(torch.zeros((4, 32), dtype=torch.float16), torch.zeros((4, 64), dtype=torch.float16))
        self.assertIn("sort32: takes float32 (as PyPTO's), got float16 [4, 32]", str(caught.exception))
        self.assertIn("test_sort_blocks.py", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
