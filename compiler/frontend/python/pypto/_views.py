"""The pypto ops that address part of a tensor: view (including a view past the end, and view(dtype=)), indexing
with [] on either side of an assignment, assemble and move."""
import builtins
import math

import _pypto_core as _core

from . import _state
from ._dtypes import checked as _checked_dtype
from ._recording import _fail, _is_tensor, _known_int, _one, _record, _scalar_value
from ._shapes import _valid_shape, concat, full, reshape
from ._tensor import SymbolicScalar


def view(input, shape=None, offsets=None, *, valid_shape=None, dtype=None):  # noqa: A002 - PyPTO's names
    """A region of input (no copy): `shape` elements starting at `offsets`. Its valid part (the leading
    elements that hold data; PyPTO's validShape) is valid_shape, evaluated when the kernel runs, or else what
    of input's valid part the region covers. Ops compute on valid parts only: a reduction or a matmul's
    contraction spans the valid elements, an assemble writes the valid part. As in PyPTO, a region reaching
    past the end of input is allowed when its known sizes say so: the part inside input (further limited by
    valid_shape) holds its data and the rest is zero; such a view is a new tensor, so writing into it leaves
    input alone. With dtype=, input's bytes read as that dtype (numpy's x.view(dtype)), see _bitcast."""
    x = input
    if dtype is not None and _checked_dtype(dtype, "view") != x.dtype:
        if shape is not None or offsets is not None or valid_shape is not None:
            # PyPTO's view(dtype=) drops them without a word; a region the kernel asked for and did not get
            # would give wrong numbers, so the two steps are asked for one by one.
            _fail(f"view(dtype={dtype.name}) with shape, offsets or valid_shape: PyPTO reinterprets the whole "
                  f"input and ignores them; take the region with pypto.view(x, shape, offsets) first, then "
                  f"pypto.view(region, dtype={dtype.name})")
        return _bitcast(x, dtype)
    if shape is None:
        if offsets is not None or valid_shape is not None:
            _fail("view: offsets and valid_shape need a shape")
        return _one("view", [x], {"shape": x.shape, "offsets": [0] * len(x.shape)})
    offsets = list(offsets) if offsets is not None else [0] * len(shape)
    padded = _padded_view(x, list(shape), offsets, valid_shape)
    if padded is not None:
        return padded
    attrs = {"shape": list(shape), "offsets": offsets}
    if valid_shape is not None:
        attrs["valid_shape"] = _valid_shape(valid_shape, len(shape), "view")
    result = _one("view", [x], attrs)
    result._view_of = (x, offsets)  # for ops that address the underlying tensor (experimental.gather_in_ub)
    if valid_shape is not None:
        result._valid_shape = attrs["valid_shape"]  # Tensor.valid_shape, fillpad
    return result


def _bitcast(x, dtype):
    """x's bytes, row-major, read as `dtype` (PyPTO's view(x, dtype=), numpy's x.view(dtype)): the last dim
    scales by x.dtype.itemsize / dtype.itemsize and must hold a whole number of the new elements. The result
    is a copy made by the kernel (a tiled TCOPY), not an alias: writing it leaves x alone."""
    if len(x.shape) == 0:
        _fail(f"view(dtype={dtype.name}): a 0-d {x.dtype.name} tensor has no last dim to scale; reshape it to [1] "
              f"first")
    last = _known_int(x.shape[-1])
    if last is not None and (last * x.dtype.itemsize) % dtype.itemsize != 0:
        whole = dtype.itemsize // math.gcd(x.dtype.itemsize, dtype.itemsize)
        dims = ", ".join(str(d) for d in x.shape)
        _fail(f"view(dtype={dtype.name}): the last dim of {x.dtype.name} [{dims}] is {last} elements = "
              f"{last * x.dtype.itemsize} bytes, not a whole number of {dtype.itemsize}-byte {dtype.name} "
              f"elements; view a region whose last dim is a multiple of {whole} first")
    return _one("bitcast", [x], {"dtype": dtype})


def _padded_view(x, shape, offsets, valid_shape):
    """The zero-padded copy for a view reaching past x's end, else None. An axis reaches past the end when its
    size, offset and x's dim are known while tracing and offset + size > dim (a block table's [1, 1024] row view
    over [b, 16]); the other axes may be known only at run time (a batch index over a dynamic batch) and are
    taken as given (then only without valid_shape, which otherwise bounds the data when the kernel runs)."""
    dims = [_known_int(d) for d in x.shape]
    sizes = [_known_int(d) for d in shape]
    starts = [_known_int(o) for o in offsets]
    if len(sizes) != len(dims) or len(starts) != len(dims) or None in sizes:
        return None
    short = [start is not None and dim is not None and start + size > dim
             for start, size, dim in zip(starts, sizes, dims)]
    if not any(short):
        return None
    valid = list(valid_shape) if valid_shape is not None else list(sizes)
    if len(valid) != len(sizes):
        return None
    known_valid = [_known_int(v) for v in valid]
    if any(is_short and limit is None for is_short, limit in zip(short, known_valid)):
        return None
    everything_known = None not in dims + starts + known_valid
    if not everything_known and valid_shape is not None:
        return None  # the valid part says what holds data: the compiler bounds each block by it at run time
    # All known: the view is exactly its data (valid_shape cuts every axis), zero-padded to its size. Otherwise
    # only the short axes are cut; the others (sizes at offsets known when the kernel runs) keep their size.
    inside = [builtins.min(size, dim - start, limit) if is_short or everything_known else size
              for size, dim, start, limit, is_short in zip(sizes, dims, starts, known_valid, short)]
    if any(start is not None and start < 0 for start in starts) or any(extent <= 0 for extent in inside):
        _fail(f"view: the region {sizes} at offsets {[str(o) for o in offsets]} of a tensor of shape "
              f"{[str(d) for d in x.shape]} holds none of its data (valid_shape {[str(v) for v in valid]}); move the "
              f"offsets inside the tensor")
    # The data, then zeros concatenated along each short axis.
    result = _one("view", [x], {"shape": inside, "offsets": list(offsets)})
    for axis, (extent, size) in enumerate(zip(inside, sizes)):
        if extent < size:
            pad_shape = list(sizes[:axis]) + [size - extent] + list(inside[axis + 1:])
            result = concat([result, full(pad_shape, 0, x.dtype)], axis)
    return result


