"""PyPTO's operation system tests run against PTO Studio's pypto package (`scripts/pypto-compat.sh CHECKOUT --ops`).

PyPTO keeps one JSON file of cases per operation (framework/tests/st/operation/test_case/<Op>_st_test_cases.json:
input shapes, dtypes and data ranges, the view shape, the vec tile and the op's parameters) and generates each
case's inputs and golden with its own script (python/vector_operator_golden.py). Its C++ tests build each case as
a kernel: a loop over the blocks of the view shape, a view of each input with the valid shape of the block (the
last block along a dim is partial), the vec tile, the op, an assemble into the output. This runner writes that
kernel in PyPTO's Python API for every case, runs it through PTO Studio in functional mode (outputs from the
functional simulator; a fallback to the reference interpreter counts as a failure), and compares the outputs with
PyPTO's own golden under PyPTO's own rule (test_common.h, resultCmp): a float element is wrong when it is off by
more than 0.005 both absolutely and relatively, a case fails when more than 0.5 % of its elements are wrong (or
more than 1000 come out zero where the golden is not); integer and bool outputs must be exact.

Run as a worker per operation (`--worker`), so that a crash or a hang costs one operation, not the run:
    pypto_ops_compat.py --worker OPERATION_DIR OP [--case N] [--show-kernel]
prints one JSON line per case. Host code only, never the kernels or the goldens' maths: PyPTO's golden script
imports pandas for CSV loading it does not use here (when pandas is missing the worker gives it an empty
stand-in module), moves its torch tensors with .npu() (the stand-in torch_npu of --models makes that the tensor
itself), and on torch 1.13 gets what scripts/pypto_compat_shims/sitecustomize.py fills in (torch.uint16 names,
fp16 CPU ops computed in fp32 and rounded once). A case whose golden still cannot be made here is listed as "no
golden" with the reason. bf16 data: with ml_dtypes installed, numpy holds it; without it (Debian packages none), the
golden script gets a host-side stand-in for ml_dtypes' bfloat16 (pypto_ops_bf16.py: bf16 values held as float32
rounded to bf16 with torch), the host holds bf16 tensors as their bit patterns and the kernels take them as torch
bfloat16 tensors; the kernels' arithmetic is PTO Studio's either way. FP8/FP4/HF8 cases are skipped (numpy cannot
hold those dtypes).
"""
import argparse
import contextlib
import json
import math
import os
import pathlib
import shutil
import sys
import tempfile
import time
import traceback
import types
import warnings

import numpy as np

# The kernels each case is written as (and the dtypes they name) live beside this file. Loaded by path
# (tests/python), this module finds its sibling through its own folder.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import pypto_ops_bf16  # noqa: E402
from pypto_ops_kernels import (  # noqa: E402
    BF16_STANDIN, DTYPES, REDUCTIONS, call_of, kernel_source, fillpad_kernel_source, interleave_kernel_source,
    gathermask_kernel_source, reduction_kernel_source, concat_kernel_source, one_hot_kernel_source,
    gather_kernel_source, quantize_kernel_source, sort_kernel_source, whole_kernel_source, whole_call_of,
    matmul_kernel_source, chained_matmul_kernel_source, permuted_kernel_source, index_put_kernel_source,
    transdata_kernel_source,
    bit_compare_kernel_source, bit_where_kernel_source)

# --- golden data from PyPTO's own script ------------------------------------------------------------------------------

def load_golden_module(operation_dir):
    if "pandas" not in sys.modules:
        try:
            import pandas  # noqa: F401
        except ImportError:
            stand_in = types.ModuleType("pandas")
            stand_in.__getattr__ = lambda name: type(name, (), {})
            sys.modules["pandas"] = stand_in
    # The goldens move their torch tensors with .npu(): the stand-in torch_npu of --models makes that the tensor
    # itself (host code only; the kernels under test take numpy arrays).
    sys.path.append(str(pathlib.Path(__file__).resolve().parent / "pypto_compat_shims" / "models"))
    import torch_npu  # noqa: F401
    sys.path.insert(0, str(pathlib.Path(operation_dir, "python")))
    import vector_operator_golden  # noqa: F401  (registers every operation's golden function)
    if BF16_STANDIN:
        # Host shim, not golden math: ml_dtypes' bfloat16, which the script holds bf16 data in, is missing here.
        import torch  # noqa: PLC0415
        pypto_ops_bf16.install(vector_operator_golden, torch)
    vector_operator_golden.load_test_cases_from_json = case_file_reader(
        vector_operator_golden.load_test_cases_from_json)
    from golden_register import GoldenRegister
    return GoldenRegister


