"""Settings that tag the ops that follow: tile shapes, semantic labels, options."""
import functools
import json

import _pypto_core as _core

from . import _state
from ._errors import KernelError
from ._location import user_location


# The settings last made in any kernel: PyPTO's tile settings are global configuration, so reading them after
# a kernel ran (outside any trace) gives what that kernel set last.
_last_settings = {"vec": None, "cube": None}


def _fail(message):
    file, line, column = user_location()
    raise KernelError(message, file, line, column)


def set_vec_tile_shapes(*dims):
    """Tile shape for the vector ops that follow (one value per dim of their
    result; the innermost times the element size must be a multiple of 32 bytes)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    if not dims:
        _fail("set_vec_tile_shapes needs at least one dim")
    if len(dims) > 4:
        _fail(f"set_vec_tile_shapes takes at most 4 dims, got {len(dims)}")
    values = []
    for position, dim in enumerate(dims):
        dim = _as_int(dim)
        if not isinstance(dim, int) or isinstance(dim, bool):
            _fail(f"set_vec_tile_shapes: dim {position} must be an int, got {dim!r}")
        if dim <= 0:
            _fail(f"set_vec_tile_shapes: dim {position} is {dim}; every tile dim must be positive")
        values.append(dim)
    file, line, _ = user_location()
    _state.current().builder.set_vec_tile(values, file, line)
    _last_settings["vec"] = list(values)


def get_vec_tile_shapes():
    """The vec tile shape in force (outside a kernel: the one a kernel set last, [] if none)."""
    state = _state.active()
    if state is None:
        return list(_last_settings["vec"] or [])
    return list(state.builder.vec_tile())


def _as_int(value):
    """A known symbolic scalar (a static dim such as x.shape[0]) as its int; anything else unchanged."""
    if isinstance(value, _core.SymbolicScalar) and value.is_concrete():
        return int(value.concrete())
    return value


def _pair(name, value, count=(2,)):
    if not isinstance(value, (list, tuple)) or len(value) not in count:
        expected = " or ".join(str(c) for c in count)
        _fail(f"set_cube_tile_shapes: {name} must be a list of {expected} ints ([L0, L1]), got {value!r}")
    value = [_as_int(item) for item in value]
    for item in value:
        if not isinstance(item, int) or isinstance(item, bool) or item <= 0:
            _fail(f"set_cube_tile_shapes: {name} = {list(value)} must hold positive ints")
    return value


def set_cube_tile_shapes(m, k, n, enable_split_k=False):
    """Cube tiles: m=[mL0, mL1], k=[kL0, kL1] or [kL0, kAL1, kBL1], n=[nL0, nL1].
    Each L1 value must be a multiple of its L0 value."""
    m = _pair("m", m)
    k = _pair("k", k, (2, 3))
    n = _pair("n", n)
    for axis, values in (("m", m), ("k", k), ("n", n)):
        for l1 in values[1:]:
            if l1 % values[0] != 0:
                suggestion = (l1 // values[0]) * values[0] or values[0]
                _fail(f"set_cube_tile_shapes: {axis} L1 = {l1} is not a multiple of {axis} L0 = {values[0]}; "
                      f"use {suggestion} or {suggestion + values[0]}")
    file, line, _ = user_location()
    _state.current().builder.set_cube_tile(m, k, n, bool(enable_split_k), file, line)
    _last_settings["cube"] = [list(m), list(k), list(n)]


def get_cube_tile_shapes():
    """The cube tile shape in force as (m, k, n, enable_split_k) (outside a kernel: [m, k, n] as a kernel
    set it last, None if none)."""
    state = _state.active()
    if state is None:
        last = _last_settings["cube"]
        return None if last is None else [list(v) for v in last]
    return state.builder.cube_tile()


def set_matrix_size(*sizes):
    """Accepted for compatibility; shapes come from the tensors themselves."""


def set_semantic_label(label):
    """Tags the ops that follow; the swimlane colours tasks by label."""
    if not isinstance(label, str):
        _fail(f"set_semantic_label expects a string, got {label!r}")
    _state.current().builder.set_label(label)


def get_semantic_label():
    return _state.current().builder.label()


KNOWN_PASS_OPTIONS = {
    "vec_nbuffer_setting", "cube_l1_reuse_setting", "cube_nbuffer_setting", "sg_set_scope",
    "pg_partition_algorithm", "pg_parallel_lower_bound", "pg_skip_partition", "mg_copyin_upper_bound",
    "ooo_sched_mode", "enable_slice", "disable_pass", "enable_pass_verify", "pass_verify_error_tol",
}
KNOWN_RUNTIME_OPTIONS = {"run_mode", "device_sched_mode", "stitch_function_max_num", "launch_sched_aicpu_num",
                         "runtime_debug_mode"}


def _checked(options, known, what):
    unknown = sorted(set(options) - known)
    if unknown:
        _fail(f"unknown {what} option(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return options


def _encode(value):
    return getattr(value, "name", value)


def set_pass_options(**options):
    state = _state.active()
    _checked(options, KNOWN_PASS_OPTIONS, "pass")
    if state is None:
        return
    current = json.loads(state.builder.pass_options())
    current.update({k: _encode(v) for k, v in options.items()})
    state.builder.set_pass_options(json.dumps(current, default=str))


def set_runtime_options(**options):
    _checked(options, KNOWN_RUNTIME_OPTIONS, "runtime")


def set_options(**options):
    pass_options = {k: v for k, v in options.items() if k in KNOWN_PASS_OPTIONS}
    runtime_options = {k: v for k, v in options.items() if k in KNOWN_RUNTIME_OPTIONS}
    _checked(options, KNOWN_PASS_OPTIONS | KNOWN_RUNTIME_OPTIONS, "pypto")
    if pass_options:
        set_pass_options(**pass_options)
    if runtime_options:
        set_runtime_options(**runtime_options)


class options:  # noqa: N801 - PyPTO's spelling
    """Decorator or context manager scoping pass options to a function or block."""

    def __init__(self, **values):
        self._values = values
        _checked(values, KNOWN_PASS_OPTIONS | KNOWN_RUNTIME_OPTIONS, "pypto")

    def __enter__(self):
        state = _state.active()
        self._saved = state.builder.pass_options() if state else None
        set_options(**self._values)
        return self

    def __exit__(self, *exc):
        state = _state.active()
        if state is not None and self._saved is not None:
            state.builder.set_pass_options(self._saved)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return wrapper
