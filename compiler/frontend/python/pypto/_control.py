"""Control flow inside kernels: device loops and conditions."""
import sys

import _pypto_core as _core

from . import _carried, _state
from ._errors import KernelError
from ._location import user_location
from ._tensor import SymbolicScalar


def _loop_range(args):
    if len(args) == 1:
        return 0, args[0], 1
    if len(args) == 2:
        return args[0], args[1], 1
    if len(args) == 3:
        return args[0], args[1], args[2]
    file, line, _ = user_location()
    raise KernelError(f"pypto.loop takes (stop), (start, stop) or (start, stop, step), got {len(args)} values",
                      file, line)


def _run_loop(args, name, idx_name, parallel, unroll_factors, yield_factor, submit_before_loop=False,
              call_groups=None):
    state = _state.current()
    builder = state.builder
    start, stop, step = _loop_range(args)
    file, line, _ = user_location()
    step_value = _core.to_symbolic(step)
    if step_value.is_concrete() and step_value.concrete() <= 0:
        raise KernelError(f"pypto.loop: step must be positive, got {step_value.concrete()}", file, line)
    loop_id, index = builder.begin_loop(name or "", idx_name or "", start, stop, step, bool(parallel), file, line)
    if submit_before_loop:
        builder.set_submit_before_loop(loop_id)
    if call_groups and call_groups != [1]:
        builder.set_unroll_list(loop_id, call_groups)
    state.loop_stack.append((loop_id, index, _core.to_symbolic(start), _core.to_symbolic(stop), step_value))
    try:
        for factor in unroll_factors:
            builder.begin_loop_body(loop_id, factor)
            more = True
            while more:
                builder.begin_path()
                yield (index, factor) if yield_factor else index
                more = builder.end_path()
    finally:
        state.loop_stack.pop()
        builder.end_loop(loop_id)


_noticed_options = set()


def _notice_ignored(function, unknown):
    """PyPTO's loop reads the options it knows and ignores every other keyword, so a kernel passing one runs
    there; it runs here too, and a one-line notice (once per option) names it in case it is a typo."""
    for key in sorted(set(unknown) - _noticed_options):
        _noticed_options.add(key)
        print(f"pypto: {function}: option '{key}' is not one of PyPTO's loop options (name, idx_name, parallel, "
              f"submit_before_loop, unroll_list); it is ignored, as PyPTO ignores it", file=sys.stderr)


def _unroll_factors(unroll_list, function):
    """unroll_list as distinct factors, largest first, always ending with 1 (the remainder needs single
    steps)."""
    file, line, _ = user_location()
    try:
        factors = sorted({int(f) for f in (unroll_list or [1])}, reverse=True)
    except (TypeError, ValueError):
        raise KernelError(f"{function}: unroll_list must hold positive ints, got {unroll_list!r}", file, line) \
            from None
    if any(f <= 0 for f in factors):
        raise KernelError(f"{function}: unroll factors must be positive, got {unroll_list}", file, line)
    if factors[-1] != 1:
        factors.append(1)
    return factors


def loop(*args, name=None, idx_name=None, parallel=False, submit_before_loop=False, unroll_list=None, **unknown):
    """A device loop: the body is traced once with a symbolic index and runs
    for start, start+step, ... < stop. `for i in range(n)` unrolls instead.

    unroll_list: PyPTO unrolls such a loop: for a factor f it records the body f times, for index,
    index + step, ..., in a loop stepping f * step, plus single steps for the remainder. That computes the
    same iterations, each with the same body, as the plain loop, so the body is traced once with an index
    covering every iteration, which gives the same results. What the unrolling changes is how the runtime
    submits the work: each group of iterations is one call of the body, one root function of the device
    task stitch_function_max_num counts, so the factors are recorded on the loop for that.
    pypto.loop_unroll is the form whose body is told its factor and must differ.
    submit_before_loop=True puts PyPTO's loop barrier before the loop: each time the loop is entered, what
    came before is submitted and finishes before anything from the loop on starts. (A loop traced once per
    iteration because its body carries a Python value has no loop left to put it on.)"""
    if unknown:
        _notice_ignored("pypto.loop", unknown)
    call_groups = _unroll_factors(unroll_list, "pypto.loop") if unroll_list is not None else None
    traced = _run_loop(args, name, idx_name, parallel, [1], False, submit_before_loop, call_groups)
    unrolled = _unrolled_if_carrying(args, traced)
    if unrolled is not None:
        return unrolled
    return traced


