"""pypto.Tensor: a parameter annotation outside a trace, a traced tensor inside."""
import _pypto_core as _core

from . import _state
from ._errors import KernelError
from ._location import user_location

SymbolicScalar = _core.SymbolicScalar


class _DimMarker:
    """DYNAMIC / STATIC markers in annotations."""

    def __init__(self, name, symbol=None):
        self._name = name
        self.symbol = symbol

    def __repr__(self):
        return f"pypto.{self._name}" if self.symbol is None else f"pypto.frontend.dynamic({self.symbol!r})"


DYNAMIC = _DimMarker("DYNAMIC")
DYN = DYNAMIC
STATIC = _DimMarker("STATIC")


def dynamic(name):
    """A named dynamic dim: every parameter using it must have the same size there."""
    return _DimMarker("dynamic", symbol=name)


class Tensor:
    """In a kernel signature, `pypto.Tensor(shape, dtype)` declares a
    parameter (shape entries: ints, pypto.DYNAMIC, pypto.STATIC, `...`).
    While tracing, operations on tensors record ops in the graph."""

    __array_priority__ = 1000  # numpy scalars defer to our operators

    def __init__(self, shape=None, dtype=None, name=None):
        self._id = None
        self._state = None
        self.spec_shape = shape
        self.spec_dtype = dtype
        self._name = name

    def __class_getitem__(cls, item):
        if item is Ellipsis:
            return cls(None, None)
        if isinstance(item, tuple) and len(item) == 2:
            return cls(item[0], item[1])
        return cls(item, None)

    @classmethod
    def _traced(cls, state, tensor_id):
        tensor = cls.__new__(cls)
        tensor._id = tensor_id
        tensor._state = state
        tensor.spec_shape = None
        tensor.spec_dtype = None
        tensor._name = None
        return tensor

    # --- properties -------------------------------------------------------
    def _require_traced(self):
        if self._id is None:
            file, line, _ = user_location()
            raise KernelError("this Tensor is a parameter annotation, not a traced tensor", file, line)

    @property
    def dtype(self):
        if self._id is None:
            return self.spec_dtype
        return self._state.builder.tensor_type(self._id)[0]

    @property
    def shape(self):
        if self._id is None:
            return self.spec_shape
        return list(self._state.builder.tensor_type(self._id)[1])

    @property
    def name(self):
        if self._id is None:
            return self._name
        return self._state.builder.tensor_type(self._id)[2]

    @property
    def ndim(self):
        return len(self.shape)

    def dim(self):
        return self.ndim

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def __len__(self):
        first = self.shape[0]
        return first.concrete()

    def __repr__(self):
        if self._id is None:
            return f"pypto.Tensor({self.spec_shape!r}, {self.spec_dtype!r})"
        dims = ", ".join(str(d) for d in self.shape)
        return f"<pypto.Tensor {self.name} {self.dtype.numpy_name} [{dims}]>"

    def __bool__(self):
        file, line, _ = user_location()
        raise KernelError("the truth value of a traced tensor is not known while tracing; "
                          "use pypto.where(...) for elementwise choices", file, line)

    def __hash__(self):
        return id(self)

    # --- operators ----------------------------------------------------------
    def __add__(self, other): return _ops().add(self, other)
    def __radd__(self, other): return _ops().add(other, self)
    def __sub__(self, other): return _ops().sub(self, other)
    def __rsub__(self, other): return _ops().sub(other, self)
    def __mul__(self, other): return _ops().mul(self, other)
    def __rmul__(self, other): return _ops().mul(other, self)
    def __truediv__(self, other): return _ops().div(self, other)
    def __rtruediv__(self, other): return _ops().div(other, self)
    def __pow__(self, other): return _ops().pow(self, other)
    def __rpow__(self, other): return _ops().pow(other, self)
    def __neg__(self): return _ops().neg(self)
    def __abs__(self): return _ops().abs(self)
    def __matmul__(self, other): return _ops().matmul(self, other)
    def __eq__(self, other): return _ops().eq(self, other)
    def __ne__(self, other): return _ops().ne(self, other)
    def __lt__(self, other): return _ops().lt(self, other)
    def __le__(self, other): return _ops().le(self, other)
    def __gt__(self, other): return _ops().gt(self, other)
    def __ge__(self, other): return _ops().ge(self, other)
    def __and__(self, other): return _ops().logical_and(self, other)
    def __or__(self, other): return _ops().logical_or(self, other)
    def __invert__(self): return _ops().logical_not(self)

    def __getitem__(self, index): return _ops().getitem(self, index)
    def __setitem__(self, index, value): _ops().setitem(self, index, value)

    def __iter__(self):
        file, line, _ = user_location()
        raise KernelError("a traced tensor cannot be iterated in Python; use pypto.loop(...) and views",
                          file, line)

    # --- methods mirroring the functions ------------------------------------
    def __getattr__(self, attribute):
        # Tensor methods are the module functions with this tensor first:
        # x.exp(), x.sum(dim=-1), x.reshape([...]), x.view(...), ...
        if attribute.startswith("_"):
            raise AttributeError(attribute)
        function = _ops().TENSOR_METHODS.get(attribute)
        if function is None:
            raise AttributeError(f"pypto.Tensor has no attribute '{attribute}'")
        return lambda *args, **kwargs: function(self, *args, **kwargs)


def _ops():
    from . import _ops as ops
    return ops