# The case file the golden script reads instead of the one it names: while a case of Log2 or Log10 is made, the
# Log golden reads that operation's file (see golden_function).
_CASE_FILE_OF = {}


def case_file_reader(native):
    """The golden script's case-file reader, as host plumbing: a file that starts with a UTF-8 byte-order mark
    (Signbit's), which Python's json refuses where PyPTO's C++ tests read it, is handed over without the mark;
    and the file named for one operation is swapped for another's while _CASE_FILE_OF says so."""
    def read(json_file):
        path = pathlib.Path(json_file)
        for named, instead in _CASE_FILE_OF.items():
            if path.name == f"{named}_st_test_cases.json":
                path = path.with_name(f"{instead}_st_test_cases.json")
        data = path.read_bytes()
        if not data.startswith(b"\xef\xbb\xbf"):
            return native(str(path))
        with tempfile.TemporaryDirectory(prefix="pypto-cases-") as folder:
            copy = pathlib.Path(folder, path.name)
            copy.write_bytes(data[3:])
            return native(str(copy))
    return read


# Operations whose cases PyPTO's golden script makes with another operation's golden function, which handles
# them by a parameter of theirs and is registered under its own name only: Log2's and Log10's cases carry
# params.base "2" and "10", the bases the Log golden computes (np.log2, np.log10).
GOLDEN_OF = {"Log2": "Log", "Log10": "Log"}


def golden_function(register, op):
    owner = GOLDEN_OF.get(op, op)
    for name, info in register._REG_MAP.items():  # noqa: SLF001 - PyPTO's registry has no public listing
        if name.startswith(f"Test{owner}/"):
            if owner == op:
                return info.func

            def borrowed(case_name, output, case_index=None, native=info.func):
                _CASE_FILE_OF[owner] = op
                try:
                    return native(case_name, output, case_index)
                finally:
                    _CASE_FILE_OF.pop(owner, None)
            return borrowed
    return None


def read_tensor(folder, tensor, fractal=False):
    """A tensor PyPTO's golden script wrote, as the case's (logical) shape. `fractal`: the script wrote it in
    NZ (fractal) layout, as it writes a cube operation's NZ operand: read back into the matrix it holds. bf16
    without ml_dtypes: its bit patterns (uint16), from the stand-in's file."""
    dtype = DTYPES[tensor["dtype"]][0]
    path = pathlib.Path(folder, tensor["name"] + ".bin")
    if tensor["dtype"] == "bf16" and BF16_STANDIN:
        count = fractal_nz_size(tensor["shape"], 2) if fractal else math.prod(tensor["shape"])
        data = pypto_ops_bf16.read_file(path, count).reshape(-1)
    else:
        data = np.fromfile(path, dtype=dtype)
    return from_fractal_nz(data, tensor["shape"]) if fractal else data.reshape(tensor["shape"])


