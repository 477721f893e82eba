"""A host-side stand-in for ml_dtypes' bfloat16, so PyPTO's operation golden script makes its bf16 cases here.

PyPTO's golden script (framework/tests/st/operation/python/vector_operator_golden.py) holds bf16 data in numpy
arrays of ml_dtypes' `bfloat16` dtype, which Debian does not package. Without it the script cannot make a bf16
case at all. This module gives the script a stand-in instead, for its host code only; the kernels under test
never see it: they take bf16 torch tensors (bit for bit the values below) and compute in PTO Studio's
simulator as always.

The stand-in holds each bf16 value as a float32 that bf16 represents exactly (rounded to nearest even with
torch's float32 -> bfloat16 conversion, the rounding ml_dtypes and PyPTO's own bfloat16 type use), in big-endian
float32 arrays: numpy then tells them apart from every float32 array of the script (`x.dtype == bfloat16` is
true for them only), and `x.astype(bfloat16)`, `np.full(..., dtype=bfloat16)` and `bfloat16(v)` work as the
script writes them. What ml_dtypes does and the stand-in mirrors:
- random data drawn for a bf16 tensor (`np.random.uniform(...).astype(bfloat16)`, `np.full`) is rounded to
  bf16 as it is drawn, so inputs are the values ml_dtypes would give from the same random stream;
- a result converted back from torch's bf16 (`.to(torch.float32).numpy().astype(bfloat16)`) is bf16 already;
- a golden the script computes with numpy on bf16 arrays is computed in float32 and rounded to bf16 once, when
  the runner reads the file the script wrote (ml_dtypes rounds after every numpy operation: the same for the
  script's single-operation goldens, at most a rounding apart for a chain);
- the inputs of a case with bf16 tensors view bytes as bf16 data does: bf16 values viewed as uint8 give their
  bf16 bytes (Pack), uint8 data viewed as bf16 reads bf16 bit patterns (UnPack);
- a file the script writes for a bf16 tensor holds 4 bytes per element (the stand-in's float32); `read_file`
  also reads a file of the bf16 bits themselves, 2 bytes per element.
"""

import types

import numpy as np

CARRIER = np.dtype(">f4")  # bf16 values as float32, big-endian only to tell them apart from the script's float32


def round_to_bf16(values):
    """float32 array of `values` rounded to the nearest bf16 (ties to even; NaN and infinities kept)."""
    import torch  # noqa: PLC0415
    floats = np.ascontiguousarray(values, dtype=np.float32)
    return torch.from_numpy(floats).to(torch.bfloat16).to(torch.float32).numpy().reshape(floats.shape)


def bits_of(values):
    """The bf16 bit patterns (uint16) of float32 values that bf16 represents exactly: their upper halves."""
    floats = np.ascontiguousarray(values, dtype=np.float32)
    return (floats.view(np.uint32) >> 16).astype(np.uint16)


def values_of(bits):
    """float32 values of bf16 bit patterns (uint16)."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def to_carrier(values):
    return round_to_bf16(values).astype(CARRIER)


class bfloat16:  # noqa: N801 - the name the golden script uses for ml_dtypes' type
    """The stand-in scalar type: `np.dtype(bfloat16)` is the carrier; `bfloat16(v)` is v rounded to bf16."""
    dtype = CARRIER

    def __new__(cls, value=0.0):
        return np.float32(round_to_bf16(np.float32(value)))


def _is_bf16(dtype):
    if dtype is None:
        return False
    try:
        return np.dtype(dtype) == CARRIER
    except TypeError:
        return False


class _Draw(np.ndarray):
    """Random data the script draws: converting it to bf16 rounds, as ml_dtypes' astype does."""

    def astype(self, dtype, *args, **kwargs):
        plain = self.view(np.ndarray)
        return to_carrier(plain) if _is_bf16(dtype) else plain.astype(dtype, *args, **kwargs)


