"""A reshape without valid_shape of a tensor valid in part whose valid elements are no row-major prefix of the
result for every run-time size: the result is whole, PyPTO's Reshape default (issue 33; Qwen3-Next's
gated_delta_rule_impl.py:205 reshapes a row of a chunk valid in `actual_l` columns into [8, 16]).

Before, the compiler refused such a reshape and the kernel ran on the reference interpreter. Now it compiles and
simulates; the elements past the source's valid part hold unspecified values (PyPTO's too), so only the valid
prefix is compared with numpy, exactly (a scale by 2 and an add of 1 are exact in fp32).
"""
import unittest

import numpy as np

import pypto
from kernel_checks import assert_functional as simulated

ROW = 128


@pypto.frontend.jit
def row_as_blocks(x: pypto.Tensor([1, ROW], pypto.DT_FP32), length: pypto.Tensor([1], pypto.DT_INT32),
                  out: pypto.Tensor([8, ROW // 8], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, ROW)
    n = length[0]
    row = pypto.view(x, [1, ROW], [0, 0], valid_shape=[1, n]) * 2.0
    blocks = pypto.reshape(row, [8, ROW // 8])  # valid [1, n]: no [r, c] box of [8, 16] for every n
    out[:] = blocks + 1.0


class ReshapeValidDefault(unittest.TestCase):
    def test_the_valid_prefix_is_computed_and_simulated(self):
        rng = np.random.default_rng(20261130)
        for n in (128, 100, 37):
            with self.subTest(n=n):
                x = rng.uniform(-1, 1, (1, ROW)).astype(np.float32)
                out = np.zeros((8, ROW // 8), np.float32)
                row_as_blocks(x, np.array([n], np.int32), out)
                simulated(self)
                np.testing.assert_array_equal(out.reshape(-1)[:n], x.reshape(-1)[:n] * 2 + 1)


if __name__ == "__main__":
    unittest.main()
