"""PyPTO's option catalog and the option scopes (`pypto.options`, `pypto.set_options`, `@pypto.jit(...)`).

PyPTO groups its options (pass, runtime, host, codegen, verify, debug, operation). Every key PyPTO's own
configuration schema accepts is accepted here: the ones PTO Studio's compiler, runtime model or simulator act
on are passed through; the others are kept (so `get_*_options` returns them) and named once, in a one-line
notice, as having no effect. A key PyPTO does not know either is an error that names it and the nearest
known key, since it is almost always a typo.

Scopes nest: a `with pypto.options(...)` block or a function decorated with `@pypto.options(...)` pushes
a scope, `pypto.set_options(...)` replaces the innermost one (PyPTO: "finish the old scope and start a new
one"), and a kernel traced inside takes the merged options of every open scope, then its own jit options
(the kernel's own setting wins). Inside a kernel the same calls scope pass options and tile shapes to the ops
they enclose."""
import difflib
import enum
import sys

import _pypto_core as _core

# group -> {key: None (PTO Studio acts on it) or the reason it has no effect here}
_NO_CODEGEN = "PTO Studio emits no device code"
_NO_DEVICE = "PTO Studio simulates; there is no device to configure"
CATALOG = {
    "pass_options": {
        # Besides the options the compiler declares (added below), PyPTO's keys that are passed on unread.
        "pg_partition_algorithm": None, "pg_skip_partition": None, "enable_slice": None,
        "vec_nbuffer_setting_by_func": "per-function merge keys are not modelled; use a semantic label key",
        "cube_l1_reuse_setting_by_func": "per-function merge keys are not modelled; use a semantic label key",
        "cube_nbuffer_setting_by_func": "per-function merge keys are not modelled; use a semantic label key",
        "vec_nbuffer_setting_by_label": "give labels as keys of vec_nbuffer_setting itself",
        "cube_l1_reuse_setting_by_label": "give labels as keys of cube_l1_reuse_setting itself",
        "cube_nbuffer_setting_by_label": "give labels as keys of cube_nbuffer_setting itself",
        "pg_lower_bound": "the partitioner's lower bound is not modelled",
        "mg_vec_parallel_lb": "vector merge parallelism bound is not modelled",
        "copyout_resolve_coalescing": "copy-out coalescing is not modelled",
        "auto_mix_partition": "mixed cube/vector partitioning is not modelled",
        "sg_set_tunevf_mode": "vector-fusion tuning is part of PyPTO's code generation, " + _NO_CODEGEN,
        "sg_set_ooo_scope": "out-of-order scopes are not modelled; ooo_sched_mode is",
        "ooo_sort_mode_aic": "per-core-type out-of-order sort modes are not modelled",
        "ooo_sort_mode_aiv": "per-core-type out-of-order sort modes are not modelled",
    },
    "runtime_options": {
        "run_mode": None,  # read by the jit runner (_jit.py); the scheduler's options are added below
        "max_workspace_kb": "workspace size is not limited in the simulator",
        "valid_shape_optimize": "valid-shape optimisation of the device runtime is not modelled",
        "ready_on_host_tensors": _NO_DEVICE,
        "device_sched_parallelism": "scheduler parallelism is set with launch_sched_aicpu_num",
        "launch_early_mode": "early launch of the device runtime is not modelled",
        "stitch_cfgcache_size": "the stitch configuration cache is not modelled",
    },
    "host_options": {
        "compile_stage": "every call compiles and simulates the whole kernel",
        "compile_monitor_enable": "the compile watchdog is PyPTO's; PTO Studio's compiler has its own limits",
        "compile_monitor_print_interval": "the compile watchdog is PyPTO's",
        "compile_timeout": "the compile watchdog is PyPTO's",
        "compile_timeout_stage": "the compile watchdog is PyPTO's",
        "only_codegen": _NO_CODEGEN + "; the kernel still runs",
    },
    "codegen_options": {
        "support_dynamic_aligned": _NO_CODEGEN, "soc_version": "choose the machine with PTO_MACHINE",
        "enable_pmu_trace": "the swimlane always carries per-pipe timing", "vf_options": _NO_CODEGEN,
    },
    "verify_options": {
        "enable_pass_verify": None, "pass_verify_error_tol": None,
        "pass_verify_save_tensor": "intermediate tensors are shown in the IDE, not saved by the pass verifier",
        "pass_verify_save_tensor_dir": "intermediate tensors are shown in the IDE, not saved by the pass verifier",
        "pass_verify_pass_filter": "verification covers the whole kernel",
    },
    "debug_options": {
        "runtime_debug_mode": None,
        "compile_debug_mode": "use `pto compile --dump-passes DIR` for every pass's IR",
        "dump_pass_graph": "use `pto compile --dump-passes DIR` for every pass's IR",
    },
    "operation_options": {
        "combine_axis": "axis combination is not modelled",
    },
}
# The options PTO Studio's passes and runtime declare (compiler/settings/Options.h, each pass's info record; `pto
# passes --list` prints them) are acted on: accepted and passed on. A name PyPTO files under another group (verify_
# options' enable_pass_verify) stays there.
for _group, _names in _core.declared_options().items():
    for _name in _names:
        if not any(_name in keys for keys in CATALOG.values()):
            CATALOG[_group][_name] = None
GROUPS = tuple(CATALOG)
# Options given outside a group (the flat form): every key names its group unambiguously.
FLAT_KEYS = {key: group for group, keys in CATALOG.items() for key in keys}
# Scope fields that are not option groups.
TILE_FIELDS = ("vec_tile_shapes", "cube_tile_shapes", "conv_tile_shapes", "matrix_size")

