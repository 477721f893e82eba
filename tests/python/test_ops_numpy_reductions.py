"""The reductions of the pypto API and the composites built on them (softmax, rms_norm, layer_norm), run on the
reference interpreter and compared with numpy under the tolerances numpy_op_checks.py states (its docstring says
how every numpy op test works)."""
import math
import unittest

import numpy as np

import pypto

from numpy_op_checks import (EPS32, FLOATS, INTS, NUMPY, as64, assert_close, assert_equal, assert_within, full_range,
                             random_data, run, ulp, unsigned, with_specials)


# --- reductions ---------------------------------------------------------------------------------------------

def reduced_shape(shape, dims, keepdim):
    dims = range(len(shape)) if dims is None else [d % len(shape) for d in np.atleast_1d(dims)]
    return tuple(1 if d in dims else n for d, n in enumerate(shape) if keepdim or d not in dims)


def numpy_axis(dims):
    return None if dims is None else tuple(np.atleast_1d(dims).tolist())


class Reductions(unittest.TestCase):
    CASES = [((3, 5, 37), None, False), ((3, 5, 37), -1, True), ((3, 5, 37), 0, False), ((3, 5, 37), 1, True),
             ((2, 7, 70), [0, 2], False), ((2, 7, 70), [1, 2], True), ((6, 130), -1, False), ((6, 130), 0, True),
             ((1, 1), None, True)]

    def reduce(self, function, dtype, x, dims, keepdim, out_dtype=None):
        shape = reduced_shape(x.shape, dims, keepdim)
        return run(lambda a: function(a, dim=dims, keepdim=keepdim), [(dtype, x)], out_dtype or dtype, shape)

    def test_sum_of_floats_accumulates_in_fp32(self):
        for dtype in FLOATS:
            for shape, dims, keepdim in self.CASES:
                x = random_data(dtype, shape)
                got = self.reduce(pypto.sum, dtype, x, dims, keepdim)
                axis = numpy_axis(dims)
                expected = np.sum(as64(x), axis=axis, keepdims=keepdim)
                n = x.size // max(expected.size, 1)
                bound = EPS32 * (8 + math.log2(max(n, 1))) * np.sum(np.abs(as64(x)), axis=axis, keepdims=keepdim)
                if dtype != "fp32":
                    bound = bound + ulp(dtype, expected)
                assert_within(self, got, expected, bound, f"sum {dtype} {shape} dim={dims} keepdim={keepdim}")

    def test_sum_of_a_long_row_is_pairwise_accurate(self):
        x = random_data("fp32", (2, 20000), 0.0, 1.0)
        got = self.reduce(pypto.sum, "fp32", x, -1, False)
        expected = np.sum(as64(x), axis=-1)
        assert_within(self, got, expected, EPS32 * (8 + math.log2(20000)) * expected, "sum of 20000")

    def test_prod_accumulates_sequentially_in_fp32(self):
        for dtype in FLOATS:
            for shape, dims, keepdim in self.CASES:
                x = random_data(dtype, shape, 0.9, 1.1)
                got = self.reduce(pypto.prod, dtype, x, dims, keepdim)
                expected = np.prod(as64(x), axis=numpy_axis(dims), keepdims=keepdim)
                n = x.size // max(expected.size, 1)
                bound = n * EPS32 * np.abs(expected) + (ulp(dtype, expected) if dtype != "fp32" else 0)
                assert_within(self, got, expected, bound, f"prod {dtype} {shape} dim={dims}")

    def test_amax_amin_are_exact_and_propagate_nan(self):
        for function, reference in ((pypto.amax, np.max), (pypto.amin, np.min)):
            for dtype in FLOATS + INTS:
                for shape, dims, keepdim in self.CASES:
                    x = full_range(dtype, shape) if dtype in INTS else random_data(dtype, shape)
                    got = self.reduce(function, dtype, x, dims, keepdim)
                    expected = reference(x, axis=numpy_axis(dims), keepdims=keepdim)
                    assert_equal(self, got, expected, f"{reference.__name__} {dtype} {shape} dim={dims}")
            x = with_specials(random_data("fp32", (3, 37)), [1.0, np.nan])
            got = self.reduce(function, "fp32", x, -1, False)
            assert_equal(self, got, reference(x, axis=-1), f"{reference.__name__} with NaN")

    def test_integer_sum_and_prod_wrap(self):
        for dtype in INTS:
            for shape, dims, keepdim in self.CASES[:6]:
                x = full_range(dtype, shape)
                got = self.reduce(pypto.sum, dtype, x, dims, keepdim)
                expected = np.sum(x.astype(np.int64), axis=numpy_axis(dims), keepdims=keepdim)
                assert_equal(self, got, expected.astype(NUMPY[dtype]), f"sum {dtype} {shape} dim={dims}")
                small = random_data(dtype, shape, 0 if unsigned(dtype) else -3, 3)
                got = self.reduce(pypto.prod, dtype, small, dims, keepdim)
                with np.errstate(over="ignore"):
                    expected = np.prod(small.astype(np.int64), axis=numpy_axis(dims), keepdims=keepdim)
                assert_equal(self, got, expected.astype(NUMPY[dtype]), f"prod {dtype} {shape} dim={dims}")

    def test_argmax_argmin_give_int32_and_the_first_of_ties(self):
        for function, reference in ((pypto.argmax, np.argmax), (pypto.argmin, np.argmin)):
            for dtype in FLOATS + INTS:
                for shape, dim, keepdim in (((3, 5, 37), -1, False), ((3, 5, 37), 1, True), ((6, 130), 0, False),
                                            ((6, 130), 1, True), ((1, 1), 0, False)):
                    x = random_data(dtype, shape, 0, 3)  # few distinct values: many ties
                    if dtype in FLOATS:
                        x = np.round(x).astype(x.dtype)
                    got = run(lambda a: function(a, dim, keepdim), [(dtype, x)], "int32",
                              reduced_shape(shape, dim, keepdim))
                    self.assertEqual(got.dtype, np.int32)
                    expected = reference(x, axis=dim)
                    if keepdim:
                        expected = np.expand_dims(expected, dim)
                    assert_equal(self, got, expected, f"{reference.__name__} {dtype} {shape} dim={dim}")
            x = with_specials(random_data("fp32", (3, 37)), [5.0, np.nan, 7.0, np.nan])
            got = run(lambda a: function(a, -1), [("fp32", x)], "int32", (3,))
            assert_equal(self, got, reference(x, axis=-1), f"{reference.__name__} takes the first NaN")

    def test_tensor_method_spellings(self):
        x = random_data("fp32", (6, 130))
        got = run(lambda a: a.sum(-1, keepdim=True) + a.max(-1, keepdim=True) - a.amin(dim=-1, keepdim=True),
                  [("fp32", x)], "fp32", (6, 1))
        expected = (np.sum(as64(x), -1) + np.max(x, -1) - np.min(x, -1))[:, None]
        assert_close(self, "fp32", got, expected, "composite", "sum + max - amin")


