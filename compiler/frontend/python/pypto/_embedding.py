"""Entry points the PTO Studio engine (pto, pto-studio) calls through the
embedded interpreter: load a kernel file fresh, trace it, explain failures."""
import json
import os
import sys
import types

from . import _options
from ._errors import KernelError, KernelTimeout
from ._jit import JitKernel
from ._location import user_frames

_counter = 0


def trace_file(path, source, entry, tensor_types, max_elements):
    """Executes the kernel file `path` (its text is `source`, possibly an
    unsaved editor buffer) as a new module and traces `entry` for the given
    [(dtype, shape)]. Modules the kernel imports from its own folder are
    dropped afterwards, so an edited helper is re-read next time."""
    global _counter
    _counter += 1
    module_name = f"_pto_kernel_{_counter}"
    folder = os.path.dirname(os.path.abspath(path))
    code = compile(source, path, "exec")
    module = types.ModuleType(module_name)
    module.__file__ = path
    before = set(sys.modules)
    sys.modules[module_name] = module
    sys.path.insert(0, folder)
    try:
        exec(code, module.__dict__)
        kernel = module.__dict__.get(entry)
        if kernel is None:
            raise KernelError(f"{os.path.basename(path)} defines no '{entry}'; the project's \"entry\" must name "
                              f"a @pypto.frontend.jit function in it", path, 1)
        if not isinstance(kernel, JitKernel):
            line = getattr(getattr(kernel, "__code__", None), "co_firstlineno", 1)
            raise KernelError(f"'{entry}' is not a kernel; decorate it with @pypto.frontend.jit (or @pypto.jit)",
                              path, line)
        traced, _ = kernel.trace(tensor_types, (), max_elements)
        # The decorator's option groups travel with the graph (pto run merges the project's over them).
        options = _options.plain(kernel.effective_options())
        groups = {group: options[group] for group in ("pass_options", "runtime_options") if options.get(group)}
        return traced, json.dumps(groups, default=str)
    finally:
        sys.path.remove(folder)
        for name in set(sys.modules) - before:
            module_file = getattr(sys.modules[name], "__file__", None) or ""
            if name == module_name or os.path.abspath(module_file).startswith(folder + os.sep):
                del sys.modules[name]


def diagnose(exc, kernel_path):
    """(message, file, line, column, notes) for an exception from a kernel;
    notes are (message, file, line) of the callers in the user's code."""
    if isinstance(exc, KernelError):
        return (exc.message, exc.file, exc.line, exc.column, _callers(exc, exc.file, exc.line))
    if isinstance(exc, SyntaxError):
        return (f"syntax error: {exc.msg}", exc.filename or kernel_path, exc.lineno or 0, exc.offset or 0, [])
    frames = user_frames(exc.__traceback__)
    file, line = frames[-1] if frames else (kernel_path, 0)
    if isinstance(exc, KernelTimeout):
        return (str(exc), file, line, 0, [])
    if isinstance(exc, RecursionError):
        return ("the kernel recursed too deeply (RecursionError)", file, line, 0, [])
    if isinstance(exc, MemoryError):
        return ("the kernel ran out of memory (MemoryError); check the sizes it allocates", file, line, 0, [])
    text = str(exc)
    message = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    notes = [("called from here", f, l) for f, l in frames[:-1]]
    return (message, file, line, 0, notes)


def _callers(exc, file, line):
    frames = user_frames(exc.__traceback__)
    return [("called from here", f, l) for f, l in frames if (f, l) != (file, line)]
