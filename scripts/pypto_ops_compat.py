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
fp16 CPU ops computed in fp32 and rounded once). A case whose golden still cannot be made here (numpy without
ml_dtypes has no bfloat16; torch 1.13 holds no uint16 data) is listed as "no golden" with the reason. Without
ml_dtypes the goldens' tensor conversion skips its bfloat16 check (numpy cannot even name the dtype), since no
array can be one. bf16 cases need ml_dtypes for numpy to hold bf16; without it they are listed as skipped, as
are FP8/FP4/HF8 cases (numpy cannot hold those dtypes).
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

# Dtypes of PyPTO's case files -> (numpy dtype, pypto constant name). bf16 needs ml_dtypes (added when present).
DTYPES = {
    "fp32": (np.float32, "DT_FP32"), "fp16": (np.float16, "DT_FP16"), "int8": (np.int8, "DT_INT8"),
    "int16": (np.int16, "DT_INT16"), "int32": (np.int32, "DT_INT32"), "int64": (np.int64, "DT_INT64"),
    "uint8": (np.uint8, "DT_UINT8"), "uint16": (np.uint16, "DT_UINT16"), "uint32": (np.uint32, "DT_UINT32"),
    "uint64": (np.uint64, "DT_UINT64"), "bool": (np.bool_, "DT_BOOL"),
}
DTYPES["float32"] = DTYPES["fp32"]  # UnPack's cases name their fp32 outputs by numpy's name
try:
    import ml_dtypes  # noqa: F401
    DTYPES["bf16"] = (ml_dtypes.bfloat16, "DT_BF16")
except ImportError:
    pass

# --- how each operation is called on the views of one block ------------------------------------------------------
# A call is a format string over the block's input views (a0, a1, ...) and the case's params (p[...]), written as
# PyPTO's own tests call the Python API.


def scalar_of(params, key="scalar", type_key="scalar_type"):
    value = params[key]
    kind = params.get(type_key, "")
    if kind.startswith(("int", "uint")) or kind == "bool":
        return repr(int(value))
    return repr(float(value))


UNARY = {
    "Abs": "abs", "Acos": "acos", "ACosh": "acosh", "Asin": "asin", "ASinh": "asinh", "Atan": "atan",
    "Atanh": "atanh", "BitwiseNot": "bitwise_not", "Cbrt": "cbrt", "Ceil": "ceil", "Cos": "cos", "Cosh": "cosh",
    "Erf": "erf", "Erfc": "erfc", "Exp": "exp", "Exp2": "exp2", "Expm1": "expm1", "Floor": "floor",
    "IsFinite": "isfinite", "IsNan": "isnan", "Log1p": "log1p", "LogicalNot": "logical_not", "Neg": "neg",
    "Reciprocal": "reciprocal", "Relu": "relu", "Rsqrt": "rsqrt", "Sign": "sign", "Sin": "sin", "Sinh": "sinh",
    "Sqrt": "sqrt", "Tan": "tan", "Tanh": "tanh", "Trunc": "trunc", "Sigmoid": "sigmoid", "Signbit": "signbit",
}
BINARY = {
    "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Pow": "pow", "Atan2": "atan2",
    "BitwiseAnd": "bitwise_and", "BitwiseOr": "bitwise_or", "BitwiseXor": "bitwise_xor",
    "BitwiseLeftShift": "bitwise_left_shift", "BitwiseRightShift": "bitwise_right_shift", "CeilDiv": "ceil_div",
    "FloorDiv": "floor_div", "Fmod": "fmod", "Remainder": "remainder", "Gcd": "gcd", "Hypot": "hypot",
    "LogicalAnd": "logical_and", "PReLU": "prelu", "ExpandExpDif": "expand_exp_dif", "CopySign": "copysign",
}
TENSOR_SCALAR = {
    "Adds": "add", "Subs": "sub", "Muls": "mul", "Divs": "div", "Pows": "pow", "BitwiseAnds": "bitwise_and",
    "BitwiseOrs": "bitwise_or", "BitwiseXors": "bitwise_xor", "BitwiseLeftShifts": "bitwise_left_shift",
    "BitwiseRightShifts": "bitwise_right_shift", "CeilDivs": "ceil_div", "FloorDivs": "floor_div",
    "Fmods": "fmod", "RemainderS": "remainder", "Gcds": "gcd", "LReLU": "lrelu",
}
SCALAR_TENSOR = {"SBitwiseLeftShift": "bitwise_left_shift", "SBitwiseRightShift": "bitwise_right_shift",
                 "RemainderRS": "remainder"}
LOG_BASES = {"Log": "log", "Log2": "log2", "Log10": "log10"}


