"""How scripts/pypto_ops_compat.py writes each PyPTO operation case as a kernel in PyPTO's Python API.

A case (one entry of PyPTO's test_case/<Op>_st_test_cases.json) becomes the kernel PyPTO's own C++ tests build:
a loop over the blocks of the view shape, a view of each input with the valid shape of its block, the vec tile, the
operation called as PyPTO's tests call it, and an assemble into the output. Operations whose tests build their
kernel another way (reductions, concat, gather, sort, matmul, ...) have a writer of their own below.
"""

import math

import numpy as np

# Dtypes of PyPTO's case files -> (numpy dtype on the host, pypto constant name). bf16 is ml_dtypes' bfloat16 when
# ml_dtypes is installed; without it (Debian has none) the host holds bf16 data as its bit patterns in uint16 arrays,
# handed to the kernels as torch bfloat16 tensors, and PyPTO's golden script gets a stand-in (pypto_ops_bf16.py).
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
    BF16_STANDIN = False
except ImportError:
    DTYPES["bf16"] = (np.uint16, "DT_BF16")
    BF16_STANDIN = True

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
            align = 32 // np.dtype(DTYPES[out["dtype"]][0]).itemsize
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


def chained_matmul_kernel_source(case):
    """PyPTO's Matmul test with an L0C -> L1 operand (params.l0c2l1_info): the product of A and B (transposed as
    the case says, with its fixpipe scale and ReLU) in the chained tensor's dtype, then multiplied with the
    chained tensor (the last input, the file its golden script writes; transposed when is_trans) on the left or
    right as the case says, into the output dtype. PyPTO keeps the first product in the cube's buffers (its
    L0C -> L1 copy); PTO Studio's machines pass it through GM, with the same values."""
    inputs, out, params = case["input_tensors"], case["output_tensors"][0], case["params"]
    a, b, chained = inputs[0], inputs[1], inputs[-1]
    chained_params = params["l0c2l1_params"]
    lines = kernel_header(case)
    extend = []
    for k, extra in enumerate(inputs[2:-1], start=2):  # a per-channel scale [1, n]: whole
        extend.append(f"'scale_tensor': {extra['name']}")
    if params.get("quant_type") == 1 and params.get("scale_value") is not None:
        extend.append(f"'scale': {float(params['scale_value'])!r}")
    if params.get("quant_type") in (1, 2) and params.get("relu_type") == 1:
        extend.append("'relu_type': pypto.ReLuType.RELU")
    extend = f", extend_params={{{', '.join(extend)}}}" if extend else ""
    tiles = case.get("tile_shape")
    if tiles:
        lines.append(f"    pypto.set_cube_tile_shapes({tiles[0]}, {tiles[1]}, {tiles[2]})")
    trans = bool(chained_params.get("is_l0c2l1_trans"))
    lines.append(f"    first = pypto.matmul({a['name']}, {b['name']}, pypto.{DTYPES[chained['dtype']][1]}, "
                 f"a_trans={bool(params.get('transA'))}, b_trans={bool(params.get('transB'))}{extend})")
    dtype = DTYPES[params.get("outDtype", out["dtype"])][1]
    if chained_params.get("is_as_left_matrix"):
        lines.append(f"    result = pypto.matmul({chained['name']}, first, pypto.{dtype}, a_trans={trans})")
    else:
        lines.append(f"    result = pypto.matmul(first, {chained['name']}, pypto.{dtype}, b_trans={trans})")
    lines.append(f"    pypto.assemble(result, [0, 0], {out['name']})")
    return "\n".join(lines) + "\n"


