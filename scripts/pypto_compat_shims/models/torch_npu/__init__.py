"""A stand-in for Ascend's torch_npu, loaded only by scripts/pypto-compat.sh --models (its folder is put on the
path of the scripts it runs, never on the package's). PyPTO's model test scripts import torch_npu, move their
tensors with `.npu()` and wait with `torch_npu.npu.synchronize()`; on a CPU host with PTO Studio's simulator the
kernels take CPU tensors, so here:

- `torch.Tensor.npu(...)` returns the tensor itself (the kernel writes its outputs into the caller's memory, so
  the script's output tensors must stay the same objects). A tensor that is not contiguous (a slice of a
  larger one) becomes a contiguous copy, as copying it to a device lays it out afresh;
- `npu_format_cast(t, fmt)` keeps `t`'s values and layout (PTO Studio's package reads every tensor as ND, and
  a format cast on the device changes only how the same values are laid out there) and remembers the format
  asked for: casting to ND gives `t` itself, any other format a tensor over `t`'s memory that reports it as
  the device would, `get_npu_format` answering the format and `.device.type` answering "npu" (GLM's scripts
  check their weights are NZ with `get_npu_format`, asked only of device tensors). Operations on it give
  ordinary CPU tensors; the package takes it as the CPU tensor it is;
- `npu.set_device`, `npu.synchronize`, `npu.empty_cache` do nothing; `npu.is_available()` is False, so scripts
  that compute their golden on the device when one is there compute it on the CPU;
- `torch.npu` is this module's `npu`, as importing the real torch_npu makes it;
- `npu.NPUGraph` / `npu.graph(g)` (graph capture, then `g.replay()`): with no device there is nothing to
  capture into, so the calls inside `with npu.graph(g):` run when made and the first `replay()` runs nothing;
  each captured call thus runs once, as one capture and one replay run it on a device. A second `replay()`
  would run them again there and is refused here;
- the device "npu" / "npu:N" is the CPU: a `device=` of torch's tensor factories (`torch.ones(..., device=
  f"npu:{i}")`) and of `Tensor.to` / `Tensor.new_*`, and a device string given to `Tensor.to`, name the CPU, as
  `.npu()` does (torch before 2.1 cannot register a device named "npu" at all); so does a bare device index
  (`device=device_id`, `.to(0)`), which names an NPU once torch_npu is loaded;
- `torch.rand(..., dtype=<an integer dtype>, device="npu...")`, which torch_npu fills on the device while
  torch's CPU kernel refuses the dtype, gives uniform values in [0, 1) truncated to the integer dtype: zeros
  (GLM's select-experts script allocates its topk_ids output this way; the kernel overwrites it);
- `npu_quantize` and `npu_quant_matmul`, which GLM's and DeepSeek-V4's attention goldens call, computed on the
  host as torch_npu documents them: `npu_quantize(x, scales, zero_points, dtype, axis, div_mode)` is
  `x / scales + zero_points` (`x * scales + zero_points` when div_mode is False) in fp32, rounded half to even
  and saturated to int8 (torch.qint8) or uint8 (torch.quint8); `npu_quant_matmul(x1, x2, scale, offset=None,
  pertoken_scale=None, bias=None, output_dtype=None)` is the exact integer product `x1 @ x2` plus the int32
  bias, in fp32 times scale (and the per-token scale), cast to output_dtype (which must be given);
- `npu_dynamic_quant(x)` and `npu_swiglu(x, dim=-1)` (GLM's MoE golden) as torch_npu documents them:
  per row, scale = max|x| / 127 and y = round(x / scale) to int8 (fp32 arithmetic, ties to even), the scales
  returned as fp32 of x's shape without its last dim; swiglu splits `dim` into halves a, b and gives
  silu(a) * b, computed in fp32 and returned in x's dtype;
- `torch.topk` gives what the device gives: the k elements sorted (largest first, or smallest first with
  largest=False) and equal values in index order. torch_npu runs a device tensor's topk as CANN's aclnnTopk,
  whose reference says its `sorted` takes only True, and the vector unit's sort (Ascend C's Sort32) puts the
  lower index first among equal scores. On a CPU, sorted=False leaves the order to the selection algorithm
  and ties fall either way; GLM's MoE goldens pick experts with sorted=False among scores that tie (a sigmoid
  saturated at 1 plus a bf16 bias) and compare the ids in order. Here topk is a stable sort, then the first k.

Nothing here touches the package under test."""
import sys
import types

import torch

__version__ = "0.0+pto-studio-cpu-stand-in"


