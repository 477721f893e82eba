"""The rest of PyPTO's documented API (its reference: docs/zh/api in hicann/pypto).

Each name is either built here from operations the compiler and simulator already model (so the swimlane
shows the instructions it would cost), or raises a KernelError at the call that names it as unsupported and
says why. Nothing is silently approximated: where a composite differs from PyPTO's own instruction at an edge
(an infinity, a NaN payload) the docstring says so."""
import enum
import functools
import math
import sys

import _pypto_core as _core

from . import _elementwise, _ops, _recording, _shapes
from ._errors import KernelError
from ._location import user_location
from ._tensor import Tensor


def _fail(message):
    file, line, column = user_location()
    raise KernelError(message, file, line, column)


def _unsupported(name, reason):
    def function(*args, **kwargs):
        _fail(f"pypto.{name} is not supported by PTO Studio: {reason}")
    function.__name__ = name
    function.__doc__ = f"Not supported by PTO Studio: {reason}."
    return function


_NO_INSTRUCTION = "the machines modelled (A2/A3/950-like) have no instruction for it in PTO Studio's simulator"

# --- elementwise math built from modelled operations -----------------------------------------------------


def _bf16_in_fp32(composite):
    """`composite` (built from several operations) computed on bf16 tensors widened to fp32 and rounded once
    to bf16: the vector unit has no bf16 arithmetic, so PyPTO computes a bf16 operation in fp32, and its
    goldens (torch on bf16 tensors) round once. Rounding every step to bf16's 8 significant bits instead is
    off by a bf16 step in about 1 % of tan's and atanh's results, and exp(x - y) by up to 2^-8 * |x - y|
    relative. Other dtypes compute as they are."""
    bf16, fp32 = _ops.DataType.DT_BF16, _ops.DataType.DT_FP32

    def narrow(x):
        return _recording._is_tensor(x) and x.dtype == bf16

    @functools.wraps(composite)
    def compute(*args, **kwargs):
        if not any(narrow(x) for x in (*args, *kwargs.values())):
            return composite(*args, **kwargs)
        def wide(x):
            return _ops.cast(x, fp32) if narrow(x) else x
        return _ops.cast(composite(*map(wide, args), **{k: wide(v) for k, v in kwargs.items()}), bf16)
    return compute


def log2(input, precision_type=_ops.PrecisionType.INTRINSIC):  # noqa: A002 - PyPTO's parameter names
    """log(x) / ln 2. precision_type is accepted and has no numeric effect here."""
    _elementwise._accepted_precision(precision_type, "log2")
    return _ops.mul(_ops.log(input), 1.0 / math.log(2.0))


def log10(input, precision_type=_ops.PrecisionType.INTRINSIC):  # noqa: A002
    """log(x) / ln 10. precision_type is accepted and has no numeric effect here."""
    _elementwise._accepted_precision(precision_type, "log10")
    return _ops.mul(_ops.log(input), 1.0 / math.log(10.0))


@_bf16_in_fp32
def tan(input):  # noqa: A002
    """sin(x) / cos(x)."""
    return _ops.div(_ops.sin(input), _ops.cos(input))


@_bf16_in_fp32
def sinh(input):  # noqa: A002
    """(e^x - e^-x) / 2."""
    return _ops.mul(_ops.sub(_ops.exp(input), _ops.exp(_ops.neg(input))), 0.5)


@_bf16_in_fp32
def cosh(input):  # noqa: A002
    """(e^x + e^-x) / 2."""
    return _ops.mul(_ops.add(_ops.exp(input), _ops.exp(_ops.neg(input))), 0.5)


@_bf16_in_fp32
def asinh(input):  # noqa: A002
    """sign(x) * log(|x| + sqrt(x^2 + 1)) (odd, so large negative x keeps its precision)."""
    magnitude = _ops.abs(input)
    root = _ops.sqrt(_ops.add(_ops.mul(magnitude, magnitude), 1.0))
    return _ops.mul(_ops.sign(input), _ops.log(_ops.add(magnitude, root)))


@_bf16_in_fp32
def acosh(input):  # noqa: A002
    """log(x + sqrt(x^2 - 1)), for x >= 1."""
    return _ops.log(_ops.add(input, _ops.sqrt(_ops.sub(_ops.mul(input, input), 1.0))))


@_bf16_in_fp32
def atanh(input):  # noqa: A002
    """log((1 + x) / (1 - x)) / 2, for |x| < 1."""
    return _ops.mul(_ops.log(_ops.div(_ops.add(input, 1.0), _ops.sub(1.0, input))), 0.5)


@_bf16_in_fp32
def cbrt(input):  # noqa: A002
    """sign(x) * |x|^(1/3)."""
    return _ops.mul(_ops.sign(input), _ops.pow(_ops.abs(input), 1.0 / 3.0))


@_bf16_in_fp32
def hypot(input, other):  # noqa: A002
    """sqrt(x^2 + y^2) (no rescaling: squares beyond the dtype's range overflow, unlike torch.hypot)."""
    return _ops.sqrt(_ops.add(_ops.mul(input, input), _ops.mul(other, other)))


def floor_div(input, other):  # noqa: A002
    """floor(x / y), as Python's //."""
    return _ops.floor(_ops.div(input, other))


def ceil_div(input, other):  # noqa: A002
    """ceil(x / y). Integer tensors divide as PyPTO does, in fp32 (exact for |values| <= 2^24, its stated
    range): 7 ceil_div 2 is 4, -7 ceil_div 2 is -3."""
    if _recording._is_tensor(input) and not input.dtype.is_float():
        dtype = input.dtype
        numerator = _ops.cast(input, _ops.DataType.DT_FP32)
        denominator = _ops.cast(other, _ops.DataType.DT_FP32) if _recording._is_tensor(other) else float(other)
        return _ops.cast(_ops.ceil(_ops.div(numerator, denominator)), dtype)
    return _ops.ceil(_ops.div(input, other))


