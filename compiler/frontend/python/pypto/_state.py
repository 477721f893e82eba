"""The trace in progress: at most one per thread."""
import threading

from ._errors import KernelError
from ._location import user_location

_local = threading.local()


class TraceState:
    """What a running trace needs besides the graph builder."""

    def __init__(self, builder, max_elements):
        self.builder = builder
        self.max_elements = max_elements
        self.loop_stack = []  # (loop id, index symbol, start, stop, step)


def current():
    state = getattr(_local, "state", None)
    if state is None:
        file, line, _ = user_location()
        raise KernelError("this pypto call only works inside a kernel being traced "
                          "(a function decorated with @pypto.frontend.jit)", file, line)
    return state


def active():
    return getattr(_local, "state", None)


def set_current(state):
    _local.state = state
