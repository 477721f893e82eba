"""@pypto.jit / @pypto.frontend.jit: tracing a kernel and running it."""
import copy
import enum
import inspect
import json
import sys
import time
import warnings

import _pypto_core as _core

from . import _options, _state
from . import _symbolic  # noqa: F401 - adds is_symbol() and friends to symbolic scalars
from ._errors import KernelError
from ._location import user_location
from ._tensor import DYNAMIC, STATIC, SymbolicScalar, Tensor, TileOpFormat, _DimMarker

DEFAULT_MAX_ELEMENTS = 2 ** 31

_OPTION_GROUPS = _options.GROUPS


_last_run = None


_last_compile_seconds = 0.0


def last_compile_seconds():
    """Seconds the latest kernel call spent tracing and compiling its kernel (not simulating it): what PyPTO's
    compiler monitor reports as the last compilation's total elapsed time (pypto_impl's
    GetCompilerMonitorTotalElapsed); 0.0 before the first call."""
    return _last_compile_seconds


def last_run():
    """The report of the latest kernel call (a dict: makespan_us, tasks, tasks_by_core_type, subgraphs,
    machine, mode, utilization, outputs[...]), as `pto run --json` writes it; None before the first call."""
    return copy.deepcopy(_last_run)


def _json_value(value):
    """Option values that are not JSON themselves: enums by name, anything else as text."""
    return value.name if isinstance(value, enum.Enum) else str(value)


class RunMode(enum.Enum):
    """Where a kernel runs. PTO Studio always simulates; NPU behaves as SIM."""
    NPU = 0
    SIM = 1


_npu_notice_shown = False


def _notice_npu_mode():
    global _npu_notice_shown
    if not _npu_notice_shown:
        _npu_notice_shown = True
        print("pypto: RunMode.NPU requested; PTO Studio has no NPU and runs the kernel in its simulator instead",
              file=sys.stderr)


def _numpy_dtype_to_pypto(dtype):
    names = {"float32": "DT_FP32", "float16": "DT_FP16", "int8": "DT_INT8", "int16": "DT_INT16",
             "int32": "DT_INT32", "int64": "DT_INT64", "uint8": "DT_UINT8", "uint16": "DT_UINT16",
             "uint32": "DT_UINT32", "uint64": "DT_UINT64", "bool": "DT_BOOL"}
    name = names.get(str(dtype))
    return getattr(_core.DataType, name) if name else None


def _to_array(value, position):
    """(numpy array sharing the caller's memory, pypto dtype) for a tensor argument."""
    import numpy as np
    module = type(value).__module__
    if module.startswith("torch"):
        import torch
        tensor = value.detach()
        if tensor.device.type != "cpu":
            raise KernelError(f"argument {position} is on device '{tensor.device}'; PTO Studio runs on the CPU: "
                              f"pass tensor.cpu()")
        if not tensor.is_contiguous():
            raise KernelError(f"argument {position} is not contiguous; pass tensor.contiguous()")
        if tensor.dtype == torch.bfloat16:
            return tensor.view(torch.int16).numpy(), _core.DataType.DT_BF16
        array = tensor.numpy()
    elif isinstance(value, np.ndarray):
        array = value
    elif hasattr(value, "__dlpack__") and not hasattr(value, "__array__"):
        array = np.from_dlpack(value)
    else:
        array = np.asarray(value)
    if not array.flags["C_CONTIGUOUS"]:
        raise KernelError(f"argument {position} is not C-contiguous; outputs could not be written back. "
                          f"Pass np.ascontiguousarray(x)")
    dtype = _numpy_dtype_to_pypto(array.dtype)
    if dtype is None:
        hint = " (convert with .astype(np.float32))" if array.dtype == np.float64 else ""
        raise KernelError(f"argument {position} has dtype {array.dtype}, which PyPTO does not support{hint}")
    return array, dtype


def _is_tensor_like(value):
    return hasattr(value, "__array__") or hasattr(value, "__dlpack__") or hasattr(value, "__array_interface__") \
        or type(value).__module__.startswith("torch") or isinstance(value, memoryview)


