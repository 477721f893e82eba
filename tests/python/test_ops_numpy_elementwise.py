"""The elementwise ops of the pypto API (unary maths, arithmetic with tensors and scalars, comparisons, where), run
on the reference interpreter and compared with numpy under the tolerances numpy_op_checks.py states (its
docstring says how every numpy op test works)."""
import math
import unittest

import numpy as np

import pypto

from numpy_op_checks import (FLOATS, INTS, NUMPY, SHAPES, as64, assert_close, assert_equal, exact, full_range,
                             random_data, round_to, run, unsigned, with_specials, wrap)


# --- reference functions (float64) ------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])

# op -> (pypto function, float64 reference, input range)
FLOAT_MATH = {
    "reciprocal": (pypto.reciprocal, lambda x: 1.0 / x, (0.25, 3.0)),
    "sqrt": (pypto.sqrt, np.sqrt, (0.0, 4.0)),
    "rsqrt": (pypto.rsqrt, lambda x: 1.0 / np.sqrt(x), (0.05, 4.0)),
    "exp": (pypto.exp, np.exp, (-4.0, 4.0)),
    "exp2": (pypto.exp2, np.exp2, (-4.0, 4.0)),
    "expm1": (pypto.expm1, np.expm1, (-2.0, 2.0)),
    "log": (pypto.log, np.log, (0.05, 8.0)),
    "log1p": (pypto.log1p, np.log1p, (-0.9, 3.0)),
    "sin": (pypto.sin, np.sin, (-3.0, 3.0)),
    "cos": (pypto.cos, np.cos, (-3.0, 3.0)),
    "tanh": (pypto.tanh, np.tanh, (-3.0, 3.0)),
    "erf": (pypto.erf, _erf, (-2.5, 2.5)),
    "erfc": (pypto.erfc, _erfc, (-2.5, 2.5)),
    "sigmoid": (pypto.sigmoid, lambda x: 1.0 / (1.0 + np.exp(-x)), (-6.0, 6.0)),
}
# Ops whose float results are exact (no rounding beyond the format): op -> (function, float64 reference).
FLOAT_EXACT = {
    "neg": (pypto.neg, np.negative),
    "abs": (pypto.abs, np.abs),
    "round": (pypto.round, np.round),  # half to even, as numpy
    "ceil": (pypto.ceil, np.ceil),
    "floor": (pypto.floor, np.floor),
    "trunc": (pypto.trunc, np.trunc),
    "sign": (pypto.sign, np.sign),
    "relu": (pypto.relu, lambda x: np.maximum(x, 0.0)),
}
HALVES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, 1.0, -1.0, 0.25, -2.75, np.nan, np.inf, -np.inf]