class Format:
    """torch_npu.Format: the storage formats npu_format_cast takes (values as torch_npu numbers them)."""
    UNDEFINED = -1
    NCHW = 0
    NHWC = 1
    ND = 2
    NC1HWC0 = 3
    FRACTAL_Z = 4
    FRACTAL_NZ = 29
    NDC1HWC0 = 32
    FRACTAL_Z_3D = 33


class _Device:
    """What `.device` of a tensor on the NPU answers: type "npu" and its index (torch 1.13's torch.device
    cannot name an "npu" device)."""

    def __init__(self, index=0):
        self.type, self.index = "npu", index

    def __str__(self):
        return f"npu:{self.index}"

    __repr__ = __str__

    def __eq__(self, other):
        return str(self) == str(other) or (isinstance(other, str) and other == "npu")

    def __hash__(self):
        return hash(str(self))


class _FormattedTensor(torch.Tensor):
    """A tensor a format cast made: the caller's memory and values, the format the cast named (see the
    module's note). Every operation on it runs on the CPU tensor underneath and gives an ordinary tensor."""

    @property
    def device(self):
        return _Device()

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunction():
            result = func(*args, **(kwargs or {}))
        if isinstance(result, cls) and func is not torch.Tensor.npu:
            return result  # an in-place method returns the tensor itself
        return result


def npu_format_cast(tensor, acl_format, *args, **kwargs):
    """The tensor with its values and ND layout, reporting `acl_format` (see the module's note)."""
    if acl_format == Format.ND:
        return tensor
    with torch._C.DisableTorchFunction():
        formatted = torch.Tensor.as_subclass(tensor, _FormattedTensor)
    formatted.npu_format = int(acl_format)
    return formatted


def npu_format_cast_(tensor, acl_format, *args, **kwargs):
    return npu_format_cast(tensor, acl_format)


def get_npu_format(tensor):
    return getattr(tensor, "npu_format", Format.ND)


def npu_dynamic_quant(x, *, smooth_scales=None, group_index=None, dst_type=None):
    """torch_npu.npu_dynamic_quant on the host, int8 without groups (see the module's note)."""
    if group_index is not None or dst_type not in (None, torch.int8):
        raise NotImplementedError("the torch_npu stand-in's npu_dynamic_quant quantizes to int8 without groups")
    values = x.float()
    if smooth_scales is not None:
        values = values * smooth_scales.float()
    scale = values.abs().amax(dim=-1) / 127.0
    quantized = torch.round(values / scale.unsqueeze(-1))
    return torch.clamp(quantized, -128, 127).to(torch.int8), scale


def npu_swiglu(x, dim=-1):
    """torch_npu.npu_swiglu on the host: silu of the first half of `dim` times the second half."""
    first, second = x.float().chunk(2, dim=dim)
    return (torch.nn.functional.silu(first) * second).to(x.dtype)


def npu_quantize(x, scales, zero_points, dtype, axis=1, div_mode=True):
    """torch_npu.npu_quantize on the host (see the module's note); scales and zero points broadcast along
    `axis` (a per-channel vector) or as given."""
    ranges = {torch.qint8: (-128, 127, torch.int8), torch.quint8: (0, 255, torch.uint8),
              torch.int8: (-128, 127, torch.int8), torch.uint8: (0, 255, torch.uint8)}
    if dtype not in ranges:
        raise NotImplementedError(f"the torch_npu stand-in quantizes to int8 or uint8, not {dtype}")
    low, high, out_dtype = ranges[dtype]

    def along_axis(t):
        t = t.float()
        if t.dim() == 1 and x.dim() > 1:
            shape = [1] * x.dim()
            shape[axis] = t.shape[0]
            t = t.reshape(shape)
        return t

    scaled = x.float() / along_axis(scales) if div_mode else x.float() * along_axis(scales)
    if zero_points is not None:
        scaled = scaled + along_axis(zero_points)
    return torch.clamp(torch.round(scaled), low, high).to(out_dtype)


def npu_quant_matmul(x1, x2, scale, *, offset=None, pertoken_scale=None, bias=None, output_dtype=None):
    """torch_npu.npu_quant_matmul on the host (see the module's note). int8 products summed in float64 are
    exact up to 2**53, far beyond any int32 accumulator's range."""
    if offset is not None:
        raise NotImplementedError("the torch_npu stand-in's npu_quant_matmul takes no offset")
    product = x1.double() @ x2.double()
    if bias is not None:
        product = product + bias.double()
    result = product.float() * scale.float()
    if pertoken_scale is not None:
        result = result * pertoken_scale.float().reshape(-1, 1)
    if output_dtype is None:
        raise NotImplementedError("the torch_npu stand-in's npu_quant_matmul needs output_dtype (its int8 "
                                  "default requantizes with a packed scale, not modelled here)")
    return result.to(output_dtype)


