"""Settings that tag the ops that follow: tile shapes, semantic labels, options."""
import functools
import json

import _pypto_core as _core

from . import _state
from ._errors import KernelError
from . import _options
from ._location import user_location


# The settings last made in any kernel: PyPTO's tile settings are global configuration, so reading them after
# a kernel ran (outside any trace) gives what that kernel set last.
_last_settings = {"vec": None, "cube": None}


def _fail(message):
    file, line, column = user_location()
    raise KernelError(message, file, line, column)


def set_vec_tile_shapes(*dims):
    """Tile shape for the vector ops that follow (one value per dim of their
    result). An innermost dim of no whole number of 32-byte blocks is padded in
    the unified buffer, as in PyPTO. Up to 8 dims (PyPTO's operation tests tile
    rank-5 tensors)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    if not dims:
        _fail("set_vec_tile_shapes needs at least one dim")
    if len(dims) > 8:
        _fail(f"set_vec_tile_shapes takes at most 8 dims, got {len(dims)}")
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


def _apply_in_kernel(state, groups, tiles):
    """Inside a trace: pass options tag the ops that follow; tile fields set the tile shapes."""
    pass_options = groups.get("pass_options")
    if pass_options:
        current = json.loads(state.builder.pass_options())
        current.update(_options.plain(pass_options))
        state.builder.set_pass_options(json.dumps(current, default=str))
    if tiles.get("vec_tile_shapes") is not None:
        set_vec_tile_shapes(*tiles["vec_tile_shapes"])
    cube = tiles.get("cube_tile_shapes")
    if cube is not None:
        cube = list(getattr(cube, "args", cube))
        set_cube_tile_shapes(*cube[:3], enable_split_k=bool(cube[3]) if len(cube) > 3 else False)
    conv = tiles.get("conv_tile_shapes")
    if conv is not None:
        # PyPTO's scope holds set_conv_tile_shapes' pair; kept for get_conv_tile_shapes, as that call keeps it.
        from ._conv import set_conv_tile_shapes
        set_conv_tile_shapes(*(conv if isinstance(conv, (tuple, list)) else (conv,)))


def _checked_scope(groups, tiles, name=""):
    for group, values in groups.items():
        error = _options.check_group(group, values)
        if error:
            _fail(error)
    conv = tiles.get("conv_tile_shapes")
    if conv is not None and isinstance(conv, (tuple, list)) and not 1 <= len(conv) <= 2:
        _fail(f"conv_tile_shapes: expected set_conv_tile_shapes' arguments, (tile_l1_info[, tile_l0_info]), got "
              f"{len(conv)} values")
    return _options.Scope(groups, tiles, name)


def _scope_from(arguments, name=""):
    """The checked scope for the keyword arguments of options() / set_options(): the option groups, the tile
    fields and any flat keys (`flat`)."""
    groups = _grouped_or_flat({group: arguments.get(group) for group in _options.GROUPS}, arguments.get("flat"))
    return _checked_scope(groups, {field: arguments.get(field) for field in _options.TILE_FIELDS}, name)


def _grouped_or_flat(groups, flat):
    """PyPTO's grouped form (pass_options={...}) and the flat one (enable_slice=True) as one dict of groups."""
    groups = {group: dict(values) for group, values in groups.items() if values is not None}
    if flat:
        split, error = _options.split_flat(flat)
        if error:
            _fail(error)
        for group, values in split.items():
            groups.setdefault(group, {}).update(values)
    return groups


def _setter(group):
    def set_group(**values):
        set_options(**{group: {k: v for k, v in values.items() if v is not None}})
    set_group.__name__ = f"set_{group}"
    set_group.__doc__ = (f"{group.replace('_', ' ').capitalize()} (keys as keywords) for the scope in force; inside a "
                         f"kernel, for the ops that follow.")
    return set_group


def _getter(group):
    def get():
        state = _state.active()
        values = _options.group_values(group)
        if state is not None and group == "pass_options":
            values.update(json.loads(state.builder.pass_options()))
        return values
    get.__name__ = f"get_{group}"
    get.__doc__ = f"The {group.replace('_', ' ')} in force (the merged open scopes; inside a kernel, with its own)."
    return get