def _region(x, index):
    """(offsets, sizes, dims kept) of x[index] for ints, slices and `...`."""
    shape = x.shape
    if not isinstance(index, tuple):
        index = (index,)
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        _fail("an index can hold at most one '...'")
    explicit = builtins.sum(1 for i in index if i is not Ellipsis)
    if explicit > len(shape):
        _fail(f"too many indices ({explicit}) for a tensor of rank {len(shape)}")
    expanded = []
    for item in index:
        if item is Ellipsis:
            expanded.extend([slice(None)] * (len(shape) - explicit))
        else:
            expanded.append(item)
    expanded.extend([slice(None)] * (len(shape) - len(expanded)))
    offsets, sizes, kept = [], [], []
    for axis, (item, extent) in enumerate(zip(expanded, shape)):
        if isinstance(item, slice):
            if item.step not in (None, 1):
                _fail("slices with a step are not supported; use a view per step or gather")
            start = 0 if item.start is None else item.start
            stop = extent if item.stop is None else item.stop
            if isinstance(start, int) and start < 0:
                start = extent + start
            if isinstance(stop, int) and stop < 0:
                stop = extent + stop
            if isinstance(stop, int) and extent.is_concrete() and stop > extent.concrete():
                stop = extent.concrete()
            offsets.append(start)
            sizes.append(_core.to_symbolic(stop) - _core.to_symbolic(start))
            kept.append(True)
        elif isinstance(item, (int, SymbolicScalar)):
            position = item
            if isinstance(item, int) and item < 0:
                position = extent + item
            offsets.append(position)
            sizes.append(1)
            kept.append(False)
        else:
            _fail(f"unsupported index {item!r}: use ints, slices and '...'")
    return offsets, sizes, kept


def getitem(x, index):
    offsets, sizes, kept = _region(x, index)
    result = view(x, sizes, offsets)
    if all(kept):
        return result
    return reshape(result, [s for s, k in zip(sizes, kept) if k])


def setitem(x, index, value):
    offsets, sizes, kept = _region(x, index)
    if _is_tensor(value) and value._id == x._id and all(kept) and _whole(x, offsets, sizes):
        return  # x[:] = x (after an in-place scatter_update): nothing moves
    if not _is_tensor(value):
        value = full([s for s in sizes], _scalar_value(value, "assignment"), x.dtype)
    elif len(value.shape) != len(sizes):
        value = reshape(value, sizes)
    # `states[b, h] = value` under the tile set for value's own rank: as assemble() does, that tile with 1 in
    # front for the leading dims the indexing added (Qwen3-Next's gated delta rule stores its states so).
    with _vec_tile_of_rank(len(sizes)):
        _record("assemble", [value], {"offsets": offsets}, into=[x])


def assemble(src, offsets, dst):
    """Writes src into dst at offsets. PyPTO places a tensor whatever the vec tile in force: a rank-3 matmul
    result assembled under a 2-D vec tile (Kimi's block attention residuals) is cut by that tile with 1 in front
    for the missing leading dims, for this op only (the values do not depend on the tiling)."""
    if _is_tensor(src) and _is_tensor(dst) and src._id == dst._id and all(_known_int(o) == 0 for o in offsets):
        return  # assemble(cache, [0, ...], cache), cache updated in place: nothing moves
    with _vec_tile_of_rank(len(src.shape) if _is_tensor(src) else 0):
        _record("assemble", [src], {"offsets": list(offsets)}, into=[dst])


class _vec_tile_of_rank:  # noqa: N801
    """Within the block, a vec tile of fewer than `rank` dims gets leading 1s up to `rank`; restored after (with
    the place it was set at, which later errors name)."""

    def __init__(self, rank):
        self._rank = rank
        self._saved = None

    def __enter__(self):
        state = _state.current()
        current = list(state.builder.vec_tile())
        if 0 < len(current) < self._rank:
            self._saved = (current, state.builder.vec_tile_site())
            file, line = self._saved[1]
            state.builder.set_vec_tile([1] * (self._rank - len(current)) + current, file, line)
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            tile, (file, line) = self._saved
            _state.current().builder.set_vec_tile(tile, file, line)
        return False


def move(dst, src):
    """dst.move(src): writes src into dst (same shape). When src is dst itself, or an in-place reshape of it
    (PyPTO's GLM attention: `key_cache.move(scatter_update(key_cache_2d, ...))` with key_cache_2d =
    reshape(key_cache, [n, d], inplace=True)), the data is already dst's: PyPTO's move then rebinds dst to
    the same bytes, and nothing moves."""
    if _is_tensor(src) and _is_tensor(dst):
        alias = src
        while alias is not None:
            if alias._id == dst._id:
                return  # cache.move(scatter_update(cache, ...)): the update is already in place
            alias = getattr(alias, "_inplace_of", None)
    _record("copy", [src], into=[dst])


def _whole(x, offsets, sizes):
    """Whether the region (offsets, sizes) is all of x, as far as tracing can tell."""
    for offset, size, extent in zip(offsets, sizes, x.shape):
        if _known_int(offset) != 0 or _known_int(size) is None or _known_int(size) != _known_int(extent):
            return False
    return True