def call_of(op, params, inputs, view=(), full_shape=()):
    """The Python call for `op` on the block's views a0, a1, ..., or None when the runner has no form for it
    (`view`: the block's shape; `full_shape`: the output's)."""
    if op in UNARY:
        return f"pypto.{UNARY[op]}(a0)"
    if op in LOG_BASES:
        base = str(params.get("base", ""))
        name = {"2": "log2", "10": "log10", "e": "log"}.get(base, LOG_BASES[op])  # Log's cases name their base
        return f"pypto.{name}(a0)"
    if op in BINARY:
        return f"pypto.{BINARY[op]}(a0, a1)"
    if op in TENSOR_SCALAR and "scalar" in params:
        return f"pypto.{TENSOR_SCALAR[op]}(a0, {scalar_of(params)})"
    if op in SCALAR_TENSOR and "scalar" in params:
        return f"pypto.{SCALAR_TENSOR[op]}({scalar_of(params)}, a0)"
    if op == "LReLU":
        return "pypto.lrelu(a0)"  # a case without a slope takes lrelu's default (0.01), as PyPTO's golden does
    if op in ("Maximum", "Minimum"):
        name = op.lower()
        if inputs == 1:
            return f"pypto.{name}(a0, {scalar_of(params)})"
        return f"pypto.{name}(a0, a1)"
    if op == "Round":
        return f"pypto.round(a0, {int(params.get('decimals', 0))})"
    if op in ("TriL", "TriU"):
        # As PyPTO's test: the block's diagonal is moved by its row and column offsets (a SymInt).
        rank = len(view)
        shift = f" + i{rank - 2} * {view[rank - 2]} - i{rank - 1} * {view[rank - 1]}" if rank >= 2 else ""
        return f"pypto.{op.lower()}(a0, {int(params.get('diagonal', 0))}{shift})"
    if op in ("CumSum", "CumProd"):
        return f"pypto.{op.lower()}(a0, {int(params['axis'])})"
    if op == "Clip":
        # PyPTO's Clip cases: scalar bounds when a bound dtype is given, else tensor bounds (inputs 1 and 2);
        # test_type picks which bounds apply (its golden's element_mode / tensor_mode).
        test_type = int(params.get("test_type", -1))
        if params.get("min_dtype") or params.get("max_dtype"):
            def bound(key, types):
                value = params.get(key)
                # float() reads the "inf" / "nan" some cases give; repr of those is not Python, so spell it.
                return f"float({str(float(value))!r})" if value not in (None, "") and test_type in types else "None"
            return f"pypto.clip(a0, {bound('min_value', (-1, 0, 1, 2, 7))}, {bound('max_value', (-1, 0, 1, 2, 8))})"
        low = "a1" if test_type in (-1, 0, 1, 2, 5) and inputs > 1 else "None"
        high = "a2" if test_type in (-1, 0, 1, 2, 4) and inputs > 2 else "None"
        return f"pypto.clip(a0, {low}, {high})"
    if op in ("Cmps", "Compare"):
        other = scalar_of(params, "scalar", "scalar_dtype") if op == "Cmps" else "a1"
        return f"pypto.{params['compare_op']}(a0, {other})"
    if op == "Axpy":
        # PyPTO's Axpy(y, x, alpha) returns y + alpha x; pypto.axpy_ is its in-place form: on a copy of y.
        return f"pypto.axpy_(pypto.clone(a0), a1, {float(params.get('alpha', 1.0))!r})"
    if op == "Expand":
        # PyPTO's Expand test gives each block's valid part (the last block may reach past the output's end).
        return f"pypto.expand_clone(a0, {list(view)}, valid_shape=[{', '.join(valid_sizes(full_shape, view))}])"
    if op == "Cast" and int(params.get("mode", 0)) == 0:
        return f"pypto.cast(a0, pypto.{DTYPES[params['dst_dtype']][1]})" if "dst_dtype" in params else None
    if op == "Full":
        # PyPTO's Full test fills each view block of the output (input0 gives only the shape).
        sizes = ", ".join(str(v) for v in view)
        valid = ", ".join(valid_sizes(full_shape, view))
        dtype = DTYPES[params.get("scalar_type", "fp32")][1]
        return f"pypto.full([{sizes}], {scalar_of(params)}, pypto.{dtype}, valid_shape=[{valid}])"
    if op == "Where":
        # flag: which of x and y are the case's scalars (1: y, 2: x, 3: both), as PyPTO's golden reads it.
        flag = int(params.get("flag", 0))
        x = "a1" if flag in (0, 1) else repr(float(params["x_scalar"]))
        y = "a2" if flag in (0, 2) else repr(float(params["y_scalar"]))
        return f"pypto.where(a0, {x}, {y})"
    return None


# --- the kernel, written as PyPTO's tests build it -----------------------------------------------------------------

def kernel_header(case):
    """The lines that open a test kernel: the jit decorator and a parameter per input and output tensor."""
    names = [t["name"] for t in case["input_tensors"] + case["output_tensors"]]
    return ["import pypto", "", "", "@pypto.frontend.jit",
            f"def kernel({', '.join(f'{n}: pypto.Tensor()' for n in names)}):"]


