"""experimental.gather_in_ub addresses rows from its source's start in global memory, as PyPTO's does: DeepSeek-V4's
sparse attention passes `pypto.view(cmp_kv, [topk, d], [0, 0])` as the cache and gathers token rows anywhere in
the whole compressed cache. A source that is a view of whole rows is therefore read as the tensor underneath,
rows counted from the view's first row (here also a view at a later row). Compared with numpy, exactly (a gather
copies rows)."""
import unittest

import numpy as np

import pypto
from pypto.experimental import gather_in_ub

import kernel_checks

BLOCK, D, K = 8, 16, 4


@pypto.frontend.jit
def gather_from_window(cache: pypto.Tensor([pypto.DYNAMIC, D], pypto.DT_FP32),
                       tokens: pypto.Tensor([1, K], pypto.DT_INT32),
                       table: pypto.Tensor([1, 8], pypto.DT_INT32),
                       out: pypto.Tensor([2 * K, D], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(K, D)
    window = pypto.view(cache, [K, D], [0, 0])  # only the start of the cache
    out[0:K, :] = gather_in_ub(window, tokens, table, BLOCK, -2)
    later = pypto.view(cache, [K, D], [BLOCK, 0])  # starts one block in
    out[K:2 * K, :] = gather_in_ub(later, tokens, table, BLOCK, -2)


class GatherFromAView(unittest.TestCase):
    def test_rows_past_the_view_come_from_the_tensor(self):
        rng = np.random.default_rng(13)
        cache = rng.standard_normal((9 * BLOCK, D)).astype(np.float32)
        table = np.array([[7, 3, 5, 0, 1, 2, 4, 6]], np.int32)
        tokens = np.array([[0, 9, 17, 30]], np.int32)
        out = np.zeros((2 * K, D), np.float32)
        gather_from_window(cache, tokens, table, out)
        kernel_checks.assert_functional(self)
        rows = table[0, tokens[0] // BLOCK] * BLOCK + tokens[0] % BLOCK
        np.testing.assert_array_equal(out[:K], cache[rows])
        np.testing.assert_array_equal(out[K:], cache[rows + BLOCK])


if __name__ == "__main__":
    unittest.main()
