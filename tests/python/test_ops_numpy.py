"""Every op of the pypto API page run on the reference interpreter and compared with numpy.

Each test builds small kernels, calls them on random data of several shapes (most of them not multiples of
the vec tile) and dtypes, and compares the outputs with an independent numpy computation under the
tolerances stated in TOLERANCES below. Integer semantics follow compiler/reference/ReferenceInterpreter.h
(floor division, wrapping, truncating float maths) and docs/ir.md.
"""
import math
import unittest

import numpy as np
import torch

import pypto

RNG = np.random.default_rng(20251214)
EPS32 = float(np.finfo(np.float32).eps)

FLOATS = ("fp32", "fp16", "bf16")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
NUMPY = {"fp32": np.float32, "fp16": np.float16, "int8": np.int8, "int16": np.int16, "int32": np.int32,
         "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
         "bool": np.bool_}
STORAGE = {"fp32": np.float32, "fp16": np.float16, "bf16": np.float32}  # how numpy holds float test data
PYPTO = {"fp32": pypto.DT_FP32, "fp16": pypto.DT_FP16, "bf16": pypto.DT_BF16, "int8": pypto.DT_INT8,
         "int16": pypto.DT_INT16, "int32": pypto.DT_INT32, "int64": pypto.DT_INT64, "uint8": pypto.DT_UINT8,
         "uint16": pypto.DT_UINT16, "uint32": pypto.DT_UINT32, "uint64": pypto.DT_UINT64, "bool": pypto.DT_BOOL}

# Tensor shapes: the vec tile is (4, 64) for rank 2 (see TILES); none of these but (4, 64) is a whole number
# of tiles, and (1, 1) is far smaller than one.
SHAPES = [(3, 37), (1, 1), (4, 64), (6, 130)]
# One tile dim per tensor dim; the innermost 64 gives 32-byte multiples for every item size (1, 2, 4, 8).
TILES = {1: (64,), 2: (4, 64), 3: (2, 4, 64), 4: (1, 2, 4, 64)}

# Tolerances. fp32 results are compared with rtol/atol; fp16 and bf16 results in units in the last place of
# the format (ulp of the expected value), the expected value being computed in float64 from the same fp16/bf16
# inputs, rounded to float32 and then to the format -- what the interpreter does, up to its float32 maths.
TOLERANCES = {
    # + - * / neg abs max min clip round...: IEEE float32 in the interpreter and in numpy: identical results.
    ("fp32", "exact"): dict(rtol=0.0, atol=0.0),
    # exp, log, sin, erf, pow...: the interpreter uses libm's float functions (a few ulp, < 1e-6 relative);
    # the expected value is the float64 result rounded to float32.
    ("fp32", "math"): dict(rtol=1e-5, atol=1e-7),
    # fp16/bf16 arithmetic: both sides compute in float32 and round once to the format: identical.
    ("fp16", "exact"): dict(ulps=0),
    ("bf16", "exact"): dict(ulps=0),
    # fp16/bf16 maths: the float32 result may lie on the other side of a rounding boundary than the exact
    # one, so the rounded results may differ by one ulp of the format.
    ("fp16", "math"): dict(ulps=1),
    ("bf16", "math"): dict(ulps=1),
    # Composites (softmax, rms_norm, layer_norm) round after every op (docs/ir.md): about five roundings of
    # half an ulp each, plus an fp32 sum over up to 130 elements, against a float64 reference of the whole
    # formula: fp32 ~1e-6 relative (1e-5 allowed), fp16 5 * 2^-11 (~2.5e-3, 4e-3 allowed), bf16 5 * 2^-8
    # (~2e-2, 3e-2 allowed); atol covers results near zero (layer_norm) where the relative bound breaks down.
    ("fp32", "composite"): dict(rtol=1e-5, atol=1e-6),
    ("fp16", "composite"): dict(rtol=4e-3, atol=1e-3),
    ("bf16", "composite"): dict(rtol=3e-2, atol=8e-3),
}
# Sums accumulate in fp32 by pairwise summation: |error| <= eps32 * (8 + log2 n) * sum|x| (8 sequential adds
# at the leaves). Products accumulate sequentially in fp32: relative error <= n * eps32. Matmul accumulates
# in fp32 in any order: |error| <= k * eps32 * (|A| @ |B|). An fp16/bf16 result adds one ulp of rounding.


# --- bf16 in numpy -------------------------------------------------------------------------------------