def block_loops(lines, shape, view):
    """Appends the nested loops over `view` blocks of `shape` (PyPTO's tests' blocks, indices i0, i1, ...) and
    returns (indent inside them, each block's offsets, its valid sizes) as kernel text."""
    indent = "    "
    for d in range(len(shape)):
        lines.append(f"{indent}for i{d} in pypto.loop(0, {math.ceil(shape[d] / view[d])}, 1, name='L{d}', "
                     f"idx_name='i{d}'):")
        indent += "    "
    offsets = [f"i{d} * {view[d]}" for d in range(len(shape))]
    return indent, offsets, valid_sizes(shape, view)


def valid_sizes(shape, view):
    """Kernel text: the valid size of block (i0, i1, ...) of `view` blocks of `shape`, per dim (the last block
    of a dim may reach past the end)."""
    return [f"pypto.min({extent} - i{d} * {view[d]}, {view[d]})" for d, extent in enumerate(shape)]


def kernel_source(case, call):
    """A jit kernel over the case's view blocks: each input viewed with the block's valid shape (a dim of 1 that
    the output does not have broadcasts: its view stays at offset 0, size 1), the vec tile, `call`, an
    assemble into output0."""
    inputs = case["input_tensors"]
    out = case["output_tensors"][0]
    out_shape = out["shape"]
    rank = len(out_shape)
    view = list(case.get("view_shape") or out_shape)
    if len(view) != rank:
        raise ValueError(f"view shape {view} and output shape {out_shape} differ in rank")
    if case["operation"] in ("CumSum", "CumProd"):
        # PyPTO's scan tests never cut the scanned axis into blocks: its view spans the axis.
        axis = int(case["params"]["axis"]) % rank
        view[axis] = out_shape[axis]
    lines = kernel_header(case)
    indent, _, _ = block_loops(lines, out_shape, view)
    for k, tensor in enumerate(inputs):
        shape = tensor["shape"]
        lead = rank - len(shape)
        if case["operation"] == "PReLU" and k == 1 and shape == [1]:
            lines.append(f"{indent}a1 = {tensor['name']}  # one weight shared by every channel")
            continue
        if case["operation"] == "PReLU" and k == 1 and rank >= 2:
            # PReLU's weight holds one value per channel (dim 1): the block's channels of it.
            lines.append(f"{indent}a1 = pypto.view({tensor['name']}, [{view[1]}], [i1 * {view[1]}], "
                         f"valid_shape=[pypto.min({shape[0]} - i1 * {view[1]}, {view[1]})])")
            continue
        sizes, offsets, valid = [], [], []
        for d, extent in enumerate(shape):
            od = d + lead
            if extent == 1 and out_shape[od] != 1:
                sizes.append("1"), offsets.append("0"), valid.append("1")
                continue
            sizes.append(str(view[od]))
            offsets.append(f"i{od} * {view[od]}")
            valid.append(f"pypto.min({extent} - i{od} * {view[od]}, {view[od]})")
        lines.append(f"{indent}a{k} = pypto.view({tensor['name']}, [{', '.join(sizes)}], [{', '.join(offsets)}], "
                     f"valid_shape=[{', '.join(valid)}])")
    tile = case.get("tile_shape")
    if tile:
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in tile)})")
    lines.append(f"{indent}result = {call}")
    offsets = ", ".join(f"i{d} * {view[d]}" for d in range(rank))
    lines.append(f"{indent}pypto.assemble(result, [{offsets}], {out['name']})")
    return "\n".join(lines) + "\n"


def fillpad_kernel_source(case):
    """PyPTO's FillPad test: the whole input as one block whose valid_shape is the case's view shape, the vec
    tile, fillpad with the case's value (zero, -inf for "min", inf for "max", or its pad_value), an assemble of
    the padded block into output0."""
    shape = case["input_tensors"][0]["shape"]
    valid = list(case.get("view_shape") or shape)
    params = case.get("params", {})
    value = {"min": "float('-inf')", "max": "float('inf')"}.get(params.get("pad_value_type"),
                                                               repr(float(params.get("pad_value", 0.0))))
    zeros = ", ".join("0" for _ in shape)
    names = [t["name"] for t in case["input_tensors"] + case["output_tensors"]]
    lines = kernel_header(case) + [f"    a0 = pypto.view({names[0]}, {shape}, [{zeros}], valid_shape={valid})"]
    if case.get("tile_shape"):
        lines.append(f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    lines.append(f"    result = pypto.fillpad(a0, 'constant', {value})")
    lines.append(f"    pypto.assemble(result, [{zeros}], {names[-1]})")
    return "\n".join(lines) + "\n"


def input_blocked_kernel_source(case, call, results, last_dim_divisor=1):
    """PyPTO's tests whose view blocks are the first input's (Interleave, DeInterleave, GatherMask): a loop over
    them, each input viewed with the block's valid shape, the vec tile, `call` (on a0, a1, ...) giving `results`
    tensors, each assembled into its output at the block's offsets, the last divided by `last_dim_divisor`
    (an output row shorter than the input's)."""
    inputs, outputs = case["input_tensors"], case["output_tensors"]
    shape = inputs[0]["shape"]
    view = list(case.get("view_shape") or shape)
    rank = len(shape)
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, shape, view)
    for k, tensor in enumerate(inputs):
        lines.append(f"{indent}a{k} = pypto.view({tensor['name']}, {view}, [{', '.join(offsets)}], "
                     f"valid_shape=[{', '.join(valid)}])")
    if case.get("tile_shape"):
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    lines.append(f"{indent}{', '.join(f'r{k}' for k in range(results))} = {call}")
    if last_dim_divisor != 1:
        offsets[-1] = f"i{rank - 1} * {view[-1] // last_dim_divisor}"
    for k, tensor in enumerate(outputs[:results]):
        lines.append(f"{indent}pypto.assemble(r{k}, [{', '.join(offsets)}], {tensor['name']})")
    return "\n".join(lines) + "\n"


