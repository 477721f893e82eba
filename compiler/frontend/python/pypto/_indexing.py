"""The pypto ops that pick or place elements by an index tensor (gather, index_select, scatter, scatter_update in
torch's and PyPTO's paged-cache forms) and that sort (topk, argsort)."""
from ._dtypes import DataType
from ._recording import _fail, _is_tensor, _known_int, _one, _record, _scalar_value
from ._shapes import cast, reshape


def gather(x, dim, index):
    return _one("gather", [x, index], {"dim": int(dim)})


def index_select(x, dim, index):
    """x's slices along dim at the positions index holds. A multi-dim index (PyPTO's Gather) picks with its
    elements flattened and puts its dims in place of dim: the result is x's dims before dim, index's dims, then
    x's dims after dim."""
    rank = len(x.shape)
    dim = int(dim) % rank if rank else int(dim)
    if not _is_tensor(index) or len(index.shape) <= 1:
        return _one("index_select", [x, index], {"dim": dim})
    count = 1
    for extent in index.shape:
        count = count * extent
    result_shape = list(x.shape[:dim]) + list(index.shape) + list(x.shape[dim + 1:])
    index_valid = index.__dict__.get("_valid_shape")
    if index_valid is None:
        picked = _one("index_select", [x, reshape(index, [count])], {"dim": dim})
        return reshape(picked, result_shape)
    # A block of the index valid in part of its rows (PyPTO's Gather over view blocks past the end): its
    # valid elements are no prefix of the flattened index, so the flat index keeps every position of its
    # valid leading rows (those past a row's valid part read zeros, row 0: in range, and dropped below), and
    # the result's valid part is said in the index's dims.
    inner = 1
    for extent in index.shape[1:]:
        inner = inner * extent
    flat = reshape(index, [count], valid_shape=[index_valid[0] * inner])
    picked = _one("index_select", [x, flat], {"dim": dim})
    x_valid = list(x.__dict__.get("_valid_shape") or x.shape)
    valid = x_valid[:dim] + list(index_valid) + x_valid[dim + 1:]
    return reshape(picked, result_shape, valid_shape=valid)


def _scatter_inputs(x, index, src, reduce):
    attrs = {}
    inputs = [x, index]
    if _is_tensor(src):
        inputs.append(src)
    else:
        # A scalar src writes that value at every index position: an operand of the instruction, as PyPTO's
        # scalar scatter takes it, not a tensor of the index's shape (as much unified buffer as the index).
        attrs["value"] = _scalar_value(src, "scatter")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            _fail(f"scatter: reduce must be 'add' or 'multiply', got {reduce!r}")
        attrs["reduce"] = reduce
    return inputs, attrs


def scatter(x, dim, index, src, *, reduce=None):
    """torch.scatter: a copy of x with src (a tensor, or a scalar) written at index along dim; with
    reduce='add' or 'multiply' the values are combined with what is there. bf16 values are combined in fp32
    and rounded once (the vector unit has no bf16 arithmetic; PyPTO's golden combines so): a position indexed
    several times is not rounded after each step."""
    if reduce is not None and _is_tensor(x) and x.dtype == DataType.DT_BF16:
        fp32 = DataType.DT_FP32
        wide_src = cast(src, fp32) if _is_tensor(src) else src
        return cast(scatter(cast(x, fp32), dim, index, wide_src, reduce=reduce), DataType.DT_BF16)
    inputs, attrs = _scatter_inputs(x, index, src, reduce)
    attrs["dim"] = int(dim)
    return _one("scatter", inputs, attrs)


def scatter_(x, dim, index, src, *, reduce=None):
    """In-place scatter: writes into x and returns it."""
    inputs, attrs = _scatter_inputs(x, index, src, reduce)
    attrs["dim"] = int(dim)
    _record("scatter", inputs, attrs, into=[x])
    return x


