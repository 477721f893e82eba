"""pypto.experimental: PyPTO's experimental operations (its python/pypto/experimental package).

The paged-attention gathers and the transposed batch matmul are built here from operations the compiler and
simulator model (gather, index_select, integer div/mul/sub, view, transpose, matmul), so they compute what
PyPTO's fused instructions compute and the swimlane shows what the composite costs; PyPTO's own versions are
single instructions that move the rows straight into UB or L1, so their timing differs. The other
experimental operations raise a KernelError at the call saying why they are not supported."""
from . import _config, _ops, _options, _recording, _state
from ._api_extras import _unsupported
from ._dtypes import bytes_of
from ._errors import KernelError
from ._location import user_location
from ._tensor import SymbolicScalar, Tensor


def _fail(message):
    file, line, column = user_location()
    raise KernelError(message, file, line, column)


def _shape_text(tensor):
    return "[" + ", ".join(str(d) for d in tensor.shape) + "]"


def _known_positive(value, what):
    """A positive int known while tracing (a Python int or a static dim)."""
    if isinstance(value, SymbolicScalar) and value.is_concrete():
        value = value.concrete()
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        _fail(f"{what} must be a positive int known while tracing, got {value!r}")
    return value


def _check_tensor(value, rank, what):
    if not isinstance(value, Tensor) or value._id is None:
        _fail(f"{what} must be a traced tensor, got {type(value).__name__}")
    if len(value.shape) != rank:
        _fail(f"{what} must be {rank}-D, got {_shape_text(value)}")


def _token_rows(what, param, indices, block_table, block_size, axis):
    """The rows of param (a paged cache flattened to [tokens, D]) that the token numbers in indices [1, k]
    name through block_table [1, blocks]: token t is row t % block_size of block block_table[0, t //
    block_size]. Returned as a 1-D [k] index for index_select."""
    _check_tensor(param, 2, f"{what}: the cache (param)")
    _check_tensor(indices, 2, f"{what}: indices")
    _check_tensor(block_table, 2, f"{what}: block_table")
    if int(axis) not in (-2, 0):
        _fail(f"{what}: axis must be -2 (the token axis of a [tokens, D] cache), got {axis}")
    for tensor, name in ((indices, "indices"), (block_table, "block_table")):
        if tensor.dtype.is_float() or tensor.dtype == _ops.DataType.DT_BOOL:
            _fail(f"{what}: {name} must be an integer tensor, got {tensor.dtype.name}")
        rows = tensor.shape[0]
        if not (rows.is_concrete() and rows.concrete() == 1):
            _fail(f"{what}: {name} must have one row ([1, n]), got {_shape_text(tensor)}")
    block_size = _known_positive(block_size, f"{what}: block_size")
    # Integer tensors divide with floor division (compiler/reference/Arithmetic.h), so page and slot are
    # Python's // and % of the (non-negative) token numbers.
    page = _ops.div(indices, block_size)
    slot = _ops.sub(indices, _ops.mul(page, block_size))
    if page.dtype != block_table.dtype:
        page = _ops.cast(page, block_table.dtype)
        slot = _ops.cast(slot, block_table.dtype)
    block = _ops.gather(block_table, -1, page)
    rows = _ops.add(_ops.mul(block, block_size), slot)
    return _ops.reshape(rows, [indices.shape[1]])


def _rows_source(param, rows):
    """(tensor, rows) to gather from. PyPTO's gathers address rows from param's start in global memory, so when
    param is a view of whole rows (all columns, at column 0) a row past the view's end is a row of the tensor
    underneath: DeepSeek-V4's sparse attention passes a [topk, D] view at [0, 0] of its whole compressed cache
    and gathers rows anywhere in it. Such a view is replaced by its tensor, the rows moved by its row offset."""
    view_of = getattr(param, "_view_of", None)
    while view_of is not None:
        base, offsets = view_of
        width, base_width = param.shape[1], base.shape[1]
        whole_rows = (len(base.shape) == 2 and _recording._known_int(offsets[1]) == 0 and width.is_concrete()
                      and base_width.is_concrete() and width.concrete() == base_width.concrete())
        if not whole_rows:
            break
        if _recording._known_int(offsets[0]) != 0:
            rows = _ops.add(rows, offsets[0])
        param, view_of = base, getattr(base, "_view_of", None)
    return param, rows