class Unary(unittest.TestCase):
    def test_float_maths_for_every_float_dtype(self):
        for name, (function, reference, (low, high)) in FLOAT_MATH.items():
            for dtype in FLOATS:
                for shape in SHAPES:
                    x = random_data(dtype, shape, low, high)
                    got = run(lambda a: function(a), [(dtype, x)], dtype, shape)
                    assert_close(self, dtype, got, reference(as64(x)), "math", f"{name} {dtype} {shape}")

    def test_ranks_one_to_four(self):
        for shape in ((37,), (130,), (2, 3, 37), (2, 2, 3, 37)):
            for dtype in FLOATS:
                x = random_data(dtype, shape)
                got = run(lambda a: pypto.sigmoid(a) * 2.0, [(dtype, x)], dtype, shape)
                expected = as64(round_to(dtype, 1.0 / (1.0 + np.exp(-as64(x))))) * 2.0
                assert_close(self, dtype, got, expected, "math", f"sigmoid * 2 {dtype} {shape}")

    def test_tensor_methods_match_the_functions(self):
        x = random_data("fp32", (3, 37), 0.1, 2.0)
        got = run(lambda a: a.exp().sqrt().log(), [("fp32", x)], "fp32", x.shape)
        assert_close(self, "fp32", got, np.log(np.sqrt(np.exp(as64(x)))), "math", "exp().sqrt().log()")

    def test_exact_ops_for_floats_with_halves_and_signed_zeros(self):
        for name, (function, reference) in FLOAT_EXACT.items():
            for dtype in FLOATS:
                for shape in SHAPES:
                    x = with_specials(random_data(dtype, shape, -4.0, 4.0), HALVES)
                    got = run(lambda a: function(a), [(dtype, x)], dtype, shape)
                    assert_close(self, dtype, got, reference(as64(x)), "exact", f"{name} {dtype} {shape}")

    def test_exact_ops_for_integers(self):
        references = {"neg": np.negative, "abs": np.abs, "round": lambda v: v, "ceil": lambda v: v,
                      "floor": lambda v: v, "trunc": lambda v: v, "sign": np.sign,
                      "relu": lambda v: np.maximum(v, 0)}
        for name, (function, _) in FLOAT_EXACT.items():
            for dtype in INTS:
                for shape in [(3, 37), (2, 130)]:
                    x = full_range(dtype, shape)  # includes the minimum, whose negation wraps to itself
                    x = with_specials(x, [np.iinfo(NUMPY[dtype]).min, 0, 1])
                    got = run(lambda a: function(a), [(dtype, x)], dtype, shape)
                    with np.errstate(over="ignore"):
                        expected = references[name](x).astype(NUMPY[dtype])
                    assert_equal(self, got, expected, f"{name} {dtype} {shape}")

    def test_isfinite_gives_bool(self):
        for dtype in FLOATS:
            x = with_specials(random_data(dtype, (3, 37)), [np.inf, -np.inf, np.nan, 0.0, 65504.0])
            got = run(lambda a: pypto.isfinite(a), [(dtype, x)], "bool", x.shape)
            self.assertEqual(got.dtype, np.bool_)
            assert_equal(self, got, np.isfinite(x), f"isfinite {dtype}")
        for dtype in ("int8", "int32", "uint8"):
            x = full_range(dtype, (2, 37))
            got = run(lambda a: pypto.isfinite(a), [(dtype, x)], "bool", x.shape)
            assert_equal(self, got, np.ones(x.shape, np.bool_), f"isfinite {dtype}")

    def test_clip_with_both_bounds_and_one_bound(self):
        for dtype in FLOATS:
            x = random_data(dtype, (6, 130))
            for low, high in ((-1.0, 1.5), (None, 0.3), (-0.7, None)):
                got = run(lambda a: pypto.clip(a, low, high), [(dtype, x)], dtype, x.shape)
                # Bounds are held in the tensor's dtype (like every scalar operand).
                lo = -np.inf if low is None else round_to(dtype, low)
                hi = np.inf if high is None else round_to(dtype, high)
                assert_close(self, dtype, got, np.clip(as64(x), lo, hi), "exact", f"clip {dtype} {low} {high}")
        for dtype in INTS:
            x = full_range(dtype, (3, 37))
            got = run(lambda a: pypto.clip(a, min=-20, max=100), [(dtype, x)], dtype, x.shape)
            low = NUMPY[dtype](0 if unsigned(dtype) else -20)
            assert_equal(self, got, np.minimum(np.maximum(x, low), NUMPY[dtype](100)), f"clip {dtype}")
        # An integer tensor clipped to fractional bounds gets the bounds rounded inwards.
        x = np.array([[-3, 0, 1, 2, 3, 5]], np.int32)
        got = run(lambda a: pypto.clip(a, 0.5, 2.5), [("int32", x)], "int32", x.shape)
        assert_equal(self, got, [[1, 1, 1, 2, 2, 2]], "clip int32 to [0.5, 2.5]")

    def test_clip_with_tensor_bounds_or_none(self):
        # PyPTO's clip takes tensor bounds (broadcast) and returns the input when both are omitted.
        for dtype in ("fp32", "fp16", "int32"):
            x = random_data(dtype, (6, 130), -5, 5)
            low = random_data(dtype, (6, 1), -3, 0)
            high = random_data(dtype, (1, 130), 0, 3)
            got = run(lambda a, lo, hi: pypto.clip(a, lo, hi), [(dtype, x), (dtype, low), (dtype, high)], dtype,
                      x.shape)
            assert_equal(self, got, np.minimum(np.maximum(x, low), high), f"clip tensor bounds {dtype}")
            got = run(lambda a, hi: pypto.clip(a, max=hi), [(dtype, x), (dtype, high)], dtype, x.shape)
            assert_equal(self, got, np.minimum(x, high), f"clip tensor max {dtype}")
            got = run(lambda a: pypto.clip(a), [(dtype, x)], dtype, x.shape)
            assert_equal(self, got, x, f"clip without bounds {dtype}")
        x = np.array([[-2, 1, 2], [3, 4, 5]], np.int32)  # the example of PyPTO's docs
        low = np.array([[-1, 0, 2], [0, 3, 5]], np.int32)
        high = np.array([[1, 2, 1], [4, 4, 4]], np.int32)
        got = run(pypto.clip, [("int32", x), ("int32", low), ("int32", high)], "int32", x.shape)
        assert_equal(self, got, [[-1, 1, 1], [3, 4, 4]], "clip docs example (min > max gives max)")

    def test_logical_ops_on_bool(self):
        a = random_data("bool", (3, 37))
        b = random_data("bool", (3, 37))
        got = run(lambda x: ~x, [("bool", a)], "bool", a.shape)
        assert_equal(self, got, ~a, "~")
        got = run(lambda x, y: (x & y) | pypto.logical_not(y), [("bool", a), ("bool", b)], "bool", a.shape)
        assert_equal(self, got, (a & b) | ~b, "& |")