def interleave_kernel_source(case):
    """Interleave / DeInterleave: two results; a single-input split lands at half the block's offset."""
    inputs = ", ".join(f"a{k}" for k in range(len(case["input_tensors"])))
    single = case["operation"] == "DeInterleave" and len(case["input_tensors"]) == 1
    return input_blocked_kernel_source(case, f"pypto.{case['operation'].lower()}({inputs})", 2, 2 if single else 1)


def gathermask_kernel_source(case):
    """GatherMask: modes 1-2 keep one element in 2 of each row, 3-6 one in 4, 7 all."""
    mode = int(case["params"]["patternMode"])
    divisor = 2 if mode <= 2 else 4 if mode <= 6 else 1
    return input_blocked_kernel_source(case, f"pypto.gathermask(a0, {mode})", 1, divisor)


REDUCTIONS = {"Sum": "sum", "Amax": "amax", "Amin": "amin", "Prod": "prod"}


def reduction_kernel_source(case):
    """PyPTO's reduction tests (Sum, Amax, Amin, Prod over one dim; Var over one or more): a loop over view
    blocks that each span the reduced dims whole, each block viewed with its valid shape, the vec tile, the
    reduction, and its result assembled at the block's offsets (the reduced dims dropped without keepDim, whose
    vec tile then drops them too and rounds its last dim up to a 32-byte block, as PyPTO's test does)."""
    x, out = case["input_tensors"][0], case["output_tensors"][0]
    shape = x["shape"]
    rank = len(shape)
    params = case["params"]
    dims = params["dims" if "dims" in params else "dim"]
    dims = [int(d) for d in (dims if isinstance(dims, list) else str(dims).strip("[]").split(","))]
    dims = sorted({d % rank for d in dims}) or list(range(rank))  # Var's empty dim list: every dim
    keep = bool(params.get("keepDim", case["operation"] != "Var"))
    view = list(case.get("view_shape") or shape)[:rank]
    for dim in dims:
        view[dim] = shape[dim]
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, shape, view)
    lines.append(f"{indent}a0 = pypto.view({x['name']}, {view}, [{', '.join(offsets)}], "
                 f"valid_shape=[{', '.join(valid)}])")
    tile = list(case.get("tile_shape") or view)[:rank]
    lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in tile)})")
    if case["operation"] == "Var":
        correction = float(params.get("correction", 1.0))
        lines.append(f"{indent}result = pypto.var(a0, {dims}, correction={correction!r}, keepdim={keep})")
    else:
        lines.append(f"{indent}result = pypto.{REDUCTIONS[case['operation']]}(a0, {dims[0]}, keepdim={keep})")
    if not keep:
        offsets = [o for d, o in enumerate(offsets) if d not in dims]
        rest = [t for d, t in enumerate(tile) if d not in dims]
        if rest:
            align = 32 // DTYPES[out["dtype"]][0]().itemsize
            rest[-1] = -(-rest[-1] // align) * align
            lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in rest)})")
    if offsets:
        lines.append(f"{indent}pypto.assemble(result, [{', '.join(offsets)}], {out['name']})")
    else:
        lines.append(f"{indent}pypto.assemble(result, [0], {out['name']})  # every dim reduced: one element")
    return "\n".join(lines) + "\n"