def _nothing(*args, **kwargs):
    return None


npu = types.ModuleType("torch_npu.npu", "torch.npu on a CPU host: no device; set_device/synchronize do nothing.")
npu.config = types.SimpleNamespace(allow_internal_format=False)
npu.set_device = _nothing
npu.synchronize = _nothing
npu.empty_cache = _nothing
npu.manual_seed = _nothing
npu.manual_seed_all = _nothing
npu.is_available = lambda: False
npu.device_count = lambda: 0
npu.current_device = lambda: 0
npu.get_device_name = lambda *args: "cpu (torch_npu stand-in)"



class NPUGraph:
    """torch_npu.npu.NPUGraph on a CPU host: the captured calls already ran (see the module's note)."""

    def __init__(self):
        self._replays = 0

    def replay(self):
        self._replays += 1
        if self._replays > 1:
            raise NotImplementedError("the torch_npu stand-in ran this graph's calls once, when captured; a "
                                      "second replay() would run them again on a device and cannot here")

    def reset(self):
        self._replays = 0


class _GraphCapture:
    def __init__(self, graph, *args, **kwargs):
        self.graph = graph

    def __enter__(self):
        return self.graph

    def __exit__(self, *exc):
        return False


npu.NPUGraph = NPUGraph
npu.graph = _GraphCapture
sys.modules[__name__ + ".npu"] = npu
torch.npu = npu


def _device_topk(native):
    """`native` (torch.topk or Tensor.topk) as the device computes it (see the module's note)."""
    def call(input, k, dim=-1, largest=True, sorted=True, *, out=None):  # noqa: A002 - torch's names
        if out is not None:
            return native(input, k, dim, largest, sorted, out=out)
        values, indices = torch.sort(input, dim=dim, descending=largest, stable=True)
        return torch.return_types.topk((values.narrow(dim, 0, k), indices.narrow(dim, 0, k)))
    call.__name__ = getattr(native, "__name__", "topk")
    call.__doc__ = getattr(native, "__doc__", None)
    call.__wrapped__ = native
    call.as_on_device = True  # wrapped once, however often this module is imported
    return call


for _owner in (torch, torch.Tensor):
    if not hasattr(_owner.topk, "as_on_device"):
        _owner.topk = _device_topk(_owner.topk)


def _to_device(self, *args, **kwargs):
    return self if self.is_contiguous() else self.contiguous()


torch.Tensor.npu = _to_device


def _is_npu(device):
    return isinstance(device, str) and (device == "npu" or device.startswith("npu:"))


def _is_device_index(device):
    # With torch_npu loaded a bare device index names an NPU (torch.randn(..., device=device_id)).
    return isinstance(device, int) and not isinstance(device, bool)


def _cpu_device(native, index_first=False):
    """`native` with an "npu" device (keyword, or a string among its positional arguments) or a bare device
    index (keyword; for Tensor.to also the first argument after the tensor) replaced by "cpu"."""
    def call(*args, **kwargs):
        device = kwargs.get("device")
        on_npu = _is_npu(device) or _is_device_index(device)
        if on_npu:
            kwargs["device"] = "cpu"
        dtype = kwargs.get("dtype")
        if on_npu and native is _NATIVE_RAND and dtype is not None and not dtype.is_floating_point and not dtype.is_complex:
            return torch.zeros(*args, **kwargs)
        if any(_is_npu(a) for a in args):
            args = tuple("cpu" if _is_npu(a) else a for a in args)
        if index_first and len(args) > 1 and _is_device_index(args[1]):  # args[0] is the tensor
            args = (args[0], "cpu") + tuple(args[2:])
        return native(*args, **kwargs)
    call.__name__ = getattr(native, "__name__", "call")
    call.__doc__ = getattr(native, "__doc__", None)
    call.__wrapped__ = native
    call.npu_as_cpu = True  # wrapped once, however often this module is imported
    return call


_NATIVE_RAND = getattr(torch.rand, "__wrapped__", torch.rand)
_FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
              "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like",
              "rand_like", "randn_like", "randint_like", "empty_strided", "tril_indices", "triu_indices")
for _name in _FACTORIES:
    if hasattr(torch, _name) and not hasattr(getattr(torch, _name), "npu_as_cpu"):
        setattr(torch, _name, _cpu_device(getattr(torch, _name)))
for _name in ("to", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"):
    if not hasattr(getattr(torch.Tensor, _name), "npu_as_cpu"):
        setattr(torch.Tensor, _name, _cpu_device(getattr(torch.Tensor, _name), index_first=_name == "to"))