def gather_in_ub(param, indices, block_table, block_size, axis=-2):
    """PyPTO's gather for sparse attention over a paged KV cache: out[i, :] = param[row(indices[0, i]), :],
    where token t lives in row t % block_size of block block_table[0, t // block_size] of param
    [blocks * block_size, D]. indices [1, k] and block_table [1, blocks] are integer tensors; the result is
    [k, D]. Built from integer //, *, -, gather and index_select. A param that is a view of whole rows
    addresses the tensor underneath, as PyPTO's global-memory addressing does (see _rows_source)."""
    rows = _token_rows("experimental.gather_in_ub", param, indices, block_table, block_size, axis)
    source, rows = _rows_source(param, rows)
    return _ops.index_select(source, 0, rows)


def gather_in_l1(src, indices, block_table, block_size, size, is_b_matrix=False, is_trans=False):
    """gather_in_ub's rows, keeping only their first `size` columns: [k, size], gathered into L1 as a matmul
    operand, as PyPTO does: under a vec tile the rows go from GM straight into the cube core's L1 (its index
    read from GM), so they must be consumed by a matmul in the same cube task. is_b_matrix and is_trans
    describe that operand's layout in L1, which the logical [k, size] result does not depend on, so they are
    checked and otherwise unused. A src that is a view of whole rows addresses the tensor underneath."""
    what = "experimental.gather_in_l1"
    for flag, name in ((is_b_matrix, "is_b_matrix"), (is_trans, "is_trans")):
        if not isinstance(flag, bool):
            _fail(f"{what}: {name} must be True or False, got {flag!r}")
    rows = _token_rows(what, src, indices, block_table, block_size, -2)
    src, rows = _rows_source(src, rows)
    size = _known_positive(size, f"{what}: size")
    width = src.shape[1]
    if width.is_concrete() and size > width.concrete():
        _fail(f"{what}: size {size} is more than the {width.concrete()} columns of src {_shape_text(src)}")
    columns = src if width.is_concrete() and size == width.concrete() else _ops.view(src, [src.shape[0], size],
                                                                                     [0, 0])
    # into_l1: the compiler gathers the rows into L1 on the cube core (an MGATHER feeding the matmul that
    # reads them), not into UB.
    return _recording._one("index_select", [columns, rows], {"dim": 0, "into_l1": True})


def transposed_batchmatmul(tensor_a, tensor_b, out_dtype):
    """a [M, B, K] times b [B, K, N] per batch, giving [M, B, N]: a is transposed to [B, M, K], multiplied
    by b batch by batch ([B, M, N]) and transposed back. Needs the cube tile shapes a matmul needs; the two
    transposes use the vec tile in force when it has three dims, else one made from the cube tile."""
    what = "experimental.transposed_batchmatmul"
    _check_tensor(tensor_a, 3, f"{what}: tensor_a ([M, B, K])")
    _check_tensor(tensor_b, 3, f"{what}: tensor_b ([B, K, N])")
    batch_a, batch_b = tensor_a.shape[1], tensor_b.shape[0]
    if batch_a.is_concrete() and batch_b.is_concrete() and batch_a.concrete() != batch_b.concrete():
        _fail(f"{what}: tensor_a {_shape_text(tensor_a)} has {batch_a} batches in dim 1 but tensor_b "
              f"{_shape_text(tensor_b)} has {batch_b} in dim 0")
    state = _state.current()
    if state.builder.cube_tile() is None:
        _ops.matmul(tensor_a, tensor_b)  # the matmul's own error: no cube tile shape is set
    m_tile, k_tile, n_tile, _ = state.builder.cube_tile()
    with _transpose_tile(state, [1, m_tile[0], k_tile[0]], tensor_a.dtype):
        a_by_batch = _ops.transpose(tensor_a, 0, 1)
    batched = _ops.matmul(a_by_batch, tensor_b, out_dtype)
    with _transpose_tile(state, [m_tile[0], 1, n_tile[0]], batched.dtype):
        return _ops.transpose(batched, 0, 1)