def _unrolled_if_carrying(args, traced):
    """A loop whose body carries a Python value into the next iteration runs each iteration in the trace
    (see _carried); None for every other loop. With a trip count known only at run time the loop is `traced`
    (a generator not yet started) once, and checked afterwards: a value the body rebinds to an in-place reshape
    of itself carries nothing (the same bytes in another shape, as DeepSeek-V4's compressor does with
    `cache_index = pypto.reshape(cache_index, [1, n], inplace=True)`); any other carried value is an error."""
    frame = _carried.caller_frame()
    if frame is None:
        return None
    carried = _carried.carried_values(frame, frame.f_lineno)
    if not carried:
        return None
    _state.current()
    start, stop, step = (_core.to_symbolic(v) for v in _loop_range(args))
    file, line, _ = user_location()
    names = ", ".join(f"'{n}'" for n in carried)
    if not (start.is_concrete() and stop.is_concrete() and step.is_concrete()):
        message = (f"pypto.loop: {names} is read and then reassigned in the loop body, so each iteration needs "
                   f"the previous one's value, but the trip count ({start}, {stop}, {step}) is only known when the "
                   f"kernel runs. Keep the running value in a tensor made before the loop and update it in place "
                   f"(acc[:] = acc + x), or give the loop a fixed trip count")
        return _same_bytes_carried(traced, frame, {n: frame.f_locals[n] for n in carried}, message, file, line)
    first, last, stride = int(start.concrete()), int(stop.concrete()), int(step.concrete())
    if stride <= 0:
        raise KernelError(f"pypto.loop: step must be positive, got {stride}", file, line)
    count = max(0, (last - first + stride - 1) // stride)
    if count > _carried.MAX_UNROLLED_ITERATIONS:
        raise KernelError(f"pypto.loop: {names} is carried from one iteration to the next, so the loop is traced "
                          f"once per iteration, and {count} iterations is more than "
                          f"{_carried.MAX_UNROLLED_ITERATIONS}. Keep the running value in a tensor made before the "
                          f"loop and update it in place (acc[:] = acc + x)", file, line)
    return (SymbolicScalar(i) for i in range(first, last, stride))


def _same_bytes_carried(traced, frame, before, message, file, line):
    """Runs the traced loop, then checks that every carried name is bound to its value from before the loop or
    to an in-place reshape (chain) of it; else the KernelError `message` at the loop's line."""
    yield from traced
    for name, value in before.items():
        after = frame.f_locals.get(name)
        while after is not None and after is not value:
            after = getattr(after, "_inplace_of", None)
        if after is None:
            raise KernelError(message, file, line)


def loop_unroll(*args, unroll_list=None, name=None, idx_name=None, parallel=False, submit_before_loop=False,
                **unknown):
    """Like loop, but the body is traced once per factor in unroll_list and
    yields (index, factor): a body run with factor f covers f iterations."""
    if unknown:
        _notice_ignored("pypto.loop_unroll", unknown)
    factors = _unroll_factors(unroll_list, "pypto.loop_unroll")
    return _run_loop(args, name, idx_name, parallel, factors, True, submit_before_loop)


def cond(predicate):
    """`if pypto.cond(expr):` — a condition decided when the kernel runs. The
    tracer follows both outcomes, so both branches are in the graph."""
    state = _state.current()
    file, line, _ = user_location()
    if isinstance(predicate, bool):
        return predicate
    if not isinstance(predicate, (int, SymbolicScalar)):
        raise KernelError(f"pypto.cond expects a symbolic condition (e.g. idx < n), got {type(predicate).__name__}",
                          file, line)
    return state.builder.decide(predicate, file, line)


def _loop_of(index, what):
    state = _state.current()
    for loop_id, symbol, start, stop, step in reversed(state.loop_stack):
        if isinstance(index, SymbolicScalar) and index.same_as(symbol):
            return start, stop, step
    file, line, _ = user_location()
    raise KernelError(f"{what} needs the index of an enclosing pypto.loop, got {index}", file, line)


def is_loop_begin(index):
    """True on the first iteration of the loop whose index this is."""
    start, _, _ = _loop_of(index, "pypto.is_loop_begin")
    return index == start


def is_loop_end(index):
    """True on the last iteration of the loop whose index this is."""
    start, stop, step = _loop_of(index, "pypto.is_loop_end")
    last = start + ((stop - start - 1) // step) * step
    return index == last