def transdata_kernel_source(case):
    """PyPTO's TransData test (C++ only: no TransData in its Python API), written with the Python API's views,
    reshapes, transposes and assembles, as its golden script defines each type: 2 NCHW -> NC1HWC0, 3 NCDHW ->
    NDC1HWC0, 0 back to NCHW / NCDHW (keeping each group's first C / group channels), 4 NCHW -> FRACTAL_Z
    [C1*H*W, N1, N0, C0] and 5 NCDHW -> FRACTAL_Z_3D [D*C1*H*W, N1, N0, C0], per group. C0 is 32 bytes of the
    dtype, N0 16. The output is first filled with zeros (the padding of C to C1 * C0 and of N to N1 * N0); then
    each block of up to C0 channels (and N0 kernels) is viewed, its channels moved last and assembled where its
    layout puts it."""
    source, out = case["input_tensors"][0], case["output_tensors"][0]
    params = case["params"]
    kind, group = int(params["type"]), int(params["group"])
    dtype = DTYPES[source["dtype"]][1]
    c0 = 32 // np.dtype(DTYPES[source["dtype"]][0]).itemsize
    x, y = source["name"], out["name"]
    lines = kernel_header(case)

    def tile(shape):
        # Whole trailing dims, ones before them past ~16K elements (the blocks are small).
        sizes, room = [1] * len(shape), 16384
        for d in reversed(range(len(shape))):
            sizes[d] = max(1, min(shape[d], room))
            room //= sizes[d]
        lines.append(f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in sizes)})")

    def move(view_shape, view_offsets, moved_shape, perm, placed_shape, placed_offsets):
        tile(view_shape)
        lines.append(f"    block = pypto.view({x}, {view_shape}, {view_offsets})")
        tile(moved_shape)
        lines.append(f"    block = pypto.reshape(block, {moved_shape})")
        permuted = [moved_shape[d] for d in perm]
        tile(permuted)
        lines.append(f"    block = pypto.permute(block, {', '.join(str(d) for d in perm)})")
        tile(placed_shape)
        lines.append(f"    block = pypto.reshape(block, {placed_shape})")
        lines.append(f"    pypto.assemble(block, {placed_offsets}, {y})")

    tile(out["shape"])
    lines.append(f"    pypto.assemble(pypto.full({out['shape']}, 0, pypto.{dtype}), {[0] * len(out['shape'])}, {y})")
    shape = source["shape"]
    if kind in (2, 3):
        n, c, *space = shape  # [d,] h, w
        per_c = c // group
        per_c1 = -(-per_c // c0)
        hw = math.prod(space[-2:])
        for i in range(group):
            for j in range(per_c1):
                first, count = i * per_c + j * c0, min(c0, per_c - j * c0)
                if kind == 2:
                    h, w = space
                    move([n, count, h, w], [0, first, 0, 0], [n, count, hw], [0, 2, 1], [n, 1, h, w, count],
                         [0, i * per_c1 + j, 0, 0, 0])
                else:
                    d, h, w = space
                    move([n, count, d, h, w], [0, first, 0, 0, 0], [n, count, d, hw], [0, 2, 3, 1],
                         [n, d, 1, h, w, count], [0, 0, i * per_c1 + j, 0, 0, 0])
    elif kind == 0:
        c = out["shape"][1]
        per_out_c = c // group
        if len(shape) == 5:
            n, c1, h, w, block_c0 = shape
            per_c1 = c1 // group
            for i in range(group):
                for j in range(per_c1):
                    count = min(block_c0, per_out_c - j * block_c0)
                    if count > 0:
                        move([n, 1, h, w, count], [0, i * per_c1 + j, 0, 0, 0], [n, h * w, count], [0, 2, 1],
                             [n, count, h, w], [0, i * per_out_c + j * block_c0, 0, 0])
        else:
            n, d, c1, h, w, block_c0 = shape
            per_c1 = c1 // group
            for i in range(group):
                for j in range(per_c1):
                    count = min(block_c0, per_out_c - j * block_c0)
                    if count > 0:
                        move([n, d, 1, h, w, count], [0, 0, i * per_c1 + j, 0, 0, 0], [n, d, h * w, count],
                             [0, 3, 1, 2], [n, count, d, h, w], [0, i * per_out_c + j * block_c0, 0, 0, 0])
    elif kind in (4, 5):
        n, c, *space = shape
        d = space[0] if kind == 5 else 1
        h, w = space[-2:]
        c1, n0 = -(-c // c0), 16
        per_n = n // group
        n1 = -(-per_n // n0)
        for i in range(group):
            for dd in range(d):
                for j in range(c1):
                    for k in range(n1):
                        first_n, count_n = i * per_n + k * n0, min(n0, per_n - k * n0)
                        first_c, count_c = j * c0, min(c0, c - j * c0)
                        row = i * d * c1 * h * w + (dd * c1 + j) * h * w
                        view = [count_n, count_c, 1, h, w] if kind == 5 else [count_n, count_c, h, w]
                        offsets = [first_n, first_c, dd, 0, 0] if kind == 5 else [first_n, first_c, 0, 0]
                        move(view, offsets, [count_n, count_c, h * w], [2, 0, 1], [h * w, 1, count_n, count_c],
                             [row, k, 0, 0])
    else:
        return None
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


def bit_compare_kernel_source(case):
    """Compare and Cmps with results packed 8 to a byte (PyPTO's C++ OutType::BIT; bit k of byte j is element
    8 j + k, as its golden's np.packbits(..., bitorder='little')), written in the Python API, which has only the
    bool form: the comparison on the whole inputs (broadcast as PyPTO's test views them), its bools as int32,
    grouped 8 along the last dim, weighted 1, 2, 4, ..., 128 and summed, cast to uint8."""
    params = case["params"]
    out = case["output_tensors"][0]
    shape = list(out["shape"][:-1]) + [out["shape"][-1] * 8]
    other = "a1" if case["operation"] == "Compare" else scalar_of(params, "scalar", "scalar_dtype")
    # A tile of about 4096 int32 bools (16 KiB), filled from the last dim: the case's tile is for the bool
    # form's blocks, and the grouped form keeps 8 of them per row.
    tile = [1] * len(shape)
    room = 4096
    for d in reversed(range(len(shape))):
        tile[d] = max(1, min(shape[d], room))
        room //= tile[d]
    grouped = shape[:-1] + [shape[-1] // 8, 8]
    grouped_tile = tile[:-1] + [max(1, tile[-1] // 8), 8]
    lines = kernel_header(case)
    for k, tensor in enumerate(case["input_tensors"]):
        lines.append(f"    a{k} = {tensor['name']}")
    lines += [f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in tile[-len(shape):])})",
              f"    bits = pypto.cast(pypto.{params['compare_op']}(a0, {other}), pypto.DT_INT32)",
              f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in grouped_tile)})",
              f"    grouped = pypto.reshape(bits, {grouped})",
              "    weights = pypto.bitwise_left_shift(1, pypto.arange(8))",
              "    packed = pypto.sum(pypto.mul(grouped, weights), -1)",
              f"    pypto.set_vec_tile_shapes({', '.join(str(t) for t in grouped_tile[:-1])})",
              "    result = pypto.cast(packed, pypto.DT_UINT8)",
              f"    pypto.assemble(result, {[0] * len(out['shape'])}, {out['name']})"]
    return "\n".join(lines) + "\n"