class _transpose_tile:  # noqa: N801
    """PyPTO's transposed_batchmatmul is one cube operation and needs no vec tile; the two transposes here
    are vector ops, which do. A kernel's vec tile in force for the surrounding ops often has two dims, which
    does not fit rank-3 transposes, so when it has fewer than three dims the transpose gets `tile` (the cube
    tile's, its innermost dim rounded up to a 32-byte block), for that op only."""

    def __init__(self, state, tile, dtype):
        self._builder = state.builder
        self._tile = list(tile)
        self._tile[-1] = -(-self._tile[-1] * bytes_of(dtype) // 32) * 32 // bytes_of(dtype)
        self._saved = None

    def __enter__(self):
        current = list(self._builder.vec_tile())
        if len(current) < 3:
            self._saved = current
            file, line, _ = user_location()
            self._builder.set_vec_tile(self._tile, file, line)
        return self

    def __exit__(self, *exc):
        if self._saved is not None:
            file, line, _ = user_location()
            self._builder.set_vec_tile(self._saved, file, line)
        return False


def set_operation_options(**options):
    """PyPTO's operation options (combine_axis): kept in the option scope in force, like pypto.set_options
    (operation_options={...}); PTO Studio acts on none of them, and a notice says so once."""
    _config.set_options(operation_options={key: value for key, value in options.items() if value is not None})


def get_operation_options():
    """The operation options in force (the merged open scopes)."""
    return _options.group_values("operation_options")


def online_softmax(scores, scale):
    """PyPTO's experimental online_softmax (its API page): of an fp32 [k_len, q_len] block of scores, per column
    (dim 0 reduced) the maximum m of scores * scale and the sum of exp(scores * scale - m), and those
    unnormalised exponentials as bf16: (exp_scores_bf16, column_max [1, q_len], column_sum [1, q_len]). Built
    from mul, amax, sub, exp, sum and cast (the sum of the fp32 exponentials, rounded to bf16 afterwards)."""
    _fp32_2d(scores, "experimental.online_softmax: scores")
    scaled = _ops.mul(scores, float(scale))
    column_max = _ops.amax(scaled, 0, True)
    exponentials = _ops.exp(_ops.sub(scaled, column_max))
    return _ops.cast(exponentials, _ops.DataType.DT_BF16), column_max, _ops.sum(exponentials, 0, True)


def online_softmax_update(previous_max, previous_sum, previous_output, current_max, current_sum, current_output):
    """PyPTO's experimental online_softmax_update (its API page): two blocks' column statistics and unnormalised
    outputs merged by the online-softmax rule, m = max(m_prev, m_cur), a = exp(m_prev - m), b = exp(m_cur - m):
    (m, a * sum_prev + b * sum_cur, a * out_prev + b * out_cur), the outputs [head_dim, q_len] scaled per
    column. Built from maximum, sub, exp, mul and add, all fp32."""
    for tensor, what in ((previous_max, "previous_max"), (previous_sum, "previous_sum"),
                         (previous_output, "previous_output"), (current_max, "current_max"),
                         (current_sum, "current_sum"), (current_output, "current_output")):
        _fp32_2d(tensor, f"experimental.online_softmax_update: {what}")
    if _shape_text(previous_output) != _shape_text(current_output):
        _fail(f"experimental.online_softmax_update: current_output {_shape_text(current_output)} must have "
              f"previous_output's shape {_shape_text(previous_output)}")
    updated_max = _ops.maximum(previous_max, current_max)
    previous_weight = _ops.exp(_ops.sub(previous_max, updated_max))
    current_weight = _ops.exp(_ops.sub(current_max, updated_max))
    updated_sum = _ops.add(_ops.mul(previous_sum, previous_weight), _ops.mul(current_sum, current_weight))
    updated_output = _ops.add(_ops.mul(previous_output, previous_weight), _ops.mul(current_output, current_weight))
    return updated_max, updated_sum, updated_output


def _fp32_2d(tensor, what):
    if tensor.dtype != _ops.DataType.DT_FP32 or len(tensor.shape) != 2:
        _fail(f"{what} must be a 2-D DT_FP32 tensor (PyPTO's page), got {_shape_text(tensor)} {tensor.dtype.name}")


_UNSUPPORTED = {
    "nop": "PyPTO's ordering no-op has nothing to order in PTO Studio's task graph",
    "shmem_load": "shared-memory (multi-device) tensors are not modelled",
    "shmem_store": "shared-memory (multi-device) tensors are not modelled",
}


def public_names():
    """What `pypto.experimental` holds, name -> object."""
    names = {name: _unsupported(f"experimental.{name}", reason) for name, reason in _UNSUPPORTED.items()}
    names.update(online_softmax=online_softmax, online_softmax_update=online_softmax_update)
    names.update(gather_in_ub=gather_in_ub, gather_in_l1=gather_in_l1, transposed_batchmatmul=transposed_batchmatmul,
                 set_operation_options=set_operation_options, get_operation_options=get_operation_options)
    return names
