"""The indexing (gather, scatter, ...) and sorting ops of the pypto API, run on the reference interpreter and
compared with numpy under the tolerances numpy_op_checks.py states (its docstring says how every numpy op test
works)."""
import unittest

import numpy as np

import pypto

from numpy_op_checks import (FLOATS, NUMPY, RNG, assert_equal, random_data, run, with_specials)


# --- indexing -----------------------------------------------------------------------------------------------

INDEX_DTYPES = ("fp32", "fp16", "bf16", "int8", "int32")


class Indexing(unittest.TestCase):
    def test_gather(self):
        for dtype in INDEX_DTYPES:
            for index_dtype in ("int32", "int64"):
                x = random_data(dtype, (5, 37))
                for dim, index_shape in ((0, (3, 37)), (0, (7, 20)), (1, (5, 50)), (1, (2, 3)), (-1, (4, 37))):
                    index = RNG.integers(0, x.shape[dim], size=index_shape).astype(NUMPY[index_dtype])
                    got = run(lambda a, i: pypto.gather(a, dim, i), [(dtype, x), (index_dtype, index)], dtype,
                              index_shape, tile=None)
                    if dim == 0:
                        expected = x[index, np.arange(index_shape[1])[None, :]]
                    else:
                        expected = x[np.arange(index_shape[0])[:, None], index]
                    assert_equal(self, got, expected, f"gather {dtype} idx {index_dtype} dim={dim} {index_shape}")

    def test_gather_rank_three(self):
        x = random_data("fp16", (4, 5, 37))
        index = RNG.integers(0, 5, size=(4, 3, 37)).astype(np.int32)
        got = run(lambda a, i: pypto.gather(a, 1, i), [("fp16", x), ("int32", index)], "fp16", index.shape, tile=None)
        assert_equal(self, got, np.take_along_axis(x, index, 1), "gather dim 1 of rank 3")

    def test_gather_example_from_pypto_docs(self):
        x = np.arange(15, dtype=np.int32).reshape(3, 5)
        index = np.array([[0, 1, 2, 0], [1, 2, 0, 1], [2, 2, 1, 0]], np.int32)
        got = run(lambda a, i: a.gather(0, i), [("int32", x), ("int32", index)], "int32", (3, 4), tile=None)
        assert_equal(self, got, [[0, 6, 12, 3], [5, 11, 2, 8], [10, 11, 7, 3]], "gather doc example")

    def test_index_select(self):
        for dtype in INDEX_DTYPES:
            x = random_data(dtype, (2, 6, 37))
            for dim in (0, 1, 2, -1):
                index = RNG.integers(0, x.shape[dim], size=9).astype(np.int32)
                shape = list(x.shape)
                shape[dim] = 9
                got = run(lambda a, i: pypto.index_select(a, dim, i), [(dtype, x), ("int32", index)], dtype, shape,
                          tile=None)
                assert_equal(self, got, np.take(x, index, axis=dim), f"index_select {dtype} dim={dim}")

    def test_scatter_with_the_last_duplicate_winning(self):
        for dtype in INDEX_DTYPES:
            for dim, index_shape in ((0, (3, 37)), (1, (5, 20)), (1, (2, 37)), (-2, (5, 5))):
                x = random_data(dtype, (5, 37))
                src = random_data(dtype, (5, 37))
                index = RNG.integers(0, x.shape[dim], size=index_shape).astype(np.int64)
                got = run(lambda a, i, s: pypto.scatter(a, dim, i, s), [(dtype, x), ("int64", index), (dtype, src)],
                          dtype, x.shape, tile=None)
                expected = x.copy()
                for p in np.ndindex(*index_shape):  # C order: a later write wins
                    target = list(p)
                    target[dim % 2] = index[p]
                    expected[tuple(target)] = src[p]
                assert_equal(self, got, expected, f"scatter {dtype} dim={dim} {index_shape}")

    def test_scatter_update(self):
        for dtype in INDEX_DTYPES:
            x = random_data(dtype, (6, 4, 37))
            for dim in (0, 1, 2):
                count = min(3, x.shape[dim])
                index = RNG.permutation(x.shape[dim])[:count].astype(np.int32)
                src_shape = list(x.shape)
                src_shape[dim] = count
                src = random_data(dtype, tuple(src_shape))
                got = run(lambda a, i, s: pypto.scatter_update(a, dim, i, s),
                          [(dtype, x), ("int32", index), (dtype, src)], dtype, x.shape, tile=None)
                expected = x.copy()
                slicer = [slice(None)] * 3
                slicer[dim] = index
                expected[tuple(slicer)] = src
                assert_equal(self, got, expected, f"scatter_update {dtype} dim={dim}")

    def test_out_of_range_index_is_an_error(self):
        x = random_data("fp32", (5, 37))
        index = np.array([0, 5], np.int32)
        with self.assertRaises(pypto.KernelError) as caught:
            run(lambda a, i: pypto.index_select(a, 0, i), [("fp32", x), ("int32", index)], "fp32", (2, 37), tile=None)
        self.assertIn("out of range", caught.exception.message)