def bf16_bits(values):
    """float32 values -> bf16 bit patterns (uint16), round to nearest even; NaN stays a quiet NaN."""
    values = np.asarray(values, np.float32)
    bits = values.reshape(-1).view(np.uint32).astype(np.int64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    quiet = ((bits >> 16) | 0x40).astype(np.uint16)
    return np.where(np.isnan(values.reshape(-1)), quiet, rounded).reshape(values.shape)


def bf16_value(bits):
    """bf16 bit patterns -> float32 values (exact)."""
    bits = np.asarray(bits, np.uint16)
    return (bits.reshape(-1).astype(np.uint32) << 16).view(np.float32).reshape(bits.shape)


def bf16_round(values):
    """float32 values rounded to the nearest bf16 value (ties to even), as float32."""
    return bf16_value(bf16_bits(values))


def round_to(dtype, values64):
    """The float64 values as the interpreter stores them in `dtype`: via float32, then the format."""
    values32 = np.asarray(values64, np.float64).astype(np.float32)
    if dtype == "fp16":
        return values32.astype(np.float16).astype(np.float32)
    if dtype == "bf16":
        return bf16_round(values32)
    return values32


def ulp(dtype, values):
    """One unit in the last place of each value in fp16 or bf16 (float64)."""
    values = np.abs(np.asarray(values, np.float64))
    if dtype == "fp16":
        return np.spacing(values.astype(np.float16)).astype(np.float64)
    # bf16 has 16 fewer mantissa bits than float32; zero gets the smallest positive float32 step.
    return np.spacing(values.astype(np.float32)).astype(np.float64) * 65536.0


# --- arguments and checks --------------------------------------------------------------------------------

def exact(dtype, values):
    """values rounded to a float dtype and stored as numpy holds it (bf16 as float32)."""
    return np.asarray(round_to(dtype, values), STORAGE[dtype])


def random_data(dtype, shape, low=-3.0, high=3.0):
    """Random values of `dtype` (numpy; bf16 as float32 values that bf16 holds exactly)."""
    if dtype in FLOATS:
        return exact(dtype, RNG.uniform(low, high, size=shape))
    if dtype == "bool":
        return RNG.integers(0, 2, size=shape).astype(np.bool_)
    info = np.iinfo(NUMPY[dtype])
    low = max(int(low), int(info.min)) if low is not None else int(info.min)
    high = min(int(high), int(info.max)) if high is not None else int(info.max)
    return RNG.integers(low, high, size=shape, endpoint=True, dtype=NUMPY[dtype])


def unsigned(dtype):
    return np.issubdtype(NUMPY[dtype], np.unsignedinteger)


def full_range(dtype, shape):
    """Integers over the whole range of the dtype (so that arithmetic wraps)."""
    return random_data(dtype, shape, low=None, high=None)


def to_argument(dtype, values):
    """What a kernel is called with: a numpy array, or a torch bf16 tensor for bf16."""
    if dtype == "bf16":
        bits = bf16_bits(values).view(np.int16)
        return torch.from_numpy(bits.copy()).view(torch.bfloat16)
    return np.ascontiguousarray(values, dtype=NUMPY[dtype])


def empty_output(dtype, shape):
    if dtype == "bf16":
        return torch.full(tuple(shape), float("nan"), dtype=torch.bfloat16)
    if dtype in ("fp32", "fp16"):
        return np.full(shape, np.nan, NUMPY[dtype])
    return np.zeros(shape, NUMPY[dtype])


def from_output(dtype, output):
    """A kernel output as numpy (bf16 as float32 values)."""
    if dtype == "bf16":
        return bf16_value(output.view(torch.int16).numpy().view(np.uint16))
    return output


def kernel(body, arity, tile, outputs=1):
    """A kernel computing body(*inputs) into `outputs` output arguments (tile: the vec tile, or None)."""
    def start():
        if tile is not None:
            pypto.set_vec_tile_shapes(*tile)

    def store(outs, results):
        results = results if outputs > 1 else (results,)
        for out, result in zip(outs, results):
            out[...] = result

    if arity == 0:
        def k(o0: pypto.Tensor(), o1: pypto.Tensor() = None):
            start()
            store((o0, o1), body())
    elif arity == 1:
        def k(a: pypto.Tensor(), o0: pypto.Tensor(), o1: pypto.Tensor() = None):
            start()
            store((o0, o1), body(a))
    elif arity == 2:
        def k(a: pypto.Tensor(), b: pypto.Tensor(), o0: pypto.Tensor(), o1: pypto.Tensor() = None):
            start()
            store((o0, o1), body(a, b))
    else:
        def k(a: pypto.Tensor(), b: pypto.Tensor(), c: pypto.Tensor(), o0: pypto.Tensor(),
              o1: pypto.Tensor() = None):
            start()
            store((o0, o1), body(a, b, c))
    return pypto.frontend.jit(k)


def run(body, inputs, out_dtype, out_shape, tile="auto", outputs=None):
    """Runs body on the inputs [(dtype, values)]; returns the output(s) as numpy (bf16 as float32).
    `outputs` lists (dtype, shape) for a body returning several tensors."""
    specs = outputs or [(out_dtype, out_shape)]
    if tile == "auto":
        tile = TILES[len(inputs[0][1].shape)] if inputs else None
    args = [to_argument(dtype, values) for dtype, values in inputs]
    outs = [empty_output(dtype, shape) for dtype, shape in specs]
    kernel(body, len(inputs), tile, len(specs))(*args, *outs)
    results = [from_output(dtype, out) for (dtype, _), out in zip(specs, outs)]
    return results if outputs else results[0]


def assert_close(test, dtype, actual, expected, kind="exact", what=""):
    """Compares a float result with the expected float64 values under TOLERANCES[(dtype, kind)]."""
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    test.assertEqual(actual.shape, expected.shape, what)
    tolerance = TOLERANCES[(dtype, kind)]
    if "ulps" in tolerance:
        expected = round_to(dtype, expected).astype(np.float64)
        allowed = tolerance["ulps"] * ulp(dtype, expected)
    else:
        allowed = tolerance["atol"] + tolerance["rtol"] * np.abs(expected)
    assert_within(test, actual, expected, allowed, what)


def assert_within(test, actual, expected, allowed, what=""):
    """|actual - expected| <= allowed elementwise, with NaN and infinities matched exactly."""
    actual = np.asarray(actual, np.float64)
    expected = np.asarray(expected, np.float64)
    test.assertEqual(actual.shape, expected.shape, what)
    same_special = (np.isnan(actual) & np.isnan(expected)) | (np.isinf(expected) & (actual == expected))
    with np.errstate(invalid="ignore"):
        ok = same_special | (np.abs(actual - expected) <= allowed)
    if not ok.all():
        at = np.argwhere(~ok)[0]
        at = tuple(at)
        test.fail(f"{what}: {np.count_nonzero(~ok)} of {ok.size} elements differ; first at {at}: got "
                  f"{actual[at]!r}, expected {expected[at]!r}, allowed {np.broadcast_to(allowed, ok.shape)[at]!r}")


def assert_equal(test, actual, expected, what=""):
    np.testing.assert_array_equal(np.asarray(actual), np.asarray(expected), err_msg=what)
    test.assertEqual(np.asarray(actual).shape, np.asarray(expected).shape, what)


def wrap(python_ints, dtype):
    """Python integers reduced modulo 2^bits into an integer dtype (two's complement)."""
    bits = 8 * np.dtype(NUMPY[dtype]).itemsize
    signed = np.issubdtype(NUMPY[dtype], np.signedinteger)
    values = [v % (1 << bits) for v in python_ints]
    values = [v - (1 << bits) if signed and v >= 1 << (bits - 1) else v for v in values]
    return np.array(values, NUMPY[dtype])


def as64(values):
    return np.asarray(values, np.float64)


def with_specials(values, specials):
    """values with the first len(specials) elements (C order) replaced by `specials`."""
    flat = values.reshape(-1).copy()
    count = min(flat.size, len(specials))
    flat[:count] = np.asarray(specials[:count], flat.dtype)
    return flat.reshape(values.shape)


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


# --- shape and layout ---------------------------------------------------------------------------------------

LAYOUT_DTYPES = ("fp32", "fp16", "bf16", "int8", "int64", "uint8", "bool")


class Layout(unittest.TestCase):
    def test_view_reads_a_region(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (7, 130))
            got = run(lambda a: pypto.view(a, [3, 45], [2, 70]), [(dtype, x)], dtype, (3, 45))
            assert_equal(self, got, x[2:5, 70:115], f"view {dtype}")
            # Only the valid part is stored (PyPTO's assemble of a partly valid tensor); the rest of the
            # output keeps what it held (empty_output's fill).
            got = run(lambda a: pypto.view(a, [2, 64], [5, 0], valid_shape=[2, 50]), [(dtype, x)], dtype, (2, 64))
            expected = from_output(dtype, empty_output(dtype, (2, 64)))
            expected[:, :50] = x[5:7, 0:50]
            assert_equal(self, got, expected, f"view with valid_shape {dtype}")

    def test_view_method_and_nested_views(self):
        x = random_data("fp32", (7, 130))
        got = run(lambda a: a.view([4, 100], [1, 10]).view([2, 3], [2, 97]), [("fp32", x)], "fp32", (2, 3))
        assert_equal(self, got, x[3:5, 107:110], "view of a view")

    def test_assemble_writes_into_the_destination_in_place(self):
        for dtype in LAYOUT_DTYPES:
            src = random_data(dtype, (3, 37))
            before = random_data(dtype, (7, 130))

            @pypto.frontend.jit
            def k(s: pypto.Tensor(), out: pypto.Tensor()):
                pypto.assemble(s, [2, 50], out)
                pypto.assemble(s, [4, 93], out)

            out = to_argument(dtype, before)
            k(to_argument(dtype, src), out)
            expected = before.copy()
            expected[2:5, 50:87] = src
            expected[4:7, 93:130] = src
            assert_equal(self, from_output(dtype, out), expected, f"assemble {dtype}")

    def test_reshape(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (3, 4, 10))
            for shape, spelled in (((12, 10), [12, 10]), ((120,), [-1]), ((10, 12), (10, -1)),
                                   ((2, 3, 2, 10), [2, 3, 2, 10])):
                got = run(lambda a: pypto.reshape(a, spelled), [(dtype, x)], dtype, shape, tile=None)
                assert_equal(self, got, x.reshape(shape), f"reshape {dtype} {spelled}")
            got = run(lambda a: a.reshape(6, 20), [(dtype, x)], dtype, (6, 20), tile=None)
            assert_equal(self, got, x.reshape(6, 20), f"x.reshape(6, 20) {dtype}")
        # PyPTO's keyword-only options: valid_shape says which leading part of the result holds data, and
        # storing the result stores that part.
        x = random_data("fp32", (2, 2))
        got = run(lambda a: pypto.reshape(a, [4, 1], valid_shape=[2, 1], inplace=False), [("fp32", x)], "fp32",
                  (4, 1), tile=None)
        expected = np.full((4, 1), np.nan, np.float32)
        expected[:2] = x.reshape(4, 1)[:2]
        assert_equal(self, got, expected, "reshape with valid_shape")

    def test_transpose_and_permute(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (3, 5, 37))
            cases = [(lambda a: pypto.transpose(a, 0, 1), np.transpose(x, (1, 0, 2))),
                     (lambda a: pypto.transpose(a), np.transpose(x, (0, 2, 1))),
                     (lambda a: a.transpose(-1, 0), np.transpose(x, (2, 1, 0))),
                     (lambda a: pypto.permute(a, [2, 0, 1]), np.transpose(x, (2, 0, 1))),
                     (lambda a: pypto.permute(a, 1, 2, 0), np.transpose(x, (1, 2, 0))),
                     (lambda a: a.permute(-1, -2, -3), np.transpose(x, (2, 1, 0)))]
            for index, (body, expected) in enumerate(cases):
                got = run(body, [(dtype, x)], dtype, expected.shape, tile=None)
                assert_equal(self, got, expected, f"transpose/permute case {index} {dtype}")

    def test_transposed_data_feeds_vector_ops(self):
        x = random_data("fp32", (5, 37))
        got = run(lambda a: pypto.exp(pypto.transpose(a, 0, 1)) + 1.0, [("fp32", x)], "fp32", (37, 5))
        assert_close(self, "fp32", got, np.exp(as64(x).T) + 1.0, "math", "exp(x.T) + 1")

    def test_unsqueeze(self):
        for dtype in LAYOUT_DTYPES:
            x = random_data(dtype, (3, 37))
            for dim, shape in ((0, (1, 3, 37)), (1, (3, 1, 37)), (2, (3, 37, 1)), (-1, (3, 37, 1))):
                got = run(lambda a: pypto.unsqueeze(a, dim), [(dtype, x)], dtype, shape, tile=None)
                assert_equal(self, got, np.expand_dims(x, dim), f"unsqueeze {dtype} {dim}")

    def test_concat(self):
        for dtype in LAYOUT_DTYPES:
            a = random_data(dtype, (3, 37))
            b = random_data(dtype, (3, 20))
            c = random_data(dtype, (2, 37))
            got = run(lambda x, y: pypto.concat([x, y], dim=1), [(dtype, a), (dtype, b)], dtype, (3, 57))
            assert_equal(self, got, np.concatenate([a, b], axis=1), f"concat dim 1 {dtype}")
            got = run(lambda x, y: pypto.concat([x, y, x], -1), [(dtype, a), (dtype, b)], dtype, (3, 94))
            assert_equal(self, got, np.concatenate([a, b, a], axis=-1), f"concat three {dtype}")
            got = run(lambda x, z: pypto.cat((x, z), 0), [(dtype, a), (dtype, c)], dtype, (5, 37))
            assert_equal(self, got, np.concatenate([a, c], axis=0), f"cat dim 0 {dtype}")

    def test_clone_is_an_independent_copy(self):
        for dtype in ("fp32", "bf16", "int16"):
            x = random_data(dtype, (3, 37))
            zero = np.zeros((1, 37), NUMPY.get(dtype, np.float32))

            def body(a):
                copy = pypto.clone(a)
                copy[1:2, :] = pypto.full([1, 37], 0, a.dtype)
                return copy, a

            got_copy, got_x = run(body, [(dtype, x)], None, None,
                                  outputs=[(dtype, x.shape), (dtype, x.shape)])
            expected = x.copy()
            expected[1:2] = zero
            assert_equal(self, got_copy, expected, f"clone written {dtype}")
            assert_equal(self, got_x, x, f"clone source untouched {dtype}")


class Creation(unittest.TestCase):
    def test_full_zeros_ones(self):
        for dtype in FLOATS + INTS + ("bool",):
            for shape in ((3, 37), (1, 1), (2, 3, 70)):
                got = run(lambda: pypto.full(list(shape), 3, PYPTO[dtype]), [], dtype, shape)
                assert_equal(self, got, np.full(shape, 3).astype(NUMPY.get(dtype, np.float32)), f"full {dtype}")
                got = run(lambda: pypto.zeros(list(shape), PYPTO[dtype]), [], dtype, shape)
                assert_equal(self, got, np.zeros(shape), f"zeros {dtype}")
                got = run(lambda: pypto.ones(list(shape), dtype=PYPTO[dtype]), [], dtype, shape)
                assert_equal(self, got, np.ones(shape), f"ones {dtype}")
        for dtype in FLOATS:
            got = run(lambda: pypto.full([3, 37], 0.1, PYPTO[dtype]), [], dtype, (3, 37))
            assert_equal(self, got, np.full((3, 37), round_to(dtype, 0.1)), f"full 0.1 rounds once to {dtype}")
        got = run(lambda: pypto.full([3, 37], -1.5), [], "fp32", (3, 37))
        assert_equal(self, got, np.full((3, 37), -1.5, np.float32), "full defaults to fp32")

    def test_arange(self):
        cases = [((10,), "fp32"), ((2, 50, 3), "int32"), ((0, 1, 0.1), "fp32"), ((-1, 1, 0.25), "fp16"),
                 ((5, -3, -1), "int8"), ((0, 3, 0.3), "bf16"), ((1, 2.2, 0.3), "fp32"), ((100, 1000, 7), "int64"),
                 ((0, 100000, 7), "fp32")]
        for args, dtype in cases:
            start, end, step = (0, args[0], 1) if len(args) == 1 else args
            size = len(np.arange(start, end, step))
            got = run(lambda: pypto.arange(*args, dtype=PYPTO[dtype]), [], dtype, (size,))
            # Element i is start + i * step in double, rounded once to the dtype.
            expected = start + np.arange(size, dtype=np.float64) * step
            expected = np.rint(expected) if dtype in INTS else round_to(dtype, expected)
            assert_equal(self, got, expected, f"arange{args} {dtype}")

    def test_creation_values_are_rounded_once_from_double(self):
        # Just above a tie of the format: rounding via float32 would land on the tie and go to even (down).
        for dtype, value, expected in (("bf16", 1 + 2.0 ** -8 + 2.0 ** -40, 1 + 2.0 ** -7),
                                       ("fp16", 1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -10)):
            got = run(lambda: pypto.full([2, 3], value, PYPTO[dtype]), [], dtype, (2, 3))
            assert_equal(self, got, np.full((2, 3), expected), f"full {dtype}")
            got = run(lambda: pypto.arange(value, value + 3, 1, dtype=PYPTO[dtype]), [], dtype, (3,))
            self.assertEqual(float(got[0]), expected, f"arange {dtype}")

    def test_arange_dtype_and_examples_follow_pypto_docs(self):
        # Float arguments give fp32, all-int arguments int32; the length is ceil((end - start) / step).
        got = run(lambda: pypto.arange(1.0, 4.0, 0.5), [], "fp32", (6,))
        assert_equal(self, got, [1.0, 1.5, 2.0, 2.5, 3.0, 3.5], "arange(1.0, 4.0, 0.5)")
        got = run(lambda: pypto.arange(1.0, 4.0), [], "fp32", (3,))
        assert_equal(self, got, [1.0, 2.0, 3.0], "arange(1.0, 4.0)")
        got = run(lambda: pypto.arange(4), [], "int32", (4,))
        self.assertEqual(got.dtype, np.int32)
        assert_equal(self, got, [0, 1, 2, 3], "arange(4)")

    def test_tensor_temporaries_hold_what_is_written(self):
        x = random_data("fp32", (6, 130))

        def body(a):
            scratch = pypto.tensor([6, 130], pypto.DT_FP32, "scratch")
            scratch[...] = a * 2.0
            scratch[0:2, :] = a[0:2, :] + 100.0
            scratch[:, 128:] = pypto.full([6, 2], -1.0)
            return scratch - 1.0

        got = run(body, [("fp32", x)], "fp32", x.shape)
        expected = x * np.float32(2.0)
        expected[0:2] = x[0:2] + np.float32(100.0)
        expected[:, 128:] = -1.0
        assert_close(self, "fp32", got, expected - np.float32(1.0), "exact", "temporary")


# --- cast ---------------------------------------------------------------------------------------------------

def format_table(dtype):
    """Every finite value of fp16 or bf16 and +-inf, sorted (float64)."""
    bits = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    values = bits.view(np.float16).astype(np.float64) if dtype == "fp16" else bf16_value(bits).astype(np.float64)
    return np.unique(values[~np.isnan(values)])


def directed_round(dtype, values, mode):
    """values (float64) rounded into fp16/bf16 by mode, from the table of representable values."""
    table = format_table(dtype)
    values = np.asarray(values, np.float64)
    nearest = round_to(dtype, values).astype(np.float64)
    below = table[np.clip(np.searchsorted(table, values, side="right") - 1, 0, table.size - 1)]
    above = table[np.clip(np.searchsorted(table, values, side="left"), 0, table.size - 1)]
    if mode == "floor":
        result = below
    elif mode == "ceil":
        result = above
    elif mode == "trunc":
        result = np.where(values >= 0, below, above)
    elif mode == "round":  # nearest, ties away from zero; past the largest finite value: inf, like rint
        with np.errstate(invalid="ignore"):
            tie = (values - below) == (above - values)
        away = np.where(values >= 0, above, below)
        result = np.where(np.isinf(nearest), nearest, np.where(tie & (below != above), away, nearest))
    else:
        result = nearest
    return np.where(np.isnan(values), np.nan, result)


def integral(values, mode):
    values = np.asarray(values, np.float64)
    return {"rint": np.rint, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
            "round": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5)}[mode](values)


