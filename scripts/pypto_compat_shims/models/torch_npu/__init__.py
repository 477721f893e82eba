"""A stand-in for Ascend's torch_npu, loaded only by scripts/pypto-compat.sh --models (its folder is put on the
path of the scripts it runs, never on the package's). PyPTO's model test scripts import torch_npu, move their
tensors with `.npu()` and wait with `torch_npu.npu.synchronize()`; on a CPU host with PTO Studio's simulator the
kernels take CPU tensors, so here:

- `torch.Tensor.npu(...)` returns the tensor itself (the kernel writes its outputs into the caller's memory, so
  the script's output tensors must stay the same objects). A tensor that is not contiguous (a slice of a
  larger one) becomes a contiguous copy, as copying it to a device lays it out afresh;
- `npu_format_cast(t, fmt)` returns `t`: PTO Studio's package treats every tensor as ND, so the data stays ND;
- `npu.set_device`, `npu.synchronize`, `npu.empty_cache` do nothing; `npu.is_available()` is False, so scripts
  that compute their golden on the device when one is there compute it on the CPU;
- `torch.npu` is this module's `npu`, as importing the real torch_npu makes it.

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


def npu_format_cast(tensor, acl_format, *args, **kwargs):
    """Identity: the tensor keeps its ND layout (PTO Studio's package reads every tensor as ND)."""
    return tensor


def npu_format_cast_(tensor, acl_format, *args, **kwargs):
    return tensor


def get_npu_format(tensor):
    return Format.ND


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

sys.modules[__name__ + ".npu"] = npu
torch.npu = npu


def _to_device(self, *args, **kwargs):
    return self if self.is_contiguous() else self.contiguous()


torch.Tensor.npu = _to_device