def _in_fp32(compute, *operands):
    """compute(*operands) on fp16/bf16 tensors widened to fp32, the result rounded once back to their dtype:
    a quotient rounded to half precision before its floor or trunc would often be the wrong integer (torch
    computes fmod and remainder of half tensors exactly, then rounds once). Other dtypes compute as they are."""
    half = [x.dtype for x in operands if _recording._is_tensor(x) and x.dtype in (_ops.DataType.DT_FP16,
                                                                            _ops.DataType.DT_BF16)]
    if not half:
        return compute(*operands)
    fp32 = _ops.DataType.DT_FP32
    # A Python number takes the tensor's dtype first (torch's and numpy's rule for a scalar operand).
    wide = [_ops.cast(x, fp32) if _recording._is_tensor(x) and x.dtype != fp32
            else _rounded_to_half(x, half[0]) if isinstance(x, float) else x for x in operands]
    return _ops.cast(compute(*wide), half[0])


def _rounded_to_half(value, dtype):
    """value rounded to fp16 or bf16 (nearest even), as a Python float."""
    import struct  # noqa: PLC0415
    if dtype == _ops.DataType.DT_FP16:
        return struct.unpack("<e", struct.pack("<e", value))[0] if abs(value) < 65520.0 else math.copysign(
            math.inf, value)
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if math.isfinite(value):
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def remainder(input, other, precision_type=_ops.PrecisionType.HIGH_PRECISION):  # noqa: A002
    """x - floor(x / y) * y: the result has the divisor's sign, as Python's % and torch.remainder; fp16/bf16
    in fp32 (_in_fp32). precision_type is accepted and has no numeric effect here."""
    _elementwise._accepted_precision(precision_type, "remainder")
    return _in_fp32(lambda x, y: _ops.sub(x, _ops.mul(_ops.floor(_ops.div(x, y)), y)), input, other)


def fmod(input, other, precision_type=_ops.PrecisionType.HIGH_PRECISION):  # noqa: A002
    """x - trunc(x / y) * y: the result has the dividend's sign, as C's fmod and torch.fmod; fp16/bf16 in
    fp32 (_in_fp32). precision_type is accepted and has no numeric effect here."""
    _elementwise._accepted_precision(precision_type, "fmod")
    return _in_fp32(lambda x, y: _ops.sub(x, _ops.mul(_ops.trunc(_ops.div(x, y)), y)), input, other)


def isnan(input):  # noqa: A002
    """x != x: true exactly for NaN."""
    return _ops.ne(input, input)


def lrelu(input, negative_slope=0.01):  # noqa: A002
    """x where x > 0, else negative_slope * x."""
    return _ops.where(_ops.gt(input, 0.0), input, _ops.mul(input, float(negative_slope)))


def prelu(input, weight):  # noqa: A002
    """x where x >= 0, else weight * x. As in PyPTO (and torch), a 1-D weight holds one value per channel, the
    input's dim 1 (for a 1-D input, one value shared by every element)."""
    rank = len(input.shape)
    if _recording._is_tensor(weight) and len(weight.shape) == 1 and rank >= 2:
        weight = _ops.reshape(weight, [weight.shape[0]] + [1] * (rank - 2))
    return _ops.where(_ops.ge(input, 0.0), input, _ops.mul(input, weight))


def var(input, dim=None, *, correction=1, keepdim=False):  # noqa: A002
    """sum((x - mean)^2) / max(0, N - correction) over `dim` (all dims when None or empty), as PyPTO's Var: no
    degrees of freedom left divides by 0 (inf, or NaN where every element equals the mean). Reducing every dim
    without keepdim gives shape [1], as PyPTO's squeeze does. fp16/bf16 input is computed in fp32 and rounded
    once at the end, as torch does: the sum of squares would overflow fp16 long before the variance does."""
    rank = len(input.shape)
    dims = [dim] if isinstance(dim, int) else list(dim or [])
    dims = dims or list(range(rank))
    count = 1
    for d in dims:
        size = input.shape[d]
        if not size.is_concrete():
            _fail(f"var: dim {d} is only known when the kernel runs; var needs the element count while tracing")
        count *= size.concrete()
    freedom = count - correction
    narrow = input.dtype in (_ops.DataType.DT_FP16, _ops.DataType.DT_BF16)
    values = _ops.cast(input, _ops.DataType.DT_FP32) if narrow else input
    mean = _ops.mul(_ops.sum(values, dim=dims, keepdim=True), 1.0 / count)
    centred = _ops.sub(values, mean)
    squares = _ops.sum(_ops.mul(centred, centred), dim=dims, keepdim=keepdim)
    result = _ops.mul(squares, 1.0 / freedom) if freedom > 0 else _ops.div(squares, 0.0)
    if not keepdim and len({d % rank for d in dims}) == rank:
        result = _ops.reshape(result, [1])
    return _ops.cast(result, input.dtype) if narrow else result


def logical_not(input):  # noqa: A002
    return _ops.logical_not(input)


# --- operations with an instruction of their own --------------------------------------------------------


def acos(input):  # noqa: A002
    """Elementwise arc cosine (float tensors); NaN outside [-1, 1]."""
    return _recording._one("acos", [input])


def asin(input):  # noqa: A002
    """Elementwise arc sine (float tensors); NaN outside [-1, 1]."""
    return _recording._one("asin", [input])


