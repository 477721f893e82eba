"""The operations of the pypto API. Each records one or more ops in the graph
being traced; shape and dtype rules live in C++ (compiler/ir/ShapeInference)."""
import builtins
import enum
import math
import numbers

import _pypto_core as _core

from . import _state
from ._dtypes import bytes_of
from ._dtypes import checked as _checked_dtype
from ._errors import KernelError
from ._location import user_location
from ._tensor import SymbolicScalar, Tensor

DataType = _core.DataType


def _fail(message):
    file, line, column = user_location()
    raise KernelError(message, file, line, column)


def _record(kind, inputs, attrs=None, into=None):
    """Records op `kind`; returns its output tensors (a list)."""
    state = _state.current()
    for value in inputs:
        if not isinstance(value, Tensor) or value._id is None:
            _fail(f"{kind}: expected a traced tensor, got {type(value).__name__}")
        if value._state is not state:
            _fail(f"{kind}: a tensor from another trace was used; tensors do not outlive their kernel call")
    file, line, column = user_location()
    ids, error, error_file, error_line = state.builder.add_op(kind, [t._id for t in inputs], attrs or {}, file,
                                                              line, column, [t._id for t in into] if into else [])
    if error:
        if error_file:  # a setting made elsewhere (a tile shape) is at fault
            raise KernelError(f"{error} (used by {kind} at {_short(file)}:{line})", error_file, error_line)
        raise KernelError(error, file, line, column)
    _check_size(state, ids, kind)
    return [Tensor._traced(state, i) for i in ids]


def _short(path):
    import os
    return os.path.basename(path)


def _check_size(state, ids, kind):
    for tensor_id in ids:
        count = 1
        for dim in state.builder.tensor_type(tensor_id)[1]:
            if dim.is_concrete():
                count *= dim.concrete()
        if count > state.max_elements:
            _fail(f"{kind}: the result would have {count} elements, more than the limit of "
                  f"{state.max_elements}; check the shapes (the limit is set by --max-elements)")


def _one(kind, inputs, attrs=None, into=None):
    return _record(kind, inputs, attrs, into)[0]


def _scalar_value(value, what, run_time=False):
    """A scalar operand as a float. With run_time, a symbolic scalar that is only known when the kernel runs
    (a dynamic dim, a loop index) is kept symbolic: the interpreters evaluate it then."""
    if isinstance(value, SymbolicScalar):
        if not value.is_concrete():
            if run_time:
                return value
            _fail(f"{what}: a symbolic scalar ({value}) cannot be used here; only constants can")
        return float(value.concrete())
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, numbers.Number):
        return float(value)
    _fail(f"{what}: expected a tensor or a number, got {type(value).__name__}")


def _is_tensor(value):
    return isinstance(value, Tensor)


def _as_list(dims):
    if dims is None:
        return None
    if isinstance(dims, (list, tuple)):
        return [int(d) for d in dims]
    return [int(dims)]


# --- elementwise -----------------------------------------------------------

class PrecisionType(enum.Enum):
    """How precisely div, exp, sqrt, rsqrt, reciprocal, log and pow compute, PyPTO's names and values.
    PTO Studio models one instruction per operation, so the choice is accepted and has no numeric effect."""
    INTRINSIC = 0  # the chip's instruction as it is
    HIGH_PRECISION = 1  # PyPTO's extra-precision sequence (an Ascend 950 feature)
    HIGH_PERFORMANCE = 2  # an earlier PTO Studio name, kept so that kernels using it still load


def _accepted_precision(precision_type, what):
    """Checks a precision_type argument. It has no numeric effect here: the interpreters compute every
    operation once, in fp32 (or the tensor's integer type), whichever precision the kernel asks for."""
    if precision_type is not None and not isinstance(precision_type, PrecisionType):
        _fail(f"{what}: precision_type must be a pypto.PrecisionType (INTRINSIC or HIGH_PRECISION), "
              f"got {precision_type!r}")


def _unary(kind, default_precision=None):
    """An elementwise op; with default_precision it also takes PyPTO's precision_type argument."""
    if default_precision is None:
        def op(x):
            return _one(kind, [x])
        op.__doc__ = f"Elementwise {kind}."
    else:
        def op(x, precision_type=default_precision):
            _accepted_precision(precision_type, kind)
            return _one(kind, [x])
        op.__doc__ = (f"Elementwise {kind}. precision_type (PyPTO's PrecisionType) is accepted and has no numeric "
                      f"effect here.")
    op.__name__ = kind
    return op


neg = _unary("neg")
abs = _unary("abs")  # noqa: A001 - PyPTO's name
# PyPTO's defaults: reciprocal (like div and pow) asks for HIGH_PRECISION, the others for INTRINSIC.
reciprocal = _unary("reciprocal", PrecisionType.HIGH_PRECISION)
sqrt = _unary("sqrt", PrecisionType.INTRINSIC)
rsqrt = _unary("rsqrt", PrecisionType.INTRINSIC)
exp = _unary("exp", PrecisionType.INTRINSIC)
def exp2(x):
    """Elementwise 2 ** x; integer input gives fp32, as in PyPTO."""
    if not x.dtype.is_float():
        x = cast(x, DataType.DT_FP32)
    return _one("exp2", [x])
_expm1 = _unary("expm1")


def expm1(x):
    """Elementwise e ** x - 1; int32/int16 input gives fp32, as PyPTO's expm1 page says."""
    if not x.dtype.is_float():
        x = cast(x, DataType.DT_FP32)
    return _expm1(x)


log = _unary("log", PrecisionType.INTRINSIC)
log1p = _unary("log1p")
sin = _unary("sin")
cos = _unary("cos")
tanh = _unary("tanh")
erf = _unary("erf")
erfc = _unary("erfc")
ceil = _unary("ceil")
floor = _unary("floor")
trunc = _unary("trunc")
sign = _unary("sign")
relu = _unary("relu")
sigmoid = _unary("sigmoid")
isfinite = _unary("isfinite")
logical_not = _unary("logical_not")


def round(x, decimals=0):  # noqa: A001 - PyPTO's name
    """Elementwise round to `decimals` places, ties to even, by torch's formula: round(x * 10^d) / 10^d, and for
    d < 0 round(x / 10^-d) * 10^-d (dividing by a whole power of ten, which is exact where 10^d is not). An
    integer tensor with d < 0 is rounded so in fp32 and cast back (exact for magnitudes below 2^24)."""
    decimals = int(decimals)
    if decimals == 0:
        return _one("round", [x])
    if not x.dtype.is_float():
        if decimals > 0:
            return clone(x)  # integers already have no fraction digits
        return cast(round(cast(x, DataType.DT_FP32), decimals), x.dtype)
    if decimals < 0:
        power = 10.0 ** -decimals
        return _one("muls", [_one("round", [_one("divs", [x], {"scalar": power})])], {"scalar": power})
    factor = 10.0 ** decimals
    return _one("divs", [_one("round", [_one("muls", [x], {"scalar": factor})])], {"scalar": factor})