_noticed = set()


def notice(group, key):
    """The one-line notice for an option PyPTO has and PTO Studio does not act on, once per process."""
    reason = CATALOG[group].get(key)
    if reason is None or (group, key) in _noticed:
        return
    _noticed.add((group, key))
    print(f"pypto: option {group[:-len('_options')]}.{key} is accepted and has no effect in PTO Studio: {reason}",
          file=sys.stderr)


def unknown_key_message(group, key):
    close = difflib.get_close_matches(key, list(CATALOG[group]), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(sorted(CATALOG[group]))}"
    return f"unknown {group} key '{key}'{hint}"


def check_group(group, values):
    """None when every key is known (noticing the unmodelled ones), else the error message."""
    if values is None:
        return None
    if group not in CATALOG:
        close = difflib.get_close_matches(group, list(GROUPS) + list(TILE_FIELDS), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; expected one of {', '.join(GROUPS)}"
        return f"unknown option group '{group}'{hint}"
    if not isinstance(values, dict):
        return f"{group} must be a dict, e.g. {group}={{...}}; got {type(values).__name__}"
    for key in values:
        if key not in CATALOG[group]:
            return unknown_key_message(group, key)
        error = check_merge_setting(key, values[key])
        if error:
            return error
    for key in values:
        notice(group, key)
    return None


def split_flat(values):
    """{'enable_slice': True, 'run_mode': ...} -> ({'pass_options': {...}, 'runtime_options': {...}}, error)."""
    grouped = {}
    for key, value in values.items():
        group = FLAT_KEYS.get(key)
        if group is None:
            close = difflib.get_close_matches(key, list(FLAT_KEYS), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            return None, f"unknown pypto option '{key}'{hint}"
        grouped.setdefault(group, {})[key] = value
    return grouped, None


# vec_nbuffer_setting's key -2 is PyPTO's switch for merging subgraphs with several inputs or outputs
# (NBufferMerge's MULITY_IN_OUT_MERGE_KEY: {-2: 0} alone merges them automatically, {-2: 1} by the other keys'
# counts); PyPTO's schema allows no key below -2 and no other value for -2.
MULTI_IN_OUT_KEY = -2
_noticed_multi_in_out = []


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_merge_setting(key, setting):
    """None, or what is wrong with a vec_nbuffer_setting's integer keys below -1 (PyPTO's rules)."""
    if key != "vec_nbuffer_setting" or not isinstance(setting, dict):
        return None
    for order, count in setting.items():
        if _is_int(order) and order < MULTI_IN_OUT_KEY:
            return f"pass_options.vec_nbuffer_setting key {order} is below -2; keys are group orders (0, 1, ...), -1 " \
                   f"(the default count) and -2 (merging of subgraphs with several inputs or outputs)"
        if order == MULTI_IN_OUT_KEY and _is_int(order) and count not in (0, 1):
            return f"pass_options.vec_nbuffer_setting key -2 switches merging of subgraphs with several inputs or " \
                   f"outputs: {{-2: 0}} merges them automatically, {{-2: 1}} by the other keys' counts; got {count!r}"
    return None


def _without_multi_in_out(setting):
    """vec_nbuffer_setting without PyPTO's key -2: PTO Studio's merge takes subgraphs with several inputs or
    outputs in every mode, so the switch has nothing left to choose ({-2: 0} alone is the automatic merge, as an
    empty setting is). Said once per process."""
    if MULTI_IN_OUT_KEY not in setting:
        return setting
    if not _noticed_multi_in_out:
        _noticed_multi_in_out.append(True)
        print("pypto: pass option vec_nbuffer_setting key -2 (merge subgraphs with several inputs or outputs) has no "
              "effect in PTO Studio: its merge takes such subgraphs in every mode", file=sys.stderr)
    return {order: count for order, count in setting.items() if order != MULTI_IN_OUT_KEY}


def plain(value):
    """Option values as JSON-friendly data for the compiler: enums by name, vec_nbuffer_setting without -2."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, dict):
        return {k: plain(_without_multi_in_out(v) if k == "vec_nbuffer_setting" and isinstance(v, dict) else v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return getattr(value, "name", value) if type(value).__module__ == "_pypto_core" else value


class Scope:
    """One open options scope: option groups plus tile fields."""

    def __init__(self, groups=None, tiles=None, name=""):
        self.groups = {group: dict(values) for group, values in (groups or {}).items() if values}
        self.tiles = {field: value for field, value in (tiles or {}).items() if value is not None}
        self.name = name


# The global scope (set_options / set_*_options outside any `with`) and the open `with` scopes above it.
_global = Scope()
_stack = []


def push(scope):
    _stack.append(scope)


def pop(scope):
    if _stack and _stack[-1] is scope:
        _stack.pop()
    elif scope in _stack:
        _stack.remove(scope)


def replace_innermost(scope):
    """pypto.set_options outside a kernel: the innermost scope's options are merged with the new ones."""
    target = _stack[-1] if _stack else _global
    for group, values in scope.groups.items():
        target.groups.setdefault(group, {}).update(values)
    target.tiles.update(scope.tiles)


def reset():
    global _global
    _global = Scope()
    _stack.clear()


def merged():
    """(groups, tiles) in force now: the global scope overlaid by every open scope, innermost last."""
    groups, tiles = {}, {}
    for scope in [_global] + _stack:
        for group, values in scope.groups.items():
            groups.setdefault(group, {}).update(values)
        tiles.update(scope.tiles)
    return groups, tiles


def group_values(group):
    return dict(merged()[0].get(group, {}))
