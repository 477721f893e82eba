"""pypto.SymbolicScalar as PyPTO spells it: the constructor forms, the inspection methods and `if` on a
symbolic condition inside a kernel. The values themselves are the core's symbolic scalars; this module only
adds the public API around them."""
import numbers

import _pypto_core as _core

from . import _state
from ._errors import KernelError
from ._location import user_location

_Core = _core.SymbolicScalar


def _make(arg0=None, arg1=None):
    """SymbolicScalar(), (int), (name), (name, value) or (another scalar)."""
    if arg0 is None:
        return _Core(0)
    if isinstance(arg0, _Core):
        return arg0
    # A bool is the int it is (True is 1), as PyPTO's binding takes it: GLM's select-experts kernel branches
    # on pypto.symbolic_scalar(renormalize) with a Python bool.
    if not isinstance(arg0, (int, str)) and not hasattr(arg0, "__index__"):
        file, line, _ = user_location()
        raise KernelError(f"SymbolicScalar expects an int, a name or another SymbolicScalar, got {arg0!r}", file, line)
    if isinstance(arg0, str):
        # A name with a value is that value (its name only labels it); a bare name is a free symbol.
        return _Core(int(arg1)) if arg1 is not None else _Core.symbol(arg0)
    return _Core(int(arg0))


class _SymbolicScalarMeta(type):
    def __instancecheck__(cls, value):
        return isinstance(value, _Core)

    def __subclasscheck__(cls, subclass):
        return issubclass(subclass, _Core)

    def __call__(cls, arg0=None, arg1=None):
        return _make(arg0, arg1)


class SymbolicScalar(metaclass=_SymbolicScalarMeta):
    """A scalar that may only be known when the kernel runs (a dynamic dim, a loop index, or an expression
    of them). `pypto.SymbolicScalar(...)` and `pypto.symbolic_scalar(...)` build one; `isinstance` works
    for every symbolic value pypto hands out."""

    @staticmethod
    def symbol(name):
        return _Core.symbol(name)


symbolic_scalar = SymbolicScalar


# --- methods PyPTO documents on SymbolicScalar, added to the core's class ---------------------------------

def _is_immediate(self):
    """True when the value is a known constant."""
    return self.is_concrete()


def _is_symbol(self):
    """True for a bare symbol (not an expression of symbols, not a constant)."""
    if self.is_concrete():
        return False
    names = self.symbols()
    return len(names) == 1 and str(self) == names[0]


def _is_expression(self):
    """True for an expression over symbols (neither a constant nor a bare symbol)."""
    return not self.is_concrete() and not _is_symbol(self)


def _min(self, other):
    return _core.sym_min(self, other)


def _max(self, other):
    return _core.sym_max(self, other)


def _as_variable(self):
    """Accepted for compatibility: PyPTO marks the expression as an intermediate variable; values are
    unchanged, so there is nothing to do here."""


_core_bool = _Core.__bool__


def _bool(self):
    # `if cond:` on a symbolic condition inside a kernel branches when the kernel runs, exactly like
    # `if pypto.cond(cond):` (PyPTO's parser turns such `if`s into run-time conditions). Outside a trace,
    # or on a constant, Python truth as usual.
    if not self.is_concrete() and _state.active() is not None:
        from ._control import cond
        return cond(self)
    return _core_bool(self)


for _name, _function in (("is_immediate", _is_immediate), ("is_symbol", _is_symbol),
                         ("is_expression", _is_expression), ("min", _min), ("max", _max),
                         ("as_variable", _as_variable), ("__bool__", _bool)):
    setattr(_Core, _name, _function)


# --- static dims as Python numbers ---------------------------------------------------------------------------
# PyPTO hands out a static dim as a Python int, so kernels write `x * (1.0 / x.shape[-1])`. Here every dim is a
# symbolic scalar (a static one is a known constant), which keeps shape arithmetic uniform; a known one
# therefore also takes part in float arithmetic and true division, giving a Python float as the int would.
# A dim only known when the kernel runs stays symbolic: mixing it with a float is an error saying so.

def _is_float(value):
    return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)


def _is_integer(value):
    return isinstance(value, (_Core, numbers.Integral)) or hasattr(value, "__index__")


def _known_value(scalar, expression):
    """The value of a known scalar; for one only known at run time, a KernelError naming `expression`."""
    if scalar.is_concrete():
        return scalar.concrete()
    file, line, _ = user_location()
    raise KernelError(f"'{scalar}' is only known when the kernel runs, so {expression} cannot be computed while "
                      f"tracing; only dims known while tracing (static dims) act as Python numbers", file, line)


def _with_floats(name, symbol, symbolic_operation, float_operation):
    """`name` on the core's class: a float operand uses float_operation on the known value; ints and symbolic
    scalars keep the symbolic arithmetic; anything else (a Tensor) is left to its reflected operator."""
    def operation(self, other):
        # Ints and scalars first, by exact type: shape arithmetic is most of a large kernel's trace (DIA: ~23 000
        # operations), and the number ABCs' isinstance checks below were most of each operation's own time.
        kind = type(other)
        if kind is int or kind is _Core:
            return symbolic_operation(self, other)
        if _is_float(other):
            return float_operation(_known_value(self, f"'{self} {symbol} {other!r}'"), other)
        if _is_integer(other):
            return symbolic_operation(self, other)
        return NotImplemented
    operation.__name__ = name
    return operation


for _name, _symbol, _float_operation in (("__add__", "+", lambda a, b: a + b), ("__radd__", "+", lambda a, b: b + a),
                                         ("__sub__", "-", lambda a, b: a - b), ("__rsub__", "-", lambda a, b: b - a),
                                         ("__mul__", "*", lambda a, b: a * b), ("__rmul__", "*", lambda a, b: b * a)):
    setattr(_Core, _name, _with_floats(_name, _symbol, getattr(_Core, _name), _float_operation))


def _truediv(self, other):
    """self / other as Python's true division of the known values (a float)."""
    if not (_is_float(other) or _is_integer(other)):
        return NotImplemented
    expression = f"'{self} / {other}'"
    divisor = other if _is_float(other) else _known_value(_core.to_symbolic(other), expression)
    return _known_value(self, expression) / divisor


def _rtruediv(self, other):
    """other / self (other a Python number) as a float: `1.0 / x.shape[-1]`."""
    if not (_is_float(other) or _is_integer(other)):
        return NotImplemented
    return (other if _is_float(other) else int(other)) / _known_value(self, f"'{other!r} / {self}'")


def _pow(self, other):
    """self ** other on the known values, as Python numbers (PyPTO's static dims are ints: `1 / d**0.5`)."""
    if not (_is_float(other) or _is_integer(other)):
        return NotImplemented
    expression = f"'{self} ** {other!r}'"
    exponent = other if _is_float(other) else _known_value(_core.to_symbolic(other), expression)
    return _known_value(self, expression) ** exponent


def _rpow(self, other):
    """other ** self (other a Python number) on the known value."""
    if not (_is_float(other) or _is_integer(other)):
        return NotImplemented
    return (other if _is_float(other) else int(other)) ** _known_value(self, f"'{other!r} ** {self}'")


def _float(self):
    return float(_known_value(self, f"float({self})"))


_Core.__truediv__ = _truediv
_Core.__rtruediv__ = _rtruediv
_Core.__float__ = _float
_Core.__pow__ = _pow
_Core.__rpow__ = _rpow


def ceildiv(a, b):
    """ceil(a / b) for ints and symbolic scalars (pypto.ceildiv): (a + b - 1) // b, symbolic when either is
    known only when the kernel runs."""
    return (a + b - 1) // b
