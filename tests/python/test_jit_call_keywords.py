"""A jit kernel is called like a Python function, as PyPTO's JitCallableWrapper binds its call: tensors and
scalars may be passed by keyword (in any order), a parameter left out takes its default, and a keyword the
kernel has no parameter for is an error at the caller's line. PyPTO's front-end flag `new_ir` (which of its own
IR pipelines builds the kernel) is accepted with either value and traces the same kernel. Results are compared
with numpy (exact: one multiply-add in fp32)."""
import os
import unittest

import numpy as np

import pypto

import kernel_checks

HERE = os.path.abspath(__file__)
ROWS, COLS = 16, 64


@pypto.frontend.jit(new_ir=True, runtime_options={})
def scale_add(x: pypto.Tensor([ROWS, COLS], pypto.DT_FP32), y: pypto.Tensor([ROWS, COLS], pypto.DT_FP32),
              out: pypto.Tensor([ROWS, COLS], pypto.DT_FP32), alpha=2.0, beta=0.5):
    pypto.set_vec_tile_shapes(8, COLS)
    out[:] = x * alpha + y * beta


@pypto.frontend.jit(new_ir=False)
def plain_copy(x: pypto.Tensor([ROWS, COLS], pypto.DT_FP32), out: pypto.Tensor([ROWS, COLS], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(8, COLS)
    out[:] = x + 0.0


class KeywordCalls(unittest.TestCase):
    def setUp(self):
        rng = np.random.default_rng(20261129)
        self.x = rng.standard_normal((ROWS, COLS)).astype(np.float32)
        self.y = rng.standard_normal((ROWS, COLS)).astype(np.float32)

    def expected(self, alpha, beta):
        return self.x * np.float32(alpha) + self.y * np.float32(beta)

    def test_tensors_and_scalars_by_keyword(self):
        out = np.zeros((ROWS, COLS), np.float32)
        scale_add(out=out, y=self.y, x=self.x)
        kernel_checks.assert_functional(self)
        np.testing.assert_allclose(out, self.expected(2.0, 0.5), rtol=1e-6, atol=1e-6)

    def test_a_skipped_parameter_takes_its_default(self):
        out = np.zeros((ROWS, COLS), np.float32)
        scale_add(self.x, self.y, out, beta=-1.0)  # alpha keeps 2.0
        np.testing.assert_allclose(out, self.expected(2.0, -1.0), rtol=1e-6, atol=1e-6)
        scale_add(self.x, self.y, out=out, alpha=3.0)
        np.testing.assert_allclose(out, self.expected(3.0, 0.5), rtol=1e-6, atol=1e-6)

    def test_new_ir_false_traces_the_same_kernel(self):
        out = np.zeros((ROWS, COLS), np.float32)
        plain_copy(self.x, out)
        np.testing.assert_array_equal(out, self.x)

    def test_unknown_keyword_names_the_call(self):
        out = np.zeros((ROWS, COLS), np.float32)
        with self.assertRaises(pypto.KernelError) as caught:
            scale_add(self.x, self.y, out, gamma=1.0)  # marker: unknown keyword
        error = caught.exception
        self.assertEqual((error.file, error.line), (HERE, kernel_checks.line_of(HERE, "marker: unknown keyword")))
        self.assertIn("scale_add has no parameter 'gamma' (it takes x, y, out, alpha, beta)", error.message)

    def test_a_parameter_given_twice_is_refused(self):
        out = np.zeros((ROWS, COLS), np.float32)
        with self.assertRaises(pypto.KernelError) as caught:
            scale_add(self.x, self.y, out, x=self.x)
        self.assertIn("got parameter 'x' twice", caught.exception.message)

    def test_new_ir_takes_a_bool(self):
        with self.assertRaises(pypto.KernelError) as caught:
            pypto.frontend.jit(new_ir="yes")  # marker: bad new_ir
        self.assertEqual(caught.exception.line, kernel_checks.line_of(HERE, "marker: bad new_ir"))
        self.assertIn("jit option new_ir takes True or False, got 'yes'", caught.exception.message)


if __name__ == "__main__":
    unittest.main()