# --- binary -------------------------------------------------------------------------------------------------

BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "maximum": (pypto.maximum, np.maximum),
    "minimum": (pypto.minimum, np.minimum),
    "add()": (pypto.add, np.add),
    "sub()": (pypto.sub, np.subtract),
    "mul()": (pypto.mul, np.multiply),
    "div()": (pypto.div, np.divide),
}
INTEGER_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
    "div": np.floor_divide,  # integer division is numpy's floor division, x // 0 == 0
}
# (shape of a, shape of b): equal shapes and numpy broadcasting.
BROADCASTS = [((3, 37), (3, 37)), ((6, 130), (1, 130)), ((5, 1), (1, 70)), ((4, 64), (64,)), ((1, 1), (1, 1))]


def float_binary_expected(dtype, reference, x, y):
    """numpy in float32 on the (fp16/bf16-exact) inputs: what the interpreter computes before rounding."""
    with np.errstate(all="ignore"):
        return reference(x.astype(np.float32), y.astype(np.float32)).astype(np.float64)


class Binary(unittest.TestCase):
    def test_float_tensor_tensor_with_broadcasting(self):
        for name, (function, reference) in BINARY.items():
            for dtype in FLOATS:
                for shape_a, shape_b in BROADCASTS:
                    x = random_data(dtype, shape_a)
                    y = random_data(dtype, shape_b)
                    if name.startswith("div"):
                        y = np.where(np.abs(y) < 0.1, 1.0, y).astype(y.dtype)
                    out_shape = np.broadcast_shapes(shape_a, shape_b)
                    got = run(function, [(dtype, x), (dtype, y)], dtype, out_shape)
                    assert_close(self, dtype, got, float_binary_expected(dtype, reference, x, y), "exact",
                                 f"{name} {dtype} {shape_a} {shape_b}")

    def test_float_pow(self):
        for dtype in FLOATS:
            for shape in SHAPES:
                x = random_data(dtype, shape, 0.1, 3.0)
                y = random_data(dtype, shape, -2.0, 2.0)
                got = run(lambda a, b: a ** b, [(dtype, x), (dtype, y)], dtype, shape)
                assert_close(self, dtype, got, np.power(as64(x), as64(y)), "math", f"pow {dtype} {shape}")
                got = run(lambda a, b: pypto.pow(a, b), [(dtype, x), (dtype, y)], dtype, shape)
                assert_close(self, dtype, got, np.power(as64(x), as64(y)), "math", f"pypto.pow {dtype}")

    def test_integer_tensor_tensor_wraps_and_floor_divides(self):
        for name, reference in INTEGER_BINARY.items():
            for dtype in INTS:
                for shape_a, shape_b in BROADCASTS[:3]:
                    x = full_range(dtype, shape_a)
                    y = full_range(dtype, shape_b)
                    if name == "div":  # x // 0 == 0; the minimum // -1 wraps to itself
                        y = with_specials(y, [0, 1 if unsigned(dtype) else -1])
                        x = with_specials(x, [5, np.iinfo(NUMPY[dtype]).min])
                    function = BINARY[name][0]
                    out_shape = np.broadcast_shapes(shape_a, shape_b)
                    got = run(function, [(dtype, x), (dtype, y)], dtype, out_shape)
                    with np.errstate(all="ignore"):
                        expected = reference(x, y).astype(NUMPY[dtype])
                    assert_equal(self, got, expected, f"{name} {dtype} {shape_a} {shape_b}")

    def test_integer_pow_is_exact_and_wraps(self):
        for dtype in INTS:
            x = random_data(dtype, (3, 37), 0 if unsigned(dtype) else -6, 9)
            y = random_data(dtype, (3, 37), 0, 5)
            got = run(lambda a, b: a ** b, [(dtype, x), (dtype, y)], dtype, x.shape)
            exact_powers = [int(a) ** int(b) for a, b in zip(x.ravel(), y.ravel())]
            assert_equal(self, got, wrap(exact_powers, dtype).reshape(x.shape), f"pow {dtype}")

    def test_integer_negative_exponent_gives_torch_s_integer_pow(self):
        # PyPTO's Pow cases take their golden from torch.pow, whose integer rule for a negative exponent is
        # 1 for a base of 1, +-1 for -1 by parity, else 0 (numpy refuses; written out here by that rule).
        x = np.array([[2, 3, 1, -1, -1, 0, -5, 7]], np.int32)
        y = np.array([[1, -1, -3, -3, -2, -1, -2, 2]], np.int32)
        got = run(lambda a, b: a ** b, [("int32", x), ("int32", y)], "int32", x.shape, tile=(1, 64))
        np.testing.assert_array_equal(got, np.array([[2, 0, 1, -1, 1, 0, 0, 49]], np.int32))

    def test_comparisons_give_bool_for_every_dtype(self):
        compares = {"eq": (pypto.eq, lambda a, b: a == b, np.equal),
                    "ne": (pypto.ne, lambda a, b: a != b, np.not_equal),
                    "gt": (pypto.gt, lambda a, b: a > b, np.greater),
                    "ge": (pypto.ge, lambda a, b: a >= b, np.greater_equal),
                    "lt": (pypto.lt, lambda a, b: a < b, np.less),
                    "le": (pypto.le, lambda a, b: a <= b, np.less_equal)}
        for name, (function, operator, reference) in compares.items():
            for dtype in FLOATS + INTS + ("bool",):
                for shape_a, shape_b in BROADCASTS[:3]:
                    # Few distinct values, so that equal elements are common.
                    x = random_data(dtype, shape_a, 0, 3)
                    y = random_data(dtype, shape_b, 0, 3)
                    if dtype in FLOATS:
                        x, y = np.round(x).astype(x.dtype), np.round(y).astype(y.dtype)
                    out_shape = np.broadcast_shapes(shape_a, shape_b)
                    got = run(function, [(dtype, x), (dtype, y)], "bool", out_shape)
                    assert_equal(self, got, reference(x, y), f"{name} {dtype} {shape_a} {shape_b}")
                    got = run(operator, [(dtype, x), (dtype, y)], "bool", out_shape)
                    assert_equal(self, got, reference(x, y), f"operator {name} {dtype}")

    def test_float_comparisons_with_nan(self):
        x = with_specials(random_data("fp32", (3, 37)), [np.nan, np.nan, 1.0, np.inf])
        y = with_specials(random_data("fp32", (3, 37)), [np.nan, 1.0, np.nan, np.inf])
        for function, reference in ((pypto.eq, np.equal), (pypto.ne, np.not_equal), (pypto.lt, np.less),
                                    (pypto.ge, np.greater_equal)):
            got = run(function, [("fp32", x), ("fp32", y)], "bool", x.shape)
            assert_equal(self, got, reference(x, y), reference.__name__)