# --- sorting ------------------------------------------------------------------------------------------------

def stable_order(values, axis, descending):
    """Indices sorting `values` along axis; ties keep the lower index first in both directions."""
    values = np.asarray(values, np.float64)
    return np.argsort(-values if descending else values, axis=axis, kind="stable")


class Sorting(unittest.TestCase):
    def test_topk_values_and_indices(self):
        for dtype in FLOATS + ("int8", "int32", "uint8"):
            for shape, k, dim in (((3, 37), 5, -1), ((6, 130), 1, 1), ((6, 130), 130, -1), ((7, 20), 3, 0),
                                  ((2, 5, 37), 4, 1)):
                x = random_data(dtype, shape, 0, 9)
                if dtype in FLOATS:
                    x = np.round(x).astype(x.dtype)  # ties
                for largest in (True, False):
                    values, indices = run(lambda a: pypto.topk(a, k, dim, largest), [(dtype, x)], None, None,
                                          tile=None, outputs=[(dtype, self.topk_shape(shape, k, dim)),
                                                              ("int32", self.topk_shape(shape, k, dim))])
                    order = np.take(stable_order(x, dim, largest), np.arange(k), axis=dim)
                    self.assertEqual(indices.dtype, np.int32)
                    assert_equal(self, indices, order, f"topk indices {dtype} {shape} k={k} largest={largest}")
                    assert_equal(self, values, np.take_along_axis(x, order, axis=dim), f"topk values {dtype}")

    @staticmethod
    def topk_shape(shape, k, dim):
        shape = list(shape)
        shape[dim] = k
        return tuple(shape)

    def test_argsort_is_stable(self):
        for dtype in FLOATS + ("int16", "int64", "uint8"):
            for shape, dim in (((3, 37), -1), ((6, 130), 0), ((2, 5, 37), 1)):
                x = random_data(dtype, shape, 0, 5)
                if dtype in FLOATS:
                    x = np.round(x).astype(x.dtype)
                for descending in (False, True):
                    got = run(lambda a: pypto.argsort(a, dim, descending), [(dtype, x)], "int32", shape, tile=None)
                    assert_equal(self, got, stable_order(x, dim, descending),
                                 f"argsort {dtype} {shape} dim={dim} descending={descending}")

    def test_nan_sorts_above_every_number(self):
        x = with_specials(random_data("fp32", (3, 37)), [np.nan, 1.0, np.inf, np.nan])
        values, indices = run(lambda a: pypto.topk(a, 3), [("fp32", x)], None, None, tile=None,
                              outputs=[("fp32", (3, 3)), ("int32", (3, 3))])
        assert_equal(self, indices[0], [0, 3, 2], "NaNs first, in index order, then inf")
        got = run(lambda a: pypto.argsort(a), [("fp32", x)], "int32", x.shape, tile=None)
        assert_equal(self, got[0, -3:], [2, 0, 3], "ascending: inf, then the NaNs")


if __name__ == "__main__":
    unittest.main()
