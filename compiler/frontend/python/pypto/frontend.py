"""pypto.frontend: the decorator PyPTO's newer examples use."""
from ._jit import jit
from ._tensor import SymbolicScalar


def dynamic(name):
    """A named dynamic dim. Use it in parameter shapes and in the body:
    every parameter using it must have the same size there."""
    return SymbolicScalar.symbol(str(name))


def function(target=None, **options):
    """`@pypto.frontend.function`: a reusable sub-function called from kernels. PyPTO compiles it as its own
    graph; PTO Studio traces it inline where it is called, so the decorator returns the function itself."""
    if target is None:
        return lambda f: f
    return target


__all__ = ["jit", "dynamic", "function"]
