"""numpy's side of the reference interpreter cross-check run by tests/reference.

  numpy_reference.py DIR   reads DIR/manifest.json, a list of cases
                           {name, op, attrs, inputs: [.npy], outputs: [.npy], out_dtypes: [dtype]},
                           computes each op with numpy and saves its outputs in DIR.

The semantics are the ones ReferenceInterpreter.h states, written independently with numpy: float inputs
are widened to float32, computed in float32 and rounded to the output dtype once per op; integer inputs
compute in int64 and wrap (numpy's astype); scalars of tensor-scalar ops are rounded to the tensor's dtype
first. Exit status 0 means every case was computed; anything else is a failure, with the reason on stderr.
"""

import json
import math
import os
import sys

import numpy as np


def widen(a):
    """float16/float32 -> float32, integers -> int64, bool stays."""
    if a.dtype.kind == "f":
        return a.astype(np.float32)
    if a.dtype.kind in "iu":
        return a.astype(np.int64)
    return a


def scalar_for(x, value):
    """A tensor-scalar op's scalar: rounded to the tensor's float dtype, or an exact integer."""
    if x.dtype.kind == "f":
        return np.float32(x.dtype.type(value))
    if float(value).is_integer():
        return np.int64(int(value))
    return np.float64(value)


def floor_div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        if a.dtype.kind == "f" or np.asarray(b).dtype.kind == "f":
            return a / b
        return np.floor_divide(a, b)


def float_math(fn, x):
    """Float maths: in float32 for float tensors, in float64 for integer ones."""
    if x.dtype.kind == "f":
        return fn(x.astype(np.float32))
    return fn(x.astype(np.float64))


def elementwise_erf(x, fn):
    return np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


UNARY = {
    "neg": lambda x: -x,
    "abs": np.abs,
    "reciprocal": lambda x: float_math(lambda v: v.dtype.type(1) / v, x),
    "sqrt": lambda x: float_math(np.sqrt, x),
    "rsqrt": lambda x: float_math(lambda v: v.dtype.type(1) / np.sqrt(v), x),
    "exp": lambda x: float_math(np.exp, x),
    "exp2": lambda x: float_math(np.exp2, x),
    "expm1": lambda x: float_math(np.expm1, x),
    "log": lambda x: float_math(np.log, x),
    "log1p": lambda x: float_math(np.log1p, x),
    "sin": lambda x: float_math(np.sin, x),
    "cos": lambda x: float_math(np.cos, x),
    "tanh": lambda x: float_math(np.tanh, x),
    "erf": lambda x: float_math(lambda v: elementwise_erf(v, math.erf), x),
    "erfc": lambda x: float_math(lambda v: elementwise_erf(v, math.erfc), x),
    "round": np.rint,
    "ceil": np.ceil,
    "floor": np.floor,
    "trunc": np.trunc,
    "sign": np.sign,
    "relu": lambda x: np.where(np.isnan(x), x, np.maximum(x, 0)) if x.dtype.kind == "f" else np.maximum(x, 0),
    "sigmoid": lambda x: float_math(lambda v: v.dtype.type(1) / (v.dtype.type(1) + np.exp(-v)), x),
    "isfinite": np.isfinite,
    "logical_not": np.logical_not,
}

BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": floor_div,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "pow": np.power,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "eq": np.equal,
    "ne": np.not_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "lt": np.less,
    "le": np.less_equal,
}

SCALAR = {
    "adds": lambda x, s: x + s,
    "subs": lambda x, s: x - s,
    "rsubs": lambda x, s: s - x,
    "muls": lambda x, s: x * s,
    "divs": lambda x, s: floor_div(x, s),
    "rdivs": lambda x, s: floor_div(np.asarray(s), x),
    "maxs": lambda x, s: np.maximum(x, s),
    "mins": lambda x, s: np.minimum(x, s),
    "pows": lambda x, s: np.power(x, s),
    "rpows": lambda x, s: np.power(s, x),
    "eqs": lambda x, s: x == s,
    "nes": lambda x, s: x != s,
    "gts": lambda x, s: x > s,
    "ges": lambda x, s: x >= s,
    "lts": lambda x, s: x < s,
    "les": lambda x, s: x <= s,
}