def concat_kernel_source(case):
    """PyPTO's Concat test: a loop over the view blocks of every dim but the concatenated one; each input is
    viewed with its whole extent along that dim and the block's valid shape along the others, then concatenated
    and assembled at the block's offsets."""
    inputs, out = case["input_tensors"], case["output_tensors"][0]
    rank = len(out["shape"])
    axis = int(case["params"]["axis"]) % rank
    view = list(case.get("view_shape") or out["shape"])
    lines = kernel_header(case)
    indent = "    "
    for d in range(rank):
        if d == axis:
            continue
        lines.append(f"{indent}for i{d} in pypto.loop(0, {math.ceil(inputs[0]['shape'][d] / view[d])}, 1, "
                     f"name='L{d}', idx_name='i{d}'):")
        indent += "    "
    for k, tensor in enumerate(inputs):
        shape = tensor["shape"]
        sizes = [shape[d] if d == axis else min(view[d], shape[d]) for d in range(rank)]
        offsets = ["0" if d == axis else f"i{d} * {sizes[d]}" for d in range(rank)]
        valid = [str(shape[d]) if d == axis else f"pypto.min({shape[d]} - i{d} * {sizes[d]}, {sizes[d]})"
                 for d in range(rank)]
        lines.append(f"{indent}a{k} = pypto.view({tensor['name']}, {sizes}, [{', '.join(offsets)}], "
                     f"valid_shape=[{', '.join(valid)}])")
    if case.get("tile_shape"):
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    names = ", ".join(f"a{k}" for k in range(len(inputs)))
    lines.append(f"{indent}result = pypto.concat([{names}], {axis})")
    offsets = ["0" if d == axis else f"i{d} * {view[d]}" for d in range(rank)]
    lines.append(f"{indent}pypto.assemble(result, [{', '.join(offsets)}], {out['name']})")
    return "\n".join(lines) + "\n"


def one_input_kernel_source(case, view, call, placed):
    """A loop over the view blocks of input0, each viewed with the block's valid shape, the vec tile, `call`
    (on a0), and its result assembled into output0 at `placed(offsets)` (the block's offsets, as kernel text)."""
    x, out = case["input_tensors"][0], case["output_tensors"][0]
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, x["shape"], view)
    lines.append(f"{indent}a0 = pypto.view({x['name']}, {view}, [{', '.join(offsets)}], "
                 f"valid_shape=[{', '.join(valid)}])")
    if case.get("tile_shape"):
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    lines.append(f"{indent}result = {call}")
    lines.append(f"{indent}pypto.assemble(result, [{', '.join(placed(offsets))}], {out['name']})")
    return "\n".join(lines) + "\n"


def one_hot_kernel_source(case):
    """PyPTO's OneHot test: a loop over the view blocks of the index tensor, each block's one-hot rows (all
    `num_classes` of them) assembled at the block's offsets and column 0."""
    shape, out = case["input_tensors"][0]["shape"], case["output_tensors"][0]
    view = list(case.get("view_shape") or out["shape"])[:len(shape)]
    call = f"pypto.one_hot(a0, {int(case['params']['num_classes'])})"
    return one_input_kernel_source(case, view, call, lambda offsets: offsets + ["0"])


def gather_kernel_source(case):
    """PyPTO's Gather (rows picked by an index tensor: the output is the source's dims before `axis`, the
    index's dims, then the source's dims after it) and GatherElement (torch.gather: the output has the index's
    shape) tests: a loop over the output's view blocks; the source viewed whole along `axis` and as the block
    along its other dims, the index as the block along its own dims."""
    source, index = case["input_tensors"][0], case["input_tensors"][1]
    out = case["output_tensors"][0]
    rank = len(source["shape"])
    axis = int(case["params"]["axis"]) % rank
    out_shape = out["shape"]
    view = [min(v, e) for v, e in zip(case.get("view_shape") or out_shape, out_shape)]
    elements = case["operation"] == "GatherElement"
    index_rank = len(index["shape"])
    index_dims = list(range(rank)) if elements else list(range(axis, axis + index_rank))
    # The output dim each source dim but `axis` follows.
    source_dims = {d: (d if elements or d < axis else d + index_rank - 1) for d in range(rank) if d != axis}
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, out_shape, view)

    def part(tensor, dims_of):
        sizes, starts, valids = [], [], []
        for d, extent in enumerate(tensor["shape"]):
            o = dims_of(d)
            if o is None:
                sizes.append(str(extent)), starts.append("0"), valids.append(str(extent))
            else:
                sizes.append(str(view[o])), starts.append(offsets[o])
                valids.append(f"pypto.min({extent} - {offsets[o]}, {view[o]})")
        return f"pypto.view({tensor['name']}, [{', '.join(sizes)}], [{', '.join(starts)}], " \
               f"valid_shape=[{', '.join(valids)}])"

    lines.append(f"{indent}a0 = {part(source, lambda d: source_dims.get(d))}")
    lines.append(f"{indent}a1 = {part(index, lambda d: index_dims[d])}")
    if case.get("tile_shape"):
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    call = "gather" if elements else "index_select"
    lines.append(f"{indent}result = pypto.{call}(a0, {axis}, a1)")
    lines.append(f"{indent}pypto.assemble(result, [{', '.join(offsets)}], {out['name']})")
    return "\n".join(lines) + "\n"