def atan(input):  # noqa: A002
    """Elementwise arc tangent (float tensors)."""
    return _recording._one("atan", [input])


def atan2(y, x):
    """Elementwise atan(y / x) in the quadrant of (x, y), as numpy.arctan2 (float tensors, broadcasting)."""
    if not (_recording._is_tensor(y) and _recording._is_tensor(x)):
        _fail("atan2: both operands must be tensors (PyPTO's atan2 takes no scalar)")
    return _recording._one("atan2", [y, x])


def signbit(input):  # noqa: A002
    """Whether each element's sign bit is set (a bool tensor): true for negatives, -0.0 and -NaN."""
    return _recording._one("signbit", [input])


def copysign(input, other):  # noqa: A002
    """The magnitude of `input` with the sign bit of `other`, elementwise (broadcasting), as PyPTO's CopySign:
    int16/int32 operands are cast to fp32 first, so the result is floating point. Built from abs, signbit and a
    select, which is what it costs on the vector unit here."""
    def floating(value):
        if value.dtype in (_ops.DataType.DT_INT16, _ops.DataType.DT_INT32):
            return _ops.cast(value, _ops.DataType.DT_FP32)
        return value
    if not (_recording._is_tensor(input) and _recording._is_tensor(other)):
        _fail("copysign: both operands must be tensors (PyPTO's copysign takes no scalar); for a constant sign, "
              "pass pypto.full(shape, value, dtype)")
    magnitude = _ops.abs(floating(input))
    return _ops.where(signbit(floating(other)), _ops.neg(magnitude), magnitude)


def _integer_scalar(value, what):
    """An int operand of a bitwise op, shift or gcd (bool and floats are refused: PyPTO takes int only)."""
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(f"{what}: the scalar operand must be an int, got {type(value).__name__} {value!r}")
    return float(value)


def _integer_binary(kind, scalar_kind, reversed_kind=None):
    def op(input, other):  # noqa: A002 - PyPTO's names
        if _recording._is_tensor(input) and _recording._is_tensor(other):
            return _recording._one(kind, [input, other])
        if _recording._is_tensor(input):
            return _recording._one(scalar_kind, [input], {"scalar": _integer_scalar(other, kind)})
        if _recording._is_tensor(other):
            if reversed_kind is None:  # commutative
                return _recording._one(scalar_kind, [other], {"scalar": _integer_scalar(input, kind)})
            return _recording._one(reversed_kind, [other], {"scalar": _integer_scalar(input, kind)})
        _fail(f"{kind}: at least one operand must be a tensor")
    op.__name__ = kind
    op.__doc__ = (f"Elementwise {kind} of integer tensors (broadcasting) or of a tensor and an int; results wrap "
                  f"into the dtype.")
    return op


bitwise_and = _integer_binary("bitwise_and", "bitwise_ands")
bitwise_or = _integer_binary("bitwise_or", "bitwise_ors")
bitwise_xor = _integer_binary("bitwise_xor", "bitwise_xors")
bitwise_left_shift = _integer_binary("bitwise_left_shift", "bitwise_left_shifts", "rbitwise_left_shifts")
bitwise_right_shift = _integer_binary("bitwise_right_shift", "bitwise_right_shifts", "rbitwise_right_shifts")
gcd = _integer_binary("gcd", "gcds")
bitwise_left_shift.__doc__ += " A count outside [0, the dtype's width) gives 0, as in torch 2.1+."
bitwise_right_shift.__doc__ += (" Arithmetic on signed dtypes; a count outside [0, the dtype's width) gives the sign "
                                "(0 or -1), as in torch.")
gcd.__doc__ = "Elementwise greatest common divisor, as numpy.gcd (never negative; gcd(0, 0) = 0)."


def bitwise_not(input):  # noqa: A002
    """Elementwise complement of an integer tensor (of a bool tensor: its negation)."""
    return _recording._one("bitwise_not", [input])


def _concrete_int(value, what):
    """An int known while tracing (an int, or a symbolic scalar that is known), else a KernelError at the line."""
    known = _recording._known_int(value)
    if known is None:
        _fail(f"{what}: expected an int known while tracing, got {type(value).__name__} {value!r}; "
              f"give a Python int or a static dim")
    return known


def _diagonal(value, what):
    """tril/triu's diagonal: an int, or a symbolic scalar known when the kernel runs (PyPTO's SymInt: its tests
    move the diagonal by a view block's offsets, diagonal + row - column)."""
    from ._symbolic import SymbolicScalar
    if isinstance(value, SymbolicScalar) and not value.is_concrete():
        return value
    return _concrete_int(value, what)


def tril(input, diagonal=0):  # noqa: A002
    """The lower triangle of the last two dims: element (.., i, j) kept where j - i <= diagonal, else 0."""
    return _recording._one("tril", [input], {"diagonal": _diagonal(diagonal, "tril: diagonal")})


def triu(input, diagonal=0):  # noqa: A002
    """The upper triangle of the last two dims: element (.., i, j) kept where j - i >= diagonal, else 0."""
    return _recording._one("triu", [input], {"diagonal": _diagonal(diagonal, "triu: diagonal")})


def cumsum(input, dim):  # noqa: A002
    """Running sums along `dim`. Float tensors keep their dtype (fp16/bf16 accumulate in fp32 and round each
    sum once); integer tensors give int64, as PyPTO and torch do. A tile spans the whole dim."""
    return _recording._one("cumsum", [input], {"dim": _concrete_int(dim, "cumsum: dim")})


