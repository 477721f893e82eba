"""`cache.move(scatter_update(cache_2d, -2, index, rows))` with cache_2d = reshape(cache, [n, d], inplace=True), as
PyPTO's GLM attention writes its paged KV cache: the scatter updates the cache's own bytes through the 2-D
reshape, and PyPTO's move then rebinds the 4-D cache to them, so nothing moves and only the named rows change.
A move between tensors that share no bytes still needs the same shape. Compared with numpy, exactly (a copy)."""
import unittest

import numpy as np

import pypto

import kernel_checks

BLOCKS, BLOCK_SIZE, D, TOKENS = 4, 8, 32, 3


@pypto.frontend.jit
def write_cache(cache: pypto.Tensor([BLOCKS, BLOCK_SIZE, 1, D], pypto.DT_FP32),
                slots: pypto.Tensor([TOKENS, 1], pypto.DT_INT32),
                rows: pypto.Tensor([TOKENS, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(TOKENS, D)
    cache_2d = pypto.reshape(cache, [BLOCKS * BLOCK_SIZE, D], inplace=True)
    cache.move(pypto.scatter_update(cache_2d, -2, slots, rows * 2.0))


class MoveThroughAnInPlaceReshape(unittest.TestCase):
    def test_only_the_named_rows_change(self):
        rng = np.random.default_rng(21)
        cache = rng.standard_normal((BLOCKS, BLOCK_SIZE, 1, D)).astype(np.float32)
        slots = np.array([[5], [17], [30]], np.int32)
        rows = rng.standard_normal((TOKENS, D)).astype(np.float32)
        expected = cache.copy().reshape(BLOCKS * BLOCK_SIZE, D)
        expected[slots[:, 0]] = rows * np.float32(2)
        write_cache(cache, slots, rows)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(cache.reshape(BLOCKS * BLOCK_SIZE, D), expected)


if __name__ == "__main__":
    unittest.main()