def clip(x, min=None, max=None):  # noqa: A002
    """Clamps x into [min, max]; either bound may be omitted (both: a copy of x). Tensor bounds broadcast."""
    if min is None and max is None:
        return clone(x)  # a new tensor, as PyPTO's clip never works in place
    if _is_tensor(min) or _is_tensor(max):  # PyPTO allows tensor bounds: max then min, as the scalar form
        result = x if min is None else maximum(x, min)
        return result if max is None else minimum(result, max)
    attrs = {}
    if min is not None:
        attrs["min"] = _scalar_value(min, "clip")
    if max is not None:
        attrs["max"] = _scalar_value(max, "clip")
    return _one("clip", [x], attrs)


def _binary(kind, scalar_kind, reversed_kind=None):
    def op(x, y):
        if _is_tensor(x) and _is_tensor(y):
            return _one(kind, [x, y])
        if _is_tensor(x):
            return _one(scalar_kind, [x], {"scalar": _scalar_value(y, kind, run_time=True)})
        if _is_tensor(y):
            if reversed_kind is None:  # commutative
                return _one(scalar_kind, [y], {"scalar": _scalar_value(x, kind, run_time=True)})
            return _one(reversed_kind, [y], {"scalar": _scalar_value(x, kind, run_time=True)})
        _fail(f"{kind}: at least one operand must be a tensor")
    op.__name__ = kind
    op.__doc__ = f"Elementwise {kind} of two tensors (broadcasting) or a tensor and a scalar."
    return op


def _scaled(x, y, alpha, what):
    """alpha * y for add/sub's `alpha` (y a tensor or a scalar). A y of lower rank than x gets leading 1s
    first, so the scaling runs at the rank of the result (the rank the vec tile shape is given for)."""
    if alpha is None or (not isinstance(alpha, SymbolicScalar) and float(alpha) == 1.0):
        return y
    if not _is_tensor(y):
        return _scalar_value(y, what) * _scalar_value(alpha, what)
    if _is_tensor(x):
        while len(y.shape) < len(x.shape):
            y = unsqueeze(y, 0)
    return _one("muls", [y], {"scalar": _scalar_value(alpha, what, run_time=True)})


_add = _binary("add", "adds")
_sub = _binary("sub", "subs", "rsubs")


def add(input, other, alpha=None):  # noqa: A002 - PyPTO's names
    """input + alpha * other; either may be a scalar (tensors broadcast)."""
    return _add(input, _scaled(input, other, alpha, "add"))


def sub(input, other, alpha=None):  # noqa: A002
    """input - alpha * other; either may be a scalar (tensors broadcast)."""
    return _sub(input, _scaled(input, other, alpha, "sub"))


mul = _binary("mul", "muls")
_div = _binary("div", "divs", "rdivs")
maximum = _binary("maximum", "maxs")
minimum = _binary("minimum", "mins")
_pow = _binary("pow", "pows", "rpows")


def div(input, other, precision_type=PrecisionType.HIGH_PRECISION):  # noqa: A002 - PyPTO's names
    """input / other; either may be a scalar (tensors broadcast). Integer tensors divide with floor
    division. precision_type (PyPTO's PrecisionType) is accepted and has no numeric effect here."""
    _accepted_precision(precision_type, "div")
    return _div(input, other)


# PyPTO's pow promotes two tensor operands of different dtypes: fp32 > fp16 > bf16 > int32, fp16 with bf16 gives
# fp32 (its "数据类型提升" table); int8/uint8/int16 operands must match.
_POW_RANK = {DataType.DT_FP32: 3, DataType.DT_FP16: 2, DataType.DT_BF16: 1, DataType.DT_INT32: 0}


def _pow_result_dtype(a, b):
    if a == b:
        return a
    if {a, b} == {DataType.DT_FP16, DataType.DT_BF16}:
        return DataType.DT_FP32
    if a in _POW_RANK and b in _POW_RANK:
        return a if _POW_RANK[a] > _POW_RANK[b] else b
    _fail(f"pow: operand dtypes {a} and {b} differ; PyPTO promotes fp32, fp16, bf16 and int32 only "
          f"(int8/uint8/int16 operands must match)")


def pow(input, other, precision_type=PrecisionType.HIGH_PRECISION):  # noqa: A001, A002 - PyPTO's names
    """input ** other; either may be a scalar (tensors broadcast). Tensors of different dtypes are promoted as
    PyPTO promotes them (fp32 > fp16 > bf16 > int32); an int32 tensor to a float power gives fp32.
    precision_type (PyPTO's PrecisionType) is accepted and has no numeric effect here."""
    _accepted_precision(precision_type, "pow")
    if _is_tensor(input) and _is_tensor(other) and input.dtype != other.dtype:
        dtype = _pow_result_dtype(input.dtype, other.dtype)
        input = input if input.dtype == dtype else cast(input, dtype)
        other = other if other.dtype == dtype else cast(other, dtype)
    elif _is_tensor(input) and input.dtype == DataType.DT_INT32 and isinstance(other, float):
        input = cast(input, DataType.DT_FP32)
    return _pow(input, other)


