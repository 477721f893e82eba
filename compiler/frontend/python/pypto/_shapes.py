"""The pypto ops that make tensors and change their shape, layout or dtype: reshape, transpose, permute,
unsqueeze, concat, cast, clone, full/zeros/ones, arange and tensor (a temporary, or a description)."""
import builtins
import enum
import math
import numbers

import _pypto_core as _core

from . import _state
from ._dtypes import checked as _checked_dtype
from ._location import user_location
from ._recording import _fail, _is_tensor, _one, _scalar_value
from ._tensor import SymbolicScalar, Tensor

DataType = _core.DataType


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


def _valid_shape(valid_shape, rank, what):
    """valid_shape as a list of its rank-many sizes (ints or symbolic scalars)."""
    sizes = list(valid_shape)
    if len(sizes) != rank:
        _fail(f"{what}: valid_shape {[str(v) for v in sizes]} has {len(sizes)} dims, the shape has {rank}")
    return sizes
