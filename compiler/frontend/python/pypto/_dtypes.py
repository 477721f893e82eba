"""Data types: the ones PTO Studio computes in (the core's DataType) and PyPTO's other names, which exist
so that kernels and descriptions mentioning them load, and which fail clearly where they would be computed."""
import _pypto_core as _core

from ._errors import KernelError
from ._location import user_location

DataType = _core.DataType


class UnsupportedDataType:
    """A PyPTO dtype no machine PTO Studio models computes in (FP8/FP4/HF8/INT4 and double). It may name
    the dtype of a tensor description; using it in a kernel is an error saying so."""

    def __init__(self, name, itemsize, hint):
        self.name = name
        self.itemsize = itemsize
        self.hint = hint
        self._is_float = not name.startswith("DT_INT")

    def __repr__(self):
        return f"DataType.{self.name}"

    def is_float(self):
        return self._is_float

    def fail(self, what):
        file, line, _ = user_location()
        raise KernelError(f"{what}: {self.name} is not supported by the machines PTO Studio models "
                          f"(A2/A3-like); {self.hint}", file, line)


_FP8_HINT = "use DT_FP16 or DT_BF16"
UNSUPPORTED = {
    name: UnsupportedDataType(name, size, hint) for name, size, hint in (
        ("DT_INT4", 1, "use DT_INT8"),
        ("DT_FP8", 1, _FP8_HINT),
        ("DT_HF4", 1, _FP8_HINT),
        ("DT_HF8", 1, _FP8_HINT),
        ("DT_FP8E4M3", 1, _FP8_HINT),
        ("DT_FP8E5M2", 1, _FP8_HINT),
        ("DT_FP8E8M0", 1, _FP8_HINT),
        ("DT_FP4_E2M1X2", 1, _FP8_HINT),
        ("DT_FP4_E1M2X2", 1, _FP8_HINT),
        ("DT_FP4_E2M1", 1, _FP8_HINT),
        ("DT_FP4_E1M2", 1, _FP8_HINT),
        ("DT_DOUBLE", 8, "use DT_FP32"),
    )
}


def checked(dtype, what):
    """`dtype` as the core's DataType; a PyPTO-only dtype or anything else is a KernelError naming `what`."""
    if isinstance(dtype, DataType):
        return dtype
    if isinstance(dtype, UnsupportedDataType):
        dtype.fail(what)
    file, line, _ = user_location()
    raise KernelError(f"{what}: expected a pypto dtype such as pypto.DT_FP16, got {dtype!r}", file, line)


def bytes_of(dtype):
    """Bytes per element of `dtype` (pypto.bytes_of)."""
    if isinstance(dtype, (DataType, UnsupportedDataType)):
        return dtype.itemsize
    file, line, _ = user_location()
    raise KernelError(f"bytes_of: expected a pypto dtype, got {dtype!r}", file, line)