def _compare(kind):
    mirrored = {"eq": "eq", "ne": "ne", "gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}[kind]

    def op(x, y):
        if _is_tensor(x) and _is_tensor(y):
            return _one(kind, [x, y])
        if _is_tensor(x):
            return _one(kind + "s", [x], {"scalar": _scalar_value(y, kind, run_time=True)})
        if _is_tensor(y):
            return _one(mirrored + "s", [y], {"scalar": _scalar_value(x, kind, run_time=True)})
        _fail(f"{kind}: at least one operand must be a tensor")
    op.__name__ = kind
    op.__doc__ = f"Elementwise comparison ({kind}) giving a bool tensor."
    return op


eq = _compare("eq")
ne = _compare("ne")
gt = _compare("gt")
greater = gt  # PyPTO's other name for gt
ge = _compare("ge")
lt = _compare("lt")
le = _compare("le")


def _truth(x):
    """A bool tensor as it is; any other tensor as x != 0 (NaN counts as true, as in torch)."""
    if x.dtype == DataType.DT_BOOL:
        return x
    return ne(x, 0)


def logical_and(x, y):
    """Elementwise and of the operands' truth (any dtypes, broadcasting) as a bool tensor, as PyPTO's
    logical_and takes fp32/fp16/bf16/int/bool operands of different dtypes."""
    return _one("logical_and", [_truth(x), _truth(y)])


def logical_or(x, y):
    """Elementwise or of the operands' truth (any dtypes, broadcasting) as a bool tensor."""
    return _one("logical_or", [_truth(x), _truth(y)])


def where(condition, x, y):
    """Elementwise choice: x where condition holds, else y (tensors or scalars)."""
    inputs = [condition]
    attrs = {}
    for key, value in (("x", x), ("y", y)):
        if _is_tensor(value):
            inputs.append(value)
        else:
            attrs[key] = _scalar_value(value, "where")
    if not any(_is_tensor(v) for v in (x, y)):
        attrs["dtype"] = DataType.DT_FP32
    return _one("where", inputs, attrs)


# --- reductions -------------------------------------------------------------

def _reduction(kind):
    def op(x, dim=None, keepdim=False):
        return _one(kind, [x], {"dims": _as_list(dim), "keepdim": bool(keepdim)})
    op.__name__ = kind
    op.__doc__ = f"{kind} over `dim` (an int, a list, or all dims when None)."
    return op


sum = _reduction("sum")  # noqa: A001
amax = _reduction("amax")
amin = _reduction("amin")
prod = _reduction("prod")


def argmax(x, dim=-1, keepdim=False):
    return _one("argmax", [x], {"dims": [int(dim)], "keepdim": bool(keepdim)})


def argmin(x, dim=-1, keepdim=False):
    return _one("argmin", [x], {"dims": [int(dim)], "keepdim": bool(keepdim)})


# --- shape and layout -----------------------------------------------------

def _dims_from_args(shape):
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        return list(shape[0])
    return list(shape)


def reshape(x, *shape, valid_shape=None, inplace=False):
    """Reshapes to `shape` (same element count; one -1 dim is inferred). With inplace=True the result is
    x's own bytes in the new shape, as in PyPTO: writing it writes x (an output written through it is an
    output). valid_shape says how much of the result holds data when that is not what x's own valid part
    gives (see view); the data is the same."""
    dims = _dims_from_args(shape)
    if any(isinstance(d, int) and d == -1 for d in dims):
        known = 1
        for d in dims:
            if not (isinstance(d, int) and d == -1):
                known = known * d
        total = 1
        for d in x.shape:
            total = total * d
        inferred = _core.to_symbolic(total) // _core.to_symbolic(known)
        dims = [inferred if (isinstance(d, int) and d == -1) else d for d in dims]
    attrs = {"shape": dims}
    if inplace:
        attrs["inplace"] = True
    if valid_shape is not None:
        attrs["valid_shape"] = _valid_shape(valid_shape, len(dims), "reshape")
    result = _one("reshape", [x], attrs)
    if inplace:
        result._inplace_of = x  # x's own bytes: move(x, result) has nothing to move
    if valid_shape is not None:
        result._valid_shape = attrs["valid_shape"]  # Tensor.valid_shape, fillpad
    return result


def transpose(x, dim0=-2, dim1=-1):
    return _one("transpose", [x], {"dims": [int(dim0), int(dim1)]})


def permute(x, *dims):
    return _one("permute", [x], {"dims": [int(d) for d in _dims_from_args(dims)]})


def unsqueeze(x, dim):
    return _one("unsqueeze", [x], {"dim": int(dim)})


def concat(tensors, dim=0):
    tensors = list(tensors)
    if not tensors:
        _fail("concat: needs at least one tensor")
    return _one("concat", tensors, {"dim": int(dim)})


cat = concat


class CastMode(enum.Enum):
    """Rounding of float -> int (and narrowing float) casts, PyPTO's names."""
    CAST_NONE = "rint"
    CAST_RINT = "rint_"  # same rounding as CAST_NONE; a distinct member so both names exist
    CAST_ROUND = "round"
    CAST_FLOOR = "floor"
    CAST_CEIL = "ceil"
    CAST_TRUNC = "trunc"


def _rounding_mode(mode, to_integer_from_float=False):
    """The rounding a cast uses. CAST_NONE (and no mode) is PyPTO's "framework default, aligned with torch"
    (its cast page's table): toward zero from a float to an integer, nearest-even otherwise."""
    names = {"rint": "rint", "round": "round", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
             "CAST_RINT": "rint", "CAST_ROUND": "round", "CAST_FLOOR": "floor", "CAST_CEIL": "ceil",
             "CAST_TRUNC": "trunc"}
    key = getattr(mode, "name", mode)
    if key is None or key == "CAST_NONE":
        return "trunc" if to_integer_from_float else "rint"
    if key not in names:
        _fail(f"cast: unknown rounding mode {mode!r}; use rint, round, floor, ceil or trunc")
    return names[key]


class SaturationMode(enum.Enum):
    """What a cast to an integer dtype does with values outside the target's range, PyPTO's names and values:
    ON clamps them to the target's minimum or maximum, OFF keeps the low bits (two's-complement wrap)."""
    ON = 0
    OFF = 1


_INTEGER_RANGES = {
    DataType.DT_INT8: (-2 ** 7, 2 ** 7 - 1), DataType.DT_INT16: (-2 ** 15, 2 ** 15 - 1),
    DataType.DT_INT32: (-2 ** 31, 2 ** 31 - 1), DataType.DT_INT64: (-2 ** 63, 2 ** 63 - 1),
    DataType.DT_UINT8: (0, 2 ** 8 - 1), DataType.DT_UINT16: (0, 2 ** 16 - 1),
    DataType.DT_UINT32: (0, 2 ** 32 - 1), DataType.DT_UINT64: (0, 2 ** 64 - 1),
}


def _saturation_mode(satmode):
    if satmode is None or isinstance(satmode, SaturationMode):
        return satmode
    key = getattr(satmode, "name", satmode)
    if key in ("ON", "OFF"):
        return SaturationMode[key]
    _fail(f"cast: satmode must be pypto.SaturationMode.ON or .OFF, got {satmode!r}")


def cast(x, dtype, mode=None, satmode=None):
    """Converts to `dtype`; float->int rounds by `mode` (by default toward zero, as torch and PyPTO's
    CAST_NONE; float->float nearest-even). Out-of-range values going to an
    integer dtype: satmode=SaturationMode.ON clamps them to the target's range, SaturationMode.OFF keeps their
    low bits (300.0 -> int8 gives 44, as in PyPTO's reference). Without satmode, float->int clamps and
    int->int keeps the low bits, as PTO Studio always did; PyPTO's default is OFF for both, which differs only
    for values outside the target's range. Casts to float dtypes ignore satmode."""
    dtype = _checked_dtype(dtype, "cast")
    rounding = _rounding_mode(mode, _is_tensor(x) and x.dtype.is_float() and not dtype.is_float()
                              and dtype != DataType.DT_BOOL)
    saturation = _saturation_mode(satmode)
    target_range = _INTEGER_RANGES.get(dtype)
    if saturation is None or target_range is None:
        return _one("cast", [x], {"dtype": dtype, "mode": rounding})
    if x.dtype.is_float():
        if saturation is SaturationMode.ON or dtype.itemsize == 8:
            # The cast op clamps float->int. A 64-bit target has no wider integer to wrap from, so OFF clamps
            # there as well: values beyond the int64 range are the only ones this changes.
            return _one("cast", [x], {"dtype": dtype, "mode": rounding})
        # OFF: round into int64 (exact for every float below 2^63), then narrow, which keeps the low bits.
        wide = _one("cast", [x], {"dtype": DataType.DT_INT64, "mode": rounding})
        return _one("cast", [wide], {"dtype": dtype, "mode": "rint"})
    source_range = _INTEGER_RANGES.get(x.dtype)
    if saturation is SaturationMode.OFF or source_range is None or (
            target_range[0] <= source_range[0] and source_range[1] <= target_range[1]):
        return _one("cast", [x], {"dtype": dtype, "mode": rounding})  # int->int narrowing wraps; bool fits
    # ON between integer dtypes: clamp into the target's range first (only the bounds the source can pass),
    # so the narrowing cast keeps the value.
    bounds = {}
    if source_range[0] < target_range[0]:
        bounds["min"] = target_range[0]
    if source_range[1] > target_range[1]:
        bounds["max"] = target_range[1]
    for bound in bounds.values():
        if float(bound) != bound:  # clip holds its bounds as doubles: 2^63 - 1 is not one
            _fail(f"cast: satmode=SaturationMode.ON from {x.dtype.name} to {dtype.name} needs the clamp bound "
                  f"{bound}, which clip cannot hold exactly; clamp with pypto.minimum against an integer tensor "
                  f"first")
    clamped = _one("clip", [x], {key: float(bound) for key, bound in bounds.items()})
    return _one("cast", [clamped], {"dtype": dtype, "mode": rounding})


def astype(x, dtype):
    return cast(x, dtype)


def clone(x):
    state = _state.current()
    dtype, shape, _ = state.builder.tensor_type(x._id)
    target = tensor(shape, dtype)
    return _one("copy", [x], into=[target])


def full(size, fill_value, dtype=DataType.DT_FP32, name=None, valid_shape=None):
    """A new tensor of shape `size` filled with `fill_value` (a number, or a symbolic scalar known when the
    kernel runs); PyPTO's parameter names, so `full(size=[16, 16], fill_value=0.0, dtype=...)` works too. With
    valid_shape (sizes known when the kernel runs) only that leading part holds data: an assemble of the result
    writes just that part, as in PyPTO, where such a full pads a run-time tail."""
    attrs = {"shape": list(size), "value": _scalar_value(fill_value, "full", run_time=True),
             "dtype": _checked_dtype(dtype, "full")}
    if valid_shape is not None:
        attrs["valid_shape"] = _valid_shape(valid_shape, len(attrs["shape"]), "full")
        result = _one("full", [], attrs)
        result._valid_shape = attrs["valid_shape"]
        return result
    return _one("full", [], attrs)


def zeros(shape, dtype=DataType.DT_FP32, name=None, valid_shape=None):
    return full(shape, 0.0, dtype, valid_shape=valid_shape)


def ones(shape, dtype=DataType.DT_FP32, name=None, valid_shape=None):
    return full(shape, 1.0, dtype, valid_shape=valid_shape)


def _valid_shape(valid_shape, rank, what):
    """valid_shape as a list of its rank-many sizes (ints or symbolic scalars)."""
    sizes = list(valid_shape)
    if len(sizes) != rank:
        _fail(f"{what}: valid_shape {[str(v) for v in sizes]} has {len(sizes)} dims, the shape has {rank}")
    return sizes


def arange(start, end=None, step=1, dtype=None):
    """ceil((end - start) / step) values start, start + step, ... (numpy's and torch's count). The dtype
    defaults as in PyPTO: int32 when start, end and step are all ints, else fp32. A dim known while tracing
    counts as an int (PyPTO hands static dims out as ints: `pypto.arange(kv.shape[1])` is int32)."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        integral = builtins.all(isinstance(v, numbers.Integral) or (isinstance(v, SymbolicScalar) and v.is_concrete())
                                for v in (start, end, step))
        dtype = DataType.DT_INT32 if integral else DataType.DT_FP32
    dtype = _checked_dtype(dtype, "arange")
    if float(step) == 0.0:
        _fail("arange: step must not be zero")
    size = math.ceil((float(end) - float(start)) / float(step))
    return _one("arange", [], {"start": float(start), "step": float(step), "size": int(size), "dtype": dtype})


def tensor(shape=None, dtype=None, name=None, format=None):  # noqa: A002 - PyPTO's names
    """Inside a kernel: a temporary tensor (its contents are undefined until written; fp32 unless a dtype is
    given). Outside: a tensor description (shape, dtype, name, format), usable as a parameter annotation;
    `pypto.tensor()` with no shape or dtype takes both from the argument, like `pypto.Tensor()`."""
    state = _state.active()
    if state is None:
        return Tensor(shape, dtype, name or "", format)
    if shape is None:
        _fail("tensor: a temporary needs a shape, e.g. pypto.tensor([rows, cols], pypto.DT_FP32)")
    dtype = _checked_dtype(DataType.DT_FP32 if dtype is None else dtype, "tensor")
    file, line, _ = user_location()
    dims = [_core.to_symbolic(d) for d in shape]
    count = 1
    for d in dims:
        if d.is_concrete():
            if d.concrete() <= 0:
                _fail(f"tensor: shape {[str(x) for x in dims]} has a non-positive dim")
            count *= d.concrete()
    if count > state.max_elements:
        _fail(f"tensor: {count} elements is more than the limit of {state.max_elements}")
    tensor_id = state.builder.add_temporary(name or "", dtype, dims, file, line)
    return Tensor._traced(state, tensor_id)


# --- views, slicing, assembling -------------------------------------------------

def view(input, shape=None, offsets=None, *, valid_shape=None, dtype=None):  # noqa: A002 - PyPTO's names
    """A region of input (no copy): `shape` elements starting at `offsets`. Its valid part (the leading
    elements that hold data; PyPTO's validShape) is valid_shape, evaluated when the kernel runs, or else what
    of input's valid part the region covers. Ops compute on valid parts only: a reduction or a matmul's
    contraction spans the valid elements, an assemble writes the valid part. As in PyPTO, a region reaching
    past the end of input is allowed when its known sizes say so: the part inside input (further limited by
    valid_shape) holds its data and the rest is zero; such a view is a new tensor, so writing into it leaves
    input alone. With dtype=, input's bytes read as that dtype (numpy's x.view(dtype)), see _bitcast."""
    x = input
    if dtype is not None and _checked_dtype(dtype, "view") != x.dtype:
        if shape is not None or offsets is not None or valid_shape is not None:
            # PyPTO's view(dtype=) drops them without a word; a region the kernel asked for and did not get
            # would give wrong numbers, so the two steps are asked for one by one.
            _fail(f"view(dtype={dtype.name}) with shape, offsets or valid_shape: PyPTO reinterprets the whole "
                  f"input and ignores them; take the region with pypto.view(x, shape, offsets) first, then "
                  f"pypto.view(region, dtype={dtype.name})")
        return _bitcast(x, dtype)
    if shape is None:
        if offsets is not None or valid_shape is not None:
            _fail("view: offsets and valid_shape need a shape")
        return _one("view", [x], {"shape": x.shape, "offsets": [0] * len(x.shape)})
    offsets = list(offsets) if offsets is not None else [0] * len(shape)
    padded = _padded_view(x, list(shape), offsets, valid_shape)
    if padded is not None:
        return padded
    attrs = {"shape": list(shape), "offsets": offsets}
    if valid_shape is not None:
        attrs["valid_shape"] = _valid_shape(valid_shape, len(shape), "view")
    result = _one("view", [x], attrs)
    result._view_of = (x, offsets)  # for ops that address the underlying tensor (experimental.gather_in_ub)
    if valid_shape is not None:
        result._valid_shape = attrs["valid_shape"]  # Tensor.valid_shape, fillpad
    return result


def _bitcast(x, dtype):
    """x's bytes, row-major, read as `dtype` (PyPTO's view(x, dtype=), numpy's x.view(dtype)): the last dim
    scales by x.dtype.itemsize / dtype.itemsize and must hold a whole number of the new elements. The result
    is a copy made by the kernel (a tiled TCOPY), not an alias: writing it leaves x alone."""
    if len(x.shape) == 0:
        _fail(f"view(dtype={dtype.name}): a 0-d {x.dtype.name} tensor has no last dim to scale; reshape it to [1] "
              f"first")
    last = _known_int(x.shape[-1])
    if last is not None and (last * x.dtype.itemsize) % dtype.itemsize != 0:
        whole = dtype.itemsize // math.gcd(x.dtype.itemsize, dtype.itemsize)
        dims = ", ".join(str(d) for d in x.shape)
        _fail(f"view(dtype={dtype.name}): the last dim of {x.dtype.name} [{dims}] is {last} elements = "
              f"{last * x.dtype.itemsize} bytes, not a whole number of {dtype.itemsize}-byte {dtype.name} "
              f"elements; view a region whose last dim is a multiple of {whole} first")
    return _one("bitcast", [x], {"dtype": dtype})


def _known_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, SymbolicScalar) and value.is_concrete():
        return int(value.concrete())
    return None


def _padded_view(x, shape, offsets, valid_shape):
    """The zero-padded copy for a view reaching past x's end, else None. An axis reaches past the end when its
    size, offset and x's dim are known while tracing and offset + size > dim (a block table's [1, 1024] row view
    over [b, 16]); the other axes may be known only at run time (a batch index over a dynamic batch) and are
    taken as given (then only without valid_shape, which otherwise bounds the data when the kernel runs)."""
    dims = [_known_int(d) for d in x.shape]
    sizes = [_known_int(d) for d in shape]
    starts = [_known_int(o) for o in offsets]
    if len(sizes) != len(dims) or len(starts) != len(dims) or None in sizes:
        return None
    short = [start is not None and dim is not None and start + size > dim
             for start, size, dim in zip(starts, sizes, dims)]
    if not any(short):
        return None
    valid = list(valid_shape) if valid_shape is not None else list(sizes)
    if len(valid) != len(sizes):
        return None
    known_valid = [_known_int(v) for v in valid]
    if any(is_short and limit is None for is_short, limit in zip(short, known_valid)):
        return None
    everything_known = None not in dims + starts + known_valid
    if not everything_known and valid_shape is not None:
        return None  # the valid part says what holds data: the compiler bounds each block by it at run time
    # All known: the view is exactly its data (valid_shape cuts every axis), zero-padded to its size. Otherwise
    # only the short axes are cut; the others (sizes at offsets known when the kernel runs) keep their size.
    inside = [builtins.min(size, dim - start, limit) if is_short or everything_known else size
              for size, dim, start, limit, is_short in zip(sizes, dims, starts, known_valid, short)]
    if any(start is not None and start < 0 for start in starts) or any(extent <= 0 for extent in inside):
        _fail(f"view: the region {sizes} at offsets {[str(o) for o in offsets]} of a tensor of shape "
              f"{[str(d) for d in x.shape]} holds none of its data (valid_shape {[str(v) for v in valid]}); move the "
              f"offsets inside the tensor")
    # The data, then zeros concatenated along each short axis.
    result = _one("view", [x], {"shape": inside, "offsets": list(offsets)})
    for axis, (extent, size) in enumerate(zip(inside, sizes)):
        if extent < size:
            pad_shape = list(sizes[:axis]) + [size - extent] + list(inside[axis + 1:])
            result = concat([result, full(pad_shape, 0, x.dtype)], axis)
    return result


def _region(x, index):
    """(offsets, sizes, dims kept) of x[index] for ints, slices and `...`."""
    shape = x.shape
    if not isinstance(index, tuple):
        index = (index,)
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        _fail("an index can hold at most one '...'")
    explicit = builtins.sum(1 for i in index if i is not Ellipsis)
    if explicit > len(shape):
        _fail(f"too many indices ({explicit}) for a tensor of rank {len(shape)}")
    expanded = []
    for item in index:
        if item is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - explicit))
        else:
            expanded.append(item)
    expanded.extend([slice(None)] * (len(shape) - len(expanded)))
    offsets, sizes, kept = [], [], []
    for axis, (item, extent) in enumerate(zip(expanded, shape)):
        if isinstance(item, slice):
            if item.step not in (None, 1):
                _fail("slices with a step are not supported; use a view per step or gather")
            start = 0 if item.start is None else item.start
            stop = extent if item.stop is None else item.stop
            if isinstance(start, int) and start < 0:
                start = extent + start
            if isinstance(stop, int) and stop < 0:
                stop = extent + stop
            if isinstance(stop, int) and extent.is_concrete() and stop > extent.concrete():
                stop = extent.concrete()
            offsets.append(start)
            sizes.append(_core.to_symbolic(stop) - _core.to_symbolic(start))
            kept.append(True)
        elif isinstance(item, (int, SymbolicScalar)):
            position = item
            if isinstance(item, int) and item < 0:
                position = extent + item
            offsets.append(position)
            sizes.append(1)
            kept.append(False)
        else:
            _fail(f"unsupported index {item!r}: use ints, slices and '...'")
    return offsets, sizes, kept


def getitem(x, index):
    offsets, sizes, kept = _region(x, index)
    result = view(x, sizes, offsets)
    if all(kept):
        return result
    return reshape(result, [s for s, k in zip(sizes, kept) if k])


def setitem(x, index, value):
    offsets, sizes, kept = _region(x, index)
    if _is_tensor(value) and value._id == x._id and all(kept) and _whole(x, offsets, sizes):
        return  # x[:] = x (after an in-place scatter_update): nothing moves
    if not _is_tensor(value):
        value = full([s for s in sizes], _scalar_value(value, "assignment"), x.dtype)
    elif len(value.shape) != len(sizes):
        value = reshape(value, sizes)
    # `states[b, h] = value` under the tile set for value's own rank: as assemble() does, that tile with 1 in
    # front for the leading dims the indexing added (Qwen3-Next's gated delta rule stores its states so).
    with _vec_tile_of_rank(len(sizes)):
        _record("assemble", [value], {"offsets": offsets}, into=[x])


def assemble(src, offsets, dst):
    """Writes src into dst at offsets. PyPTO places a tensor whatever the vec tile in force: a rank-3 matmul
    result assembled under a 2-D vec tile (Kimi's block attention residuals) is cut by that tile with 1 in front
    for the missing leading dims, for this op only (the values do not depend on the tiling)."""
    if _is_tensor(src) and _is_tensor(dst) and src._id == dst._id and all(_known_int(o) == 0 for o in offsets):
        return  # assemble(cache, [0, ...], cache), cache updated in place: nothing moves
    with _vec_tile_of_rank(len(src.shape) if _is_tensor(src) else 0):
        _record("assemble", [src], {"offsets": list(offsets)}, into=[dst])


class _vec_tile_of_rank:  # noqa: N801
    """Within the block, a vec tile of fewer than `rank` dims gets leading 1s up to `rank`; restored after (with
    the place it was set at, which later errors name)."""

    def __init__(self, rank):
        self._rank = rank
        self._saved = None

    def __enter__(self):
        state = _state.current()
        current = list(state.builder.vec_tile())
        if 0 < len(current) < self._rank:
            self._saved = (current, state.builder.vec_tile_site())
            file, line = self._saved[1]
            state.builder.set_vec_tile([1] * (self._rank - len(current)) + current, file, line)
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            tile, (file, line) = self._saved
            _state.current().builder.set_vec_tile(tile, file, line)
        return False


def move(dst, src):
    """dst.move(src): writes src into dst (same shape). When src is dst itself, or an in-place reshape of it
    (PyPTO's GLM attention: `key_cache.move(scatter_update(key_cache_2d, ...))` with key_cache_2d =
    reshape(key_cache, [n, d], inplace=True)), the data is already dst's: PyPTO's move then rebinds dst to
    the same bytes, and nothing moves."""
    if _is_tensor(src) and _is_tensor(dst):
        alias = src
        while alias is not None:
            if alias._id == dst._id:
                return  # cache.move(scatter_update(cache, ...)): the update is already in place
            alias = getattr(alias, "_inplace_of", None)
    _record("copy", [src], into=[dst])


def _whole(x, offsets, sizes):
    """Whether the region (offsets, sizes) is all of x, as far as tracing can tell."""
    for offset, size, extent in zip(offsets, sizes, x.shape):
        if _known_int(offset) != 0 or _known_int(size) is None or _known_int(size) != _known_int(extent):
            return False
    return True


# --- indexing and sorting --------------------------------------------------

def gather(x, dim, index):
    return _one("gather", [x, index], {"dim": int(dim)})


def index_select(x, dim, index):
    """x's slices along dim at the positions index holds. A multi-dim index (PyPTO's Gather) picks with its
    elements flattened and puts its dims in place of dim: the result is x's dims before dim, index's dims, then
    x's dims after dim."""
    rank = len(x.shape)
    dim = int(dim) % rank if rank else int(dim)
    if not _is_tensor(index) or len(index.shape) <= 1:
        return _one("index_select", [x, index], {"dim": dim})
    count = 1
    for extent in index.shape:
        count = count * extent
    result_shape = list(x.shape[:dim]) + list(index.shape) + list(x.shape[dim + 1:])
    index_valid = index.__dict__.get("_valid_shape")
    if index_valid is None:
        picked = _one("index_select", [x, reshape(index, [count])], {"dim": dim})
        return reshape(picked, result_shape)
    # A block of the index valid in part of its rows (PyPTO's Gather over view blocks past the end): its
    # valid elements are no prefix of the flattened index, so the flat index keeps every position of its
    # valid leading rows (those past a row's valid part read zeros, row 0: in range, and dropped below), and
    # the result's valid part is said in the index's dims.
    inner = 1
    for extent in index.shape[1:]:
        inner = inner * extent
    flat = reshape(index, [count], valid_shape=[index_valid[0] * inner])
    picked = _one("index_select", [x, flat], {"dim": dim})
    x_valid = list(x.__dict__.get("_valid_shape") or x.shape)
    valid = x_valid[:dim] + list(index_valid) + x_valid[dim + 1:]
    return reshape(picked, result_shape, valid_shape=valid)


