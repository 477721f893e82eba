"""pypto.uniform and pypto.normal: PyPTO's counter-based random numbers, deterministic for a key and a counter,
built from modelled vector ops on uint64 tensors (each 32-bit word of the state held in a uint64, so a 32 x 32-bit
product is exact and its high and low halves are a shift and a mask away).

The generator is Philox-4x32 with 10 rounds (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11):
block i of four 32-bit outputs is the 128-bit counter (counter0 + i, counter1) run through ten rounds of

    (w0, w1, w2, w3) -> (hi(M1 w2) ^ w1 ^ k0, lo(M1 w2), hi(M0 w0) ^ w3 ^ k1, lo(M0 w0))

with M0 = 0xD2511F53, M1 = 0xCD9E8D57, and the key (k0, k1) raised by (0x9E3779B9, 0xBB67AE85) after each round.
Element 4 i + j is word j of block i. A float in [0, 1) is made as PyPTO's API page describes: the word's low
mantissa bits under the exponent of 1.0, minus 1 (23 bits for fp32, the low 16 bits' 10 for fp16, 7 for bf16).
normal() turns pairs of uniform fp32 values into normal ones by the Box-Muller transform, as PyPTO does.
"""
import math

from . import _api_extras
from . import _config
from . import _ops, _recording, _views
from ._recording import _fail

_MASK = 0xFFFFFFFF
_M0, _M1 = 0xD2511F53, 0xCD9E8D57
_RAISE0, _RAISE1 = 0x9E3779B9, 0xBB67AE85


def _u64(value):
    return value if value.dtype == _ops.DataType.DT_UINT64 else _ops.cast(value, _ops.DataType.DT_UINT64)


def _high_low(word, multiplier):
    """hi and lo 32-bit halves of word * multiplier (exact in uint64)."""
    product = _ops.mul(word, multiplier)
    return _api_extras.bitwise_right_shift(product, 32), _api_extras.bitwise_and(product, _MASK)


def _philox_words(blocks, key, counter0, counter1, rounds):
    """The four output words (uint64 tensors of `blocks` elements, values < 2^32) of blocks 0 .. blocks-1."""
    index = _u64(_ops.arange(0, blocks, 1, dtype=_ops.DataType.DT_INT32))
    # The 128-bit counter (counter0 + i, counter1), carried from word to word.
    start = [counter0 & _MASK, counter0 >> 32, counter1 & _MASK, counter1 >> 32]
    total = _ops.add(index, start[0])
    words = [_api_extras.bitwise_and(total, _MASK)]
    carry = _api_extras.bitwise_right_shift(total, 32)
    for part in start[1:]:
        total = _ops.add(carry, part)
        words.append(_api_extras.bitwise_and(total, _MASK))
        carry = _api_extras.bitwise_right_shift(total, 32)
    k0, k1 = key & _MASK, (key >> 32) & _MASK
    for _ in range(rounds):
        hi0, lo0 = _high_low(words[0], _M0)
        hi1, lo1 = _high_low(words[2], _M1)
        words = [_api_extras.bitwise_xor(_api_extras.bitwise_xor(hi1, words[1]), k0), lo1,
                 _api_extras.bitwise_xor(_api_extras.bitwise_xor(hi0, words[3]), k1), lo0]
        k0, k1 = (k0 + _RAISE0) & _MASK, (k1 + _RAISE1) & _MASK
    return words


def _in_unit_interval(words, count, dtype):
    """Element 4 i + j = word j of block i, the first `count` of them, as floats in [0, 1) of `dtype`."""
    blocks = _recording._known_int(words[0].shape[0])
    columns = [_ops.reshape(word, [blocks, 1]) for word in words]
    stream = _ops.reshape(_ops.concat(columns, 1), [blocks * 4])
    if blocks * 4 != count:
        stream = _ops.view(stream, [count], [0])
    dt = _ops.DataType
    # Per dtype: the mantissa bits taken from the word, the exponent bits of 1.0, the integer of its width.
    layouts = {dt.DT_FP32: (0x7FFFFF, 127 << 23, dt.DT_UINT32), dt.DT_FP16: (0x3FF, 15 << 10, dt.DT_UINT16),
               dt.DT_BF16: (0x7F, 127 << 7, dt.DT_UINT16)}
    if dtype not in layouts:
        _fail(f"uniform: dtype must be DT_FP32, DT_FP16 or DT_BF16, got {dtype}")
    mantissa, one_exponent, int_type = layouts[dtype]
    bits = _api_extras.bitwise_or(_api_extras.bitwise_and(stream, mantissa), one_exponent)
    floats = _views._bitcast(_ops.cast(bits, int_type), dtype)  # in [1, 2)
    return _ops.sub(floats, 1.0)  # exact: both in [1, 2)


