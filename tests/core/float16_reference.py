# Reference fp16/bf16 conversions for Float16Test, computed by numpy.
#
# Usage: float16_reference.py OUTPUT_DIR
# Writes raw little-endian arrays into OUTPUT_DIR:
#   half_to_float.u32      65536 float32 bit patterns: fp16 pattern i widened by numpy
#   bf16_to_float.u32      65536 float32 bit patterns: bf16 pattern i widened by value
#   narrow_inputs.u32      N float32 bit patterns to narrow
#   narrow_fp16.u16        N numpy float32->float16 results
#   narrow_bf16.u16        N bf16 results (numpy has no bfloat16; see below)
# Exits non-zero with a message on stderr if numpy is unavailable.
import os
import sys

try:
    import numpy as np
except ImportError as error:
    sys.stderr.write(f"float16_reference.py: numpy is required ({error}); "
                     f"install python3-numpy for {sys.executable}\n")
    sys.exit(2)

SEED = 20240611
RANDOM_COUNT = 200_000


def write(directory, name, array, dtype):
    array.astype(dtype).astype(np.dtype(dtype).newbyteorder("<")).tofile(os.path.join(directory, name))


def f32(bits):
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def bits32(values):
    return np.asarray(values, dtype=np.float32).view(np.uint32)


def with_neighbours(values):
    """values and the adjacent float32 on each side (one ulp away)."""
    values = np.asarray(values, dtype=np.float32)
    up = np.nextafter(values, np.float32(np.inf))
    down = np.nextafter(values, np.float32(-np.inf))
    return np.concatenate([values, up, down])


def narrowing_inputs():
    every_half = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    widened = every_half.astype(np.float32)

    # Midpoints between adjacent positive finite halves (exact in float32: they
    # need 12 significand bits). The last one, between 65504 and the would-be
    # 65536, is the overflow tie 65520.
    positive = np.arange(0, 0x7C00, dtype=np.uint16).view(np.float16).astype(np.float64)
    upper = np.append(positive[1:], 65536.0)
    midpoints = ((positive + upper) / 2).astype(np.float32)

    special = np.array([0.0, 65504.0, 65519.0, 65519.996, 65520.0, 65520.004, 65536.0,
                        1e5, 3.4028235e38, 2.0**-24, 2.0**-25, 2.0**-26, 3 * 2.0**-26,
                        2.0**-14, 2.0**-14 - 2.0**-25, 1e-45, 1.1754942e-38, 1.17549435e-38,
                        1.0, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, np.inf],
                       dtype=np.float32)

    # Dense sampling of the subnormal/underflow band, 2^-27 .. 2^-13, where the
    # rounding shift varies with the exponent.
    rng = np.random.default_rng(SEED)
    band = []
    for exponent in range(127 - 28, 127 - 12):
        mantissas = np.concatenate([
            rng.integers(0, 1 << 23, size=4096, dtype=np.uint32),
            np.array([0, 1, 0x7FFFFF, 0x400000, 0x3FFFFF, 0x400001, 0x001000, 0x000FFF,
                      0x002000, 0x003000, 0x1FFF, 0x7FE000], dtype=np.uint32)])
        band.append((np.uint32(exponent) << np.uint32(23)) | mantissas)
    band = f32(np.concatenate(band))

    float_subnormals = f32(np.array([1, 2, 3, 0x7FFFFF, 0x400000], dtype=np.uint32))
    nans = np.array([0x7FC00000, 0x7F800001, 0x7FA00000, 0x7FFFFFFF, 0x7F802000, 0x7F801FFF,
                     0x7FC00001, 0x7F800100, 0x7F80FFFF, 0x7F810000],
                    dtype=np.uint32)

    finite = np.concatenate([with_neighbours(widened[np.isfinite(widened)]),
                             with_neighbours(midpoints), with_neighbours(special),
                             band, float_subnormals])
    finite_bits = bits32(finite)
    negated = finite_bits ^ np.uint32(0x80000000)
    infinities = np.array([0x7F800000, 0xFF800000], dtype=np.uint32)
    random = rng.integers(0, 1 << 32, size=RANDOM_COUNT, dtype=np.uint64).astype(np.uint32)
    return np.concatenate([finite_bits, negated, infinities, nans, nans | np.uint32(0x80000000),
                           random])