def _scatter_inputs(x, index, src, reduce):
    attrs = {}
    inputs = [x, index]
    if _is_tensor(src):
        inputs.append(src)
    else:
        # A scalar src writes that value at every index position: an operand of the instruction, as PyPTO's
        # scalar scatter takes it, not a tensor of the index's shape (as much unified buffer as the index).
        attrs["value"] = _scalar_value(src, "scatter")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            _fail(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r}")
        attrs["reduce"] = reduce
    return inputs, attrs


def scatter(x, dim, index, src, *, reduce=None):
    """torch.scatter: a copy of x with src (a tensor, or a scalar) written at index along dim; with
    reduce='add' or 'multiply' the values are combined with what is there."""
    inputs, attrs = _scatter_inputs(x, index, src, reduce)
    attrs["dim"] = int(dim)
    return _one("scatter", inputs, attrs)


def scatter_(x, dim, index, src, *, reduce=None):
    """In-place scatter: writes into x and returns it."""
    inputs, attrs = _scatter_inputs(x, index, src, reduce)
    attrs["dim"] = int(dim)
    _record("scatter", inputs, attrs, into=[x])
    return x


def scatter_update(x, dim, index, src):
    """x with src's slices written at `index` along `dim`. Two forms:

    * torch-style, a 1-D index: a new tensor, out = x, then out's slice index[i] along dim = src's slice i
      (src is x's shape with index's length at dim).
    * PyPTO's paged-cache form, dim -2 with a 2-D index [b, s] of flat slot numbers: x is a cache
      [blocks, block_size, 1, d] (or [blocks * block_size, d]) and src holds the new rows as [b, s, 1, d]
      (or [b * s, d]); slot n = index[i][j] is row n % block_size of block n // block_size, and takes
      src[i][j]. As in PyPTO, x is updated in place and returned: only the rows named move (an MSCATTER per
      tile of src), the cache is never loaded. Writing the result back to x (x[:] = ..., x.move(...)) moves
      nothing; writing it to another tensor copies the whole updated cache there."""
    dim = int(dim)
    if _is_tensor(index) and len(index.shape) == 2:
        return _paged_scatter_update(x, dim, index, src)
    return _one("scatter_update", [x, index, src], {"dim": dim})