def _linear_in_one_symbol(expression):
    """(symbol, scale, offset) when `expression` is provably scale * symbol + offset with scale > 0, else None."""
    symbols = expression.symbols()
    if len(symbols) != 1:
        return None
    symbol = symbols[0]
    offset = expression.evaluate({symbol: 0})
    scale = expression.evaluate({symbol: 1}) - offset
    if scale <= 0:
        return None
    difference = (expression - (SymbolicScalar.symbol(symbol) * scale + offset)).simplified()
    if not (difference.is_concrete() and difference.concrete() == 0):
        return None
    return symbol, scale, offset


def _is_status_shape(declared):
    """Whether a declared shape is what PyPTO calls a status shape: pypto.STATIC / pypto.DYNAMIC markers and
    ints only, with at least one marker (an all-int shape declares an exact rank)."""
    plain_marker = lambda d: d is STATIC or d is DYNAMIC  # noqa: E731
    is_int = lambda d: isinstance(d, int) and not isinstance(d, bool)  # noqa: E731
    return any(plain_marker(d) for d in declared) and all(plain_marker(d) or is_int(d) for d in declared)


def _argument_indices(aliases):
    """position -> index among the traced graph's arguments of the tensor bound there (see JitKernel.trace)."""
    indices = []
    for source in aliases:
        indices.append(indices[source] if source is not None else len(set(indices)))
    return indices