# --- tensor-scalar forms ------------------------------------------------------------------------------------

# Python operators with the scalar on either side: (kernel body given the scalar, float64 reference).
SCALAR_FORMS = {
    "x + s": (lambda s: lambda a: a + s, lambda x, s: x + s),
    "s + x": (lambda s: lambda a: s + a, lambda x, s: s + x),
    "x - s": (lambda s: lambda a: a - s, lambda x, s: x - s),
    "s - x": (lambda s: lambda a: s - a, lambda x, s: s - x),
    "x * s": (lambda s: lambda a: a * s, lambda x, s: x * s),
    "s * x": (lambda s: lambda a: s * a, lambda x, s: s * x),
    "x / s": (lambda s: lambda a: a / s, lambda x, s: x / s),
    "s / x": (lambda s: lambda a: s / a, lambda x, s: s / x),
    "maximum(x, s)": (lambda s: lambda a: pypto.maximum(a, s), np.maximum),
    "minimum(s, x)": (lambda s: lambda a: pypto.minimum(s, a), lambda x, s: np.minimum(s, x)),
    "add(s, x)": (lambda s: lambda a: pypto.add(s, a), lambda x, s: s + x),
    "sub(s, x)": (lambda s: lambda a: pypto.sub(s, a), lambda x, s: s - x),
    "div(s, x)": (lambda s: lambda a: pypto.div(s, a), lambda x, s: s / x),
}