def _paged_scatter_update(cache, dim, index, src):
    """PyPTO's form as a row scatter into the cache itself (attribute rows=True): the cache's slots are its
    rows, one index over all its dims but the last (the cache is contiguous), and src's rows are taken in
    index order. src keeps its rank ([n, 1, 1, d] for a 4-D cache), so the vec tile the kernel gives for the
    4-D form cuts it."""
    what = "scatter_update (PyPTO's paged-cache form, a 2-D index)"
    rank = len(cache.shape)
    if dim not in (-2, rank - 2):
        _fail(f"{what}: dim must be -2, got {dim}")
    if rank not in (2, 4) or (rank == 4 and _known_int(cache.shape[2]) != 1):
        _fail(f"{what}: the cache must be [blocks, block_size, 1, d] or [blocks * block_size, d], got "
              f"[{', '.join(str(d) for d in cache.shape)}]")
    if len(src.shape) not in (2, 4) or (len(src.shape) == 4 and _known_int(src.shape[2]) != 1):
        _fail(f"{what}: src must be [b, s, 1, d] or [b * s, d], got [{', '.join(str(d) for d in src.shape)}]")
    width = cache.shape[-1]
    updates = index.shape[0] * index.shape[1]
    flat_index = reshape(index, [updates])
    row_shape = [updates, 1, 1, width] if rank == 4 else [updates, width]
    rows = src if _same_dims(src.shape, row_shape) else reshape(src, row_shape)
    _record("scatter_update", [cache, flat_index, rows], {"dim": rank - 2, "rows": True}, into=[cache])
    return cache