def reduce_op(op, x, attrs):
    dims = tuple(attrs.get("dims", range(x.ndim)))
    keep = bool(attrs.get("keepdim", False))
    if op in ("argmax", "argmin"):
        fn = np.argmax if op == "argmax" else np.argmin
        result = fn(x, axis=dims[0])
        return np.expand_dims(result, dims[0]) if keep else result
    fn = {"sum": np.sum, "prod": np.prod, "amax": np.amax, "amin": np.amin}[op]
    return fn(x, axis=dims, keepdims=keep)


def cast_op(x, attrs, out_dtype):
    mode = attrs.get("mode", "rint")
    if x.dtype.kind == "f" and np.dtype(out_dtype).kind in "iu":
        v = x.astype(np.float64)
        v = {"rint": np.rint, "round": lambda a: np.sign(a) * np.floor(np.abs(a) + 0.5), "floor": np.floor,
             "ceil": np.ceil, "trunc": np.trunc}[mode](v)
        info = np.iinfo(out_dtype)
        v = np.where(np.isnan(v), 0, np.clip(v, info.min, info.max))
        return v
    return x


def gather(x, index, dim):
    # torch.gather: index may be smaller than x outside dim; numpy needs the shapes equal there.
    region = tuple(slice(0, n) if d != dim else slice(None) for d, n in enumerate(index.shape))
    return np.take_along_axis(x[region], index.astype(np.int64), axis=dim)


def scatter(x, index, src, dim, reduce=None):
    """torch.scatter; with reduce the updates combine in C order of the index, each rounded to x's dtype
    (float16 results through float32, as the interpreter computes)."""
    out = x.copy()
    for position in np.ndindex(index.shape):
        target = list(position)
        target[dim] = index[position]
        target = tuple(target)
        if reduce in (None, "none"):
            out[target] = src[position]
            continue
        if out.dtype.kind == "f":
            a, b = np.float32(out[target]), np.float32(src[position])
            out[target] = (a + b) if reduce == "add" else (a * b)
        else:
            a, b = int(out[target]), int(src[position])
            out[target] = np.array((a + b) if reduce == "add" else (a * b)).astype(out.dtype)
    return out


def scatter_update(x, index, src, dim):
    out = x.copy()
    lead = (slice(None),) * dim
    for k, value in enumerate(index):
        out[lead + (int(value),)] = src[lead + (k,)]
    return out


def sort_order(x, dim, descending):
    key = -x.astype(np.float64) if descending else x
    return np.argsort(key, axis=dim, kind="stable")


def matmul(a, b, attrs):
    a = widen(a)
    b = widen(b)
    if attrs.get("a_trans"):
        a = np.swapaxes(a, -1, -2)
    if attrs.get("b_trans"):
        b = np.swapaxes(b, -1, -2)
    return np.matmul(a, b)