class TensorScalar(unittest.TestCase):
    def test_float_forms_round_the_scalar_to_the_dtype(self):
        for name, (body, reference) in SCALAR_FORMS.items():
            for dtype in FLOATS:
                for scalar in (0.1, -2.5, 3):
                    for shape in SHAPES[:3]:
                        x = random_data(dtype, shape)
                        x = np.where(np.abs(x) < 0.1, 0.5, x).astype(x.dtype)
                        got = run(body(scalar), [(dtype, x)], dtype, shape)
                        # The scalar is held in the tensor's dtype; the op runs in float32.
                        s = np.float32(round_to(dtype, scalar))
                        with np.errstate(all="ignore"):
                            expected = reference(x.astype(np.float32), s).astype(np.float64)
                        assert_close(self, dtype, got, expected, "exact", f"{name} {dtype} s={scalar} {shape}")

    def test_float_pow_with_a_scalar_on_either_side(self):
        for dtype in FLOATS:
            x = random_data(dtype, (3, 37), 0.1, 3.0)
            for scalar in (2, 0.5, -1.5):
                s = round_to(dtype, scalar)
                got = run(lambda a: a ** scalar, [(dtype, x)], dtype, x.shape)
                assert_close(self, dtype, got, np.power(as64(x), s), "math", f"{dtype} x ** {scalar}")
                got = run(lambda a: pypto.pow(abs(scalar), a), [(dtype, x)], dtype, x.shape)
                assert_close(self, dtype, got, np.power(abs(s), as64(x)), "math", f"{dtype} {abs(scalar)} ** x")

    def test_numpy_scalars_are_scalars(self):
        x = random_data("fp32", (3, 37))
        got = run(lambda a: a * np.float32(1.5) + np.float64(0.25), [("fp32", x)], "fp32", x.shape)
        assert_close(self, "fp32", got, x * np.float32(1.5) + np.float32(0.25), "exact", "numpy scalars right")
        got = run(lambda a: np.float32(2.0) - a, [("fp32", x)], "fp32", x.shape)
        assert_close(self, "fp32", got, np.float32(2.0) - x, "exact", "numpy scalar left")

    def test_integer_forms_with_integral_scalars_are_exact(self):
        forms = {"x + s": np.add, "s - x": lambda x, s: s - x, "x * s": np.multiply,
                 "x / s": np.floor_divide, "s / x": lambda x, s: np.floor_divide(s, x),
                 "maximum(x, s)": np.maximum, "minimum(s, x)": lambda x, s: np.minimum(s, x)}
        for name, reference in forms.items():
            body = SCALAR_FORMS[name][0]
            for dtype in INTS:
                for scalar in (3, 200) if unsigned(dtype) else (3, -7):
                    x = with_specials(full_range(dtype, (3, 37)), [0, 1 if unsigned(dtype) else -1, 7])
                    got = run(body(scalar), [(dtype, x)], dtype, x.shape)
                    wide = np.uint64 if dtype == "uint64" else np.int64
                    with np.errstate(all="ignore"):
                        expected = reference(x.astype(wide), wide(scalar))
                    # Computed in int64 and wrapped to the dtype; x // 0 == 0 (as numpy gives).
                    assert_equal(self, got, expected.astype(NUMPY[dtype]), f"{name} {dtype} s={scalar}")

    def test_integer_forms_with_fractional_scalars_truncate(self):
        # A non-integral scalar on an integer tensor computes in double and truncates toward zero.
        x = np.array([[-3, -2, -1, 0, 1, 2, 3, 100]], np.int32)
        got = run(lambda a: a * 0.5, [("int32", x)], "int32", x.shape, tile=(1, 64))
        assert_equal(self, got, [[-1, -1, 0, 0, 0, 1, 1, 50]], "x * 0.5")
        got = run(lambda a: a + 0.5, [("int32", x)], "int32", x.shape, tile=(1, 64))
        assert_equal(self, got, [[-2, -1, 0, 0, 1, 2, 3, 100]], "x + 0.5")
        got = run(lambda a: a / 2.5, [("int32", x)], "int32", x.shape, tile=(1, 64))
        assert_equal(self, got, np.trunc(x / 2.5).astype(np.int32), "x / 2.5")
        # PyPTO's pow of an int32 tensor by a float gives fp32 (its API page): sqrt of a negative is NaN.
        got = run(lambda a: a ** 0.5, [("int32", x)], "fp32", x.shape, tile=(1, 64))
        np.testing.assert_allclose(got, np.power(x.astype(np.float32), np.float32(0.5)), rtol=1e-6, equal_nan=True,
                                   err_msg="x ** 0.5")

    def test_integer_pow_with_scalars(self):
        x = np.array([[-3, -1, 0, 1, 2, 5, 6, 7]], np.int8)
        got = run(lambda a: a ** 3, [("int8", x)], "int8", x.shape, tile=(1, 64))
        assert_equal(self, got, (x.astype(np.int64) ** 3).astype(np.int8), "x ** 3 (wraps)")
        y = np.array([[0, 1, 2, 3, 6, 7, 8, 9]], np.int16)
        got = run(lambda a: 3 ** a, [("int16", y)], "int16", y.shape, tile=(1, 64))
        assert_equal(self, got, (3 ** y.astype(np.int64)).astype(np.int16), "3 ** x (wraps)")

    def test_scalar_comparisons_with_the_scalar_on_either_side(self):
        forms = {"x == s": (lambda s: lambda a: a == s, np.equal),
                 "x != s": (lambda s: lambda a: a != s, np.not_equal),
                 "x > s": (lambda s: lambda a: a > s, np.greater),
                 "x >= s": (lambda s: lambda a: a >= s, np.greater_equal),
                 "x < s": (lambda s: lambda a: a < s, np.less),
                 "x <= s": (lambda s: lambda a: a <= s, np.less_equal),
                 "s < x": (lambda s: lambda a: s < a, np.greater),
                 "s >= x": (lambda s: lambda a: s >= a, np.less_equal),
                 "ge(s, x)": (lambda s: lambda a: pypto.ge(s, a), np.less_equal),
                 "gt(x, s)": (lambda s: lambda a: pypto.gt(a, s), np.greater)}
        for name, (body, reference) in forms.items():
            for dtype in FLOATS + INTS:
                for scalar in (1, 1.5, 0.1):
                    x = random_data(dtype, (3, 37), 0, 3)
                    if dtype in FLOATS:
                        x = exact(dtype, with_specials(np.round(x * 2) / 2, [0.1, 1.5, 1.0]))
                    got = run(body(scalar), [(dtype, x)], "bool", x.shape)
                    # A float tensor compares with the scalar held in its dtype; an integer tensor compares
                    # exactly (1.5 lies between integers).
                    s = round_to(dtype, scalar) if dtype in FLOATS else scalar
                    assert_equal(self, got, reference(as64(x), s), f"{name} {dtype} s={scalar}")