def _same_dims(shape, dims):
    return len(shape) == len(dims) and all(_known_int(a) is not None and _known_int(a) == _known_int(b)
                                           for a, b in zip(shape, dims))


def topk(x, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The k largest (or smallest) values along dim and their indices."""
    values, indices = _record("topk", [x], {"k": int(k), "dim": int(dim), "largest": bool(largest)})
    return values, indices


def argsort(x, dim=-1, descending=False):
    return _one("argsort", [x], {"dim": int(dim), "descending": bool(descending)})


# --- matrix and quantisation ---------------------------------------------

class ReLuType(enum.Enum):
    """matmul extend_params["relu_type"]: whether the result goes through ReLU on its way out."""
    NO_RELU = 0
    RELU = 1


class TransMode(enum.Enum):
    """matmul extend_params["trans_mode"]: TF32 rounding of fp32 operands (an Ascend 950 feature)."""
    CAST_NONE = 0
    CAST_RINT = 1
    CAST_ROUND = 2


_EXTEND_KEYS = {"bias_tensor", "scale", "scale_tensor", "relu_type", "trans_mode"}


def _fixpipe_scale(value):
    """matmul's per-tensor scale as the fixpipe holds it: sign, 8 exponent bits and the top 10 mantissa
    bits of the fp32 value (the low 13 bits are dropped)."""
    import struct
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0] & 0xFFFFE000
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def matmul(a, b, out_dtype=None, a_trans=False, b_trans=False, c_matrix_nz=False, extend_params=None):
    """a @ b on the cube unit; needs pypto.set_cube_tile_shapes first. extend_params (PyPTO's fixpipe
    options): bias_tensor (added to the fp32/int32 accumulator), scale (per-tensor dequant/quant factor),
    relu_type (ReLuType.RELU), trans_mode (TransMode.CAST_NONE only)."""
    state = _state.current()
    if state.builder.cube_tile() is None:
        _fail("matmul: no cube tile shape is set; call pypto.set_cube_tile_shapes([mL0, mL1], "
              "[kL0, kL1], [nL0, nL1]) before the matmul")
    if c_matrix_nz:
        _fail("matmul: c_matrix_nz=True (an NZ-format result) is not supported; PyPTO also only accepts False")
    attrs = {"a_trans": bool(a_trans), "b_trans": bool(b_trans)}
    if out_dtype is not None:
        attrs["out_dtype"] = _checked_dtype(out_dtype, "matmul")
    extend = dict(extend_params or {})
    unknown = sorted(set(extend) - _EXTEND_KEYS)
    if unknown:
        _fail(f"matmul: unknown extend_params key(s) {', '.join(unknown)}; known: {', '.join(sorted(_EXTEND_KEYS))}")
    if not extend:
        return _one("matmul", [a, b], attrs)
    return _matmul_fixpipe(a, b, attrs, extend)


def _matmul_fixpipe(a, b, attrs, extend):
    """matmul with the fixpipe's extras, applied to the accumulator in this order: + bias, * scale, ReLU,
    then one rounding to out_dtype (int8 results round half to even and saturate)."""
    if extend.get("scale_tensor") is not None:
        _fail("matmul: extend_params['scale_tensor'] (per-channel quantisation parameters packed by "
              "torch_npu.npu_trans_quant_param) is not supported; multiply by a scale tensor after the matmul")
    trans_mode = extend.get("trans_mode")
    if trans_mode is not None and getattr(trans_mode, "name", trans_mode) != "CAST_NONE":
        _fail("matmul: extend_params['trans_mode'] TF32 rounding is not supported on the A2/A3-like machines "
              "PTO Studio models (PyPTO also refuses it there); use TransMode.CAST_NONE")
    relu = extend.get("relu_type")
    relu = relu is not None and getattr(relu, "name", relu) == "RELU"
    integral = not a.dtype.is_float()
    out_dtype = attrs.get("out_dtype") or (DataType.DT_INT32 if integral else DataType.DT_FP32)
    accumulator_dtype = DataType.DT_INT32 if integral else DataType.DT_FP32
    scale = extend.get("scale")
    if scale is not None and integral:
        accumulator_dtype = DataType.DT_FP32  # dequantisation works on the accumulator as float
    result = _one("matmul", [a, b], dict(attrs, out_dtype=DataType.DT_INT32 if integral else DataType.DT_FP32))
    with _fixpipe_tile(_state.current(), result):
        if accumulator_dtype != result.dtype:
            result = cast(result, accumulator_dtype)
        bias = extend.get("bias_tensor")
        if bias is not None:
            result = add(result, bias if bias.dtype == result.dtype else cast(bias, result.dtype))
        if scale is not None:
            result = mul(result, _fixpipe_scale(scale))
        if relu:
            result = maximum(result, 0.0)
        # The fixpipe quantises to an integer out_dtype to the nearest step (ties to even), not toward zero.
        return result if result.dtype == out_dtype else cast(result, out_dtype, "rint")


class _fixpipe_tile:  # noqa: N801
    """On the chip the matmul's bias, scale, relu and output cast happen in the cube's fixpipe, on the cube's
    output tile, whatever vec tile the kernel set for its vector ops; here they are vector ops, tiled like
    the cube's output tile ([mL0, nL0], the innermost rounded up to a 32-byte block). The kernel's vec tile
    (and the call that set it) is in force again after them."""

    def __init__(self, state, result):
        self._state = state
        self._result = result
        self._saved = None

    def __enter__(self):
        builder = self._state.builder
        self._saved = (list(builder.vec_tile()), *builder.vec_tile_site())
        m, _, n, _ = builder.cube_tile()
        per_block = builtins.max(1, 32 // bytes_of(self._result.dtype))
        n_tile = -(-n[0] // per_block) * per_block
        rank = len(self._result.shape)
        file, line, _ = user_location()
        builder.set_vec_tile([1] * (rank - 2) + [m[0], n_tile], file, line)
        return self

    def __exit__(self, *exc):
        tile, file, line = self._saved
        self._state.builder.set_vec_tile(tile, file, line)
        return False


def _along_axis(values, x, axis, what):
    """A per-row / per-column parameter (scale or zero points) shaped to broadcast against x: PyPTO gives it
    one dim fewer than x (the quantised axis left out); a 1 is put back at that axis."""
    rank = len(x.shape)
    if len(values.shape) == rank:
        return values
    if len(values.shape) != rank - 1 and rank > 1:
        _fail(f"{what}: expected {rank - 1} dims (x's dims without axis {axis}), got shape "
              f"{[str(d) for d in values.shape]}")
    return unsqueeze(values, axis if axis >= 0 else axis + rank)


def quantize(input, scale, otype, axis, zero_points=None):  # noqa: A002 - PyPTO's names
    """PyPTO's quantize: round(input * scale) into otype, ties to even, saturating. DT_INT8 is symmetric;
    DT_UINT8 is asymmetric: round(input * scale + zero_points). scale (and zero_points) hold one value per
    row for axis=-1 (shape [..., row]) or per column for axis=-2 (shape [..., col])."""
    otype = _checked_dtype(otype, "quantize")
    axis = int(axis)
    scale = _along_axis(scale, input, axis, "quantize: scale")
    if zero_points is None:
        return _one("quantize", [input, scale], {"otype": otype, "axis": axis})
    # round(x * s + z): the product and the sum in fp32, then one rounding into otype with saturation
    # (the quantize op takes no third input, so the asymmetric form is built from mul, add and cast).
    if otype not in (DataType.DT_INT8, DataType.DT_UINT8):
        _fail(f"quantize: otype must be DT_INT8 or DT_UINT8, got {otype.name}")
    if not input.dtype.is_float():
        _fail(f"quantize: needs a float input, got {input.dtype.name}")
    zero_points = _along_axis(zero_points, input, axis, "quantize: zero_points")
    shifted = add(mul(cast(input, DataType.DT_FP32), cast(scale, DataType.DT_FP32)),
                  cast(zero_points, DataType.DT_FP32))
    return cast(shifted, otype, "rint")


def dequantize(input, scale, otype=DataType.DT_FP32, axis=-1, zero_points=None):  # noqa: A002
    """PyPTO's dequantize: (float(input) - zero_points) * scale into otype (DT_FP32), the inverse of quantize's
    round(x * s + zero_points) for scale = 1 / s (the formula of PyPTO's on-board Dequantize test). scale and
    zero_points hold one value per row (axis=-1) or per column (axis=-2)."""
    otype = _checked_dtype(otype, "dequantize")
    axis = int(axis)
    scale = _along_axis(scale, input, axis, "dequantize: scale")
    if zero_points is None:
        return _one("dequantize", [input, scale], {"otype": otype, "axis": axis})
    if input.dtype.is_float():
        _fail(f"dequantize: needs an integer input, got {input.dtype.name}")
    zero_points = _along_axis(zero_points, input, axis, "dequantize: zero_points")
    shifted = sub(cast(input, DataType.DT_FP32), cast(zero_points, DataType.DT_FP32))
    result = mul(shifted, cast(scale, DataType.DT_FP32))
    return result if otype == DataType.DT_FP32 else cast(result, otype)


# --- composites (built from the ops above) -----------------------------------

def softmax(x, dim=-1):
    row_max = amax(x, dim=dim, keepdim=True)
    numerator = exp(sub(x, row_max))
    return div(numerator, sum(numerator, dim=dim, keepdim=True))


def _mean(x, dim):
    """Mean over one dim, kept. A dim whose size is only known at run time is counted with a sum of ones."""
    total = sum(x, dim=dim, keepdim=True)
    size = x.shape[dim]
    if size.is_concrete():
        return mul(total, 1.0 / size.concrete())
    return div(total, sum(full(x.shape, 1.0, x.dtype), dim=dim, keepdim=True))


def rms_norm(x, gamma=None, epsilon=1e-6, dim=-1, *, weight=None, eps=None):
    """x / sqrt(mean(x^2) + epsilon) * gamma, PyPTO's signature (weight/eps: the older names)."""
    weight = gamma if weight is None else weight
    eps = epsilon if eps is None else eps
    mean_square = _mean(mul(x, x), dim)
    normalised = mul(x, rsqrt(add(mean_square, eps)))
    return normalised if weight is None else mul(normalised, weight)


def layer_norm(x, weight=None, bias=None, eps=1e-5, dim=-1):
    mean = _mean(x, dim)
    centred = sub(x, mean)
    variance = _mean(mul(centred, centred), dim)
    result = mul(centred, rsqrt(add(variance, eps)))
    if weight is not None:
        result = mul(result, weight)
    if bias is not None:
        result = add(result, bias)
    return result


TENSOR_METHODS = {
    name: function for name, function in {
        "neg": neg, "abs": abs, "reciprocal": reciprocal, "sqrt": sqrt, "rsqrt": rsqrt, "exp": exp,
        "exp2": exp2, "expm1": expm1, "log": log, "log1p": log1p, "sin": sin, "cos": cos, "tanh": tanh,
        "erf": erf, "erfc": erfc, "round": round, "ceil": ceil, "floor": floor, "trunc": trunc,
        "sign": sign, "relu": relu, "sigmoid": sigmoid, "isfinite": isfinite, "clip": clip,
        "add": add, "sub": sub, "mul": mul, "div": div, "maximum": maximum, "minimum": minimum, "pow": pow,
        "eq": eq, "ne": ne, "gt": gt, "ge": ge, "lt": lt, "le": le,
        "sum": sum, "amax": amax, "amin": amin, "prod": prod, "argmax": argmax, "argmin": argmin,
        "max": amax, "min": amin,
        "reshape": reshape, "view": view, "transpose": transpose, "permute": permute, "unsqueeze": unsqueeze,
        "cast": cast, "astype": astype, "clone": clone, "move": move,
        "gather": gather, "index_select": index_select, "scatter": scatter, "scatter_": scatter_,
        "scatter_update": scatter_update,
        "topk": topk, "argsort": argsort, "matmul": matmul, "softmax": softmax,
    }.items()
}
