"""numpy's side of the .npy cross-check run by tests/core/NpyTest.cpp.

  npy_reference.py write DIR   numpy writes .npy files into DIR and a
                               manifest.json saying what each holds (raw
                               little-endian bytes as hex, element values as
                               strings) or which error the reader must give.
  npy_reference.py check DIR   loads with numpy every file listed in
                               DIR/manifest.json (written by the C++ writer)
                               and checks dtype, shape, bytes, format version
                               and the 64-byte data alignment.
Exit status 0 means everything matched; anything else is a failure, with
the reason on stderr.
"""

import json
import os
import sys

import numpy as np


def little_endian_bytes(array):
    if array.dtype.kind == "V":
        return array.tobytes()
    return array.astype(array.dtype.newbyteorder("<")).tobytes()


def value_strings(array):
    if array.dtype.kind == "V":
        return None
    if array.dtype.kind in "iub":
        return [str(int(x)) for x in array.reshape(-1)]
    return [repr(float(x)) for x in array.reshape(-1)]


def bfloat16_from_float32(values):
    """Round float32 to bfloat16 bits, nearest-even, as uint16 (finite inputs)."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def write_cases(directory):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(1234)
    cases = []

    def add(name, array, pto_dtype, version=None, values=None):
        path = os.path.join(directory, name + ".npy")
        if version is None:
            np.save(path, array)
        else:
            with open(path, "wb") as f:
                np.lib.format.write_array(f, array, version=version)
        cases.append({
            "file": name + ".npy",
            "dtype": pto_dtype,
            "shape": list(array.shape),
            "hex": little_endian_bytes(np.ascontiguousarray(array)).hex(),
            "values": values if values is not None else value_strings(array),
        })

    def add_error(name, array, message):
        path = os.path.join(directory, name + ".npy")
        np.save(path, array)
        cases.append({"file": name + ".npy", "error": message})

    add("f32_2d", rng.standard_normal((3, 5)).astype(np.float32), "float32")
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 6e-8, 1.0 / 3.0], dtype=np.float16)
    add("f16_3d_special", special.reshape(2, 2, 2), "float16")
    bf16_source = np.array([1.0, -2.5, 1.0 / 3.0, 3.0e38, -1.0e-30, 0.0], dtype=np.float32)
    bf16_bits = bfloat16_from_float32(bf16_source)
    bf16_values = [repr(float(x)) for x in (bf16_bits.astype(np.uint32) << 16).view(np.float32)]
    add("bf16_as_void", bf16_bits.reshape(2, 3).view("V2"), "bfloat16", values=bf16_values)
    add("i8_1d", np.arange(-128, 128, dtype=np.int8), "int8")
    add("u8_scalar", np.array(200, dtype=np.uint8), "uint8")
    add("f32_empty", np.zeros((0, 3), dtype=np.float32), "float32")
    add("i16_2d", np.array([[-32768, 32767], [0, -1]], dtype=np.int16), "int16")
    add("i32_4d", (np.arange(2 * 3 * 4 * 5, dtype=np.int32) - 1000).reshape(2, 3, 4, 5), "int32")
    add("i64_1d", np.array([2**62 + 1, -(2**63), 12345678901234567], dtype=np.int64), "int64")
    add("u16_1d", np.array([0, 1, 65535], dtype=np.uint16), "uint16")
    add("u32_1d", np.array([0, 4294967295, 123456789], dtype=np.uint32), "uint32")
    add("u64_1d", np.array([2**64 - 1, 2**63 + 5, 0], dtype=np.uint64), "uint64")
    add("bool_1d", np.array([True, False, True, True], dtype=np.bool_), "bool")
    add("f32_big_endian", np.arange(6, dtype=">f4").reshape(2, 3) / 7, "float32")
    add("i32_big_endian", np.array([1, -2, 65536, -(2**31)], dtype=">i4"), "int32")
    add("u16_big_endian", np.array([[1, 258], [65535, 4660]], dtype=">u2"), "uint16")
    add("f32_strided_source", rng.standard_normal((4, 6)).astype(np.float32)[:, ::2], "float32")
    add("f16_version2", np.linspace(-1, 1, 12, dtype=np.float16).reshape(3, 4), "float16", version=(2, 0))
    add("i32_version3", np.arange(10, dtype=np.int32), "int32", version=(3, 0))

    add_error("f32_fortran", np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)),
              "Fortran-order .npy is not supported; save with np.ascontiguousarray")
    add_error("f64_rejected", np.arange(4, dtype=np.float64),
              "float64 data (descr '<f8' at byte offset 20) is not supported: PTO tensors have no float64; "
              "save the array with .astype(np.float32)")
    add_error("c64_rejected", np.zeros(2, dtype=np.complex64), "unsupported dtype descr '<c8' at byte offset 20")

    with open(os.path.join(directory, "manifest.json"), "w") as f:
        json.dump(cases, f, indent=1)
    return 0


def check_cases(directory):
    with open(os.path.join(directory, "manifest.json")) as f:
        cases = json.load(f)
    failures = []
    for case in cases:
        path = os.path.join(directory, case["file"])
        try:
            with open(path, "rb") as f:
                version = np.lib.format.read_magic(f)
                if version == (1, 0):
                    np.lib.format.read_array_header_1_0(f)
                else:
                    np.lib.format.read_array_header_2_0(f)
                data_offset = f.tell()
            array = np.load(path)
        except Exception as error:  # any failure to load is a mismatch
            failures.append(f"{case['file']}: numpy cannot load it: {error}")
            continue
        expected_dtype = np.dtype("V2") if case["dtype"] == "bfloat16" else np.dtype(case["dtype"])
        if array.dtype != expected_dtype:
            failures.append(f"{case['file']}: dtype {array.dtype}, expected {expected_dtype}")
        if list(array.shape) != case["shape"]:
            failures.append(f"{case['file']}: shape {array.shape}, expected {tuple(case['shape'])}")
        if little_endian_bytes(array).hex() != case["hex"]:
            failures.append(f"{case['file']}: data differs")
        if list(version) != case["version"]:
            failures.append(f"{case['file']}: format version {version}, expected {case['version']}")
        if data_offset % 64 != 0:
            failures.append(f"{case['file']}: data starts at byte {data_offset}, not a multiple of 64")
        if case.get("values") is not None and value_strings(array) != case["values"]:
            failures.append(f"{case['file']}: values {value_strings(array)}, expected {case['values']}")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"checked {len(cases)} files, {len(failures)} mismatches")
    return 1 if failures else 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    return write_cases(sys.argv[2]) if sys.argv[1] == "write" else check_cases(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
