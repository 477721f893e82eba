"""pypto.frontend: the decorator PyPTO's newer examples use."""
from ._jit import jit
from ._tensor import SymbolicScalar


def dynamic(name):
    """A named dynamic dim. Use it in parameter shapes and in the body:
    every parameter using it must have the same size there."""
    return SymbolicScalar.symbol(str(name))


__all__ = ["jit", "dynamic"]
