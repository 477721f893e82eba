"""pypto.conv: PyPTO's 1-D, 2-D and 3-D convolution (NCL, NCHW, NCDHW), as its API page defines it, built from
modelled operations: for each kernel position, the input rows it reads (one row of input channels per output
position) are gathered from the input seen as [positions, channels] (index_select of rows, an MGATHER), the
rows that fall in the padding are zeroed, and a matmul with that position's weights adds them up in fp32; then
the bias, the ReLU and one rounding to out_dtype, as the fixpipe applies them. PyPTO lowers conv to the cube's
img2col loads instead, so the timing differs; the values are the same.

Attribute order, as PyPTO's conv reads them: 2-D strides and dilations [h, w], paddings [top, bottom, left,
right]; 3-D strides and dilations [h, w, d], paddings [top, bottom, left, right, head, tail]; 1-D strides and
dilations [w], paddings [left, right]."""
import enum

from . import _config, _ops, _state
from ._recording import _fail, _known_int

DataType = _ops.DataType


class ConvReLuType(enum.Enum):
    """PyPTO's ConvReLuType: whether conv's result goes through ReLU on its way out."""
    NO_RELU = 0
    RELU = 1


class TileL1Info:
    """PyPTO's pypto_impl.TileL1Info (conv's L1 tile sizes): kept; the gathers and matmuls conv is built from
    take their own tiles here."""

    def __init__(self, tileHin=1, tileHout=1, tileWin=1, tileWout=1, tileCinFmap=1, tileCinWeight=1,  # noqa: N803
                 tileN=1, tileBatch=1, **others):
        self.__dict__.update(tileHin=tileHin, tileHout=tileHout, tileWin=tileWin, tileWout=tileWout,
                             tileCinFmap=tileCinFmap, tileCinWeight=tileCinWeight, tileN=tileN,
                             tileBatch=tileBatch, **others)


class TileL0Info:
    """PyPTO's pypto_impl.TileL0Info (conv's L0 tile sizes): kept, as TileL1Info."""

    def __init__(self, tileH=1, tileW=1, tileK=1, tileN=1, **others):  # noqa: N803
        self.__dict__.update(tileH=tileH, tileW=tileW, tileK=tileK, tileN=tileN, **others)


_conv_tiles = {"l1": None, "l0": None}


def set_conv_tile_shapes(tile_l1_info, tile_l0_info=None):
    """PyPTO's conv tile sizes, kept for get_conv_tile_shapes (see TileL1Info)."""
    _conv_tiles["l1"], _conv_tiles["l0"] = tile_l1_info, tile_l0_info


def get_conv_tile_shapes():
    """The conv tile sizes set last, (TileL1Info, TileL0Info or None)."""
    return _conv_tiles["l1"], _conv_tiles["l0"]


# Tiles of the gathers, masks and matmuls conv is made of (restored after it).
_VEC_TILE = (64, 64)
_CUBE_TILE = ([64, 64], [64, 64], [64, 64])