class _CaseInput(np.ndarray):
    """An input the script made for a case with bf16 tensors: its byte views are those of bf16 data. Viewing
    bf16 values as 1- or 2-byte integers (Pack: `.flatten().view(np.uint8)`) gives their bf16 bytes, not the
    stand-in's float32 bytes, and viewing bytes as bf16 (UnPack: uint8 data `.view(bfloat16)`) reads them as
    bf16 bit patterns. Arithmetic on it gives plain arrays."""

    def view(self, *args, **kwargs):
        target = args[0] if args else kwargs.get("dtype")
        plain = np.ndarray.view(self, np.ndarray)
        if target is None or isinstance(target, type) and issubclass(target, np.ndarray):
            return np.ndarray.view(self, *args, **kwargs)
        if plain.dtype == CARRIER and np.dtype(target).kind in "iu" and np.dtype(target).itemsize <= 2:
            return bits_of(plain.astype(np.float32)).view(target)
        if _is_bf16(target) and plain.dtype != CARRIER:
            return values_of(np.ascontiguousarray(plain).view("<u2")).astype(CARRIER)
        return plain.view(*args, **kwargs)

    def astype(self, dtype, *args, **kwargs):
        plain = np.ndarray.view(self, np.ndarray)
        return to_carrier(plain) if _is_bf16(dtype) else plain.astype(dtype, *args, **kwargs)

    def __array_wrap__(self, array, context=None):
        return np.ndarray.view(array, np.ndarray) if isinstance(array, np.ndarray) else array


def _drawn(function):
    def draw(*args, **kwargs):
        result = function(*args, **kwargs)
        return result.view(_Draw) if isinstance(result, np.ndarray) else result
    return draw


def _numpy_for_the_script():
    """numpy as the golden script sees it: its random draws and `full` round to bf16 where they make bf16."""
    random = types.ModuleType("numpy.random")
    random.__dict__.update(np.random.__dict__)
    for name in ("uniform", "normal", "randn", "rand", "random", "standard_normal"):
        setattr(random, name, _drawn(getattr(np.random, name)))
    module = types.ModuleType("numpy")
    module.__dict__.update(np.__dict__)
    module.random = random

    def full(shape, fill_value, dtype=None, *args, **kwargs):
        if _is_bf16(dtype):
            return np.full(shape, bfloat16(fill_value), dtype=CARRIER, *args, **kwargs)
        return np.full(shape, fill_value, dtype, *args, **kwargs)
    module.full = full
    return module


def install(golden_module, torch):
    """Gives PyPTO's golden script (its module object) the stand-in where it would use ml_dtypes' bfloat16."""
    native_dtype_by_name = golden_module.get_dtype_by_name

    def get_dtype_by_name(name, is_torch=False, check=True):
        if name == "bf16":
            return torch.bfloat16 if is_torch else bfloat16
        return native_dtype_by_name(name, is_torch, check)

    native_input = golden_module._generate_golden_input_tensor

    def generate_input(op, tensor, config, *args, **kwargs):
        made = native_input(op, tensor, config, *args, **kwargs)
        dtypes = {t.get("dtype") for t in config.get("input_tensors", []) + config.get("output_tensors", [])}
        return made.view(_CaseInput) if "bf16" in dtypes and isinstance(made, np.ndarray) else made

    def safe_tensor_conversion(array):
        # The script's own conversion, which names ml_dtypes' dtype by string: bf16 through float32.
        if isinstance(array, np.ndarray) and array.dtype == CARRIER:
            return torch.tensor(array.astype(np.float32), dtype=torch.bfloat16)
        return torch.tensor(array)

    golden_module.bfloat16 = bfloat16
    golden_module.get_dtype_by_name = get_dtype_by_name
    golden_module.safe_tensor_conversion = safe_tensor_conversion
    golden_module.np = _numpy_for_the_script()
    golden_module._generate_golden_input_tensor = generate_input


def read_file(path, shape):
    """uint16 bf16 bits of the bf16 tensor of `shape` the script wrote to `path` (either layout above)."""
    count = int(np.prod(shape, dtype=np.int64))
    data = np.fromfile(path, dtype=np.uint8)
    if data.size == 4 * count:
        return bits_of(round_to_bf16(data.view(CARRIER))).reshape(shape)
    if data.size == 2 * count:
        return data.view("<u2").astype(np.uint16).reshape(shape)
    raise ValueError(f"{path}: {data.size} bytes for a bf16 tensor of {count} elements (expected {4 * count} "
                     f"from the stand-in's float32 or {2 * count} raw)")