def cumprod(input, dim):  # noqa: A002
    """Running products along `dim`; dtypes as cumsum."""
    return _recording._one("cumprod", [input], {"dim": _concrete_int(dim, "cumprod: dim")})


def _dims_of(tensor, what):
    """A tensor's dims as ints (they must be known while tracing)."""
    dims = [_recording._known_int(size) for size in tensor.shape]
    if None in dims:
        d = dims.index(None)
        _fail(f"{what}: dim {d} of the input is only known when the kernel runs; this operation needs it while "
              f"tracing (give the tensor a static size there)")
    return dims


def expand_clone(input, shape, *, valid_shape=None):  # noqa: A002
    """input broadcast to `shape` (its dims of 1 repeated, numpy's rules) as a new tensor: one TEXPAND per
    output tile. With valid_shape (sizes known when the kernel runs, PyPTO's hint for a run-time tail) only
    that leading part of the result holds data: an assemble of it writes just that part, as PyPTO's Expand
    of a loop's last block past the tensor's end does."""
    attrs = {"shape": list(shape)}
    if valid_shape:
        attrs["valid_shape"] = _shapes._valid_shape(valid_shape, len(attrs["shape"]), "expand_clone")
    result = _recording._one("expand_clone", [input], attrs)
    if valid_shape:
        result._valid_shape = attrs["valid_shape"]
    return result


@_bf16_in_fp32
def expand_exp_dif(input, other):  # noqa: A002
    """exp(input - other) with broadcasting (PyPTO's fused row/column-expand form), as a subtraction and an
    exp: the swimlane shows both instructions."""
    return _ops.exp(_ops.sub(input, other))


def axpy_(y, x, alpha=1.0):
    """y += alpha * x in place (x broadcasts to y); returns y. x may have another float dtype than y (an fp16
    x into an fp32 y): then both are computed in fp32 and the sum rounded once to y's dtype, as PyPTO's
    golden does."""
    if x.dtype != y.dtype:
        fp32 = _ops.DataType.DT_FP32
        wide_y = y if y.dtype == fp32 else _ops.cast(y, fp32)
        wide_x = x if x.dtype == fp32 else _ops.cast(x, fp32)
        total = _ops.add(wide_y, wide_x if float(alpha) == 1.0 else _ops.mul(wide_x, float(alpha)))
        _recording._one("copy", [total if y.dtype == fp32 else _ops.cast(total, y.dtype)], into=[y])
        return y
    scaled = x if float(alpha) == 1.0 else _ops.mul(x, float(alpha))
    _recording._one("copy", [_ops.add(y, scaled)], into=[y])
    return y


def one_hot(input, num_classes):  # noqa: A002
    """int64 [*input.shape, num_classes]: 1 where the class equals the input's value, else 0. Built from
    integer vector ops on the input's dtype, 1 - min(|input - arange(num_classes)|, 1), then a cast: no bool
    intermediate, whose 1-byte rows would need a wider vec tile than the kernel set for its own tensors."""
    num_classes = _concrete_int(num_classes, "one_hot: num_classes")
    if num_classes <= 0:
        _fail(f"one_hot: num_classes must be positive, got {num_classes}")
    if input.dtype.is_float():
        _fail(f"one_hot: needs an integer tensor of class numbers, got {input.dtype}; "
              f"convert it with pypto.cast(x, pypto.DT_INT32)")
    classes = _ops.arange(0, num_classes, 1, dtype=input.dtype)
    distance = _ops.abs(_ops.sub(_ops.unsqueeze(input, len(input.shape)), classes))
    hits = _ops.sub(1, _ops.minimum(distance, 1))
    return _ops.cast(hits, _ops.DataType.DT_INT64)


def pad(input, pad, mode="constant", value=0):  # noqa: A002
    """Constant padding on the right of the last dim and at the bottom of the one before (PyPTO's pad:
    pad = (0, right) or (0, right, 0, bottom), non-negative): a fill of the padded shape and an assemble of
    input into its corner."""
    if mode != "constant":
        _fail(f"pad: mode {mode!r} is not supported; PyPTO supports 'constant' only")
    amounts = [int(p) for p in pad]
    if len(amounts) not in (2, 4) or any(p < 0 for p in amounts):
        _fail(f"pad: pad must hold 2 or 4 non-negative ints, got {tuple(pad)}")
    if amounts[0] != 0 or (len(amounts) == 4 and amounts[2] != 0):
        _fail(f"pad: only right and bottom padding are supported (as in PyPTO), got {tuple(pad)}")
    if not input.dtype.is_float() and isinstance(value, float):
        _fail(f"pad: a float value ({value}) cannot pad an integer tensor ({input.dtype}); give an int")
    dims = _dims_of(input, "pad")
    if len(amounts) == 4 and len(dims) < 2:
        _fail(f"pad: padding two dims needs a tensor of at least 2 dims, got {len(dims)}")
    padded = list(dims)
    padded[-1] += amounts[1]
    if len(amounts) == 4:
        padded[-2] += amounts[3]
    out = _ops.full(padded, value, input.dtype)
    _ops.assemble(input, [0] * len(dims), out)
    return out