def conv(input_conv, weight, out_dtype, strides, paddings, dilations, *, groups=1, transposed=False,
         output_paddings=None, extend_params=None):
    """See the module's note."""
    rank = len(input_conv.shape)
    if rank not in (3, 4, 5) or len(weight.shape) != rank:
        _fail(f"conv: input_conv and weight must both be 3-D, 4-D or 5-D (NCL, NCHW, NCDHW), got "
              f"{rank}-D and {len(weight.shape)}-D")
    if transposed or output_paddings:
        _fail("conv: transposed convolution is not supported (PyPTO's page: not yet supported there either)")
    floats = (DataType.DT_FP16, DataType.DT_BF16, DataType.DT_FP32)
    if input_conv.dtype not in floats or weight.dtype != input_conv.dtype:
        _fail(f"conv: input_conv and weight must be one of DT_FP16, DT_BF16, DT_FP32, and the same; got "
              f"{input_conv.dtype.name} and {weight.dtype.name}")
    extend = dict(extend_params or {})
    unknown = sorted(set(extend) - {"bias_tensor", "relu_type", "scale", "scale_tensor"})
    if unknown:
        _fail(f"conv: unknown extend_params key(s) {', '.join(unknown)}")
    if extend.get("scale") is not None or extend.get("scale_tensor") is not None:
        _fail("conv: extend_params 'scale' and 'scale_tensor' (fixpipe quantisation) are not modelled for conv; "
              "PyPTO's page says quantisation scenarios are not supported yet")
    nd = rank - 2
    # Index of each spatial dim (in input order) in strides/dilations and of its pair in paddings.
    attr_index = {1: [0], 2: [0, 1], 3: [2, 0, 1]}[nd]
    pad_index = {1: [0], 2: [0, 1], 3: [2, 0, 1]}[nd]
    strides = [int(v) for v in strides]
    dilations = [int(v) for v in dilations]
    paddings = [int(v) for v in paddings]
    if len(strides) != nd or len(dilations) != nd or len(paddings) != 2 * nd:
        _fail(f"conv: a {nd}-D convolution takes {nd} strides, {nd} dilations and {2 * nd} paddings; got "
              f"{len(strides)}, {len(dilations)} and {len(paddings)}")
    dims = [_known_int(d) for d in input_conv.shape]
    kdims = [_known_int(d) for d in weight.shape]
    if any(d is None for d in dims + kdims):
        _fail("conv: input_conv's and weight's shapes must be known while tracing")
    batch, cin, spatial = dims[0], dims[1], dims[2:]
    cout, cin_g, kernel = kdims[0], kdims[1], kdims[2:]
    groups = int(groups)
    if groups < 1 or cin % groups or cout % groups or cin_g * groups != cin:
        _fail(f"conv: Cin ({cin}) and Cout ({cout}) must divide by groups ({groups}) and weight's Cin ({cin_g}) "
              f"times groups must be input_conv's Cin")
    stride = [strides[attr_index[i]] for i in range(nd)]
    dilation = [dilations[attr_index[i]] for i in range(nd)]
    before = [paddings[2 * pad_index[i]] for i in range(nd)]
    after = [paddings[2 * pad_index[i] + 1] for i in range(nd)]
    out_spatial = [(spatial[i] + before[i] + after[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                   for i in range(nd)]
    if any(o < 1 for o in out_spatial):
        _fail(f"conv: the output would be empty ({out_spatial}): the kernel is larger than the padded input")
    bias = extend.get("bias_tensor")
    relu = extend.get("relu_type")
    relu = relu is not None and getattr(relu, "name", relu) in ("RELU", 1)

    state = _state.current()
    saved_vec, saved_cube = list(state.builder.vec_tile() or []), state.builder.cube_tile()
    _config.set_vec_tile_shapes(*_VEC_TILE)
    _config.set_cube_tile_shapes(*_CUBE_TILE)
    try:
        result = _convolve(input_conv, weight, out_dtype, bias, relu, batch, cin, spatial, cout, cin_g, kernel,
                           groups, stride, dilation, before, out_spatial)
    finally:
        if saved_vec:
            _config.set_vec_tile_shapes(*saved_vec)
        if saved_cube is not None:
            _config.set_cube_tile_shapes(*saved_cube[:3], enable_split_k=bool(saved_cube[3]) if len(saved_cube) > 3
                                         else False)
    return result


def _positions(count, cut, out_spatial):
    """Each output position's coordinate along spatial dim `cut` (an int32 [count] tensor)."""
    from ._api_extras import floor_div, remainder
    inner = 1
    for extent in out_spatial[cut + 1:]:
        inner *= extent
    flat = _ops.arange(0, count, 1, dtype=DataType.DT_INT32)
    along = flat if inner == 1 else floor_div(flat, inner)
    return along if cut == 0 else remainder(along, out_spatial[cut])


def _gather_plan(offset, spatial, stride, dilation, before, out_spatial):
    """For the kernel position `offset`: the input row each output position reads (int32 [count], clamped into
    the input) and whether it lies inside the input rather than in the padding (bool [count, 1])."""
    count = 1
    for extent in out_spatial:
        count *= extent
    row, inside = None, None
    in_stride = 1
    for cut in reversed(range(len(spatial))):
        coordinate = _ops.add(_ops.mul(_positions(count, cut, out_spatial), stride[cut]),
                              offset[cut] * dilation[cut] - before[cut])
        fits = _ops.logical_and(_ops.ge(coordinate, 0), _ops.lt(coordinate, spatial[cut]))
        inside = fits if inside is None else _ops.logical_and(inside, fits)
        clamped = _ops.minimum(_ops.maximum(coordinate, 0), spatial[cut] - 1)
        part = clamped if in_stride == 1 else _ops.mul(clamped, in_stride)
        row = part if row is None else _ops.add(row, part)
        in_stride *= spatial[cut]
    return row, _ops.reshape(inside, [count, 1])


def _convolve(x, weight, out_dtype, bias, relu, batch, cin, spatial, cout, cin_g, kernel, groups, stride,
              dilation, before, out_spatial):
    import itertools
    positions_in = 1
    for extent in spatial:
        positions_in *= extent
    count = 1
    for extent in out_spatial:
        count *= extent
    cout_g = cout // groups
    plans = [(offset, _gather_plan(offset, spatial, stride, dilation, before, out_spatial))
             for offset in itertools.product(*[range(k) for k in kernel])]
    zero = _ops.full([count, cin], 0.0, x.dtype)
    images = []
    for n in range(batch):
        # The image as rows of channels, one row per input position: [positions, Cin].
        image = _ops.reshape(_ops.view(x, [1, cin] + spatial, [n] + [0] * (len(spatial) + 1)), [cin, positions_in])
        rows_of = _ops.transpose(image, 0, 1)
        sums = [None] * groups
        for offset, (row, inside) in plans:
            picked = _ops.where(inside, _ops.index_select(rows_of, 0, row), zero)
            for g in range(groups):
                columns = picked if groups == 1 else _ops.view(picked, [count, cin_g], [0, g * cin_g])
                taps = _ops.reshape(_ops.view(weight, [cout_g, cin_g] + [1] * len(kernel),
                                              [g * cout_g, 0] + list(offset)), [cout_g, cin_g])
                product = _ops.matmul(columns, taps, DataType.DT_FP32, b_trans=True)  # [count, Cout_g]
                sums[g] = product if sums[g] is None else _ops.add(sums[g], product)
        for g in range(groups):
            total = sums[g]
            if bias is not None:
                part = bias if groups == 1 else _ops.view(bias, [cout_g], [g * cout_g])
                part = _ops.reshape(part, [1, cout_g])
                total = _ops.add(total, part if part.dtype == DataType.DT_FP32 else _ops.cast(part, DataType.DT_FP32))
            if relu:
                total = _ops.maximum(total, 0.0)
            if out_dtype != DataType.DT_FP32:
                total = _ops.cast(total, out_dtype)
            sums[g] = _ops.transpose(total, 0, 1)  # [Cout_g, count]
        channels = sums[0] if groups == 1 else _ops.concat(sums, 0)
        images.append(_ops.reshape(channels, [1, cout] + out_spatial))
    return images[0] if batch == 1 else _ops.concat(images, 0)
