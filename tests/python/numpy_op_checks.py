"""Helpers the numpy op tests (test_ops_numpy_*.py) share: the dtypes, shapes and vec tiles they run, the
tolerances they compare under, bf16 in numpy, making arguments, running a body as a kernel, and the checks.

Each test builds small kernels, calls them on random data of several shapes (most of them not multiples of
the vec tile) and dtypes, and compares the outputs with an independent numpy computation under the
tolerances stated in TOLERANCES below. Integer semantics follow compiler/reference/ReferenceInterpreter.h
(floor division, wrapping, truncating float maths) and docs/ir.md.
"""
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
# The dtypes the layout and slicing tests move (data movement only: one of each item size, and bool).
LAYOUT_DTYPES = ("fp32", "fp16", "bf16", "int8", "int64", "uint8", "bool")

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


def saturate(values, dtype):
    """Integral float64 values converted to an integer dtype: saturating, NaN -> 0."""
    info = np.iinfo(NUMPY[dtype])
    values = np.where(np.isnan(values), 0.0, np.asarray(values, np.float64))
    high = float(info.max) + 1.0  # 2^(bits-1) or 2^bits: exact in float64, unlike float(int64 max)
    result = np.where((values > float(info.min)) & (values < high), values, 0.0).astype(NUMPY[dtype])
    result[values >= high] = info.max
    result[values <= float(info.min)] = info.min
    return result