def fillpad(x, mode="constant", value=0):
    """x with every element past its valid part (Tensor.valid_shape: a view's or reshape's valid_shape) set to
    `value`, and the whole shape valid: PyPTO's fillpad, which pads a run-time tail before computing on all of
    it. Built from modelled ops: x seen whole (a reshape to its own shape whose valid part is all of it), a
    mask per cut axis (arange < the valid size, which may be known only when the kernel runs), and where."""
    if mode != "constant":
        _fail(f"fillpad: mode {mode!r} is not supported; PyPTO supports 'constant' only")
    if not x.dtype.is_float() and isinstance(value, float) and not float(value).is_integer():
        _fail(f"fillpad: a fractional value ({value}) cannot pad an integer tensor ({x.dtype}); give an int")
    dims = list(x.shape)
    whole = _ops.reshape(x, dims, valid_shape=dims)
    mask = None
    for axis, (size, valid) in enumerate(zip(dims, x.valid_shape)):
        known_size, known_valid = _recording._known_int(size), _recording._known_int(valid)
        if known_size is not None and known_valid is not None and known_valid >= known_size:
            continue  # nothing cut on this axis
        shape = [1] * len(dims)
        shape[axis] = size
        positions = _ops.reshape(_ops.arange(0, size, 1, dtype=_ops.DataType.DT_INT32), shape)
        inside = _ops.lt(positions, valid)
        mask = inside if mask is None else _ops.logical_and(mask, inside)
    if mask is None:
        return whole
    return _ops.where(mask, whole, value)


def _last_dim(x, what):
    return _concrete_int(x.shape[-1], f"{what}: the last dim")


