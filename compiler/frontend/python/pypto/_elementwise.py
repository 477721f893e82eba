"""The elementwise pypto ops: unary maths, arithmetic with tensors or scalars (broadcasting), comparisons, logical
ops, where and clip."""
import enum

import _pypto_core as _core

from ._recording import _fail, _is_tensor, _one, _scalar_value
from ._shapes import cast, clone, unsqueeze
from ._tensor import SymbolicScalar

DataType = _core.DataType


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
    if x.dtype == DataType.DT_BF16:
        # Scaled in fp32 and rounded once, as PyPTO's golden does: x * 10^d rounded to bf16 first would often
        # land on another integer (bf16 keeps 8 significant bits).
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