class JitKernel:
    """A kernel: calling it traces the body into a Tensor graph and runs it."""

    def __init__(self, function, options):
        self.function = function
        self.options = options
        self.__name__ = function.__name__
        self.__doc__ = function.__doc__
        self.__wrapped__ = function
        code = function.__code__
        self.source_file = code.co_filename
        self.source_line = code.co_firstlineno
        self._check_options(notice=False)

    def _check_options(self, notice=True):
        # The option dicts are the caller's own objects (PyPTO's examples fill runtime_options["run_mode"]
        # after decorating), so they are checked again at every call.
        for group, values in self.options.items():
            error = _options.check_group(group, values)
            if error:
                raise KernelError(error, self.source_file, self.source_line)
        if notice and self.effective_options()["runtime_options"].get("run_mode") == RunMode.NPU:
            _notice_npu_mode()

    def effective_options(self):
        """The options this call runs with: the open `pypto.options` scopes, overlaid by the kernel's own."""
        scoped, _ = _options.merged()
        effective = {}
        for group in _OPTION_GROUPS:
            values = dict(scoped.get(group, {}))
            values.update(self.options.get(group) or {})
            effective[group] = values
        return effective

    def sim_mode(self):
        """True when the kernel asks for PyPTO's simulator (RunMode.SIM): PyPTO then writes its cost-model
        outputs, and so does PTO Studio."""
        mode = self.effective_options()["runtime_options"].get("run_mode")
        return mode == RunMode.SIM or mode == 1 or (isinstance(mode, str) and mode.upper() == "SIM")

    def __repr__(self):
        return f"<pypto kernel {self.__name__} ({self.source_file}:{self.source_line})>"

    # --- tracing -------------------------------------------------------------
    def _parameters(self):
        return list(inspect.signature(self.function).parameters.values())

    def _declared_spec(self, parameter):
        annotation = parameter.annotation
        if isinstance(annotation, Tensor):
            return annotation
        if annotation is Tensor:
            return Tensor(None, None)
        return None

    def trace(self, tensor_types, scalars=(), max_elements=DEFAULT_MAX_ELEMENTS, aliases=None):
        """Traces the kernel for tensors of the given (dtype, concrete shape)s.
        Returns (TracedKernel, return specs) where return specs lists the
        (dtype, shape) of tensors the kernel returns (functional style).

        `aliases[i]`, when given and not None, is the position of an earlier tensor parameter that parameter i
        is bound to (the caller passed one array for both, see _aliases): parameter i is then that parameter's
        tensor, not an argument of its own, so a write through either name is seen by reads through the other
        and `out.move(scatter_update(cache, ...))` with out and cache one array moves nothing. The graph's
        arguments are the tensors that are no alias, in order. The traced graph depends on the aliasing as it
        does on the types: whatever keeps traced kernels for reuse must key them on both."""
        parameters = self._parameters()
        if len(tensor_types) + len(scalars) > len(parameters):
            raise KernelError(f"{self.__name__} takes {len(parameters)} parameters, got "
                              f"{len(tensor_types) + len(scalars)} arguments", self.source_file, self.source_line)
        builder = _core.GraphBuilder(self.__name__, self.source_file, self.source_line)
        state = _state.TraceState(builder, max_elements)
        _, scoped_tiles = _options.merged()
        tensors = []
        argument_of = _argument_indices(aliases or [None] * len(tensor_types))
        bound = {}  # symbol name -> (value, argument name)
        by_value = {}  # DYNAMIC dims: value -> symbol, so equal sizes share one symbol
        for position, (dtype, shape) in enumerate(tensor_types):
            parameter = parameters[position]
            spec = self._declared_spec(parameter)
            source = aliases[position] if aliases else None
            # An alias's declaration is checked (and binds its dynamic dims) as any parameter's, from its
            # source's argument: the two are one array.
            dims = self._argument_dims(parameter.name, argument_of[position], spec, dtype, shape, bound, by_value,
                                       builder)
            if source is None:
                # A weight declared NZ lies in GM as the cube's fractals: the timing model loads it so.
                nz_layout = spec is not None and spec.format == TileOpFormat.TILEOP_NZ
                tensor_id = builder.add_argument(parameter.name, dtype, dims, self.source_file, self.source_line,
                                                 nz_layout=nz_layout)
                tensors.append(Tensor._traced(state, tensor_id))
            else:
                tensors.append(tensors[source])
        previous = _state.active()
        _state.set_current(state)
        returned_specs = None
        try:
            from ._config import _apply_in_kernel
            more = True
            while more:
                builder.begin_path()
                # Tile shapes from enclosing pypto.options scopes hold where the body starts; their pass options
                # reach the compiler with the kernel's own (effective_options).
                _apply_in_kernel(state, {}, scoped_tiles)
                result = self.function(*tensors, *scalars)
                returned_specs = self._record_returns(state, result, returned_specs)
                more = builder.end_path()
        finally:
            _state.set_current(previous)
        return builder.finish(), returned_specs or []

    def _argument_dims(self, name, position, spec, dtype, shape, bound, by_value, builder):
        if spec is not None and spec.spec_dtype is not None and spec.spec_dtype != dtype:
            raise KernelError(f"argument '{name}' is {dtype.numpy_name} but the kernel declares "
                              f"{getattr(spec.spec_dtype, 'name', spec.spec_dtype)}", self.source_file,
                              self.source_line)
        declared = None if spec is None else spec.spec_shape
        if declared is not None:
            declared = list(declared)
            if any(d is Ellipsis for d in declared):
                at = next(i for i, d in enumerate(declared) if d is Ellipsis)
                rest = len(shape) - (len(declared) - 1)
                declared = declared[:at] + [STATIC] * max(rest, 0) + declared[at + 1:]
            if len(declared) == 0:
                declared = None
        if declared is not None and len(declared) < len(shape) and _is_status_shape(declared):
            # PyPTO's "status shape" (only pypto.STATIC / pypto.DYNAMIC markers and ints, at least one marker)
            # declares the leading dims: an argument of higher rank is accepted, its extra dims static.
            declared = declared + [STATIC] * (len(shape) - len(declared))
        if declared is not None and len(declared) != len(shape):
            raise KernelError(f"argument '{name}' has rank {len(shape)} {list(shape)} but the kernel declares rank "
                              f"{len(declared)}", self.source_file, self.source_line)
        dims = []
        for axis, actual in enumerate(shape):
            marker = None if declared is None else declared[axis]
            if marker is None or marker is STATIC:
                dims.append(int(actual))
            elif isinstance(marker, int) and not isinstance(marker, bool) and marker >= 0:
                if marker != actual:
                    raise KernelError(f"argument '{name}' has {actual} in dim {axis} but the kernel declares "
                                      f"{marker}", self.source_file, self.source_line)
                dims.append(marker)
            elif isinstance(marker, SymbolicScalar) and not marker.is_concrete() and not marker.is_symbol():
                # e.g. (n * 64, 64) with n = pypto.frontend.dynamic("n"): n is bound from the argument's dim.
                dims.append(self._expression_dim(name, position, axis, marker, actual, bound, builder))
            elif isinstance(marker, SymbolicScalar) and marker.is_concrete():
                if marker.concrete() != actual:
                    raise KernelError(f"argument '{name}' has {actual} in dim {axis} but the kernel declares "
                                      f"{marker.concrete()}", self.source_file, self.source_line)
                dims.append(int(marker.concrete()))
            elif isinstance(marker, SymbolicScalar) or (isinstance(marker, _DimMarker) and marker.symbol):
                symbol = str(marker) if isinstance(marker, SymbolicScalar) else marker.symbol
                self._bind(symbol, actual, f"{actual} in '{name}'", (name, position, axis), bound, builder)
                dims.append(SymbolicScalar.symbol(symbol))
            elif marker is DYNAMIC or (isinstance(marker, int) and marker == -1):
                symbol = by_value.get(actual)
                if symbol is None:
                    symbol = f"{name}_{axis}"
                    by_value[actual] = symbol
                    bound[symbol] = (actual, name)
                    builder.add_dynamic_symbol(symbol, position, axis)
                dims.append(SymbolicScalar.symbol(symbol))
            else:
                raise KernelError(f"argument '{name}': dim {axis} is declared as {marker!r}; use an int, "
                                  f"pypto.DYNAMIC, pypto.STATIC or ...", self.source_file, self.source_line)
        return dims

    def _expression_dim(self, name, position, axis, marker, actual, bound, builder):
        """A dim declared as scale * n + offset of one dynamic symbol n: n is bound from the argument."""
        linear = _linear_in_one_symbol(marker)
        if linear is None:
            raise KernelError(f"argument '{name}': dim {axis} is declared as '{marker}'; a declared dim may be a "
                              f"dynamic dim or a multiple of one plus a constant (n * 64 + 8), so that n follows "
                              f"from the argument's size", self.source_file, self.source_line)
        symbol, scale, offset = linear
        if (actual - offset) % scale != 0 or (actual - offset) // scale < 0:
            raise KernelError(f"argument '{name}' has {actual} in dim {axis}, which is not '{marker}' for any whole "
                              f"{symbol} >= 0", self.source_file, self.source_line)
        value = (actual - offset) // scale
        self._bind(symbol, value, f"{value} from '{name}' (dim {axis} = {actual} = '{marker}')",
                   (name, position, axis), bound, builder, scale, offset)
        return marker

    def _bind(self, symbol, value, seen, where, bound, builder, scale=1, offset=0):
        """Binds a dynamic dim's symbol from argument dim `where` = (name, position, axis); a second argument
        must agree with the first."""
        name, position, axis = where
        if symbol in bound and bound[symbol][0] != value:
            raise KernelError(f"dynamic dim '{symbol}' is {bound[symbol][0]} in argument '{bound[symbol][1]}' but "
                              f"{seen}", self.source_file, self.source_line)
        if symbol not in bound:
            bound[symbol] = (value, name)
            builder.add_dynamic_symbol(symbol, position, axis, scale, offset)

    def _record_returns(self, state, result, previous_specs):
        """Functional-style kernels return their outputs; they are copied into
        hidden output arguments so both styles produce the same graph."""
        if result is None:
            return previous_specs
        values = list(result) if isinstance(result, (tuple, list)) else [result]
        if not all(isinstance(v, Tensor) and v._id is not None for v in values):
            raise KernelError(f"{self.__name__} returned {type(result).__name__}; a kernel returns nothing "
                              f"(writing outputs in place) or the tensors it computed",
                              self.source_file, self.source_line)
        builder = state.builder
        if previous_specs is None:
            previous_specs = []
            for index, value in enumerate(values):
                dtype, shape, _ = builder.tensor_type(value._id)
                output_id = builder.add_argument(f"return_{index}", dtype, shape, self.source_file,
                                                 self.source_line)
                previous_specs.append((output_id, dtype, shape))
        for (output_id, _, _), value in zip(previous_specs, values):
            file, line, column = user_location()
            _, error, _, _ = builder.add_op("copy", [value._id], {}, file, line, column, [output_id])
            if error:
                raise KernelError(error, file, line, column)
        return previous_specs

    # --- calling ---------------------------------------------------------------
    def _positional(self, args, kwargs):
        """The call's arguments in the kernel's parameter order: keyword arguments (PyPTO binds a jit call like
        a Python call) go to their parameters' places, and a parameter left out before the last given one takes
        its default."""
        parameters = self._parameters()
        names = [p.name for p in parameters]
        file, line, _ = user_location()
        for name in kwargs:
            if name not in names:
                raise KernelError(f"{self.__name__} has no parameter '{name}' (it takes {', '.join(names)}); "
                                  f"declared at {self.source_file}:{self.source_line}", file, line)
            if names.index(name) < len(args):
                raise KernelError(f"{self.__name__} got parameter '{name}' twice, by position and by keyword",
                                  file, line)
        last = max(names.index(name) for name in kwargs)
        ordered = list(args)
        for parameter in parameters[len(args):last + 1]:
            if parameter.name in kwargs:
                ordered.append(kwargs[parameter.name])
            elif parameter.default is not inspect.Parameter.empty:
                ordered.append(parameter.default)
            else:
                raise KernelError(f"{self.__name__} is missing an argument for parameter '{parameter.name}'", file,
                                  line)
        return ordered

    def __call__(self, *args, **kwargs):
        import numpy as np
        if kwargs:
            args = self._positional(args, kwargs)
        self._check_options()
        arrays, types, scalars = [], [], []
        for position, value in enumerate(args):
            if _is_tensor_like(value) and not scalars:
                array, dtype = _to_array(value, position)
                arrays.append(array)
                types.append((dtype, list(array.shape)))
            else:
                scalars.append(value)
        aliases = self._aliases(arrays, types)
        trace_start = time.perf_counter()
        traced, returns = self.trace(types, scalars, aliases=aliases)
        trace_seconds = time.perf_counter() - trace_start
        self._check_overlaps(traced, arrays, types, aliases)
        # One buffer per graph argument: an alias's array is its source's.
        arrays = [array for array, source in zip(arrays, aliases) if source is None]
        types = [t for t, source in zip(types, aliases) if source is None]
        outputs = []
        bindings = self._bindings(traced, types)
        for _, dtype, shape in returns:
            concrete = [int(d.evaluate(bindings)) if isinstance(d, SymbolicScalar) else int(d) for d in shape]
            outputs.append(np.zeros(concrete, dtype=np.int16 if dtype == _core.DataType.DT_BF16
                                    else dtype.numpy_name))
        run_options = _options.plain(self.effective_options())
        run_options["sim_output"] = self.sim_mode()
        outcome = traced.run(arrays + outputs, json.dumps(run_options, default=_json_value))
        if outcome[0] == "error":
            _, message, file, line, column = outcome
            raise KernelError(message, file, line, column)
        global _last_run, _last_compile_seconds
        _last_run = json.loads(outcome[1])
        _last_compile_seconds = trace_seconds + _last_run.get("timings_ms", {}).get("compile", 0.0) / 1000.0
        if _last_run.get("simulated") is False:
            warnings.warn(f"{self.__name__} was not simulated; its outputs come from the reference interpreter. "
                          f"Reason: {_last_run.get('simulation_error', 'unknown')}", RuntimeWarning, stacklevel=2)
        if _last_run.get("sim_output_error"):
            warnings.warn(f"{self.__name__}: no simulator output written: {_last_run['sim_output_error']}",
                          RuntimeWarning, stacklevel=2)
        failed = [o["name"] for o in _last_run.get("outputs", []) if not o.get("pass", True)]
        if failed:
            warnings.warn(f"{self.__name__}: the simulated output(s) {', '.join(failed)} differ from the reference "
                          f"interpreter beyond tolerance; see pypto.last_run()['outputs']", RuntimeWarning,
                          stacklevel=2)
        if not returns:
            return None
        results = [self._like_inputs(args, out, dtype) for out, (_, dtype, _) in zip(outputs, returns)]
        return results[0] if len(results) == 1 else tuple(results)

    @staticmethod
    def _aliases(arrays, types):
        """For each tensor argument, the position of an earlier one that is the same array (the same memory
        viewed with the same shape and dtype: the same object, or torch tensors / numpy views of one storage),
        else None. PyPTO's kernels pass one cache as input and output (`k_out.move(scatter_update(k_in,
        ...))`, the caller binding k_in and k_out to one tensor), and on the device the two are one buffer."""
        first = {}
        aliases = []
        for position, (array, (dtype, shape)) in enumerate(zip(arrays, types)):
            key = (array.__array_interface__["data"][0], tuple(shape), dtype)
            source = first.get(key) if array.size else None
            aliases.append(source)
            if source is None and array.size:
                first[key] = position
        return aliases

    def _check_overlaps(self, traced, arrays, types, aliases):
        """Arrays that share memory without being the same array (two views of one buffer at different
        offsets, shapes or dtypes) are run on copies, each its own argument: exact while the kernel only
        reads them, but a write through one would not be seen through the other and the write-back of one
        would overwrite the other. Refused when the kernel writes either."""
        import numpy as np
        names = [parameter.name for parameter in self._parameters()]
        argument_of = _argument_indices(aliases)
        written = set(traced.written_arguments())
        for j in range(len(arrays)):
            for i in range(j):
                if argument_of[i] == argument_of[j] or not np.may_share_memory(arrays[i], arrays[j]):
                    continue
                if argument_of[i] in written or argument_of[j] in written:
                    which = names[i] if argument_of[i] in written else names[j]
                    start = arrays[i].__array_interface__["data"][0]
                    delta = arrays[j].__array_interface__["data"][0] - start
                    raise KernelError(f"arguments '{names[i]}' ({self._type(types[i])}) and '{names[j]}' "
                                      f"({self._type(types[j])}, at {delta:+d} bytes from it) are overlapping "
                                      f"views of one buffer, and the kernel writes '{which}'; one array passed for "
                                      f"two parameters (the same shape and dtype) is one tensor, but overlapping "
                                      f"views are not supported: pass the same array for both, or a copy for one",
                                      self.source_file, self.source_line)

    @staticmethod
    def _type(dtype_and_shape):
        dtype, shape = dtype_and_shape
        return f"{dtype.numpy_name}[{', '.join(str(d) for d in shape)}]"

    @staticmethod
    def _bindings(traced, types):
        bindings = {}
        for symbol, argument, dim, scale, offset in traced.dynamic_symbols():
            bindings[symbol] = (types[argument][1][dim] - offset) // scale
        return bindings

    @staticmethod
    def _like_inputs(args, array, dtype):
        """Returns torch tensors when the kernel was called with torch tensors."""
        if any(type(a).__module__.startswith("torch") for a in args):
            import torch
            tensor = torch.from_numpy(array)
            return tensor.view(torch.bfloat16) if dtype == _core.DataType.DT_BF16 else tensor
        return array


