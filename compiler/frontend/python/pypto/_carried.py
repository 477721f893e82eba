"""Python values carried from one `pypto.loop` iteration to the next (`y = x + y` in the body).

The tracer runs a loop body once, with a symbolic index, so a Python variable that the body reads and then
rebinds would see only its value from before the loop. Such variables are found from the loop's source (read
before being assigned in the body, assigned in it, bound before the loop). A loop that carries a traced value
(a tensor, a symbolic or plain number) and has a known trip count is then unrolled, so each iteration sees the
previous one's value, as in PyPTO; one whose trip count is only known at run time is an error that says what
to write instead."""
import ast
import functools
import linecache
import sys

import _pypto_core as _core

from ._location import _is_internal

MAX_UNROLLED_ITERATIONS = 4096


@functools.lru_cache(maxsize=64)
def _parsed(filename, text_hash):
    del text_hash  # only part of the cache key: a file edited between calls is parsed again
    try:
        return ast.parse("".join(linecache.getlines(filename)), filename)
    except (SyntaxError, ValueError):
        return None


def _loop_node(filename, line):
    lines = linecache.getlines(filename)
    if not lines:
        return None
    tree = _parsed(filename, hash(tuple(lines)))
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and node.iter.lineno <= line <= (node.iter.end_lineno or node.iter.lineno):
            return node
    return None


class _ReadsAndWrites(ast.NodeVisitor):
    """Names read before any assignment in the body (in execution order) and names assigned in it."""

    def __init__(self):
        self.assigned = set()
        self.read_first = set()

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            if node.id not in self.assigned:
                self.read_first.add(node.id)
        else:
            self.assigned.add(node.id)

    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self.read_first.add(node.target.id) if node.target.id not in self.assigned else None
            self.assigned.add(node.target.id)
        else:
            self.visit(node.target)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)

    def visit_FunctionDef(self, node):
        pass  # a nested function's names are its own

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef


def carried_names(filename, line):
    """Names the loop at filename:line reads before assigning and then assigns (its own index excluded)."""
    node = _loop_node(filename, line)
    if node is None:
        return set()
    visitor = _ReadsAndWrites()
    for statement in node.body:
        visitor.visit(statement)
    index_names = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return (visitor.read_first & visitor.assigned) - index_names


def _traced_value(value):
    from ._tensor import Tensor
    if isinstance(value, Tensor):
        return value._id is not None
    return isinstance(value, (_core.SymbolicScalar, int, float)) and not isinstance(value, bool)


def caller_frame():
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    return frame


def carried_values(frame, line):
    """Names carried by the loop at `line` of `frame`'s code whose current values the tracer follows."""
    if frame is None:
        return []
    names = carried_names(frame.f_code.co_filename, line)
    return sorted(name for name in names if name in frame.f_locals and _traced_value(frame.f_locals[name]))