# Each option group's setter and getter, one line a group.
set_pass_options, get_pass_options = _setter("pass_options"), _getter("pass_options")
set_runtime_options, get_runtime_options = _setter("runtime_options"), _getter("runtime_options")
set_host_options, get_host_options = _setter("host_options"), _getter("host_options")
set_codegen_options, get_codegen_options = _setter("codegen_options"), _getter("codegen_options")
set_verify_options, get_verify_options = _setter("verify_options"), _getter("verify_options")
set_debug_options, get_debug_options = _setter("debug_options"), _getter("debug_options")


def reset_options():
    """Every option scope back to the defaults (tile shapes set in kernels are kept per kernel)."""
    _options.reset()


def set_options(codegen_options=None, host_options=None, pass_options=None, runtime_options=None,
                verify_options=None, debug_options=None, operation_options=None, vec_tile_shapes=None,
                cube_tile_shapes=None, conv_tile_shapes=None, matrix_size=None, **flat):
    """PyPTO's set_options: grouped dicts (pass_options={...}, ...) or flat keys (enable_slice=True).
    Outside a kernel it updates the scope in force; inside, it applies to the ops that follow."""
    scope = _scope_from(locals())
    state = _state.active()
    if state is not None:
        _apply_in_kernel(state, scope.groups, scope.tiles)
    else:
        _options.replace_innermost(scope)


class options:  # noqa: N801 - PyPTO's spelling
    """`pypto.options(...)`: a decorator or a `with` block scoping options (grouped dicts or flat keys) and tile
    shapes. Around a kernel call they apply to that kernel; inside a kernel, to the ops in the block."""

    def __init__(self, name="", codegen_options=None, host_options=None, pass_options=None, runtime_options=None,
                 verify_options=None, operation_options=None, debug_options=None, vec_tile_shapes=None,
                 cube_tile_shapes=None, conv_tile_shapes=None, matrix_size=None, **flat):
        self._scope = _scope_from(locals(), name)
        self._saved = []

    def __enter__(self):
        state = _state.active()
        if state is None:
            _options.push(self._scope)
            self._saved.append(None)
        else:
            self._saved.append((state, state.builder.pass_options(), list(state.builder.vec_tile()),
                                state.builder.cube_tile()))
            _apply_in_kernel(state, self._scope.groups, self._scope.tiles)
        return self

    def __exit__(self, *exc):
        saved = self._saved.pop() if self._saved else None
        if saved is None:
            _options.pop(self._scope)
            return False
        state, pass_options, vec, cube = saved
        if state is _state.active():
            state.builder.set_pass_options(pass_options)
            file, line, _ = user_location()
            if vec and self._scope.tiles.get("vec_tile_shapes") is not None:
                state.builder.set_vec_tile(vec, file, line)
            if cube and self._scope.tiles.get("cube_tile_shapes") is not None:
                m, k, n, split = cube
                state.builder.set_cube_tile(list(m), list(k), list(n), bool(split), file, line)
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return wrapper


def get_options_tree():
    """The options in force, one `group.key = value` per line (PyPTO prints a tree of its configuration)."""
    groups, tiles = _options.merged()
    lines = [f"{group[:-len('_options')]}.{key} = {_options.plain(value)!r}"
             for group, values in sorted(groups.items()) for key, value in sorted(values.items())]
    lines += [f"{field} = {value!r}" for field, value in sorted(tiles.items())]
    return "\n".join(lines)


class CubeTile:
    """PyPTO's CubeTile(m, k, n, enable_split_k): cube tile shapes as one value for options(cube_tile_shapes=)."""

    def __init__(self, m, k, n, enable_split_k=False):
        self.m, self.k, self.n, self.enable_split_k = list(m), list(k), list(n), bool(enable_split_k)

    @property
    def args(self):
        return [self.m, self.k, self.n, self.enable_split_k]

    def __repr__(self):
        return f"CubeTile(m={self.m}, k={self.k}, n={self.n}, enable_split_k={self.enable_split_k})"