def quantize_kernel_source(case):
    """PyPTO's Quantize and Dequantize tests: a loop over the data's view blocks; the scale (and zero points),
    which hold one value per position of the dims other than `axis`, viewed as the block along those dims; the
    operation; its result assembled at the block's offsets."""
    inputs, out = case["input_tensors"], case["output_tensors"][0]
    shape = inputs[0]["shape"]
    rank = len(shape)
    params = case["params"]
    axis = int(params.get("axis", -1)) % rank
    view = [min(v, e) for v, e in zip(case.get("view_shape") or shape, shape)]
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, shape, view)
    lines.append(f"{indent}a0 = pypto.view({inputs[0]['name']}, {view}, [{', '.join(offsets)}], "
                 f"valid_shape=[{', '.join(valid)}])")
    others = [d for d in range(rank) if d != axis]
    for k, tensor in enumerate(inputs[1:], 1):
        if not others and tensor["shape"] == [1]:  # a 1-D input: one scale for all of it
            lines.append(f"{indent}a{k} = {tensor['name']}")
            continue
        if len(tensor["shape"]) != len(others):
            raise ValueError(f"{tensor['name']} {tensor['shape']}: expected one value per position of the dims "
                             f"other than axis {axis} of {shape}")
        lines.append(f"{indent}a{k} = pypto.view({tensor['name']}, {[view[d] for d in others]}, "
                     f"[{', '.join(offsets[d] for d in others)}], valid_shape=[{', '.join(valid[d] for d in others)}])")
    if case.get("tile_shape"):
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    zero_points = ", zero_points=a2" if len(inputs) > 2 else ""
    name = case["operation"].lower()
    lines.append(f"{indent}result = pypto.{name}(a0, a1, pypto.{DTYPES[out['dtype']][1]}, {axis}{zero_points})")
    lines.append(f"{indent}pypto.assemble(result, [{', '.join(offsets)}], {out['name']})")
    return "\n".join(lines) + "\n"


def sort_kernel_source(case):
    """PyPTO's ArgSort and TopK tests: a loop over view blocks that each span the sorted dim whole, each block
    viewed with its valid shape, the vec tile, the sort, and its results (TopK: values and indices) assembled
    at the block's offsets (0 along the sorted dim)."""
    x, outs = case["input_tensors"][0], case["output_tensors"]
    shape = x["shape"]
    rank = len(shape)
    params = case["params"]
    first = lambda value: value[0] if isinstance(value, list) else value  # noqa: E731 - params come as 1-lists
    dim = int(first(params["dims"])) % rank
    view = [min(v, e) for v, e in zip(case.get("view_shape") or shape, shape)]
    view[dim] = shape[dim]
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, shape, view)
    lines.append(f"{indent}a0 = pypto.view({x['name']}, {view}, [{', '.join(offsets)}], "
                 f"valid_shape=[{', '.join(valid)}])")
    if case.get("tile_shape"):
        lines.append(f"{indent}pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    offsets[dim] = "0"
    if case["operation"] == "TopK":
        largest = bool(first(params.get("islargest", True)))
        lines.append(f"{indent}r0, r1 = pypto.topk(a0, {int(first(params['count']))}, {dim}, largest={largest})")
        for k, out in enumerate(outs[:2]):
            lines.append(f"{indent}pypto.assemble(r{k}, [{', '.join(offsets)}], {out['name']})")
    else:
        descending = bool(first(params.get("descending", False)))
        lines.append(f"{indent}r0 = pypto.argsort(a0, {dim}, descending={descending})")
        lines.append(f"{indent}pypto.assemble(r0, [{', '.join(offsets)}], {outs[0]['name']})")
    return "\n".join(lines) + "\n"


def whole_kernel_source(case, call):
    """PyPTO's tests whose operation needs its tensors whole (IndexAdd_, the scatters of a tensor, Pad, Range):
    the inputs as they are (a0, a1, ...), the vec tile, `call`, its result assembled into output0."""
    out = case["output_tensors"][0]
    lines = kernel_header(case)
    for k, tensor in enumerate(case["input_tensors"]):
        lines.append(f"    a{k} = {tensor['name']}")
    if case.get("tile_shape"):
        lines.append(f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in case['tile_shape'])})")
    lines.append(f"    result = {call}")
    lines.append(f"    pypto.assemble(result, {[0] * len(out['shape'])}, {out['name']})")
    return "\n".join(lines) + "\n"


PAD_VALUES = {"min": "float('-inf')", "max": "float('inf')"}


def whole_call_of(case):
    """The call of an operation that the runner writes on whole tensors (whole_kernel_source), or None."""
    op, params = case["operation"], case.get("params", {})
    reduce = params.get("reduce") or None
    reduce = f", reduce={reduce!r}" if reduce else ""
    if op in ("IndexAdd_", "IndexAddUB"):
        name = "index_add" if op == "IndexAdd_" else "index_add_ub"
        return f"pypto.{name}(a0, {int(params['axis'])}, a2, a1, alpha={float(params.get('alpha', 1.0))!r})"
    if op in ("ScatterTensor", "Scatter"):
        src = "a2" if op == "ScatterTensor" else repr(float(params["src"]))
        return f"pypto.scatter(a0, {int(params['axis'])}, a1, {src}{reduce})"
    if op == "Pad":
        x, out = case["input_tensors"][0]["shape"], case["output_tensors"][0]["shape"]
        pads = [0, out[-1] - x[-1]] + ([0, out[-2] - x[-2]] if len(x) > 1 else [])
        kind = params.get("pad_value_type", "zero")
        value = PAD_VALUES.get(kind, repr(float(params.get("pad_value", 0.0))) if kind == "custom" else "0.0")
        return f"pypto.pad(a0, {pads}, value={value})"
    if op == "Pack":
        return "pypto.pack(a0)"
    if op == "UnPack":
        return f"pypto.unpack(a0, pypto.{DTYPES[case['output_tensors'][0]['dtype']][1]})"
    if op == "ScatterUpdate":
        # The paged-cache form, as PyPTO's golden reads its inputs: src rows (input0) written into the cache
        # (input2) at the slots the [b, s] index (input1) names.
        return "pypto.scatter_update(a2, -2, a1, a0)"
    if op == "Range":
        dtype = DTYPES[case["output_tensors"][0]["dtype"]][1]
        return (f"pypto.arange({float(params['start'])!r}, {float(params['end'])!r}, {float(params['step'])!r}, "
                f"dtype=pypto.{dtype})")
    return None