def bf16_by_distance(bits):
    """Round float32 -> bfloat16 to nearest-even by comparing distances in
    float64 to the two bf16 neighbours (exact: both are float32 values)."""
    bits = np.asarray(bits, dtype=np.uint32)
    sign = bits & np.uint32(0x80000000)
    magnitude = bits & np.uint32(0x7FFFFFFF)
    value = f32(magnitude).astype(np.float64)
    below = magnitude & np.uint32(0xFFFF0000)  # toward zero
    above = below + np.uint32(0x10000)          # away from zero; may be Inf
    below_value = f32(below).astype(np.float64)
    above_value = np.where(above == 0x7F800000, 2.0**128, f32(np.minimum(above, 0x7F7F0000)).astype(np.float64))
    distance_below = value - below_value
    distance_above = above_value - value
    below_even = ((below >> np.uint32(16)) & np.uint32(1)) == 0
    pick_above = (distance_above < distance_below) | ((distance_above == distance_below) & ~below_even)
    pick_above &= magnitude != below  # exactly representable: no rounding
    rounded = np.where(pick_above, above, below)
    result = ((rounded | sign) >> np.uint32(16)).astype(np.uint16)
    is_inf = magnitude == np.uint32(0x7F800000)
    result = np.where(is_inf, ((bits >> np.uint32(16))).astype(np.uint16), result)
    is_nan = magnitude > np.uint32(0x7F800000)
    return np.where(is_nan, ((sign >> np.uint32(16)) | np.uint32(0x7FC0)).astype(np.uint16), result)


def bf16_by_integer_rounding(bits):
    """The usual round-to-nearest-even bit trick, as a cross-check of the above."""
    bits = np.asarray(bits, dtype=np.uint64)
    lsb = (bits >> np.uint64(16)) & np.uint64(1)
    rounded = ((bits + np.uint64(0x7FFF) + lsb) >> np.uint64(16)).astype(np.uint16)
    is_nan = (bits & np.uint64(0x7FFFFFFF)) > np.uint64(0x7F800000)
    return np.where(is_nan, ((bits >> np.uint64(16)) | np.uint64(0x40)).astype(np.uint16), rounded)


def bf16_widen_by_value():
    """bf16 pattern -> float32 from sign * significand * 2^exponent, not by shifting bits."""
    patterns = np.arange(65536, dtype=np.int64)
    sign = np.where(patterns & 0x8000, -1.0, 1.0)
    exponent = (patterns >> 7) & 0xFF
    fraction = (patterns & 0x7F).astype(np.float64) / 128.0
    magnitude = np.where(exponent == 0, np.ldexp(fraction, -126),
                         np.ldexp(1.0 + fraction, (exponent - 127).astype(np.int32)))
    magnitude = np.where(exponent == 0xFF, np.where(fraction == 0, np.inf, np.nan), magnitude)
    return bits32((sign * magnitude).astype(np.float32))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: float16_reference.py OUTPUT_DIR\n")
        return 2
    directory = sys.argv[1]
    # NaN and Inf inputs are the point of the exercise; silence their warnings.
    np.seterr(all="ignore")
    os.makedirs(directory, exist_ok=True)

    halves = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    write(directory, "half_to_float.u32", bits32(halves.astype(np.float32)), np.uint32)
    write(directory, "bf16_to_float.u32", bf16_widen_by_value(), np.uint32)

    inputs = narrowing_inputs()
    fp16 = f32(inputs).astype(np.float16).view(np.uint16)
    bf16 = bf16_by_distance(inputs)
    check = bf16_by_integer_rounding(inputs)
    nan = (inputs & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    disagreements = np.count_nonzero((bf16 != check) & ~nan)
    if disagreements:
        sys.stderr.write(f"float16_reference.py: the two bf16 references disagree on {disagreements} inputs\n")
        return 3
    write(directory, "narrow_inputs.u32", inputs, np.uint32)
    write(directory, "narrow_fp16.u16", fp16, np.uint16)
    write(directory, "narrow_bf16.u16", bf16, np.uint16)
    return 0


if __name__ == "__main__":
    sys.exit(main())
