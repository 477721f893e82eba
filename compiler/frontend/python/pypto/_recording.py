"""How an op of the pypto API is recorded into the graph being traced, and the operand helpers every op family
(_elementwise, _reductions, _shapes, _views, _indexing, _matmul) shares: errors that name the kernel's line,
scalar operands, dims known while tracing."""
import numbers

from . import _state
from ._errors import KernelError
from ._location import user_location
from ._tensor import SymbolicScalar, Tensor


def _fail(message):
    file, line, column = user_location()
    raise KernelError(message, file, line, column)


def _record(kind, inputs, attrs=None, into=None):
    """Records op `kind`; returns its output tensors (a list)."""
    state = _state.current()
    for value in inputs:
        if not isinstance(value, Tensor) or value._id is None:
            _fail(f"{kind}: expected a traced tensor, got {type(value).__name__}")
        if value._state is not state:
            _fail(f"{kind}: a tensor from another trace was used; tensors do not outlive their kernel call")
    file, line, column = user_location()
    ids, error, error_file, error_line = state.builder.add_op(kind, [t._id for t in inputs], attrs or {}, file,
                                                              line, column, [t._id for t in into] if into else [])
    if error:
        if error_file:  # a setting made elsewhere (a tile shape) is at fault
            raise KernelError(f"{error} (used by {kind} at {_short(file)}:{line})", error_file, error_line)
        raise KernelError(error, file, line, column)
    _check_size(state, ids, kind)
    return [Tensor._traced(state, i) for i in ids]


def _short(path):
    import os
    return os.path.basename(path)


def _check_size(state, ids, kind):
    for tensor_id in ids:
        count = 1
        for dim in state.builder.tensor_type(tensor_id)[1]:
            if dim.is_concrete():
                count *= dim.concrete()
        if count > state.max_elements:
            _fail(f"{kind}: the result would have {count} elements, more than the limit of "
                  f"{state.max_elements}; check the shapes (the limit is set by --max-elements)")


def _one(kind, inputs, attrs=None, into=None):
    return _record(kind, inputs, attrs, into)[0]


def _scalar_value(value, what, run_time=False):
    """A scalar operand as a float. With run_time, a symbolic scalar that is only known when the kernel runs
    (a dynamic dim, a loop index) is kept symbolic: the interpreters evaluate it then."""
    if isinstance(value, SymbolicScalar):
        if not value.is_concrete():
            if run_time:
                return value
            _fail(f"{what}: a symbolic scalar ({value}) cannot be used here; only constants can")
        return float(value.concrete())
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, numbers.Number):
        return float(value)
    _fail(f"{what}: expected a tensor or a number, got {type(value).__name__}")


def _is_tensor(value):
    return isinstance(value, Tensor)


def _as_list(dims):
    if dims is None:
        return None
    if isinstance(dims, (list, tuple)):
        return [int(d) for d in dims]
    return [int(dims)]


def _known_int(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, SymbolicScalar) and value.is_concrete():
        return int(value.concrete())