def matmul_kernel_source(case):
    """PyPTO's Matmul test: a loop over the output's view blocks (a view dim of -1 is the whole dim); each block
    multiplies the rows of A and the columns of B it needs (transposed as the case says) under the case's cube
    tiles ([m], [k], [n] as [L0, L1] pairs) into the case's output dtype, and is assembled in place."""
    a, b = case["input_tensors"][0], case["input_tensors"][1]
    out = case["output_tensors"][0]
    params = case["params"]
    m, n = out["shape"]
    trans_a, trans_b = bool(params.get("transA")), bool(params.get("transB"))
    k = a["shape"][0] if trans_a else a["shape"][1]
    view = [e if v in (-1, None) or v > e else v for v, e in zip(case.get("view_shape") or [-1, -1], [m, n])]
    lines = kernel_header(case)
    indent, offsets, valid = block_loops(lines, [m, n], view)
    a_sizes, a_offsets, a_valid = [view[0], k], [offsets[0], "0"], [valid[0], str(k)]
    b_sizes, b_offsets, b_valid = [k, view[1]], ["0", offsets[1]], [str(k), valid[1]]
    if trans_a:
        a_sizes, a_offsets, a_valid = a_sizes[::-1], a_offsets[::-1], a_valid[::-1]
    if trans_b:
        b_sizes, b_offsets, b_valid = b_sizes[::-1], b_offsets[::-1], b_valid[::-1]
    lines.append(f"{indent}a0 = pypto.view({a['name']}, {a_sizes}, [{', '.join(a_offsets)}], "
                 f"valid_shape=[{', '.join(a_valid)}])")
    lines.append(f"{indent}a1 = pypto.view({b['name']}, {b_sizes}, [{', '.join(b_offsets)}], "
                 f"valid_shape=[{', '.join(b_valid)}])")
    extend = []
    for k, extra in enumerate(case["input_tensors"][2:], start=2):  # a bias or scales, [1, n]: the block's columns
        lines.append(f"{indent}a{k} = pypto.view({extra['name']}, [1, {view[1]}], [0, {offsets[1]}], "
                     f"valid_shape=[1, {valid[1]}])")
        key = "scale_tensor" if extra["dtype"] == "uint64" else "bias_tensor"
        extend.append(f"'{key}': a{k}")
    if params.get("quant_type") == 1 and params.get("scale_value") is not None:  # the fixpipe's per-tensor scale
        extend.append(f"'scale': {float(params['scale_value'])!r}")
    if params.get("quant_type") in (1, 2) and params.get("relu_type") == 1:
        extend.append("'relu_type': pypto.ReLuType.RELU")  # as its golden reads the case
    extend = f", extend_params={{{', '.join(extend)}}}" if extend else ""
    tiles = case.get("tile_shape")
    if tiles:
        split_k = ", enable_split_k=True" if params.get("enableKSplit") else ""
        lines.append(f"{indent}pypto.set_cube_tile_shapes({tiles[0]}, {tiles[1]}, {tiles[2]}{split_k})")
    dtype = DTYPES[params.get("outDtype", out["dtype"])][1]
    lines.append(f"{indent}result = pypto.matmul(a0, a1, pypto.{dtype}, a_trans={trans_a}, b_trans={trans_b}"
                 f"{extend})")
    lines.append(f"{indent}pypto.assemble(result, [{', '.join(offsets)}], {out['name']})")
    return "\n".join(lines) + "\n"


def permuted_kernel_source(case):
    """PyPTO's Transpose and Permute tests: a loop over the input's view blocks, each transposed (or permuted)
    and assembled where the permutation puts it: output dim d holds input dim perm[d]."""
    params, shape = case["params"], case["input_tensors"][0]["shape"]
    rank = len(shape)
    if case["operation"] == "Transpose":
        first, second = int(params["first_dim"]) % rank, int(params["second_dim"]) % rank
        perm = list(range(rank))
        perm[first], perm[second] = second, first
        call = f"pypto.transpose(a0, {first}, {second})"
    else:
        perm = [int(d) % rank for d in params["perm"]]
        call = f"pypto.permute(a0, {', '.join(str(d) for d in perm)})"
    view = list(case.get("view_shape") or shape)
    return one_input_kernel_source(case, view, call, lambda offsets: [offsets[perm[d]] for d in range(rank)])