def scatter_update(x, dim, index, src):
    """x with src's slices written at `index` along `dim`. Two forms:

    * torch-style, a 1-D index: a new tensor, out = x, then out's slice index[i] along dim = src's slice i
      (src is x's shape with index's length at dim).
    * PyPTO's paged-cache form, dim -2 with a 2-D index [b, s] of flat slot numbers: x is a cache
      [blocks, block_size, 1, d] (or [blocks * block_size, d]) and src holds the new rows as [b, s, 1, d]
      (or [b * s, d]); slot n = index[i][j] is row n % block_size of block n // block_size, and takes
      src[i][j]. As in PyPTO, x is updated in place and returned: only the rows named move (an MSCATTER per
      tile of src), the cache is never loaded. Writing the result back to x (x[:] = ..., x.move(...)) moves
      nothing; writing it to another tensor copies the whole updated cache there."""
    dim = int(dim)
    if _is_tensor(index) and len(index.shape) == 2:
        return _paged_scatter_update(x, dim, index, src)
    return _one("scatter_update", [x, index, src], {"dim": dim})


def _paged_scatter_update(cache, dim, index, src):
    """PyPTO's form as a row scatter into the cache itself (attribute rows=True): the cache's slots are its
    rows, one index over all its dims but the last (the cache is contiguous), and src's rows are taken in
    index order. src keeps its rank ([n, 1, 1, d] for a 4-D cache), so the vec tile the kernel gives for the
    4-D form cuts it."""
    what = "scatter_update (PyPTO's paged-cache form, a 2-D index)"
    rank = len(cache.shape)
    if dim not in (-2, rank - 2):
        _fail(f"{what}: dim must be -2, got {dim}")
    if rank not in (2, 4) or (rank == 4 and _known_int(cache.shape[2]) != 1):
        _fail(f"{what}: the cache must be [blocks, block_size, 1, d] or [blocks * block_size, d], got "
              f"[{', '.join(str(d) for d in cache.shape)}]")
    if len(src.shape) not in (2, 4) or (len(src.shape) == 4 and _known_int(src.shape[2]) != 1):
        _fail(f"{what}: src must be [b, s, 1, d] or [b * s, d], got [{', '.join(str(d) for d in src.shape)}]")
    width = cache.shape[-1]
    updates = index.shape[0] * index.shape[1]
    flat_index = reshape(index, [updates])
    row_shape = [updates, 1, 1, width] if rank == 4 else [updates, width]
    rows = src if _same_dims(src.shape, row_shape) else reshape(src, row_shape)
    _record("scatter_update", [cache, flat_index, rows], {"dim": rank - 2, "rows": True}, into=[cache])
    return cache


def _same_dims(shape, dims):
    return len(shape) == len(dims) and all(_known_int(a) is not None and _known_int(a) == _known_int(b)
                                           for a, b in zip(shape, dims))


def topk(x, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    """The k largest (or smallest) values along dim and their indices."""
    values, indices = _record("topk", [x], {"k": int(k), "dim": int(dim), "largest": bool(largest)})
    return values, indices


# A sorted dim longer than this that is not x's last is sorted after a transpose (see argsort).
LONG_COLUMN = 1024


def argsort(x, dim=-1, descending=False):
    """Indices that sort x along dim (stable: equal values keep their order). A tile holds the sorted dim whole;
    along a dim that is not the last, each element of it is a row of its own in the unified buffer, padded to
    32 bytes, so a long column (PyPTO's ArgSort of [12 101, 3] fp16 along dim 0: 378 KiB of values alone)
    cannot fit however the other dims are cut. Such a column is moved to the last dim by a transpose, sorted
    there and moved back: the same indices (PyPTO's own argsort cuts the column and merges the sorted chunks)."""
    dim = int(dim)
    rank = len(x.shape)
    axis = dim + rank if dim < 0 else dim
    extent = _known_int(x.shape[axis]) if 0 <= axis < rank else None
    if axis < rank - 1 and extent is not None and extent > LONG_COLUMN:
        from ._shapes import transpose
        rows = _one("argsort", [transpose(x, axis, rank - 1)], {"dim": rank - 1, "descending": bool(descending)})
        return transpose(rows, axis, rank - 1)
    return _one("argsort", [x], {"dim": dim, "descending": bool(descending)})