def fractal_nz_size(shape, itemsize):
    """Elements of a [..., m, n] matrix in NZ layout: padded to whole [16, 32 bytes] blocks (from_fractal_nz)."""
    *batch, m, n = shape
    n0 = 32 // itemsize
    return math.prod(batch) * -(-m // 16) * 16 * -(-n // n0) * n0


def from_fractal_nz(data, shape):
    """The [..., m, n] matrix of data laid out in NZ fractals, the layout PyPTO's golden script writes: the
    matrix zero-padded to whole [m0, n0] blocks (m0 = 16 rows; n0 = 32 bytes of columns: 32 int8, 16 fp16 /
    bf16 / int32, 8 fp32), stored column-block major as [..., n / n0, m / m0, m0, n0]."""
    *batch, m, n = shape
    m0, n0 = 16, 32 // data.dtype.itemsize
    m1, n1 = -(-m // m0), -(-n // n0)
    blocks = data.reshape(list(batch) + [n1, m1, m0, n0])
    rank = len(batch)
    order = list(range(rank)) + [rank + 1, rank + 2, rank, rank + 3]
    return np.ascontiguousarray(blocks.transpose(order).reshape(list(batch) + [m1 * m0, n1 * n0])[..., :m, :n])


# --- PyPTO's comparison rule ------------------------------------------------------------------------------------------

# Elements compared at a time: resultCmp's arithmetic is done in float64, four arrays of it per chunk, so a
# whole large case (550 M bools in LogicalAnd's case 14) compared at once needed 18 GB.
COMPARE_CHUNK = 1 << 24


# PyPTO's tolerance per float dtype: test_operation.h passes 0.005 as a value of the output's own type (float,
# float16, bfloat16, each rounded to nearest even), which resultCmp then reads as a float.
FLOAT_EPS = {"fp32": 0.005, "fp16": float(np.float16(0.005)), "bf16": 0.0050048828125}


def pypto_compare(golden, actual, dtype_name):
    """(passes, summary) under test_common.h's resultCmp with PyPTO's eps: 0.005 in the output's float type, 0 for
    the rest. bf16 without ml_dtypes: golden and actual are bit patterns (uint16), compared as their values."""
    if golden.shape != actual.shape:
        return False, f"shape {actual.shape} against the golden's {golden.shape}"
    if dtype_name == "bf16" and BF16_STANDIN:
        golden, actual = pypto_ops_bf16.values_of(golden), pypto_ops_bf16.values_of(actual)
    golden_flat, actual_flat = golden.reshape(-1), actual.reshape(-1)
    eps = FLOAT_EPS.get(dtype_name, 0.0)
    errors, zeros, max_diff = 0, 0, 0.0
    for begin in range(0, golden_flat.size, COMPARE_CHUNK):
        expected = golden_flat[begin:begin + COMPARE_CHUNK].astype(np.float64)
        got = actual_flat[begin:begin + COMPARE_CHUNK].astype(np.float64)
        with np.errstate(all="ignore"):
            diff = np.abs(expected - got)
            ratio = np.abs(diff / expected)
            # resultCmp's own NaN handling: a NaN difference compares false, so NaN against NaN is not counted; a
            # NaN against a number is not counted either (both comparisons are false), as in PyPTO.
            errors += int(np.sum((diff > eps) & (ratio > eps)))
        zeros += int(np.sum((np.abs(got) <= 1e-6) & (np.abs(expected) > 1e-6)))
        max_diff = max(max_diff, float(np.nanmax(diff, initial=0)))
    allowed = int(golden_flat.size * eps)
    passes = errors <= allowed and zeros <= 1000
    return passes, f"{errors} of {golden_flat.size} elements off (allowed {allowed}), max diff {max_diff:.3g}"


SHIFTS = {"BitwiseLeftShift": 1, "BitwiseRightShift": 1, "BitwiseLeftShifts": "scalar", "BitwiseRightShifts": "scalar",
          "SBitwiseLeftShift": 0, "SBitwiseRightShift": 0}


def old_torch_shift_golden(op, case, inputs):
    """Why this host cannot make the golden of a shift case, or None. torch before 2.0 shifts by the count modulo
    the width (x86's shift); torch 2.x, which PyPTO's tests run, shifts everything out for a count outside
    [0, width), as PTO Studio does: a case with such counts has no golden here, unless this torch shifts as 2.x
    does (torch 2.x, or torch 1.13 with scripts/pypto_compat_shims/sitecustomize.py, which gives it 2.x's rule)."""
    import torch  # noqa: PLC0415
    if op not in SHIFTS:
        return None
    probe = torch.tensor([1], dtype=torch.int32)
    if int(torch.bitwise_left_shift(probe, torch.tensor([33], dtype=torch.int32))[0]) == 0:
        return None
    where = SHIFTS[op]
    width = 8 * np.dtype(DTYPES[case["input_tensors"][0]["dtype"]][0]).itemsize
    if where == "scalar":
        counts = np.array([case["params"]["scalar"]])
    elif where == 0:
        counts = inputs[0]  # a scalar shifted by the tensor
    else:
        counts = inputs[1]
    counts = counts.astype(np.int64)
    if np.all((counts >= 0) & (counts < width)):
        return None
    return (f"this host's torch {torch.__version__} shifts by the count modulo the width; PyPTO's tests run torch "
            f"2.x, which shifts everything out for counts outside [0, {width}) as PTO Studio does")


def exact_integer_sum(op, case, inputs, golden):
    """PyPTO's Sum golden for an int32 input: (golden, note) with the exact sum in its place when the script's
    differs from it, or (None, why) when no golden can be had. The script asks get_dtype_by_name for a torch dtype
    where it expects a name, gets float32 back, and sums through it: sums beyond 2^24 round, and sums outside
    int32 reach the file through numpy's float-to-int cast, which is undefined there (this host gives INT32_MIN,
    an aarch64 host saturates). Sums that fit are compared with the exact sum; a case whose sums leave int32 has
    no golden here (what the chip gives on overflow is not published)."""
    if op != "Sum" or case["input_tensors"][0]["dtype"] != "int32":
        return golden, None
    params = case.get("params", {})
    dims = params.get("dims", [-1])
    axis = int(dims[0] if isinstance(dims, list) else dims)
    exact = inputs[0].astype(np.int64).sum(axis=axis, keepdims=bool(params.get("keepDim", True)))
    exact = exact.reshape(golden[0].shape)
    if np.any((exact < np.iinfo(np.int32).min) | (exact > np.iinfo(np.int32).max)):
        return None, ("sums leave int32, and PyPTO's script converts them from float32 (undefined outside int32: "
                      "INT32_MIN here, saturated on aarch64)")
    if np.array_equal(exact, golden[0].astype(np.int64)):
        return golden, None
    differing = int(np.count_nonzero(exact != golden[0].astype(np.int64)))
    return [exact.astype(np.int32)] + list(golden[1:]), (
        f"compared with the exact sum: PyPTO's script sums int32 through float32, which rounds {differing} of its "
        f"sums")


# Integer divisions whose divisor PyPTO's API pages say must not be 0 (the chip's result is undefined: INT32_MAX or
# INT32_MIN); where a case divides by 0 anyway, its golden holds what numpy's float-to-int cast happens to give on
# this host. Those elements are left out of the comparison, and the row says how many. Value: where the divisor is
# (an input's index, or "scalar").
DIVISORS = {"CeilDiv": 1, "CeilDivs": "scalar", "FloorDiv": 1, "FloorDivs": "scalar", "Remainder": 1,
            "RemainderS": "scalar", "RemainderRS": 0, "Fmod": 1, "Fmods": "scalar"}


def out_of_range_quotients(op, case, inputs, out_shape):
    """A mask of the elements of an integer ceil/floor division whose quotient lies outside the output dtype
    (-2^31 / -1 in int32), or None. The golden divides in float and casts back, so those elements hold what
    this host's out-of-range float-to-int conversion gives (x86: INT_MIN); PTO Studio saturates, as its cast
    does. They are left out of the comparison, and the row says how many."""
    dtype = case["output_tensors"][0]["dtype"]
    if op not in ("CeilDiv", "CeilDivs", "FloorDiv", "FloorDivs") or dtype not in DTYPES or \
            dtype in ("fp32", "fp16", "bf16"):
        return None
    where = DIVISORS[op]
    divisor = np.array(case["params"]["scalar"]) if where == "scalar" else inputs[where]
    with np.errstate(all="ignore"):
        quotient = inputs[0].astype(np.float64) / np.asarray(divisor, np.float64)
        quotient = np.ceil(quotient) if op.startswith("Ceil") else np.floor(quotient)
    limits = np.iinfo(DTYPES[dtype][0])
    mask = np.broadcast_to(np.isfinite(quotient) & ((quotient > limits.max) | (quotient < limits.min)), out_shape)
    return mask if mask.any() else None


def undefined_divisions(op, case, inputs, out_shape):
    """A mask of the output elements whose integer division is by 0, or None."""
    if op not in DIVISORS or case["output_tensors"][0]["dtype"] in ("fp32", "fp16", "bf16"):
        return None
    where = DIVISORS[op]
    divisor = np.array(case["params"]["scalar"]) if where == "scalar" else inputs[where]
    mask = np.broadcast_to(divisor == 0, out_shape)
    return mask if mask.any() else None


# Host copies a case holds at once: each tensor as the golden script writes it and as read back, the outputs the
# kernel fills, and the simulator's global memory image of every argument.
HOST_COPIES_PER_TENSOR = 4


def host_bytes_needed(case):
    tensors = case["input_tensors"] + case["output_tensors"]
    return HOST_COPIES_PER_TENSOR * sum(math.prod(t["shape"]) * np.dtype(DTYPES[t["dtype"]][0]).itemsize
                                        for t in tensors)


def too_large_for_host(case):
    """Why the case's tensors cannot be held by this run's share of host memory, or None when they can.

    The driver passes each worker its share (physical memory / jobs) in PTO_OPS_MEMORY_SHARE; without it the
    check uses all physical memory. A case past it would be killed by the kernel's OOM killer halfway,
    taking the operation's remaining cases with it."""
    share = os.environ.get("PTO_OPS_MEMORY_SHARE")
    limit = int(share) if share else os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    needed = host_bytes_needed(case)
    if needed <= limit:
        return None
    shapes = ", ".join(f"{t['dtype']}{t['shape']}" for t in case["input_tensors"] + case["output_tensors"])
    return (f"its tensors ({shapes}) need about {needed / 2**30:.0f} GiB of host memory "
            f"({HOST_COPIES_PER_TENSOR} copies each), more than this run's {limit / 2**30:.1f} GiB")


def run_case(case, position, register_func, op, show_kernel, scratch):
    import pypto  # noqa: PLC0415 - after sys.path is set up
    dtypes = [t["dtype"] for t in case["input_tensors"] + case["output_tensors"]]
    missing = sorted({d for d in dtypes if d not in DTYPES})
    if missing:
        return {"status": "skipped", "note": f"dtype {', '.join(missing)} not held by numpy here"}
    if (reason := too_large_for_host(case)) is not None:
        return {"status": "too large", "note": reason}
    if op == "Matmul" and any(t.get("format") == "NZ" for t in case["output_tensors"]):
        # PyPTO's test compares such a result in NZ (fractal) layout; the runner reads only NZ operands back.
        return {"status": "no form", "note": "an NZ (fractal) result: the runner reads back only NZ operands"}
    params_of = case.get("params", {})
    per_tensor_scale = params_of.get("quant_type") == 1 and params_of.get("scale_value") is not None
    per_channel_scale = params_of.get("quant_type") == 2 and params_of.get("scale_tensors")
    if op == "Matmul" and ((params_of.get("fixpipe_info") and not (per_tensor_scale or per_channel_scale))
                           or len(case["input_tensors"]) != 2
                           or (params_of.get("l0c2l1_info") and params_of.get("bias_info"))):
        return {"status": "no form", "note": "the runner has no kernel form for this matmul's fixpipe or inputs"}
    chained = op == "Matmul" and bool(params_of.get("l0c2l1_info"))
    if chained:
        # The chained operand is a file of its own (params.l0c2l1_tensor), after the per-channel scales.
        extra = [dict(params_of["scale_tensors"])] if per_channel_scale else []
        case = dict(case, input_tensors=case["input_tensors"] + extra + [dict(params_of["l0c2l1_tensor"])])
    elif op == "Matmul" and (params_of.get("bias_info") or per_channel_scale):
        # The golden script writes the bias and the packed per-channel scales (uint64) as files of their own
        # (params.bias_tensors, params.scale_tensors): more kernel inputs, the bias first.
        extra = [dict(params_of["bias_tensors"])] if params_of.get("bias_info") else []
        extra += [dict(params_of["scale_tensors"])] if per_channel_scale else []
        case = dict(case, input_tensors=case["input_tensors"] + extra)
    if op in ("Compare", "Cmps") and case.get("params", {}).get("mode") == "bit":
        # PyPTO's tests build these with its C++ API (Compare(..., OutType::BIT)); its Python API returns bool,
        # so the kernel packs the bools itself.
        source = bit_compare_kernel_source(case)
    elif op == "Where" and case["input_tensors"][0]["dtype"] != "bool":
        source = bit_where_kernel_source(case)  # a bit-packed (uint8) condition, C++ only in PyPTO
    elif op == "FillPad":
        source = fillpad_kernel_source(case)
    elif op in ("Interleave", "DeInterleave"):
        source = interleave_kernel_source(case)
    elif op == "GatherMask":
        source = gathermask_kernel_source(case)
    elif op == "IndexPut_":
        source = index_put_kernel_source(case)
    elif op in REDUCTIONS or op == "Var":
        source = reduction_kernel_source(case)
    elif op == "Concat":
        source = concat_kernel_source(case)
    elif op in ("Gather", "GatherElement"):
        source = gather_kernel_source(case)
    elif (whole_call := whole_call_of(case)) is not None:
        source = whole_kernel_source(case, whole_call)
    elif chained:
        source = chained_matmul_kernel_source(case)
    elif op == "Matmul":
        source = matmul_kernel_source(case)
    elif op in ("ArgSort", "TopK"):
        source = sort_kernel_source(case)
    elif op in ("Quantize", "Dequantize"):
        source = quantize_kernel_source(case)
    elif op == "OneHot":
        source = one_hot_kernel_source(case)
    elif op in ("Transpose", "Permute"):
        source = permuted_kernel_source(case)
    elif op == "TransData":
        source = transdata_kernel_source(case)
    else:
        params = dict(case.get("params", {}))
        if op == "Cast":
            params.setdefault("dst_dtype", case["output_tensors"][0]["dtype"])
        call = call_of(op, params, len(case["input_tensors"]),
                       list(case.get("view_shape") or case["output_tensors"][0]["shape"]),
                       case["output_tensors"][0]["shape"])
        if call is None:
            return {"status": "no form", "note": f"the runner has no kernel form for {op} yet"}
        source = kernel_source(case, call)
    if show_kernel:
        print(source, file=sys.stderr)
    folder = pathlib.Path(scratch, f"{op}_{case['case_index']}")
    folder.mkdir(parents=True, exist_ok=True)
    np.random.seed(case["case_index"])
    try:
        register_func(f"Test{op}", folder, position)
        # An NZ operand of a cube operation is written in fractal layout; the kernel takes the matrix it holds,
        # in the ND layout PTO Studio reads every tensor in (the values are the same: host plumbing).
        inputs = [read_tensor(folder, t, fractal=op == "Matmul" and t.get("format") == "NZ")
                  for t in case["input_tensors"]]
        golden = [read_tensor(folder, t) for t in case["output_tensors"]]
    except Exception as error:  # noqa: BLE001 - PyPTO's script failing on this host is not a PTO Studio result
        lines = [line for line in str(error).strip().splitlines() if line.strip()]
        return {"status": "no golden",
                "note": f"PyPTO's golden script fails on this host: {type(error).__name__}: "
                        f"{lines[0] if lines else ''}"}
    if (reason := old_torch_shift_golden(op, case, inputs)) is not None:
        return {"status": "no golden", "note": reason}
    golden, sum_note = exact_integer_sum(op, case, inputs, golden)
    if golden is None:
        return {"status": "no golden", "note": sum_note}
    outputs = [np.zeros(t["shape"], DTYPES[t["dtype"]][0]) for t in case["output_tensors"]]
    namespace = {}
    path = folder / "kernel.py"
    path.write_text(source)
    exec(compile(source, str(path), "exec"), namespace)  # noqa: S102 - the kernel this runner just wrote
    tensors = case["input_tensors"] + case["output_tensors"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace["kernel"](*[kernel_argument(t, a) for t, a in zip(tensors, inputs + outputs)])
    report = pypto.last_run()
    if report.get("outputs_from") != "functional":
        reason = report.get("simulation_error") or "; ".join(str(w.message) for w in caught)
        return {"status": "fails", "note": f"not simulated: {reason}"}
    notes = [sum_note] if sum_note else []
    passes = True
    out_shape = tuple(case["output_tensors"][0]["shape"])
    # Elements whose result this host's golden cannot know are left out of the comparison, and counted.
    left_out = [(undefined_divisions(op, case, inputs, out_shape),
                 "elements divide by 0 (undefined on the chip, PyPTO's API page) and are not compared"),
                (out_of_range_quotients(op, case, inputs, out_shape),
                 f"quotients lie outside {case['output_tensors'][0]['dtype']} (the golden holds this host's "
                 f"out-of-range float-to-int conversion) and are not compared")]
    for mask, what in left_out:
        if mask is None:
            continue
        notes.append(f"{int(mask.sum())} {what}")
        golden = [np.where(mask, 0, g) for g in golden]
        outputs = [np.where(mask, 0, o) for o in outputs]
    for tensor, want, got in zip(case["output_tensors"], golden, outputs):
        ok, summary = pypto_compare(want, got, tensor["dtype"])
        passes = passes and ok
        if not ok:
            notes.append(f"{tensor['name']}: {summary}")
    return {"status": "passes" if passes else "fails", "note": "; ".join(notes)}


def kernel_argument(tensor, array):
    """What the kernel is called with for a tensor of the case: the array, or (bf16 held as bit patterns) a torch
    bfloat16 tensor over the same memory, so that the kernel's outputs land in the array."""
    if tensor["dtype"] != "bf16" or not BF16_STANDIN:
        return array
    import torch  # noqa: PLC0415
    return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)


def worker(operation_dir, op, only_case, show_kernel):
    register = load_golden_module(operation_dir)
    func = golden_function(register, op)
    cases = json.loads(pathlib.Path(operation_dir, "test_case", f"{op}_st_test_cases.json").read_text(encoding="utf-8-sig"))["test_cases"]
    # PyPTO's golden script sorts the cases by case_index and takes the case at a position of that list, so a
    # case's golden is asked for by its position: where the indices have a gap (Amin's skip 18), they differ.
    cases.sort(key=lambda case: case["case_index"])
    # The driver names a scratch folder it removes itself (PTO_OPS_SCRATCH); run alone, a temporary one.
    given = os.environ.get("PTO_OPS_SCRATCH")
    with (contextlib.nullcontext(given) if given else tempfile.TemporaryDirectory(prefix=f"pypto-ops-{op}-")) as scratch:
        for position, case in enumerate(cases):
            if only_case is not None and case["case_index"] != only_case:
                continue
            started = time.monotonic()
            if func is None:
                result = {"status": "no golden", "note": f"PyPTO's golden script registers no function for {op}"}
            else:
                try:
                    result = run_case(case, position, func, op, show_kernel, scratch)
                except Exception as error:  # noqa: BLE001 - every failure is a row of the table
                    lines = [line for line in str(error).strip().splitlines() if line.strip()]
                    text = lines[0] if lines else type(error).__name__
                    if show_kernel:
                        traceback.print_exc()
                    result = {"status": "fails", "note": f"{type(error).__name__}: {text}"}
            # A case's inputs and golden can be gigabytes (Adds' cases 3.4 GB together): gone once judged.
            shutil.rmtree(pathlib.Path(scratch, f"{op}_{case['case_index']}"), ignore_errors=True)
            result.update(op=op, case=case["case_index"], name=case.get("case_name", ""),
                          seconds=round(time.monotonic() - started, 2))
            print(json.dumps(result), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", nargs=2, metavar=("OPERATION_DIR", "OP"), required=True)
    parser.add_argument("--case", type=int, default=None, help="only the case with this case_index")
    parser.add_argument("--show-kernel", action="store_true", help="print each generated kernel to stderr")
    args = parser.parse_args()
    worker(args.worker[0], args.worker[1], args.case, args.show_kernel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