def _pick_columns(x, positions, first=0, step=1):
    """x's columns (last dim) at `positions`, an int32 index tensor: index_select along the last dim. When x
    holds data only in part (a view block past the tensor's end), so does the result: x's valid rows, and of
    the picked columns those at first, first + step, ... below x's valid width."""
    picked = _ops.index_select(x, len(x.shape) - 1, positions)
    valid = x.__dict__.get("_valid_shape")
    if valid is None:
        return picked
    width = valid[-1]
    known = _recording._known_int(width)
    columns = picked.shape[-1]
    if known is not None and known >= _recording._known_int(x.shape[-1]):
        kept = columns
    elif known is not None:
        kept = max(0, -(-(known - first) // step))
    else:
        kept = (width - first + (step - 1)) // step
    return _ops.reshape(picked, list(picked.shape), valid_shape=list(valid[:-1]) + [kept])


def interleave(input, other):  # noqa: A002
    """PyPTO's interleave: the rows of input and other (same shape, last dim n) merged element by element,
    input[0], other[0], input[1], other[1], ..., and that 2n-long row cut into its first and second halves:
    two tensors of input's shape. Built from modelled ops: a concat, then each half's columns picked by index
    (position j of the merged row is column j // 2 + (j % 2) * n of the concat)."""
    n = _last_dim(input, "interleave")
    if list(map(str, input.shape)) != list(map(str, other.shape)):
        _fail(f"interleave: input {[str(d) for d in input.shape]} and other {[str(d) for d in other.shape]} "
              f"must have the same shape")
    both = _ops.concat([input, other], len(input.shape) - 1)
    halves = []
    for start in (0, n):
        j = _ops.arange(start, start + n, 1, dtype=_ops.DataType.DT_INT32)
        source = _ops.add(bitwise_right_shift(j, 1), _ops.mul(bitwise_and(j, 1), n))
        halves.append(_pick_columns(both, source))
    return halves[0], halves[1]


def deinterleave(input, other=None):  # noqa: A002
    """PyPTO's deinterleave: a row (input's, or input's and other's concatenated) split into its even and
    its odd elements: two tensors whose last dim is half the row's. index_select of columns 0, 2, 4, ... and
    1, 3, 5, ...."""
    row = input if other is None else _ops.concat([input, other], len(input.shape) - 1)
    width = _last_dim(row, "deinterleave")
    if width % 2:
        _fail(f"deinterleave: the row has {width} elements; it must have an even number")
    evens = _ops.arange(0, width, 2, dtype=_ops.DataType.DT_INT32)
    odds = _ops.arange(1, width, 2, dtype=_ops.DataType.DT_INT32)
    return _pick_columns(row, evens, 0, 2), _pick_columns(row, odds, 1, 2)


_GATHERMASK_PATTERNS = {1: (0, 2), 2: (1, 2), 3: (0, 4), 4: (1, 4), 5: (2, 4), 6: (3, 4), 7: (0, 1)}


def gathermask(input, pattern_mode):  # noqa: A002
    """PyPTO's gathermask: the elements of each row (last dim) that a fixed pattern keeps: mode 1 / 2 the first
    / second of every 2, modes 3-6 the first to fourth of every 4, mode 7 all. index_select of those columns."""
    mode = _concrete_int(pattern_mode, "gathermask: pattern_mode")
    if mode not in _GATHERMASK_PATTERNS:
        _fail(f"gathermask: pattern_mode must be 1 to 7, got {mode}")
    first, step = _GATHERMASK_PATTERNS[mode]
    width = _last_dim(input, "gathermask")
    if width % step:
        _fail(f"gathermask: pattern_mode {mode} keeps 1 of every {step} elements; the last dim ({width}) must be "
              f"a multiple of {step}")
    if step == 1:
        valid = input.__dict__.get("_valid_shape")
        if valid is None:
            return _ops.clone(input)
        return _ops.reshape(input, list(input.shape), valid_shape=list(valid))  # a copy, valid where input is
    return _pick_columns(input, _ops.arange(first, width, step, dtype=_ops.DataType.DT_INT32), first, step)


def index_add_(input, dim, index, source, *, alpha=1):  # noqa: A002
    """input's slices index[i] along dim += alpha * source's slice i (repeated indices add up), in place; a
    scatter_update with reduce='add' that takes the 1-D index as it is (each tile reads it whole, as PyPTO's
    IndexAdd does; spreading it over source's shape would take as much unified buffer as the source). alpha
    takes input's dtype, as in PyPTO (truncated for integer tensors)."""
    dims = _dims_of(source, "index_add_")
    axis = dim + len(dims) if dim < 0 else dim
    if len(index.shape) != 1:
        _fail(f"index_add_: index must be 1-D, got {len(index.shape)} dims")
    # PyPTO makes alpha an Element of input's dtype: an integer tensor's alpha 1.2 is 1.
    if not input.dtype.is_float():
        alpha = int(alpha)
    attrs = {"dim": axis, "reduce": "add"}
    if float(alpha) != 1.0:
        attrs["alpha"] = float(alpha)  # applied by the scatter, as PyPTO's IndexAdd takes it (no scaled copy)
    _recording._record("scatter_update", [input, index, source], attrs, into=[input])
    return input


def atomic_add(src, offsets, dst):
    """PyPTO's atomic_add: dst's region at `offsets` (src's shape) += src. Read, add, write back: the tasks
    that update one region are ordered by their data dependencies, so concurrent updates give the sum of all
    of them, as the chip's atomic adds do (the timeline serialises them where the chip overlaps them)."""
    offsets = list(offsets)
    if len(offsets) != len(src.shape):
        _fail(f"atomic_add: {len(offsets)} offsets for a {len(src.shape)}-D src; give one per dim")
    region = _ops.view(dst, list(src.shape), offsets)
    _ops.assemble(_ops.add(region, src), offsets, dst)


def index_put_(input, indices, values, accumulate=False):  # noqa: A002
    """PyPTO's index_put_: input[indices[0][i], ..., indices[k-1][i], ...] = values[i, ...] (+= with
    accumulate), in place; returns None. The k index tensors (1-D, one length n, int32 or int64) address
    input's first k dims: the indices become one row number each of input seen as rows of its other dims, and
    values scatter into those rows (reduce='add' to accumulate)."""
    indices = tuple(indices) if isinstance(indices, (tuple, list)) else (indices,)
    dims = _dims_of(input, "index_put_")
    k = len(indices)
    if not 1 <= k <= len(dims):
        _fail(f"index_put_: needs 1 to {len(dims)} index tensors for a {len(dims)}-D input, got {k}")
    lengths = {str(index.shape[0]) for index in indices if len(index.shape) == 1}
    if len(lengths) != 1 or any(len(index.shape) != 1 for index in indices):
        _fail("index_put_: the index tensors must be 1-D and of one length (PyPTO broadcasts none)")
    rest = dims[k:]
    rows = 1
    for extent in dims[:k]:
        rows *= extent
    int32 = _ops.DataType.DT_INT32
    row = None
    for axis, index in enumerate(indices):
        part = index if index.dtype == int32 else _ops.cast(index, int32)
        stride = 1
        for extent in dims[axis + 1:k]:
            stride *= extent
        part = part if stride == 1 else _ops.mul(part, stride)
        row = part if row is None else _ops.add(row, part)
    count = _concrete_int(indices[0].shape[0], "index_put_: the index length")
    if not accumulate and rest:
        # Each indexed slice is `inner` rows of input's last dim: those rows go straight to input in global
        # memory (an MSCATTER per tile of values, scatter_update's row form), which is never loaded, so a
        # slice or input larger than the unified buffer is no obstacle (PyPTO's IndexPut_ of [128, 64, 128]).
        inner = 1
        for extent in rest[:-1]:
            inner *= extent
        if inner > 1:
            starts = _ops.mul(_ops.reshape(row, [count, 1]), inner)
            row = _ops.reshape(_ops.add(starts, _ops.arange(0, inner, 1, dtype=int32)), [count * inner])
        rows = [count * inner, rest[-1]]
        source = values if _dims_of(values, "index_put_") == rows else _ops.reshape(values, rows)
        _recording._record("scatter_update", [input, row, source], {"dim": len(dims) - 2, "rows": True},
                           into=[input])
        return None
    source = _ops.reshape(values, [count] + rest) if _dims_of(values, "index_put_") != [count] + rest else values
    # The rows as one 1-D index of whole slices (scatter_update), as PyPTO's IndexPut reads its indices.
    attrs = {"dim": 0, "reduce": "add"} if accumulate else {"dim": 0}
    if k == 1:
        _recording._record("scatter_update", [input, row, source], attrs, into=[input])
        return None
    # Several indexed dims: the rows of a copy, written back whole, so that the kernel keeps reaching input's
    # bytes under its one name (an in-place reshape alias beside direct writes would not be ordered).
    rows_of_input = _ops.reshape(input, [rows] + rest)
    _recording._record("scatter_update", [rows_of_input, row, source], attrs, into=[rows_of_input])
    _ops.assemble(_ops.reshape(rows_of_input, dims), [0] * len(dims), input)
    return None


def index_add(input, dim, index, source, *, alpha=1):  # noqa: A002
    """index_add_ on a copy of input."""
    return index_add_(_ops.clone(input), dim, index, source, alpha=alpha)


def index_add__ub(input, dim, index, source, *, alpha=1):  # noqa: A002
    """PyPTO's unified-buffer form of index_add_ (same result): here the same scatter, which works in the
    unified buffer anyway."""
    return index_add_(input, dim, index, source, alpha=alpha)


def index_add_ub(input, dim, index, source, *, alpha=1):  # noqa: A002
    """PyPTO's unified-buffer form of index_add (same result)."""
    return index_add(input, dim, index, source, alpha=alpha)


def _in_place(function):
    """Tensor.tril_ and friends: the result written back into self."""
    def method(self, *args, **kwargs):
        _recording._one("copy", [function(self, *args, **kwargs)], into=[self])
        return self
    return method


def pack(self):
    """PyPTO's pack: the tensor flattened to 1-D and its bytes read as uint8 (numpy's x.reshape(-1).view(uint8),
    little-endian as the chip): a reshape, then view(dtype=)'s bitcast."""
    dims = _dims_of(self, "pack")
    count = 1
    for extent in dims:
        count *= extent
    flat = self if len(dims) == 1 else _ops.reshape(self, [count])
    return flat if flat.dtype == _core.DataType.DT_UINT8 else _ops.view(flat, dtype=_core.DataType.DT_UINT8)


def unpack(self, dstDataType):  # noqa: N803 - PyPTO's name
    """PyPTO's unpack: a 1-D uint8 tensor's bytes read as dstDataType, size / its byte width elements (view(dtype=)'s
    bitcast)."""
    dims = _dims_of(self, "unpack")
    if self.dtype != _core.DataType.DT_UINT8 or len(dims) != 1:
        _fail(f"unpack: takes a 1-D DT_UINT8 tensor (as PyPTO's page says), got {len(dims)}-D {self.dtype.name}")
    return self if dstDataType == _core.DataType.DT_UINT8 else _ops.view(self, dtype=dstDataType)


# --- PyPTO's sort building blocks ---------------------------------------------------------------------------


def sort32(input, index=None):  # noqa: A002 - PyPTO's parameter names
    """PyPTO's sort32: along the last dim, each run of 32 values sorted in descending order (the last run may be
    shorter), equal values in index order; the result interleaves (value, index) pairs, so its last dim is twice
    the input's. The index is the element's position in the row plus `index` (default 0), stored as a float value
    as PyPTO's interpreter stores it (the chip writes the uint32's bits into the float slot). NaN sorts above
    every number. float32 only, 1 to 4 dims, as PyPTO's. A tile holds the last dim whole."""
    return _recording._one("sort32", [input], {"index": 0 if index is None else _concrete_int(index, "sort32: index")})


def mrgsort(input, mergesize):  # noqa: A002
    """PyPTO's mrgsort: the (value, index) pairs along the last dim (sort32's interleaved layout) merged into one
    run sorted in descending order of value, equal values by index. On the chip the merge instruction combines
    runs of `mergesize` elements already sorted (sort32's runs of 32 pairs are 64 elements), four at a time;
    PyPTO's interpreter sorts every pair of the row, and so does PTO Studio, which gives the same result on sorted
    runs. float32 only, 1 to 4 dims, an even last dim. A tile holds the last dim whole."""
    size = _concrete_int(mergesize, "mrgsort: mergesize")
    if size <= 0:
        _fail(f"mrgsort: mergesize must be a positive integer, got {size}")
    return _recording._one("mrgsort", [input], {"mergesize": size})


# --- operations PTO Studio does not model ------------------------------------------------------------------

_UNSUPPORTED = {
    "quant_mx": "MX (microscaling FP8/FP4) quantisation is not modelled",
    "scaled_mm": "scaled FP8 matmul is not modelled (FP8 is not computed on the modelled machines)",
}


def convert_to_element(value):
    """PyPTO's helper: an int as an INT32 Element (INT64 beyond int32's range), anything else as FP32."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Element(_core.DataType.DT_INT32 if -2**31 <= value <= 2**31 - 1 else _core.DataType.DT_INT64, value)
    return Element(_core.DataType.DT_FP32, value)


def get_scatter_mode(reduce):
    """PyPTO's helper: the ScatterMode a scatter's `reduce` names (None, 'add' or 'multiply')."""
    modes = {None: ScatterMode.NONE, "add": ScatterMode.ADD, "multiply": ScatterMode.MULTIPLY}
    if reduce not in modes:
        _fail(f"get_scatter_mode: scatter reduce only supports 'add' and 'multiply', got {reduce!r}")
    return modes[reduce]


def unsupported_functions():
    return {name: _unsupported(name, reason) for name, reason in _UNSUPPORTED.items()}


# --- PyPTO's pass-config calls: accepted and kept, with a notice ---------------------------------------------

_pass_configs = {}
_pass_defaults = {}
_noticed = set()


def _notice_once(what, advice):
    """One line per unmodelled setting and process, as for options PTO Studio does not act on."""
    if what not in _noticed:
        _noticed.add(what)
        print(f"pypto: {what} is accepted and has no effect in PTO Studio; {advice}", file=sys.stderr)


def _notice_pass_config():
    _notice_once("per-pass configuration (set_pass_config)",
                 "disable a pass with pass_options={'disable_pass': [...]}")


def _set_cache_policy(self, policy, value=True):
    _notice_once("Tensor.set_cache_policy", "the L2 model decides what stays cached")


def _get_cache_policy(self, policy=None):
    """False: no cache policy is ever set here (set_cache_policy has no effect)."""
    return False


def pass_verify_print(*values, cond=1):
    """PyPTO's pass-verification print: log output only, no effect on results (its API page). Kept, with one
    notice: PTO Studio's verify mode checks each pass against the golden and the IDE shows every tensor."""
    _notice_once("pass_verify_print",
                 "pass_options={'enable_pass_verify': True} checks every pass against the golden, and the IDE "
                 "shows each intermediate tensor")


def pass_verify_save(tensor, fname, cond=1, **kwargs):
    """PyPTO's pass-verification dump of a tensor to a file: no effect on results. Kept, with one notice."""
    _notice_once("pass_verify_save",
                 "pto run --save-outputs DIR writes the outputs, and the IDE shows each intermediate tensor")


def set_pass_config(strategy, identifier, key, value):
    _notice_pass_config()
    _pass_configs.setdefault((strategy, identifier), {})[getattr(key, "name", key)] = bool(value)


def get_pass_config(strategy, identifier, key, default_value):
    return _pass_configs.get((strategy, identifier), {}).get(getattr(key, "name", key),
                                                             get_pass_default_config(key, default_value))


def get_pass_configs(strategy, identifier):
    return dict(_pass_configs.get((strategy, identifier), {}))


def set_pass_default_config(key, value):
    _notice_pass_config()
    _pass_defaults[getattr(key, "name", key)] = bool(value)


def get_pass_default_config(key, default_value):
    return _pass_defaults.get(getattr(key, "name", key), default_value)


class PassConfigKey(enum.Enum):
    """PyPTO's per-pass switches (accepted; see set_pass_config)."""
    KEY_PRINT_GRAPH = "print_graph"
    KEY_PRINT_PROGRAM = "print_program"
    KEY_DUMP_GRAPH = "dump_graph"
    KEY_DUMP_PASS_TIME_COST = "dump_pass_time_cost"
    KEY_PRE_CHECK = "pre_check"
    KEY_POST_CHECK = "post_check"
    KEY_EXPECTED_VALUE_CHECK = "expected_value_check"
    KEY_DISABLE_PASS = "disable_pass"
    KEY_HEALTH_CHECK = "health_check"


# --- enums from PyPTO's datatype reference -------------------------------------------------------------------
# Values accepted as arguments; where an operation PTO Studio models takes one, it is honoured there. Each
# names its members in PyPTO's order, numbered from 0.

CachePolicy = enum.Enum("CachePolicy", "NONE_CACHEABLE PREFETCH", start=0)
LogBaseType = enum.Enum("LogBaseType", "LOG_E LOG_2 LOG_10", start=0)
OutType = enum.Enum("OutType", "VALUE INDEX", start=0)
PrecisionType = _ops.PrecisionType  # defined with the operations that take it (div, exp, sqrt, ...)
ReduceMode = enum.Enum("ReduceMode", "ATOMIC_ADD", start=0)
SaturationMode = _ops.SaturationMode  # defined with cast, which takes it
ScatterMode = enum.Enum("ScatterMode", "NONE ADD MULTIPLY", start=0)
TopKAlgo = enum.Enum("TopKAlgo", "DEFAULT RADIX", start=0)
OpType = enum.Enum("OpType", "EQ NE LT LE GT GE", start=0)


# --- Element: a typed scalar -----------------------------------------------------------------------------------


class Element:
    """pypto.Element(dtype, value): a scalar with a dtype, usable wherever an operation takes a scalar."""

    def __init__(self, dtype, value):
        if not isinstance(dtype, _core.DataType):
            _fail(f"Element: dtype must be a pypto.DataType, got {dtype!r}")
        self.dtype = dtype
        self.value = value

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def __index__(self):
        return int(self.value)

    def __repr__(self):
        return f"pypto.Element({self.dtype.name}, {self.value!r})"


# --- verification helpers and conversions ----------------------------------------------------------------------


def set_verify_golden_data(in_out_tensors=None, goldens=None):
    """Accepted: every kernel call here is already checked against the reference interpreter (see
    pypto.last_run()['outputs'])."""


def from_torch(tensor, name="", *, dynamic_axis=None, tensor_format=None, dtype=None):
    """The tensor itself: kernels here take torch tensors (and numpy arrays) directly. dynamic_axis marks
    nothing extra, since dims declared DYNAMIC in the kernel's annotation are dynamic already."""
    if type(tensor).__module__.startswith("torch") and dtype is not None:
        _fail("from_torch: dtype conversion is not done here; convert the torch tensor (tensor.to(...)) first")
    return tensor


class function:  # noqa: N801 - PyPTO's spelling
    """`with pypto.function(name, *tensors):` names a function in PyPTO's graph. PTO Studio keeps one graph
    per kernel, so the block simply runs where it stands (iterating over it runs the body once, too)."""

    def __init__(self, name, *args, **kwargs):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __iter__(self):
        yield self


def tensor_methods():
    """Tensor methods PyPTO documents that map to the functions above or to existing ones."""
    return {
        "log2": log2, "log10": log10, "fmod": fmod, "remainder": remainder, "logical_not": logical_not,
        # PyPTO's Tensor.where takes the values where the condition holds as self; Tensor.assemble writes
        # `input` into self.
        "where": lambda self, condition, y: _ops.where(condition, self, y),
        "assemble": lambda self, input, offsets: _ops.assemble(input, offsets, self),  # noqa: A002
        "gcd": gcd, "cumsum": cumsum, "cumprod": cumprod, "tril": tril, "triu": triu,
        "tril_": _in_place(tril), "triu_": _in_place(triu),
        "expand_clone": expand_clone, "index_add": index_add, "index_add_": index_add_, "fillpad": fillpad,
        "interleave": interleave, "deinterleave": deinterleave, "gathermask": gathermask,
        "index_put_": index_put_, "pack": pack, "unpack": unpack, "sort32": sort32, "mrgsort": mrgsort,
        "set_cache_policy": _set_cache_policy,
        "get_cache_policy": _get_cache_policy,
    }


def install_tensor_extras():
    """Adds the documented Tensor methods and properties that the operation table does not provide."""
    _ops.TENSOR_METHODS.update({k: v for k, v in tensor_methods().items() if k not in _ops.TENSOR_METHODS})
    Tensor.concat = staticmethod(_ops.concat)
    if not hasattr(Tensor, "id"):
        Tensor.id = property(lambda self: self._id if self._id is not None else -1,
                             doc="The traced tensor's id in the graph (-1 for a description).")
    Tensor.getitem = Tensor.__getitem__