def bit_where_kernel_source(case):
    """Where with its condition packed 8 to a byte (uint8; bit k of byte j is element 8 j + k, as PyPTO's golden
    unpacks it), which PyPTO's Python `where` does not take (bool only): the kernel unpacks it with integer ops
    (each byte shifted right by 0..7, the lowest bit kept, compared with 0), then calls where on whole tensors."""
    params = case["params"]
    cond = case["input_tensors"][0]["shape"]
    out = case["output_tensors"][0]
    flag = int(params.get("flag", 0))
    x = "a1" if flag in (0, 1) else repr(float(params["x_scalar"]))
    y = "a2" if flag in (0, 2) else repr(float(params["y_scalar"]))
    lines = kernel_header(case)
    for k, tensor in enumerate(case["input_tensors"]):
        lines.append(f"    a{k} = {tensor['name']}")
    rows = min(out["shape"][0], 16) if len(out["shape"]) > 1 else 1
    lines += [f"    pypto.set_vec_tile_shapes({rows}, {cond[-1]}, 8)",
              f"    grouped = pypto.reshape(pypto.cast(a0, pypto.DT_INT32), {list(cond) + [1]})",
              "    bits = pypto.bitwise_and(pypto.bitwise_right_shift(grouped, pypto.arange(8)), 1)",
              f"    pypto.set_vec_tile_shapes({rows}, {out['shape'][-1]})",
              f"    mask = pypto.ne(pypto.reshape(bits, {out['shape']}), 0)",
              f"    result = pypto.where(mask, {x}, {y})",
              f"    pypto.assemble(result, {[0] * len(out['shape'])}, {out['name']})"]
    return "\n".join(lines) + "\n"
