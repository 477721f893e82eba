"""pypto: PyPTO's Python API, as implemented by PTO Studio.

Kernels written for PyPTO run here unchanged, as if PyPTO's simulator run
mode were selected: calling a kernel traces it into a Tensor graph and runs
it, writing outputs back into the arrays passed in."""
import _pypto_core as _core

from . import frontend
from ._config import (get_cube_tile_shapes, get_semantic_label, get_vec_tile_shapes, options,
                      set_cube_tile_shapes, set_matrix_size, set_options, set_pass_options, set_runtime_options,
                      set_semantic_label, set_vec_tile_shapes)
from ._control import cond, is_loop_begin, is_loop_end, loop, loop_unroll
from ._dtypes import UNSUPPORTED as _UNSUPPORTED_DTYPES
from ._dtypes import bytes_of
from ._errors import KernelError, KernelTimeout, PtoError
from ._jit import JitKernel, RunMode, jit, last_run
from ._ops import CastMode, ReLuType, TransMode
from ._ops import (abs, add, amax, amin, arange, argmax, argmin, argsort, assemble, astype, cast, cat, ceil,
                   clip, clone, concat, cos, dequantize, div, eq, erf, erfc, exp, exp2, expm1, floor, full, gather,
                   ge, gt, index_select, isfinite, layer_norm, le, log, log1p, logical_and, logical_not,
                   logical_or, lt, matmul, maximum, minimum, move, mul, ne, neg, ones, permute, pow, prod,
                   quantize, reciprocal, relu, reshape, rms_norm, round, rsqrt, scatter, scatter_, scatter_update,
                   sigmoid, sign, sin, softmax, sqrt, sub, sum, tanh, tensor, topk, transpose, trunc, unsqueeze, view,
                   where, zeros)
from ._symbolic import SymbolicScalar, symbolic_scalar
from ._tensor import DYN, DYNAMIC, STATIC, Tensor, TileOpFormat

DataType = _core.DataType
DT_FP32 = DataType.DT_FP32
DT_FP16 = DataType.DT_FP16
DT_BF16 = DataType.DT_BF16
DT_INT8 = DataType.DT_INT8
DT_INT16 = DataType.DT_INT16
DT_INT32 = DataType.DT_INT32
DT_INT64 = DataType.DT_INT64
DT_UINT8 = DataType.DT_UINT8
DT_UINT16 = DataType.DT_UINT16
DT_UINT32 = DataType.DT_UINT32
DT_UINT64 = DataType.DT_UINT64
DT_BOOL = DataType.DT_BOOL
# PyPTO's other dtypes (FP8/FP4/HF8/INT4, double): they name tensors in descriptions; computing in them is
# reported as unsupported on the machines PTO Studio models.
globals().update(_UNSUPPORTED_DTYPES)


def __getattr__(name):
    raise AttributeError(f"module 'pypto' has no attribute '{name}'")


def min(a, b):  # noqa: A001 - symbolic min, as PyPTO exposes it
    """Minimum of two symbolic scalars (dims, loop indices)."""
    return _core.sym_min(a, b)


def max(a, b):  # noqa: A001
    """Maximum of two symbolic scalars."""
    return _core.sym_max(a, b)


__version__ = "0.1.0"
