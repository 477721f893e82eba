"""pypto.full takes PyPTO's parameter names (size, fill_value, dtype, valid_shape), so Qwen3-Next's
`pypto.full(size=[16, 16], fill_value=0.0, dtype=pypto.DT_FP32)` builds a filled tile. Compared with numpy."""
import unittest

import numpy as np

import pypto

import kernel_checks


@pypto.frontend.jit
def fill_blocks(x: pypto.Tensor([32, 32], pypto.DT_FP32), out: pypto.Tensor([32, 32], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(16, 16)
    zeros = pypto.full(size=[16, 16], fill_value=0.0, dtype=pypto.DT_FP32)
    halves = pypto.full([16, 16], fill_value=0.5, dtype=pypto.DT_FP32)
    out[:] = x + 1.0
    pypto.assemble(zeros + x[0:16, 0:16], [0, 0], out)
    pypto.assemble(halves, [16, 16], out)


class FullKeywords(unittest.TestCase):
    def test_full_by_keyword(self):
        x = np.random.default_rng(3).standard_normal((32, 32)).astype(np.float32)
        out = np.zeros_like(x)
        fill_blocks(x, out)
        kernel_checks.assert_functional(self)
        expected = x + np.float32(1.0)
        expected[0:16, 0:16] = x[0:16, 0:16]
        expected[16:, 16:] = 0.5
        np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)


if __name__ == "__main__":
    unittest.main()