def index_put_kernel_source(case):
    """PyPTO's IndexPut_ test: output0 starts as input0 (an assemble), then index_put_ writes values (input 1)
    at the rows the index tensors (inputs 2...) name, accumulating when the case says so. One vec tile covers a
    row of the input's trailing dims."""
    inputs, out = case["input_tensors"], case["output_tensors"][0]
    names = [t["name"] for t in inputs + [out]]
    shape = inputs[0]["shape"]
    indices = ", ".join(t["name"] for t in inputs[2:])
    accumulate = bool(case["params"].get("accumulate", False))
    # Up to 64 along each dim, the leading dims halved until a tile is at most 64 KiB (the assemble of a
    # [128, 64, 128] int32 input in [64, 64, 64] tiles needed 1 MiB of the unified buffer's 192 KiB).
    tile = [min(d, 64) for d in shape]
    item = np.dtype(DTYPES[inputs[0]["dtype"]][0]).itemsize
    while math.prod(tile) * item > 64 * 1024 and any(t > 1 for t in tile[:-1]):
        first = next(i for i, t in enumerate(tile[:-1]) if t > 1)
        tile[first] = (tile[first] + 1) // 2
    lines = kernel_header(case) + [
             f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in tile)})",
             f"    pypto.assemble({names[0]}, {[0] * len(shape)}, {out['name']})",
             f"    pypto.index_put_({out['name']}, ({indices},), {inputs[1]['name']}, {accumulate})"]
    return "\n".join(lines) + "\n"


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
    if "bf16" not in DTYPES:
        # Host shim, not golden math: its tensor conversion first asks numpy for a 'bfloat16' dtype, which
        # numpy has only with ml_dtypes. Without it no array here can be bf16 (those cases are skipped), so
        # the conversion is the one it makes for every other array.
        import torch  # noqa: PLC0415
        vector_operator_golden.safe_tensor_conversion = lambda array: torch.tensor(array)
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
    NZ (fractal) layout, as it writes a cube operation's NZ operand: read back into the matrix it holds."""
    dtype = DTYPES[tensor["dtype"]][0]
    data = np.fromfile(pathlib.Path(folder, tensor["name"] + ".bin"), dtype=dtype)
    return from_fractal_nz(data, tensor["shape"]) if fractal else data.reshape(tensor["shape"])


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


def pypto_compare(golden, actual, dtype_name):
    """(passes, summary) under test_common.h's resultCmp with PyPTO's eps: 0.005 for floats, 0 for the rest."""
    if golden.shape != actual.shape:
        return False, f"shape {actual.shape} against the golden's {golden.shape}"
    golden_flat, actual_flat = golden.reshape(-1), actual.reshape(-1)
    eps = 0.005 if dtype_name in ("fp32", "fp16", "bf16") else 0.0
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
    if op in ("Compare", "Cmps") and case.get("params", {}).get("mode") == "bit":
        # PyPTO's tests build these with its C++ API (Compare(..., OutType::BIT)); its Python API returns bool.
        return {"status": "no form", "note": "bit-packed (uint8) compare results exist only in PyPTO's C++ API"}
    if op == "Matmul" and any(t.get("format") == "NZ" for t in case["output_tensors"]):
        # PyPTO's test compares such a result in NZ (fractal) layout; the runner reads only NZ operands back.
        return {"status": "no form", "note": "an NZ (fractal) result: the runner reads back only NZ operands"}
    params_of = case.get("params", {})
    per_tensor_scale = params_of.get("quant_type") == 1 and params_of.get("scale_value") is not None
    per_channel_scale = params_of.get("quant_type") == 2 and params_of.get("scale_tensors")
    if op == "Matmul" and ((params_of.get("fixpipe_info") and not (per_tensor_scale or per_channel_scale))
                           or params_of.get("l0c2l1_info") or len(case["input_tensors"]) != 2):
        return {"status": "no form", "note": "the runner has no kernel form for a matmul with a chained L0C -> L1 "
                                             "operand yet"}
    if op == "Matmul" and (params_of.get("bias_info") or per_channel_scale):
        # The golden script writes the bias and the packed per-channel scales (uint64) as files of their own
        # (params.bias_tensors, params.scale_tensors): more kernel inputs, the bias first.
        extra = [dict(params_of["bias_tensors"])] if params_of.get("bias_info") else []
        extra += [dict(params_of["scale_tensors"])] if per_channel_scale else []
        case = dict(case, input_tensors=case["input_tensors"] + extra)
    if op == "Where" and case["input_tensors"][0]["dtype"] != "bool":
        return {"status": "no form", "note": "the runner has no kernel form for a bit-packed (uint8) condition"}
    if op == "FillPad":
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace["kernel"](*inputs, *outputs)
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
