"""vec_nbuffer_setting's key -2 is PyPTO's switch for merging subgraphs with several inputs or outputs ({-2: 0}
automatic, {-2: 1} by the other keys' counts; PyPTO's NBufferMerge). PTO Studio's merge takes such subgraphs in
every mode, so the key has no effect: a kernel with {-1: 2, -2: 1} (PyPTO's QAT and DeepSeek-V3.2 kernels) is
compiled and simulated, not refused. Other values for -2 and keys below -2 are errors at the kernel's line, as in
PyPTO. Compared with numpy (exact: a multiply by 2 in fp32)."""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)


@pypto.frontend.jit(pass_options={"vec_nbuffer_setting": {-1: 2, -2: 1}})
def doubled(x: pypto.Tensor([64, 64], pypto.DT_FP32), out: pypto.Tensor([64, 64], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, 64)
    out[:] = x * 2.0


class MultiInOutKey(unittest.TestCase):
    def test_the_kernel_is_simulated(self):
        x = np.random.default_rng(2).standard_normal((64, 64)).astype(np.float32)
        out = np.zeros_like(x)
        doubled(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, x * np.float32(2))

    def test_in_a_scope_inside_the_kernel(self):
        @pypto.frontend.jit
        def scoped(x: pypto.Tensor([64, 64], pypto.DT_FP32), out: pypto.Tensor([64, 64], pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(8, 64)
            pypto.set_pass_options(vec_nbuffer_setting={-2: 1, -1: 4})
            out[:] = x + 1.0

        x = np.arange(64 * 64, dtype=np.float32).reshape(64, 64)
        out = np.zeros_like(x)
        scoped(x, out)
        kernel_checks.assert_functional(self)
        np.testing.assert_array_equal(out, x + np.float32(1))

    def test_wrong_values_are_refused(self):
        for setting, expected in (({-2: 3}, "key -2 switches merging of subgraphs with several inputs or outputs: "
                                            "{-2: 0} merges them automatically, {-2: 1} by the other keys' counts; "
                                            "got 3"),
                                  ({-3: 1}, "key -3 is below -2")):
            with self.assertRaises(pypto.KernelError) as caught:
                @pypto.frontend.jit(pass_options={"vec_nbuffer_setting": setting})
                def refused(x: pypto.Tensor([64, 64], pypto.DT_FP32)):  # marker: refused kernel
                    pass
            self.assertIn(expected, caught.exception.message)
            self.assertEqual(caught.exception.file, HERE)


if __name__ == "__main__":
    unittest.main()