# --- composites ---------------------------------------------------------------------------------------------

def softmax64(x, axis=-1):
    x = as64(x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def rms_norm64(x, weight, eps):
    x = as64(x)
    result = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return result if weight is None else result * as64(weight)


def layer_norm64(x, weight, bias, eps):
    x = as64(x)
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * as64(weight) + as64(bias)


class Composites(unittest.TestCase):
    def test_softmax(self):
        for dtype in FLOATS:
            for shape, dim in (((3, 37), -1), ((6, 130), 1), ((2, 5, 37), -1), ((7, 20), 0)):
                x = random_data(dtype, shape, -4.0, 4.0)
                got = run(lambda a: pypto.softmax(a, dim), [(dtype, x)], dtype, shape)
                assert_close(self, dtype, got, softmax64(x, dim), "composite", f"softmax {dtype} {shape} dim={dim}")
                got = run(lambda a: a.softmax(dim=dim), [(dtype, x)], dtype, shape)
                assert_close(self, dtype, got, softmax64(x, dim), "composite", f"x.softmax {dtype}")

    def test_rms_norm(self):
        for dtype in FLOATS:
            for shape in ((3, 37), (6, 130), (2, 5, 64)):
                x = random_data(dtype, shape)
                weight = random_data(dtype, shape[-1:], 0.5, 1.5)
                got = run(lambda a: pypto.rms_norm(a), [(dtype, x)], dtype, shape)
                assert_close(self, dtype, got, rms_norm64(x, None, 1e-6), "composite", f"rms_norm {dtype} {shape}")
                got = run(lambda a, w: pypto.rms_norm(a, w, 1e-5), [(dtype, x), (dtype, weight)], dtype, shape)
                assert_close(self, dtype, got, rms_norm64(x, weight, 1e-5), "composite", f"rms_norm w {dtype}")

    def test_rms_norm_with_pypto_keyword_names(self):
        # PyPTO's signature: rms_norm(input, gamma=None, epsilon=1e-6).
        x = random_data("fp32", (3, 37))
        gamma = random_data("fp32", (37,), 0.5, 1.5)
        got = run(lambda a, g: pypto.rms_norm(a, gamma=g, epsilon=1e-3), [("fp32", x), ("fp32", gamma)], "fp32",
                  x.shape)
        assert_close(self, "fp32", got, rms_norm64(x, gamma, 1e-3), "composite", "rms_norm(gamma=, epsilon=)")

    def test_pypto_docs_rms_norm_example(self):
        x = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], np.float32)
        got = run(lambda a: pypto.rms_norm(a), [("fp32", x)], "fp32", x.shape, tile=(2, 8))
        np.testing.assert_allclose(got, [[0.3651, 0.7302, 1.0954, 1.4605], [0.7580, 0.9097, 1.0613, 1.2129]],
                                   atol=1e-4)

    def test_layer_norm(self):
        for dtype in FLOATS:
            for shape in ((3, 37), (6, 130), (2, 5, 64)):
                x = random_data(dtype, shape, -2.0, 4.0)
                weight = random_data(dtype, shape[-1:], 0.5, 1.5)
                bias = random_data(dtype, shape[-1:], -0.5, 0.5)
                got = run(lambda a, w, b: pypto.layer_norm(a, w, b), [(dtype, x), (dtype, weight), (dtype, bias)],
                          dtype, shape)
                assert_close(self, dtype, got, layer_norm64(x, weight, bias, 1e-5), "composite",
                             f"layer_norm {dtype} {shape}")

    def test_norms_over_a_dynamic_dim(self):
        D = pypto.DYNAMIC

        @pypto.frontend.jit
        def k(x: pypto.Tensor((D, D), pypto.DT_FP32), w: pypto.Tensor((D,), pypto.DT_FP32),
              r: pypto.Tensor((D, D), pypto.DT_FP32), n: pypto.Tensor((D, D), pypto.DT_FP32)):
            pypto.set_vec_tile_shapes(4, 64)
            r[...] = pypto.rms_norm(x, w)
            n[...] = pypto.layer_norm(x, w, w)

        for shape in ((3, 37), (6, 130)):
            x = random_data("fp32", shape)
            w = random_data("fp32", shape[-1:], 0.5, 1.5)
            r = np.zeros(shape, np.float32)
            n = np.zeros(shape, np.float32)
            k(x, w, r, n)
            assert_close(self, "fp32", r, rms_norm64(x, w, 1e-6), "composite", f"rms_norm dynamic {shape}")
            assert_close(self, "fp32", n, layer_norm64(x, w, w, 1e-5), "composite", f"layer_norm dynamic {shape}")

    def test_softmax_written_out_like_pypto_examples(self):
        x = random_data("fp32", (2, 3, 5, 37))

        def body(a):
            row_max = pypto.amax(a, dim=-1, keepdim=True)
            exp = pypto.exp(a - row_max)
            return exp / pypto.sum(exp, dim=-1, keepdim=True)

        got = run(body, [("fp32", x)], "fp32", x.shape)
        assert_close(self, "fp32", got, softmax64(x), "composite", "hand-written softmax")


if __name__ == "__main__":
    unittest.main()