def softmax(x, axis):
    v = x.astype(np.float32)
    e = np.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def compute(case, xs):
    op = case["op"]
    attrs = case["attrs"] or {}
    out_dtypes = case["out_dtypes"]
    if op in UNARY:
        return [UNARY[op](widen(xs[0]))]
    if op == "clip":
        x = widen(xs[0])
        low, high = attrs.get("min"), attrs.get("max")
        if xs[0].dtype.kind == "f":
            low = None if low is None else np.float32(xs[0].dtype.type(low))
            high = None if high is None else np.float32(xs[0].dtype.type(high))
        else:
            low = None if low is None else math.ceil(low)
            high = None if high is None else math.floor(high)
        if low is not None:
            x = np.maximum(x, low)
        if high is not None:
            x = np.minimum(x, high)
        return [x]
    if op in BINARY:
        with np.errstate(all="ignore"):
            return [BINARY[op](widen(xs[0]), widen(xs[1]))]
    if op in SCALAR:
        with np.errstate(all="ignore"):
            return [SCALAR[op](widen(xs[0]), scalar_for(xs[0], attrs["scalar"]))]
    if op == "where":
        rest = [widen(a) for a in xs[1:]]
        x = attrs["x"] if "x" in attrs else rest.pop(0)
        y = attrs["y"] if "y" in attrs else rest.pop(0)
        return [np.where(xs[0], x, y)]
    if op in ("sum", "prod", "amax", "amin", "argmax", "argmin"):
        return [reduce_op(op, widen(xs[0]), attrs)]
    if op == "reshape":
        return [xs[0].reshape(attrs["shape"])]
    if op == "transpose":
        return [np.swapaxes(xs[0], *attrs["dims"])]
    if op == "permute":
        return [np.transpose(xs[0], attrs["dims"])]
    if op == "unsqueeze":
        return [np.expand_dims(xs[0], attrs["dim"])]
    if op == "concat":
        return [np.concatenate(xs, axis=attrs["dim"])]
    if op == "bitcast":  # the same C-order bytes read as the output dtype
        return [np.ascontiguousarray(xs[0]).view(np.dtype(out_dtypes[0]))]
    if op == "cast":
        return [cast_op(xs[0], attrs, out_dtypes[0])]
    if op == "full":
        return [np.full(attrs["shape"], attrs["value"], dtype=np.float64)]
    if op == "arange":
        return [attrs["start"] + np.arange(attrs["size"], dtype=np.float64) * attrs["step"]]
    if op == "gather":
        return [gather(xs[0], xs[1], attrs["dim"])]
    if op == "index_select":
        return [np.take(xs[0], xs[1].astype(np.int64), axis=attrs["dim"])]
    if op == "scatter":
        return [scatter(xs[0], xs[1], xs[2], attrs["dim"], attrs.get("reduce"))]
    if op == "scatter_update":
        return [scatter_update(xs[0], xs[1], xs[2], attrs["dim"])]
    if op == "topk":
        dim, k = attrs["dim"], attrs["k"]
        order = np.take(sort_order(xs[0], dim, attrs.get("largest", True)), np.arange(k), axis=dim)
        return [np.take_along_axis(xs[0], order, axis=dim), order]
    if op == "argsort":
        return [sort_order(xs[0], attrs["dim"], attrs.get("descending", False))]
    if op == "matmul":
        return [matmul(xs[0], xs[1], attrs)]
    if op == "quantize":
        # PyPTO's contract: round(x * scale) in fp32, ties to even, saturated to otype (int8 or uint8).
        with np.errstate(invalid="ignore"):
            q = np.rint(xs[0].astype(np.float32) * xs[1].astype(np.float32))
        info = np.iinfo(out_dtypes[0])
        return [np.where(np.isnan(q), 0, np.clip(q, info.min, info.max))]
    if op == "dequantize":
        return [xs[0].astype(np.float32) * xs[1].astype(np.float32)]
    if op == "softmax":
        return [softmax(xs[0], attrs["axis"])]
    raise ValueError("no numpy rule for op " + op)


def main():
    directory = sys.argv[1]
    with open(os.path.join(directory, "manifest.json")) as f:
        cases = json.load(f)
    for case in cases:
        xs = [np.load(os.path.join(directory, name)) for name in case["inputs"]]
        try:
            results = compute(case, xs)
        except Exception as error:  # name the case, then fail
            print("case %s (%s): %s" % (case["name"], case["op"], error), file=sys.stderr)
            raise
        for result, name, dtype in zip(results, case["outputs"], case["out_dtypes"]):
            np.save(os.path.join(directory, name), np.asarray(result).astype(dtype, order="C"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
