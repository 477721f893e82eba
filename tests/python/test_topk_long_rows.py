"""Top-k over rows longer than the vector tile, as the Lightning Indexer keeps the best 2 048 of up to 128K
scores: the compiler cuts the row into chunks of the tile's length (at least 2k), keeps each chunk's top k
with its row indices, and selects again over groups of those lists until one is left (ExpandFunction's
selection tree). Every case runs on the simulator (a whole 64K row would need 256 KiB of unified buffer)
and is compared exactly with numpy's stable argsort, which the tree must match tie for tie: the inputs are
rounded to a few distinct values so that most of the chosen elements tie with others.
"""
import unittest

import numpy as np

import pypto

RNG = np.random.default_rng(20261125)


def make_topk(length, k, tile, largest):
    @pypto.frontend.jit
    def topk_rows(x: pypto.Tensor([4, length], pypto.DT_FP32), values: pypto.Tensor([4, k], pypto.DT_FP32),
                  indices: pypto.Tensor([4, k], pypto.DT_INT32)):
        pypto.set_vec_tile_shapes(1, tile)
        best, where = pypto.topk(x, k, dim=-1, largest=largest)
        values[:] = best
        indices[:] = where
    return topk_rows


def numpy_topk(x, k, largest):
    # numpy's stable sort keeps ties in index order; negating keeps them so for the largest (no NaN here).
    keys = -x if largest else x
    order = np.argsort(keys, axis=-1, kind="stable")[:, :k]
    return np.take_along_axis(x, order, -1), order.astype(np.int32)


class TopKLongRows(unittest.TestCase):
    def run_case(self, length, k, tile, largest=True, x=None):
        if x is None:
            x = np.round(RNG.standard_normal((4, length)) * 3).astype(np.float32)
        values = np.zeros((4, k), np.float32)
        indices = np.zeros((4, k), np.int32)
        make_topk(length, k, tile, largest)(x, values, indices)
        report = pypto.last_run()
        self.assertTrue(report["simulated"], report.get("simulation_error"))
        self.assertEqual(report["outputs_from"], "functional")
        want_values, want_indices = numpy_topk(x, k, largest)
        np.testing.assert_array_equal(indices, want_indices)
        np.testing.assert_array_equal(values, want_values)
        return report

    def test_64k_row_keeps_2048_like_the_indexer(self):
        # 64K fp32 scores are 256 KiB, more than a2's 192 KiB unified buffer: only the tree fits.
        report = self.run_case(65536, 2048, 4096)
        self.assertEqual(report["tasks"], 4)  # one task per row: each row's tree is one subgraph

    def test_smallest_and_a_tail_chunk_shorter_than_k(self):
        # 2 100 = 1 024 + 1 024 + 52: the last chunk keeps all its 52.
        self.run_case(2100, 300, 1024, largest=False)

    def test_several_levels_of_selection(self):
        # chunks of 200 (2k), groups of two lists: 5 000 -> 2 500 -> 1 300 -> 700 -> 400 -> 200 -> 100.
        self.run_case(5000, 100, 64)

    def test_row_short_enough_for_one_tile(self):
        self.run_case(512, 16, 1024)

    def test_nan_ranks_above_every_number(self):
        x = np.round(RNG.standard_normal((4, 3000)) * 3).astype(np.float32)
        x[0, [5, 2500]] = np.nan
        values = np.zeros((4, 64), np.float32)
        indices = np.zeros((4, 64), np.int32)
        make_topk(3000, 64, 512, True)(x, values, indices)
        self.assertTrue(pypto.last_run()["simulated"])
        self.assertEqual(list(indices[0, :2]), [5, 2500])
        finite = np.where(np.isnan(x), -np.inf, x)
        order = np.argsort(-finite[1:], axis=-1, kind="stable")[:, :64]
        np.testing.assert_array_equal(indices[1:], order)


if __name__ == "__main__":
    unittest.main()
