"""The operations of the pypto API, gathered from their families, and the ops a Tensor offers as methods. Each op
records one or more ops in the graph being traced (_recording); shape and dtype rules live in C++
(compiler/ir/ShapeInference). The package and the modules built on the ops (_api_extras, _experimental,
_random) use them through this one name."""
import _pypto_core as _core

from ._elementwise import (PrecisionType, abs, add, ceil, clip, cos, div, eq, erf, erfc, exp, exp2, expm1, floor, ge,
                           greater, gt, isfinite, le, log, log1p, logical_and, logical_not, logical_or, lt, maximum,
                           minimum, mul, ne, neg, pow, reciprocal, relu, round, rsqrt, sigmoid, sign, sin, sqrt, sub,
                           tanh, trunc, where)
from ._indexing import argsort, gather, index_select, scatter, scatter_, scatter_update, topk
from ._matmul import ReLuType, TransMode, dequantize, matmul, quantize
from ._reductions import amax, amin, argmax, argmin, layer_norm, prod, rms_norm, softmax, sum
from ._shapes import (CastMode, SaturationMode, arange, astype, cast, cat, clone, concat, full, ones, permute, reshape,
                      tensor, transpose, unsqueeze, zeros)
from ._views import assemble, getitem, move, setitem, view

DataType = _core.DataType


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