def saturate(values, dtype):
    """Integral float64 values converted to an integer dtype: saturating, NaN -> 0."""
    info = np.iinfo(NUMPY[dtype])
    values = np.where(np.isnan(values), 0.0, np.asarray(values, np.float64))
    high = float(info.max) + 1.0  # 2^(bits-1) or 2^bits: exact in float64, unlike float(int64 max)
    result = np.where((values > float(info.min)) & (values < high), values, 0.0).astype(NUMPY[dtype])
    result[values >= high] = info.max
    result[values <= float(info.min)] = info.min
    return result


MODES = ("rint", "round", "floor", "ceil", "trunc")


class Cast(unittest.TestCase):
    def test_float_to_integer_rounds_by_mode_and_saturates(self):
        specials = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 1e9, -1e9, np.nan, np.inf, -np.inf, 127.5, -128.5, 300.0]
        for src in FLOATS:
            x = with_specials(random_data(src, (3, 37), -200.0, 200.0), specials)
            x = round_to(src, x)
            for dst in INTS:
                for mode in MODES:
                    got = run(lambda a: pypto.cast(a, PYPTO[dst], mode), [(src, x)], dst, x.shape)
                    expected = saturate(integral(x, mode), dst)
                    assert_equal(self, got, expected, f"cast {src} -> {dst} {mode}")

    def test_pypto_spellings_of_modes(self):
        x = np.array([[0.5, 1.5, -0.5, -1.7, 2.2, 2.5]], np.float32)
        for spelling, mode in (("CAST_RINT", "rint"), ("CAST_ROUND", "round"), ("CAST_FLOOR", "floor"),
                               ("CAST_CEIL", "ceil"), ("CAST_TRUNC", "trunc"),
                               # CAST_NONE, PyPTO's default: toward zero from a float to an integer (its cast
                               # page's table, torch's rule)
                               ("CAST_NONE", "trunc"), (None, "trunc")):
            got = run(lambda a: pypto.cast(a, pypto.DT_INT32, spelling), [("fp32", x)], "int32", x.shape)
            assert_equal(self, got, integral(x, mode).astype(np.int32), f"mode {spelling}")

    def test_cast_mode_enum(self):
        x = np.array([[0.5, 1.5, -0.5, -1.7]], np.float32)
        got = run(lambda a: pypto.cast(a, pypto.DT_INT32, pypto.CastMode.CAST_FLOOR), [("fp32", x)], "int32", x.shape)
        assert_equal(self, got, np.floor(x).astype(np.int32), "CastMode.CAST_FLOOR")

    def test_fp32_to_fp16_and_bf16_by_mode(self):
        specials = [70000.0, -70000.0, 65504.0, 65519.0, 65520.0, 1e-8, -1e-8, 3e38, -3e38, np.nan, np.inf, 0.0,
                    1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1.0 + 2.0 ** -8, 1.0 + 3 * 2.0 ** -8, -(1.0 + 2.0 ** -8)]
        x = with_specials(RNG.normal(0, 100, size=(6, 130)).astype(np.float32), specials)
        for dst in ("fp16", "bf16"):
            for mode in MODES:
                got = run(lambda a: pypto.cast(a, PYPTO[dst], mode), [("fp32", x)], dst, x.shape)
                assert_equal(self, got, directed_round(dst, x, mode), f"cast fp32 -> {dst} {mode}")

    def test_between_fp16_and_bf16_by_mode(self):
        # fp16 -> bf16 drops mantissa bits; bf16 -> fp16 drops exponent range (overflow, subnormals).
        h = with_specials(random_data("fp16", (6, 130), -300, 300),
                          [65504, -65504, 6e-8, -6e-8, 1 + 2 ** -10, 1 + 3 * 2 ** -10, 1 + 2 ** -9 + 2 ** -10])
        b = exact("bf16", with_specials(random_data("bf16", (6, 130), -1e6, 1e6),
                                        [1e-7, -1e-7, 3e38, 65536.0, 65520.0, 1 + 2 ** -7, -1e-30]))
        for src, x, dst in (("fp16", h, "bf16"), ("bf16", b, "fp16")):
            for mode in MODES:
                got = run(lambda a: pypto.cast(a, PYPTO[dst], mode), [(src, x)], dst, x.shape)
                assert_equal(self, got, directed_round(dst, as64(x), mode), f"cast {src} -> {dst} {mode}")

    def test_widening_and_integer_casts(self):
        h = with_specials(random_data("fp16", (3, 37), -1000, 1000), [np.inf, np.nan, 65504.0, 6e-8])
        got = run(lambda a: pypto.cast(a, pypto.DT_FP32), [("fp16", h)], "fp32", h.shape)
        assert_equal(self, got, h.astype(np.float32), "fp16 -> fp32 is exact")
        b = random_data("bf16", (3, 37), -1e30, 1e30)
        got = run(lambda a: pypto.cast(a, pypto.DT_FP32), [("bf16", b)], "fp32", b.shape)
        assert_equal(self, got, b, "bf16 -> fp32 is exact")
        b = with_specials(random_data("bf16", (3, 37), -300, 300), [1e5, -1e5, 1.0 + 2.0 ** -7])
        got = run(lambda a: pypto.cast(a, pypto.DT_FP16), [("bf16", b)], "fp16", b.shape)
        assert_equal(self, got, b.astype(np.float16), "bf16 -> fp16 rounds to nearest even")
        i = with_specials(full_range("int32", (3, 37)), [2049, 2051, 4097, 65519, 65521, 16777217])
        got = run(lambda a: pypto.cast(a, pypto.DT_FP16), [("int32", i)], "fp16", i.shape)
        assert_equal(self, got, i.astype(np.float16), "int32 -> fp16 rounds to nearest even once")
        got = run(lambda a: pypto.cast(a, pypto.DT_FP32), [("int32", i)], "fp32", i.shape)
        assert_equal(self, got, i.astype(np.float32), "int32 -> fp32")
        small = with_specials(random_data("int32", (3, 37), -(1 << 20), 1 << 20), [257, 259, 513, -259])
        got = run(lambda a: pypto.cast(a, pypto.DT_BF16), [("int32", small)], "bf16", small.shape)
        assert_equal(self, got, bf16_round(small.astype(np.float32)), "int32 -> bf16 nearest even")
        # Rounded once: 2^30 + 2^22 + 1 is just above a bf16 tie, which float32 (2^30 + 2^22) would hit.
        big = np.array([[2 ** 30 + 2 ** 22 + 1, -(2 ** 30 + 2 ** 22 + 1), 2 ** 30 + 2 ** 22, 2 ** 24 + 1]], np.int32)
        got = run(lambda a: pypto.cast(a, pypto.DT_BF16), [("int32", big)], "bf16", big.shape)
        assert_equal(self, got, [[2 ** 30 + 2 ** 23, -(2 ** 30 + 2 ** 23), 2 ** 30, 2 ** 24]], "int32 -> bf16 once")
        for src, dst in (("int32", "int8"), ("int64", "int16"), ("int8", "int64"), ("int16", "uint8"),
                         ("uint8", "int8"), ("int64", "int32")):
            x = full_range(src, (3, 37))
            got = run(lambda a: pypto.cast(a, PYPTO[dst]), [(src, x)], dst, x.shape)
            assert_equal(self, got, x.astype(NUMPY[dst]), f"cast {src} -> {dst} wraps")

    def test_bool_casts(self):
        for src in ("fp32", "bf16", "int8", "uint8", "int64"):
            x = random_data(src, (3, 37), 0, 2)
            if src in FLOATS:  # mostly 0, 1 and 2, and the cases that matter
                x = exact(src, with_specials(np.round(x), [0.0, -0.0, 0.5, np.nan, -1e-30]))
            got = run(lambda a: pypto.cast(a, pypto.DT_BOOL), [(src, x)], "bool", x.shape)
            assert_equal(self, got, as64(x) != 0, f"cast {src} -> bool is nonzero")
        c = random_data("bool", (3, 37))
        for dst in ("fp32", "fp16", "bf16", "int32", "uint8"):
            got = run(lambda a: pypto.cast(a, PYPTO[dst]), [("bool", c)], dst, c.shape)
            assert_equal(self, got, c.astype(np.float64), f"cast bool -> {dst}")


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