# PyPTO's jit flags that choose how PyPTO's own front end builds its IR (`new_ir`: its newer compile pipeline;
# `create_new_logical_tensor`: fresh logical tensors per call). PTO Studio has one front end, and either value
# traces the same kernel with the same results, so they are checked and accepted.
_FRONTEND_FLAGS = ("new_ir", "create_new_logical_tensor")


def _make_decorator(function=None, **options):
    for flag in _FRONTEND_FLAGS:
        if flag in options:
            value = options.pop(flag)
            if not isinstance(value, bool):
                file, line, _ = user_location()
                raise KernelError(f"jit option {flag} takes True or False, got {value!r}", file, line)
    unknown = sorted(set(options) - set(_OPTION_GROUPS))
    if unknown:
        file, line, _ = user_location()
        raise KernelError(f"unknown jit option(s) {', '.join(unknown)}; expected {', '.join(_OPTION_GROUPS)}",
                          file, line)
    grouped = {group: options[group] if options.get(group) is not None else {} for group in _OPTION_GROUPS}
    if function is not None:
        return JitKernel(function, grouped)
    return lambda f: JitKernel(f, grouped)


def jit(function=None, **options):
    """Marks a kernel: `@pypto.jit` or `@pypto.jit(runtime_options={...}, ...)`."""
    return _make_decorator(function, **options)