def _checked_lists(key, counter, alg, what):
    if len(key) != 1:
        _fail(f"{what}: key holds one number (a uint64), got {len(key)}")
    if len(counter) != 2:
        _fail(f"{what}: counter holds two numbers (uint64s), got {len(counter)}")
    if len(alg) != 1 or alg[0] not in (1, 3):
        _fail(f"{what}: alg must be [1] (Philox) or [3] (automatic: Philox), got {list(alg)}")
    return int(key[0]) & 0xFFFFFFFFFFFFFFFF, int(counter[1]) & 0xFFFFFFFFFFFFFFFF


def _count_of(shape, what):
    if not 1 <= len(shape) <= 4:
        _fail(f"{what}: the shape has {len(shape)} dims; it takes 1 to 4")
    count = 1
    for dim in shape:
        dim = _recording._known_int(dim)
        if dim is None or dim <= 0:
            _fail(f"{what}: every dim of the shape must be a positive int known while tracing, got {list(shape)}")
        count *= dim
    return count


class _flat_vec_tile:  # noqa: N801
    """A 1-D vec tile of the product of the one in force, for the flat stream (PyPTO's uniform does the same);
    the kernel's own tile is restored after."""

    def __enter__(self):
        self._saved = _config.get_vec_tile_shapes()
        if self._saved:
            _config.set_vec_tile_shapes(math.prod(self._saved))
        return self

    def __exit__(self, *exc):
        if self._saved:
            _config.set_vec_tile_shapes(*self._saved)
        return False


def uniform_impl(key, counter0, counter1, shape, rounds=10, dtype=None):
    """PyPTO's uniform_impl: a 1-D tensor of shape [n] of uniform values in [0, 1) from Philox-4x32 with
    `rounds` (7 or 10) rounds, the 128-bit counter starting at (counter0, counter1)."""
    if len(shape) != 1:
        _fail(f"uniform_impl: the shape must have 1 dim, got {len(shape)}")
    if rounds not in (7, 10):
        _fail(f"uniform_impl: rounds must be 7 or 10, got {rounds}")
    count = _count_of(shape, "uniform_impl")
    dtype = _ops.DataType.DT_FP32 if dtype is None else dtype
    start = _recording._known_int(counter0)
    if start is None:
        _fail("uniform_impl: counter0 must be known while tracing here")
    words = _philox_words(-(-count // 4), int(key) & 0xFFFFFFFFFFFFFFFF, start & 0xFFFFFFFFFFFFFFFF,
                          int(counter1) & 0xFFFFFFFFFFFFFFFF, rounds)
    return _in_unit_interval(words, count, dtype)


def uniform(shape, key, counter, alg, dtype):
    """PyPTO's uniform: a tensor of `shape` (1 to 4 dims) of values in [0, 1), Philox-4x32-10 with key[0] and
    the counter (0, counter[1]) (PyPTO's uniform starts its counter's first word at 0)."""
    seed, offset = _checked_lists(key, counter, alg, "uniform")
    count = _count_of(shape, "uniform")
    with _flat_vec_tile():
        flat = uniform_impl(seed, 0, offset, [count], 10, dtype)
    return _ops.reshape(flat, list(shape))


def normal(shape, key, counter, alg, dtype):
    """PyPTO's normal: standard normal values by the Box-Muller transform of uniform fp32 pairs (u1, u2) =
    elements (2 i, 2 i + 1): sqrt(-2 ln max(u1, 1e-7)) times sin(2 pi u2) at 2 i and cos(2 pi u2) at 2 i + 1;
    then cast to dtype."""
    seed, offset = _checked_lists(key, counter, alg, "normal")
    count = _count_of(shape, "normal")
    padded = (count + 1) // 2 * 2
    with _flat_vec_tile():
        u = uniform_impl(seed, 0, offset, [padded], 10, _ops.DataType.DT_FP32)
        u1 = _ops.maximum(_api_extras.gathermask(u, 1), 1.0e-7)
        angle = _ops.mul(_api_extras.gathermask(u, 2), 2.0 * math.pi)
        radius = _ops.sqrt(_ops.mul(_ops.log(u1), -2.0))
        first, second = _api_extras.interleave(_ops.mul(_ops.sin(angle), radius), _ops.mul(_ops.cos(angle), radius))
        values = _ops.concat([first, second], 0)
        if padded != count:
            values = _ops.view(values, [count], [0])
        if dtype != _ops.DataType.DT_FP32:
            values = _ops.cast(values, dtype)
    return _ops.reshape(values, list(shape))