# --- matmul -------------------------------------------------------------------------------------------------

def matmul_kernel(out_dtype, a_trans, b_trans):
    @pypto.frontend.jit
    def k(a: pypto.Tensor(), b: pypto.Tensor(), out: pypto.Tensor()):
        pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
        out[...] = pypto.matmul(a, b, out_dtype, a_trans=a_trans, b_trans=b_trans)
    return k


class Matmul(unittest.TestCase):
    CASES = [((5, 37), (37, 19)), ((1, 1), (1, 1)), ((16, 64), (64, 32)), ((33, 100), (100, 7)),
             ((2, 5, 37), (2, 37, 19)), ((3, 4, 8, 17), (3, 4, 17, 9)), ((3, 6, 10), (1, 10, 5))]

    def check(self, in_dtype, out_dtype, a_shape, b_shape, a_trans, b_trans):
        a = random_data(in_dtype, a_shape, -2.0, 2.0)
        b = random_data(in_dtype, b_shape, -2.0, 2.0)
        a_arg = np.ascontiguousarray(np.swapaxes(a, -1, -2)) if a_trans else a
        b_arg = np.ascontiguousarray(np.swapaxes(b, -1, -2)) if b_trans else b
        out_shape = np.broadcast_shapes(a_shape[:-2], b_shape[:-2]) + (a_shape[-2], b_shape[-1])
        out = empty_output(out_dtype, out_shape)
        matmul_kernel(PYPTO[out_dtype], a_trans, b_trans)(to_argument(in_dtype, a_arg), to_argument(in_dtype, b_arg),
                                                          out)
        expected = np.matmul(as64(a), as64(b))
        bound = a_shape[-1] * EPS32 * np.matmul(np.abs(as64(a)), np.abs(as64(b)))
        if out_dtype != "fp32":
            bound = bound + ulp(out_dtype, expected)
        assert_within(self, from_output(out_dtype, out), expected, bound,
                      f"matmul {in_dtype}->{out_dtype} {a_shape}@{b_shape} a_trans={a_trans} b_trans={b_trans}")

    def test_float_matmul(self):
        for in_dtype, out_dtype in (("fp32", "fp32"), ("fp16", "fp32"), ("fp16", "fp16"), ("bf16", "fp32"),
                                    ("bf16", "bf16")):
            for a_shape, b_shape in self.CASES:
                self.check(in_dtype, out_dtype, a_shape, b_shape, False, False)

    def test_transposed_operands(self):
        for in_dtype, out_dtype in (("fp32", "fp32"), ("fp16", "fp32")):
            for a_shape, b_shape in self.CASES[:5]:
                for a_trans, b_trans in ((True, False), (False, True), (True, True)):
                    self.check(in_dtype, out_dtype, a_shape, b_shape, a_trans, b_trans)

    def test_default_out_dtype_and_int8(self):
        a = random_data("int8", (5, 70), None, None)
        b = random_data("int8", (70, 9), None, None)

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), y: pypto.Tensor()) -> pypto.Tensor():
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
            return pypto.matmul(x, y)

        got = k(a, b)
        self.assertEqual(got.dtype, np.int32)  # int8 operands give int32 by default, accumulated exactly
        assert_equal(self, got, a.astype(np.int64) @ b.astype(np.int64), "int8 matmul")
        h = random_data("fp16", (5, 37))
        got = k(h, random_data("fp16", (37, 3)))
        self.assertEqual(got.dtype, np.float32)  # float operands give fp32 by default

        @pypto.frontend.jit
        def transposed(x: pypto.Tensor(), y: pypto.Tensor()) -> pypto.Tensor():
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
            return pypto.matmul(x, y, pypto.DT_INT32, a_trans=True, b_trans=True)

        a = random_data("int8", (70, 5), None, None)
        b = random_data("int8", (9, 70), None, None)
        assert_equal(self, transposed(a, b), a.T.astype(np.int64) @ b.T.astype(np.int64), "int8 transposed")

    def test_matmul_operator(self):
        a = random_data("fp32", (5, 37))
        b = random_data("fp32", (37, 19))

        @pypto.frontend.jit
        def k(x: pypto.Tensor(), y: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_cube_tile_shapes([16, 32], [32, 64], [16, 32])
            out[...] = x @ y

        out = np.zeros((5, 19), np.float32)
        k(a, b, out)
        bound = 37 * EPS32 * (np.abs(as64(a)) @ np.abs(as64(b)))
        assert_within(self, out, as64(a) @ as64(b), bound, "x @ y")


# --- quantisation -------------------------------------------------------------------------------------------

def quantize64(x, scale, zero_points=None):
    """PyPTO's quantize in numpy: the fp32 product (plus the zero points, in fp32), rounded half to even."""
    shifted = x.astype(np.float32) * scale.astype(np.float32)
    if zero_points is not None:
        shifted = shifted + zero_points.astype(np.float32)
    with np.errstate(invalid="ignore"):
        return np.rint(shifted).astype(np.float64)


class Quantize(unittest.TestCase):
    """PyPTO's contract: quantize(x, scale, otype, axis, zero_points) = round(x * scale [+ zero_points]) into
    int8 (symmetric) or uint8 (asymmetric), ties to even, saturating; scale holds one value per row (axis -1,
    shape [..., row]) or per column (axis -2, shape [..., col]). dequantize = (float(q) [- zero_points]) * scale
    (PyPTO's on-board Dequantize test's golden)."""

    def test_symmetric_int8_per_row_and_per_column(self):
        x = with_specials(random_data("fp32", (6, 130), -300, 300), [0.5, 1.5, -2.5, 1000.0, -1000.0, np.nan])
        for axis, scale_shape, numpy_shape in ((-1, (6,), (6, 1)), (-2, (130,), (1, 130)), (1, (6,), (6, 1)),
                                               (-1, (6, 1), (6, 1))):
            scale = with_specials(random_data("fp32", scale_shape, 0.5, 2.0), [1.0])
            got = run(lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, axis), [("fp32", x), ("fp32", scale)],
                      "int8", x.shape)
            self.assertEqual(got.dtype, np.int8)
            expected = saturate(quantize64(x, scale.reshape(numpy_shape)), "int8")
            assert_equal(self, got, expected, f"quantize axis {axis} scale {scale_shape}")

    def test_asymmetric_uint8_with_zero_points(self):
        x = random_data("fp32", (3, 2, 37), -200, 200)
        scale = random_data("fp32", (3, 2), 0.25, 1.0)
        zero_points = random_data("fp32", (3, 2), -10.0, 140.0)
        got = run(lambda a, s, z: pypto.quantize(a, s, pypto.DT_UINT8, -1, z),
                  [("fp32", x), ("fp32", scale), ("fp32", zero_points)], "uint8", x.shape)
        self.assertEqual(got.dtype, np.uint8)
        expected = saturate(quantize64(x, scale[..., None], zero_points[..., None]), "uint8")
        assert_equal(self, got, expected, "quantize uint8")

    def test_documented_example(self):
        # PyPTO's page: x rows [1.1, -2.2, 3.3, -4.4], scale 1 -> [1, -2, 3, -4].
        x = np.tile(np.array([1.1, -2.2, 3.3, -4.4], np.float32), (3, 1))
        got = run(lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, -1, None),
                  [("fp32", x), ("fp32", np.ones(3, np.float32))], "int8", x.shape, tile=(4, 32))
        np.testing.assert_array_equal(got, np.tile(np.array([1, -2, 3, -4], np.int8), (3, 1)))

    def test_fp16_and_bf16_inputs_compute_in_fp32(self):
        for dtype in ("fp16", "bf16"):
            x = random_data(dtype, (3, 37), -100, 100)
            scale = random_data(dtype, (3,), 0.5, 2.0)
            got = run(lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, -1), [(dtype, x), (dtype, scale)], "int8",
                      x.shape)
            assert_equal(self, got, saturate(quantize64(x, scale[:, None]), "int8"), f"quantize {dtype}")

    def test_dequantize(self):
        for q_dtype in ("int8", "int16", "uint8"):
            q = full_range(q_dtype, (6, 130))
            scale = random_data("fp32", (130,), 0.001, 0.1)
            got = run(lambda a, s: pypto.dequantize(a, s, pypto.DT_FP32, -2), [(q_dtype, q), ("fp32", scale)],
                      "fp32", q.shape)
            assert_close(self, "fp32", got, (q.astype(np.float32) * scale).astype(np.float64), "exact",
                         f"dequantize {q_dtype}")
        q = full_range("int8", (6, 130))
        scale = random_data("fp32", (6,), 0.001, 0.1)
        zero_points = random_data("fp32", (6,), -3.0, 3.0)
        got = run(lambda a, s, z: pypto.dequantize(a, s, pypto.DT_FP32, -1, z),
                  [("int8", q), ("fp32", scale), ("fp32", zero_points)], "fp32", q.shape)
        expected = (q.astype(np.float32) - zero_points[:, None]) * scale[:, None]
        assert_close(self, "fp32", got, expected.astype(np.float64), "exact", "dequantize with zero points")

    def test_round_trip(self):
        x = random_data("fp32", (6, 130), -1.0, 1.0)
        scale = np.full((6,), 127.0, np.float32)
        inverse = np.full((6,), 1.0 / 127.0, np.float32)
        got = run(lambda a, s, r: pypto.dequantize(pypto.quantize(a, s, pypto.DT_INT8, -1), r, pypto.DT_FP32, -1),
                  [("fp32", x), ("fp32", scale), ("fp32", inverse)], "fp32", x.shape)
        assert_within(self, got, x, 0.5 / 127.0 + 1e-6, "quantize then dequantize")

    def test_errors_name_the_rule(self):
        x = random_data("fp32", (2, 3, 64), -1, 1)
        cases = [
            (lambda a, s: pypto.quantize(a, s, pypto.DT_INT16, -1), np.ones((2, 3), np.float32),
             "otype must be DT_INT8 (symmetric) or DT_UINT8"),
            (lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, 0), np.ones((3, 64), np.float32),
             "axis 0 must be one of the last two dims"),
            (lambda a, s: pypto.quantize(a, s, pypto.DT_INT8, -1), np.ones((2, 64), np.float32),
             "does not broadcast to float32 [2, 3, 64]; give one scale per row with a 1 in dim 2"),
        ]
        for body, scale, message in cases:
            with self.assertRaises(pypto.KernelError) as caught:
                run(body, [("fp32", x), ("fp32", scale)], "int8", x.shape)
            self.assertIn(message, str(caught.exception))


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