# --- where --------------------------------------------------------------------------------------------------

class Where(unittest.TestCase):
    def test_tensor_operands_with_broadcasting(self):
        for dtype in FLOATS + INTS + ("bool",):
            for shape_c, shape_x, shape_y in (((3, 37), (3, 37), (3, 37)), ((5, 1), (5, 70), (1, 70)),
                                              ((1, 64), (4, 64), (4, 1))):
                c = random_data("bool", shape_c)
                x = random_data(dtype, shape_x)
                y = random_data(dtype, shape_y)
                out_shape = np.broadcast_shapes(shape_c, shape_x, shape_y)
                got = run(pypto.where, [("bool", c), (dtype, x), (dtype, y)], dtype, out_shape)
                assert_equal(self, got, np.where(c, x, y), f"where {dtype} {shape_c} {shape_x} {shape_y}")

    def test_operands_of_lower_rank_broadcast(self):
        c = random_data("bool", (37,))
        x = random_data("fp32", (3, 37))
        y = random_data("fp32", (3, 1))
        got = run(pypto.where, [("bool", c), ("fp32", x), ("fp32", y)], "fp32", (3, 37), tile=(4, 64))
        assert_equal(self, got, np.where(c, x, y), "where((37,), (3, 37), (3, 1))")

    def test_condition_from_a_comparison(self):
        x = random_data("fp16", (6, 130))
        got = run(lambda a: pypto.where(a > 0, a, a * 0.5), [("fp16", x)], "fp16", x.shape)
        assert_close(self, "fp16", got, np.where(x > 0, x, x.astype(np.float32) * 0.5), "exact", "leaky relu")

    def test_scalar_operands(self):
        for dtype in FLOATS + ("int32", "int8"):
            c = random_data("bool", (3, 37))
            x = random_data(dtype, (3, 37))
            got = run(lambda k, a: pypto.where(k, a, 2), [("bool", c), (dtype, x)], dtype, x.shape)
            assert_equal(self, got, np.where(c, x, 2).astype(x.dtype), f"where(c, x, 2) {dtype}")
            got = run(lambda k, a: pypto.where(k, -1.0, a), [("bool", c), (dtype, x)], dtype, x.shape)
            assert_equal(self, got, np.where(c, -1, x).astype(x.dtype), f"where(c, -1.0, x) {dtype}")
        # Scalars convert to the output dtype like a cast in rint mode: 2.5 -> 2 and 0.1 -> fp16(0.1).
        c = random_data("bool", (3, 37))
        x = random_data("int32", (3, 37))
        got = run(lambda k, a: pypto.where(k, a, 2.5), [("bool", c), ("int32", x)], "int32", x.shape)
        assert_equal(self, got, np.where(c, x, 2), "where(c, int32, 2.5)")
        h = random_data("fp16", (3, 37))
        got = run(lambda k, a: pypto.where(k, 0.1, a), [("bool", c), ("fp16", h)], "fp16", h.shape)
        assert_equal(self, got, np.where(c, np.float16(0.1), h), "where(c, 0.1, fp16)")

    def test_both_operands_scalars_give_fp32(self):
        c = random_data("bool", (6, 130))
        got = run(lambda k: pypto.where(k, 1.25, -3), [("bool", c)], "fp32", c.shape)
        self.assertEqual(got.dtype, np.float32)
        assert_equal(self, got, np.where(c, 1.25, -3.0).astype(np.float32), "where(c, 1.25, -3)")


if __name__ == "__main__":
    unittest.main()
