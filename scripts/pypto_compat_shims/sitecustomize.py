"""Loaded by scripts/pypto-compat.sh only when the local torch predates 2.3 (Debian 12 ships 1.13): fills in
what newer torch has and PyPTO's example and model scripts use in their own CPU reference code.

PyPTO's example scripts name torch.uint16 / uint32 / uint64 (added in torch 2.3) and its QAT model script
torch.float8_e4m3fn (torch 2.1) in module-level dtype tables: those names get placeholder objects so such tables
can be built (making a tensor of one still fails in torch, visibly). fp16 CPU operations newer torch has are
filled in below, and for the model scripts (--models) torch.unravel_index (torch 2.2), torch.concatenate (torch
2.1), int32 index tensors (torch 2.0), torch._dynamo.allow_in_graph (torch 2.0, identity in eager mode) and
torch.library's FRAGMENT libraries (torch 2.0) only when this torch lacks it. The package under
test (PTO Studio's pypto) never sees this module."""
try:
    import torch
except ImportError:
    torch = None

if torch is not None:
    class _MissingTorchDtype:
        def __init__(self, name):
            self._name = name

        def __repr__(self):
            return f"torch.{self._name} (placeholder: this torch predates it)"

    # torch.float8_e4m3fn / float8_e5m2 (torch 2.1) key the tolerance tables of models/qat/test_qat.py.
    for _name in ("uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2"):
        if not hasattr(torch, _name):
            setattr(torch, _name, _MissingTorchDtype(_name))

    # uint16 and uint32 data (torch 2.3): PyPTO's operation goldens turn such numpy arrays into torch tensors
    # (bitwise ops, concat, expand, gathers, tril/triu, interleave, isfinite, logical_not), which torch 1.13
    # refuses. Such an array becomes an int32 (uint32: int64) tensor holding the same values: every value fits,
    # so the copies, selects and comparisons those goldens make give the same values, and their bitwise results
    # agree in the low 16 (32) bits, which is all the goldens keep (they write each output with numpy's astype
    # to the case's dtype, which wraps as unsigned arithmetic does). Such an array given to from_numpy is
    # copied. uint64 has no wider integer: its bits are read as int64, which keeps copies, selects, bitwise
    # results and tests against zero (LogicalNot's golden), though not order or arithmetic.
    if isinstance(getattr(torch, "uint16", None), _MissingTorchDtype):
        import numpy as _np

        _WIDER = {_np.dtype(_np.uint16): _np.int32, _np.dtype(_np.uint32): _np.int64}

        def _holding_uint16(native):
            def call(data, *args, **kwargs):
                if isinstance(data, _np.ndarray) and data.dtype in _WIDER:
                    data = data.astype(_WIDER[data.dtype])
                elif isinstance(data, _np.ndarray) and data.dtype == _np.uint64:
                    data = data.view(_np.int64)
                return native(data, *args, **kwargs)
            call.__name__ = native.__name__
            call.__doc__ = native.__doc__
            call.__wrapped__ = native
            return call

        for _name in ("tensor", "as_tensor", "from_numpy"):
            setattr(torch, _name, _holding_uint16(getattr(torch, _name)))

        # Tensor.to(torch.uint16 / torch.uint32) (Expand's golden casts to the case's dtype) casts to the dtype
        # that holds them here.
        _HELD_AS = {"uint16": torch.int32, "uint32": torch.int64}

        def _held(value):
            return _HELD_AS.get(value._name, value) if isinstance(value, _MissingTorchDtype) else value

        _native_to = torch.Tensor.to

        def _to(self, *args, **kwargs):
            return _native_to(self, *[_held(a) for a in args], **{k: _held(v) for k, v in kwargs.items()})
        _to.__doc__ = _native_to.__doc__
        torch.Tensor.to = _to

    # Shifts by a count outside [0, width) (torch 2.0): torch 1.13 shifts by the count modulo the width (x86's
    # shift instruction); torch 2.x shifts every bit out, giving 0 (left, and right for unsigned) or the sign
    # (signed right), which PyPTO's shift goldens rely on. torch.bitwise_left_shift / bitwise_right_shift
    # (function and method) give 2.x's results for such counts; in-range counts are torch's own.
    def _shifts_modulo_width():
        probe = torch.tensor([1], dtype=torch.int32)
        return int(torch.bitwise_left_shift(probe, torch.tensor([33], dtype=torch.int32))[0]) != 0

    if _shifts_modulo_width():
        def _shift_all_out(native, left):
            def call(input, other, *args, **kwargs):  # noqa: A002 - torch's names
                result = native(input, other, *args, **kwargs)
                if args or kwargs or not isinstance(result, torch.Tensor) or result.is_floating_point():
                    return result
                width = 8 * result.element_size()
                count = other if isinstance(other, torch.Tensor) else torch.tensor(other)
                outside = (count < 0) | (count >= width)
                if not bool(outside.any()):
                    return result
                if left or not result.is_signed():
                    return result.masked_fill(outside.expand_as(result), 0)
                sign = native(input, torch.full_like(result, width - 1))
                return torch.where(outside, sign, result)
            call.__name__ = native.__name__
            call.__doc__ = native.__doc__
            return call

        for _name, _left in (("bitwise_left_shift", True), ("bitwise_right_shift", False)):
            for _owner in (torch, torch.Tensor):
                if hasattr(_owner, _name):
                    setattr(_owner, _name, _shift_all_out(getattr(_owner, _name), _left))

    # Many fp16 (and some bf16) CPU kernels (matmul, relu, gelu, trunc, exp, topk, ...) arrived in torch 2.x. A
    # script computing its own fp16 reference on the CPU gets such a call computed in fp32 and rounded once to
    # the input's dtype, which is what newer torch's CPU kernels do for these operations as well. Only calls
    # that fail with "not implemented for 'Half'" (or 'BFloat16') are retried; everything else is torch's own.
    # Both torch.<name> and the tensor method <name> are covered.
    import functools

    _LOW = {"'Half'": torch.float16, "'BFloat16'": torch.bfloat16}

    def _upcasting(native):
        @functools.wraps(native)
        def call(*args, **kwargs):
            try:
                return native(*args, **kwargs)
            except RuntimeError as error:
                low = next((dtype for name, dtype in _LOW.items() if f"not implemented for {name}" in str(error)),
                           None)
                if low is None:
                    raise
            up = lambda v: v.float() if isinstance(v, torch.Tensor) and v.dtype == low else v  # noqa: E731
            result = native(*[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})
            if "dtype" in kwargs or "out" in kwargs:
                return result
            down = lambda v: v.to(low) if isinstance(v, torch.Tensor) and v.dtype == torch.float32 else v  # noqa: E731
            if isinstance(result, tuple):
                parts = tuple(down(v) for v in result)
                try:
                    return type(result)(parts)  # torch.return_types (values, indices) keep their field names
                except TypeError:
                    return parts
            return down(result)
        return call

    _FUNCTIONS = ("matmul", "mm", "bmm", "relu", "sigmoid", "tanh", "softmax", "erf", "trunc", "round", "floor",
                  "ceil", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "topk", "sort", "cumsum",
                  "clamp", "clip", "clamp_min", "clamp_max", "tan", "sinh", "cosh", "asin", "acos", "asinh",
                  "acosh", "atanh", "expm1", "erfc", "prelu")
    for _module, _names in ((torch, _FUNCTIONS), (torch.Tensor, _FUNCTIONS),
                            (torch.nn.functional, ("relu", "gelu", "silu", "sigmoid", "softmax", "linear", "prelu", "leaky_relu"))):
        for _name in _names:
            if hasattr(_module, _name):
                setattr(_module, _name, _upcasting(getattr(_module, _name)))

    # torch.unravel_index (torch 2.2): utils/compare.py of PyPTO's models locates the largest difference with it.
    if not hasattr(torch, "unravel_index"):
        def unravel_index(indices, shape):
            """Coordinates of flat indices in a tensor of `shape`, a tuple of tensors (torch 2.2's semantics)."""
            shape = (int(shape),) if isinstance(shape, int) else tuple(int(d) for d in shape)
            flat = torch.as_tensor(indices)
            if flat.is_floating_point() or flat.is_complex() or flat.dtype == torch.bool:
                raise TypeError("expected 'indices' to be an integer tensor")
            total = 1
            for dim in shape:
                total *= dim
            if bool(((flat < -total) | (flat >= total)).any()):
                raise ValueError("'indices' must be in range [-prod(shape), prod(shape) - 1]")
            flat = torch.remainder(flat, total) if total else flat
            coordinates = []
            for dim in reversed(shape):
                coordinates.append(torch.remainder(flat, dim))
                flat = torch.div(flat, dim, rounding_mode="floor")
            return tuple(reversed(coordinates))
        torch.unravel_index = unravel_index

    # torch._dynamo (torch 2.0): most model scripts decorate their kernel wrapper with
    # torch._dynamo.allow_in_graph, which marks a function for torch.compile's tracer and returns it unchanged; in
    # eager mode (the scripts' default) it does nothing else, so the stand-in returns the function as it is.
    try:
        import torch._dynamo  # noqa: F401
    except ImportError:
        import sys as _sys
        import types as _types

        _dynamo = _types.ModuleType("torch._dynamo", "torch 2.x's torch._dynamo, as far as eager scripts use it.")
        _dynamo.allow_in_graph = lambda fn: fn
        _dynamo.disable = lambda fn=None, recursive=True: fn if fn is not None else (lambda f: f)
        _dynamo.reset = lambda: None
        _sys.modules["torch._dynamo"] = _dynamo
        torch._dynamo = _dynamo

    # torch.library.Library(ns, "FRAGMENT") (torch 2.0): models/deepseek_v4 registers its kernels as torch ops
    # (for graph mode, which its tests leave off) in a FRAGMENT library, one that adds to a namespace whoever made
    # it. torch 1.13's dispatcher knows FRAGMENT, only its Python check rejects the name; it is let through.
    import torch.library as _library

    def _accepts_fragment():
        try:
            _library.Library("aten", "FRAGMENT")
            return True
        except ValueError:
            return False
        except Exception:  # another refusal (a disabled library): leave torch as it is
            return True

    if not _accepts_fragment():
        _native_library_init = _library.Library.__init__

        def _library_init(self, ns, kind, dispatch_key=""):
            if kind != "FRAGMENT":
                return _native_library_init(self, ns, kind, dispatch_key)
            import traceback
            frame = traceback.extract_stack(limit=3)[0]
            self.m = torch._C._dispatch_library("FRAGMENT", ns, dispatch_key, frame.filename, frame.lineno)
            self.ns, self._op_impls, self.kind, self.dispatch_key = ns, set(), kind, dispatch_key
            return None

        _library.Library.__init__ = _library_init

    # torch.concatenate (torch 2.1) is torch.cat under NumPy's name; the MLA model script's rotate_half uses it.
    if not hasattr(torch, "concatenate"):
        def concatenate(tensors, axis=0, out=None, dim=None):
            dim = axis if dim is None else dim
            return torch.cat(tensors, dim) if out is None else torch.cat(tensors, dim, out=out)
        torch.concatenate = concatenate

    # int32 index tensors (torch 2.0): the model scripts index their golden tensors with int32 block tables and
    # top-k indices. Older torch accepts only int64 / bool / uint8 index tensors; other integer ones are widened.
    def _accepts_int32_indices():
        try:
            torch.zeros(2)[torch.zeros(1, dtype=torch.int32)]
            return True
        except (IndexError, RuntimeError):
            return False

    if not _accepts_int32_indices():
        _NARROW_INTS = (torch.int32, torch.int16, torch.int8)

        def _widen(index):
            if isinstance(index, torch.Tensor) and index.dtype in _NARROW_INTS:
                return index.long()
            if isinstance(index, tuple):
                return tuple(_widen(i) for i in index)
            if isinstance(index, list) and any(isinstance(i, torch.Tensor) for i in index):
                return [_widen(i) for i in index]
            return index

        _native_getitem, _native_setitem = torch.Tensor.__getitem__, torch.Tensor.__setitem__
        torch.Tensor.__getitem__ = lambda self, index: _native_getitem(self, _widen(index))
        torch.Tensor.__setitem__ = lambda self, index, value: _native_setitem(self, _widen(index), value)

    # torch._prims.var(inp, dims, correction) (torch 2.x) takes the correction positionally as a number; torch
    # 1.13's prims.var takes it keyword-only and integral. PyPTO's Var golden calls the 2.x form.
    def _prims_var_takes_positional_correction():
        try:
            import torch._prims as prims
            prims.var(torch.zeros(2), [0], 0.0)
            return True
        except (ImportError, RuntimeError, TypeError):
            return False

    if not _prims_var_takes_positional_correction():
        import torch._prims as _prims
        _native_prims_var = _prims.var

        def _prims_var(inp, dims, correction=None, *, output_dtype=None, **kwargs):
            if correction is None:
                correction = kwargs.pop("correction", 1)
            correction = int(correction) if float(correction).is_integer() else correction
            return _native_prims_var(inp, dims, correction=correction, output_dtype=output_dtype, **kwargs)

        _prims.var = _prims_var
