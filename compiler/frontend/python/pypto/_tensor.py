"""pypto.Tensor: a parameter annotation or description outside a trace, a traced tensor inside."""
import enum

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


class TileOpFormat(enum.Enum):
    """How a tensor's data is laid out. Arrays passed in from Python are ND (row-major) and are computed as
    such; NZ on a kernel parameter's annotation tells the timing model the tensor lies in GM as the cube's
    fractals (PyPTO's quantized weights), so its loads into L1 need no per-row conversion."""
    TILEOP_ND = 0
    TILEOP_NZ = 1


class _Rank(int):
    """Tensor.dim: PyPTO reads it as a property (t.dim); older code calls it (t.dim())."""

    def __call__(self):
        return int(self)


class Tensor:
    """In a kernel signature, `pypto.Tensor(shape, dtype)` declares a parameter (shape entries: ints,
    pypto.DYNAMIC or -1, pypto.STATIC, `...`, pypto.frontend.dynamic(name)). Outside a kernel it is a
    description (shape, dtype, name, format). Inside a kernel `pypto.Tensor(shape, dtype)` makes a new
    temporary, like `pypto.tensor`. Operations on traced tensors record ops in the graph."""

    __array_priority__ = 1000  # numpy scalars defer to our operators

    def __new__(cls, shape=None, dtype=None, name="", format=None, data_ptr=None, device=None,  # noqa: A002
                ori_shape=None):
        if shape is not None and _state.active() is not None:
            from ._ops import tensor as make_temporary
            return make_temporary(shape, dtype if dtype is not None else _core.DataType.DT_FP32, name or None)
        return super().__new__(cls)

    def __init__(self, shape=None, dtype=None, name="", format=None, data_ptr=None, device=None,  # noqa: A002
                 ori_shape=None):
        if self.__dict__.get("_id") is not None:
            return  # a temporary made by __new__, already complete
        self._id = None
        self._state = None
        self.spec_shape = list(shape) if isinstance(shape, tuple) else shape
        self.spec_dtype = dtype
        self._name = name or None
        self._format = format if format is not None else TileOpFormat.TILEOP_ND

    def __class_getitem__(cls, item):
        if item is Ellipsis:
            return cls(None, None)
        if isinstance(item, tuple) and len(item) == 2:
            return cls(item[0], item[1])
        return cls(item, None)

    @classmethod
    def _traced(cls, state, tensor_id):
        tensor = object.__new__(cls)
        tensor._id = tensor_id
        tensor._state = state
        tensor.spec_shape = None
        tensor.spec_dtype = None
        tensor._name = None
        tensor._format = TileOpFormat.TILEOP_ND
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
            return self._described_shape()
        return list(self._state.builder.tensor_type(self._id)[1])

    @property
    def valid_shape(self):
        """The leading part of the shape that holds data (PyPTO's validShape): what a view's, reshape's or
        full's valid_shape said, else the whole shape. Sizes are ints or symbolic scalars known when the kernel
        runs."""
        valid = self.__dict__.get("_valid_shape")
        return list(valid) if valid is not None else self.shape

    def _described_shape(self):
        """A description's dims as symbolic scalars: ints as constants, -1 / pypto.DYNAMIC as a symbol
        named after the tensor and axis, so shape arithmetic works before any kernel runs."""
        if self.spec_shape is None:
            return None
        dims = []
        for axis, dim in enumerate(self.spec_shape):
            if isinstance(dim, int) and not isinstance(dim, bool) and dim >= 0:
                dims.append(SymbolicScalar(dim))
            elif (isinstance(dim, int) and dim == -1) or dim is DYNAMIC:
                dims.append(SymbolicScalar.symbol(f"{self._name or 'tensor'}_{axis}"))
            elif isinstance(dim, _DimMarker) and dim.symbol:
                dims.append(SymbolicScalar.symbol(dim.symbol))
            else:
                dims.append(dim)
        return dims

    @property
    def name(self):
        if self._id is None:
            return self._name
        return self._state.builder.tensor_type(self._id)[2]

    @name.setter
    def name(self, value):
        if self._id is not None:
            file, line, _ = user_location()
            raise KernelError("a traced tensor cannot be renamed; name it when it is created "
                              "(pypto.tensor(shape, dtype, name))", file, line)
        self._name = str(value)

    @property
    def format(self):  # noqa: A003 - PyPTO's name
        return self._format

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def dim(self):
        """The rank (a read-only property in PyPTO; calling it also works)."""
        return _Rank(len(self.shape))

    def size(self, dim=None):
        return self.shape if dim is None else self.shape[dim]

    def __len__(self):
        first = self.shape[0]
        return first.concrete()

    def __repr__(self):
        if self._id is None:
            named = f", name={self._name!r}" if self._name else ""
            return f"pypto.Tensor({self.spec_shape!r}, {getattr(self.spec_dtype, 'name', self.spec_dtype)}{named})"
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

    def __getitem__(self, index):
        # act_seq[b] / block_table[b, i]: one element of an integer argument is
        # a scalar the kernel computes with (PyPTO's GetTensorData), read when
        # the kernel runs; anything else (slices, float tensors, temporaries)
        # is a view, as before.
        scalar = self._element_read(index)
        if scalar is not None:
            return scalar
        return _ops().getitem(self, index)

    def _element_read(self, index):
        if self._id is None:
            return None
        items = index if isinstance(index, tuple) else (index,)
        shape = self.shape
        if len(items) != len(shape) or not all(_is_scalar_index(item) for item in items):
            return None
        flat = SymbolicScalar(0)
        for axis, (item, size) in enumerate(zip(items, shape)):
            if isinstance(item, int):
                known = int(size) if size.is_concrete() else None
                if item < 0:
                    if known is None:
                        file, line, _ = user_location()
                        raise KernelError(f"index {item} counts from the end of dim {axis}, whose size is only known "
                                          f"when the kernel runs; write {size} - {-item}", file, line)
                    item += known
                if item < 0 or (known is not None and item >= known):
                    file, line, _ = user_location()
                    raise KernelError(f"index {items[axis]} is out of range for dim {axis} of size {size}", file, line)
            flat = flat * size + item
        try:
            return self._state.builder.read_element(self._id, flat)
        except ValueError:
            # Not an argument: keep the view semantics of indexing.
            return None
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


def _is_scalar_index(item):
    return (isinstance(item, int) and not isinstance(item, bool)) or isinstance(item, SymbolicScalar)


def _ops():
    from . import _ops as ops
    return ops
