// fp16 and bfloat16 conversions by bit manipulation, so results do not depend
// on whether the host compiler or CPU has a half type (F16C, _Float16).
#include "core/Float16.h"

#include <bit>

namespace pto {

namespace {

constexpr std::uint32_t kFloatSignMask = 0x80000000u;
constexpr std::uint32_t kFloatExponentMask = 0x7F800000u;
constexpr std::uint32_t kFloatMantissaMask = 0x007FFFFFu;
constexpr std::uint32_t kFloatQuietBit = 0x00400000u;

constexpr std::uint16_t kHalfExponentMask = 0x7C00u;
constexpr std::uint16_t kHalfMantissaMask = 0x03FFu;
constexpr std::uint16_t kHalfQuietBit = 0x0200u;

constexpr std::uint16_t kBfloat16QuietBit = 0x0040u;

// Shifts `value` right by `shift` bits, rounding to nearest with ties to even.
// A carry out of the kept bits is intended: it moves the result to the next
// binade (or to Inf) exactly as IEEE rounding does.
constexpr std::uint32_t shiftRightRoundEven(std::uint32_t value, unsigned shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t dropped = value & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  if (dropped > half || (dropped == half && (kept & 1u) != 0)) return kept + 1u;
  return kept;
}

} // namespace

float halfBitsToFloat(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits & kHalfExponentMask) >> 10;
  std::uint32_t mantissa = bits & kHalfMantissaMask;

  if (exponent == 0x1Fu) {
    if (mantissa == 0) return std::bit_cast<float>(sign | kFloatExponentMask);
    // Keep the payload in the top mantissa bits and force quiet, as hardware does.
    return std::bit_cast<float>(sign | kFloatExponentMask | kFloatQuietBit | (mantissa << 13));
  }
  if (exponent == 0) {
    if (mantissa == 0) return std::bit_cast<float>(sign);
    // Subnormal half: mantissa * 2^-24. Every one is a normal float, so
    // normalise: shift until the implicit bit (bit 10) appears.
    std::uint32_t floatExponent = 127 - 14;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --floatExponent;
    }
    mantissa &= kHalfMantissaMask;
    return std::bit_cast<float>(sign | (floatExponent << 23) | (mantissa << 13));
  }
  return std::bit_cast<float>(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

std::uint16_t floatToHalfBits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits & kFloatSignMask) >> 16);
  const std::uint32_t magnitude = bits & ~kFloatSignMask;
  const std::uint32_t exponent = magnitude >> 23;
  const std::uint32_t mantissa = magnitude & kFloatMantissaMask;

  if (exponent == 0xFFu) {
    if (mantissa == 0) return sign | kHalfExponentMask;
    // Top payload bits survive; the quiet bit guarantees a non-zero mantissa,
    // so a NaN whose payload lives only in the low bits cannot become Inf.
    return static_cast<std::uint16_t>(sign | kHalfExponentMask | kHalfQuietBit | (mantissa >> 13));
  }
  // 65520 = 65504 + half an ulp; the tie goes to the even neighbour 65536,
  // which does not exist, so it and everything above overflow to Inf.
  constexpr std::uint32_t kOverflowThreshold = 0x477FF000u;  // 65520.0f
  if (magnitude >= kOverflowThreshold) return sign | kHalfExponentMask;

  if (exponent >= 127 - 14) {
    // Normal half. Rebias, then round the 13 dropped mantissa bits; a carry
    // out of the mantissa correctly increments the exponent.
    const std::uint32_t rebiased = ((exponent - (127 - 15)) << 23) | mantissa;
    return static_cast<std::uint16_t>(sign | shiftRightRoundEven(rebiased, 13));
  }
  // Below 2^-25 (half the smallest subnormal, 2^-24) rounds to zero; exactly
  // 2^-25 is a tie whose even neighbour is zero, which the rounding below also
  // gives, so the cut-off can be the exponent alone.
  if (exponent < 127 - 25) return sign;
  // Subnormal half: the result's units are 2^-24. The float is
  // (1.mantissa) * 2^(exponent-127) = significand24 * 2^(exponent-150),
  // so the half mantissa is significand24 >> (126 - exponent), rounded. A carry
  // to 0x400 lands on the smallest normal half, which is right.
  const std::uint32_t significand = mantissa | 0x00800000u;
  return static_cast<std::uint16_t>(sign | shiftRightRoundEven(significand, 126 - exponent));
}

float bfloat16BitsToFloat(std::uint16_t bits) {
  // bfloat16 is the top half of a float: widening is exact.
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

std::uint16_t floatToBfloat16Bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & kFloatExponentMask) == kFloatExponentMask && (bits & kFloatMantissaMask) != 0) {
    // Truncation alone could zero the payload and produce Inf; the quiet bit
    // keeps it a NaN.
    return static_cast<std::uint16_t>((bits >> 16) | kBfloat16QuietBit);
  }
  // Same exponent range as float, so no special overflow or subnormal cases:
  // the rounding carry reaches Inf exactly when it should.
  return static_cast<std::uint16_t>(shiftRightRoundEven(bits & ~kFloatSignMask, 16) | ((bits & kFloatSignMask) >> 16));
}

} // namespace pto
