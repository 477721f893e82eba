"""matmul on the cube unit, with the extras PyPTO's fixpipe applies to its result (bias, scale, ReLU, the output
cast), and quantize/dequantize, which turn fp tensors into the int8 operands of a quantised matmul and back."""
import builtins
import enum

import _pypto_core as _core

from . import _state
from ._dtypes import bytes_of
from ._dtypes import checked as _checked_dtype
from ._elementwise import add, maximum, mul, sub
from ._location import user_location
from ._recording import _fail, _one
from ._shapes import cast, unsqueeze

DataType = _core.DataType


class ReLuType(enum.Enum):
    """matmul extend_params["relu_type"]: whether the result goes through ReLU on its way out."""
    NO_RELU = 0
    RELU = 1


class TransMode(enum.Enum):
    """matmul extend_params["trans_mode"]: TF32 rounding of fp32 operands (an Ascend 950 feature): CAST_RINT to
    nearest with ties to even, CAST_ROUND to nearest with ties away from zero."""
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


def _channel_scales(scale_tensor):
    """matmul's per-channel extend_params['scale_tensor'] as fp32 scales: a uint64 per output column whose low
    32 bits hold the fp32 scale (torch_npu.npu_trans_quant_param's layout; its upper bits carry a
    quantisation offset, used only when quantising to int8, which is not modelled), read as the fixpipe holds
    it: sign, exponent and the top 10 mantissa bits. The uint64s are read as int32 pairs, little-endian (the
    low word first), and the even ones kept."""
    from ._api_extras import bitwise_and, deinterleave
    from ._views import view
    if scale_tensor.dtype != DataType.DT_UINT64:
        _fail(f"matmul: extend_params['scale_tensor'] must be DT_UINT64 (packed scales), got {scale_tensor.dtype.name}")
    low_words, _ = deinterleave(view(scale_tensor, dtype=DataType.DT_INT32))
    return view(bitwise_and(low_words, -8192), dtype=DataType.DT_FP32)  # -8192: 0xFFFFE000 as int32


def matmul(a, b, out_dtype=None, a_trans=False, b_trans=False, c_matrix_nz=False, extend_params=None):
    """a @ b on the cube unit; needs pypto.set_cube_tile_shapes first. extend_params (PyPTO's fixpipe
    options): bias_tensor (added to the fp32/int32 accumulator), scale (per-tensor dequant/quant factor),
    relu_type (ReLuType.RELU), trans_mode (TransMode: TF32 operands, on a 950-like machine)."""
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
    """matmul with the fixpipe's extras, applied to the accumulator in this order: + bias, ReLU, * scale,
    then one rounding to out_dtype (int8 results round half to even and saturate). The ReLU comes before the
    scale (the PTO ISA's ReluPreMode, and PyPTO's Matmul golden), which matters for a negative scale."""
    tf32 = _tf32_rounding(extend.get("trans_mode"), a, b, attrs)
    if tf32:
        attrs = dict(attrs, tf32=tf32)
    relu = extend.get("relu_type")
    relu = relu is not None and getattr(relu, "name", relu) == "RELU"
    integral = not a.dtype.is_float()
    out_dtype = attrs.get("out_dtype") or (DataType.DT_INT32 if integral else DataType.DT_FP32)
    accumulator_dtype = DataType.DT_INT32 if integral else DataType.DT_FP32
    scale = extend.get("scale")
    scale_tensor = extend.get("scale_tensor")
    if (scale is not None or scale_tensor is not None) and integral:
        accumulator_dtype = DataType.DT_FP32  # dequantisation works on the accumulator as float
    result = _one("matmul", [a, b], dict(attrs, out_dtype=DataType.DT_INT32 if integral else DataType.DT_FP32))
    with _fixpipe_tile(_state.current(), result):
        if accumulator_dtype != result.dtype:
            result = cast(result, accumulator_dtype)
        bias = extend.get("bias_tensor")
        if bias is not None:
            result = add(result, bias if bias.dtype == result.dtype else cast(bias, result.dtype))
        if relu:
            result = maximum(result, 0.0)
        if scale is not None:
            result = mul(result, _fixpipe_scale(scale))
        if scale_tensor is not None:
            result = mul(result, _channel_scales(scale_tensor))
        # The fixpipe quantises to an integer out_dtype to the nearest step (ties to even), not toward zero.
        return result if result.dtype == out_dtype else cast(result, out_dtype, "rint")


_TF32_ROUNDINGS = {"CAST_NONE": None, "CAST_RINT": "rint", "CAST_ROUND": "round"}


def _tf32_rounding(trans_mode, a, b, attrs):
    """The matmul op's "tf32" attribute for extend_params['trans_mode'] (None for CAST_NONE or no mode): the cube
    of PyPTO's 950 rounds both fp32 operands to TF32 (8 exponent and 10 mantissa bits) as it reads them, with
    the mode's rounding, and multiplies and accumulates in fp32 as always (PyPTO's TMatmul sets the TF32 mad mode
    on the same TMATMUL instruction, which the timing model prices as an fp32 matmul). As PyPTO's page says,
    only on the 950 and only when both operands and the result are DT_FP32."""
    if trans_mode is None:
        return None
    name = getattr(trans_mode, "name", trans_mode)
    if name not in _TF32_ROUNDINGS:
        _fail(f"matmul: extend_params['trans_mode'] must be a pypto.TransMode (CAST_NONE, CAST_RINT or CAST_ROUND), "
              f"got {trans_mode!r}")
    if _TF32_ROUNDINGS[name] is None:
        return None
    from ._public_modules import npu_arch
    if npu_arch() != "DAV_3510":
        _fail(f"matmul: extend_params['trans_mode'] {name} (TF32 operands) exists on the Ascend 950 only, as "
              f"PyPTO's page says; the simulated machine is A2/A3-like: run on the 950 machine (PTO_MACHINE=950) "
              f"or use TransMode.CAST_NONE")
    out_dtype = attrs.get("out_dtype") or DataType.DT_FP32
    if a.dtype != DataType.DT_FP32 or b.dtype != DataType.DT_FP32 or out_dtype != DataType.DT_FP32:
        _fail(f"matmul: extend_params['trans_mode'] {name} needs DT_FP32 operands and result (PyPTO's page), got "
              f"{a.dtype.name} @ {b.dtype.name} -> {out_dtype.name}")
    return _TF32_ROUNDINGS[name]


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