# --- slicing ------------------------------------------------------------------------------------------------

class Slicing(unittest.TestCase):
    def test_reading_with_ints_slices_and_ellipsis(self):
        x = random_data("fp32", (4, 6, 37))
        cases = [(lambda a: a[1:3, :, 5:30], x[1:3, :, 5:30]),
                 (lambda a: a[..., 2:9], x[..., 2:9]),
                 (lambda a: a[2], x[2]),
                 (lambda a: a[-1, 1:4], x[-1, 1:4]),
                 (lambda a: a[:, 3], x[:, 3]),
                 (lambda a: a[1:, ..., -5:], x[1:, ..., -5:]),
                 (lambda a: a[:2, 0:100], x[:2, 0:100]),
                 (lambda a: a[1, 2, 3:4], x[1, 2, 3:4]),
                 (lambda a: a[:, :, 36], x[:, :, 36])]
        for index, (body, expected) in enumerate(cases):
            got = run(body, [("fp32", x)], "fp32", expected.shape, tile=None)
            assert_equal(self, got, expected, f"slicing case {index}")

    def test_slices_feed_vector_ops(self):
        x = random_data("fp16", (4, 6, 37))
        got = run(lambda a: a[1:3, 2:5, :] * 2.0 + a[0:2, 0:3, :], [("fp16", x)], "fp16", (2, 3, 37))
        expected = (x[1:3, 2:5].astype(np.float32) * 2).astype(np.float16).astype(np.float32) + x[0:2, 0:3]
        assert_close(self, "fp16", got, expected.astype(np.float64), "exact", "slices in arithmetic")

    def test_slice_assignment(self):
        x = random_data("fp32", (6, 130))
        before = random_data("fp32", (6, 130))

        @pypto.frontend.jit
        def k(a: pypto.Tensor(), out: pypto.Tensor()):
            pypto.set_vec_tile_shapes(4, 64)
            out[1:3, :] = a[0:2, :] + 1.0
            out[4:, 100:] = a[4:, 100:] * 3.0
            out[0, 0:64] = a[5, 0:64]
            out[5, ...] = 7.0
            out[:, 127] = a[:, 0]

        out = before.copy()
        k(x, out)
        expected = before.copy()
        expected[1:3, :] = x[0:2, :] + np.float32(1.0)
        expected[4:, 100:] = x[4:, 100:] * np.float32(3.0)
        expected[0, 0:64] = x[5, 0:64]
        expected[5, ...] = 7.0
        expected[:, 127] = x[:, 0]
        assert_equal(self, out, expected, "slice assignment")

    def test_overlapping_assignment_reads_before_it_writes(self):
        @pypto.frontend.jit
        def right(o: pypto.Tensor()):
            o[:, 1:] = o[:, :-1]

        @pypto.frontend.jit
        def left(o: pypto.Tensor()):
            o[:, :-1] = o[:, 1:]

        for kernel_, shift in ((right, 1), (left, -1)):
            out = random_data("fp32", (3, 37))
            expected = out.copy()
            if shift == 1:
                expected[:, 1:] = out[:, :-1]
            else:
                expected[:, :-1] = out[:, 1:]
            kernel_(out)
            assert_equal(self, out, expected, f"shift {shift}")

    def test_an_output_can_be_read_after_it_is_written(self):
        x = random_data("fp32", (3, 37))

        @pypto.frontend.jit
        def k(a: pypto.Tensor(), o: pypto.Tensor()):
            pypto.set_vec_tile_shapes(4, 64)
            o[...] = a + 1.0
            o[...] = o * 2.0
            o[:, 0:2] = o[:, 0:2] + 100.0

        out = np.zeros_like(x)
        k(x, out)
        expected = (x + np.float32(1)) * np.float32(2)
        expected[:, 0:2] += np.float32(100)
        assert_equal(self, out, expected, "read after write")

    def test_assignment_of_a_broadcast_scalar_in_every_dtype(self):
        for dtype in LAYOUT_DTYPES:
            before = random_data(dtype, (3, 37))

            @pypto.frontend.jit
            def k(out: pypto.Tensor()):
                out[1:, 30:] = 1

            out = to_argument(dtype, before)
            k(out)
            expected = before.copy()
            expected[1:, 30:] = 1
            assert_equal(self, from_output(dtype, out), expected, f"out[1:, 30:] = 1 {dtype}")


if __name__ == "__main__":
    unittest.main()
