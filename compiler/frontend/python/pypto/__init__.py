"""pypto: PyPTO's Python API, as implemented by PTO Studio.

Kernels written for PyPTO run here unchanged, as if PyPTO's simulator run
mode were selected: calling a kernel traces it into a Tensor graph and runs
it, writing outputs back into the arrays passed in."""
import _pypto_core as _core

from . import frontend
from ._config import (CubeTile, get_codegen_options, get_cube_tile_shapes, get_debug_options, get_host_options,
                      get_options_tree, get_pass_options, get_runtime_options, get_semantic_label,
                      get_vec_tile_shapes, get_verify_options, options, reset_options, set_codegen_options,
                      set_cube_tile_shapes, set_debug_options, set_host_options, set_matrix_size, set_options,
                      set_pass_options, set_runtime_options, set_semantic_label, set_vec_tile_shapes,
                      set_verify_options)
from ._control import cond, is_loop_begin, is_loop_end, loop, loop_unroll
from ._dtypes import UNSUPPORTED as _UNSUPPORTED_DTYPES
from ._dtypes import bytes_of
from ._symbolic import ceildiv
from ._errors import KernelError, KernelTimeout, PtoError
from ._jit import JitKernel, RunMode, jit, last_run
from ._ops import CastMode, ReLuType, TransMode
from ._ops import (abs, add, amax, amin, arange, argmax, argmin, argsort, assemble, astype, cast, cat, ceil,
                   clip, clone, concat, cos, dequantize, div, eq, erf, erfc, exp, exp2, expm1, floor, full, gather,
                   ge, greater, gt, index_select, isfinite, layer_norm, le, log, log1p, logical_and, logical_not,
                   logical_or, lt, matmul, maximum, minimum, move, mul, ne, neg, ones, permute, pow, prod,
                   quantize, reciprocal, relu, reshape, rms_norm, round, rsqrt, scatter, scatter_, scatter_update,
                   sigmoid, sign, sin, softmax, sqrt, sub, sum, tanh, tensor, topk, transpose, trunc, unsqueeze, view,
                   where, zeros)
from ._symbolic import SymbolicScalar, symbolic_scalar
from . import _api_extras
from ._api_extras import (CachePolicy, Element, LogBaseType, OpType, OutType, PassConfigKey, PrecisionType,
                          ReduceMode, SaturationMode, ScatterMode, TopKAlgo, acos, atomic_add, acosh, asin, asinh, atan, atan2,
                          atanh, bitwise_and, bitwise_left_shift, bitwise_not, bitwise_or, bitwise_right_shift,
                          bitwise_xor, cbrt, ceil_div, convert_to_element, copysign, cumprod, get_scatter_mode, cumsum, gcd, signbit, tril, triu, axpy_,
                          expand_clone, expand_exp_dif, fillpad, gathermask, interleave, deinterleave, index_add, index_add_, index_add_ub, index_add__ub, index_put_, one_hot, pack, unpack,
                          pad, sort32, mrgsort,
                          cosh, floor_div, fmod, from_torch, function, get_pass_config, get_pass_configs,
                          get_pass_default_config, hypot, pass_verify_print, pass_verify_save, isnan, log2, log10, lrelu, prelu, remainder,
                          set_pass_config, set_pass_default_config, set_verify_golden_data, sinh, tan, var)
from . import _public_modules
from ._conv import ConvReLuType, conv, get_conv_tile_shapes, set_conv_tile_shapes
from ._random import normal, uniform, uniform_impl
from ._tensor import DYN, DYNAMIC, STATIC, Tensor, TileOpFormat

DataType = _core.DataType
# The dtypes PTO Studio computes in, by name: pypto.DT_FP32, DT_FP16, DT_BF16, DT_INT8 ... DT_UINT64, DT_BOOL.
globals().update(DataType.__members__)
# Documented operations PTO Studio does not model: calling one raises a KernelError that says why.
globals().update(_api_extras.unsupported_functions())
_api_extras.install_tensor_extras()
element = Element
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


# pypto.experimental, pypto.operation, pypto.platform and pypto.pypto_impl, importable by those names; made
# last, since pypto.operation re-exports functions defined above.
globals().update(_public_modules.install(globals()))


__version__ = "0.1.0"
