// 16-bit floating-point formats (IEEE binary16 "fp16" and bfloat16) and their
// conversions to and from float, rounding to nearest-even.
#pragma once

#include <cstdint>

namespace pto {

// Conversions of raw bit patterns. Narrowing rounds to nearest, ties to even;
// NaN stays NaN (quiet, sign kept), overflow becomes +-Inf, and fp16
// subnormals are produced and read exactly.
float halfBitsToFloat(std::uint16_t bits);
std::uint16_t floatToHalfBits(float value);
float bfloat16BitsToFloat(std::uint16_t bits);
std::uint16_t floatToBfloat16Bits(float value);

// Storage types for tensor elements. They only convert; arithmetic happens in
// float and is rounded back, which is what the hardware's vector unit does.
struct Float16 {
  std::uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float value) : bits(floatToHalfBits(value)) {}
  static Float16 fromBits(std::uint16_t raw) {
    Float16 h;
    h.bits = raw;
    return h;
  }
  explicit operator float() const { return halfBitsToFloat(bits); }
};

struct BFloat16 {
  std::uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value) : bits(floatToBfloat16Bits(value)) {}
  static BFloat16 fromBits(std::uint16_t raw) {
    BFloat16 b;
    b.bits = raw;
    return b;
  }
  explicit operator float() const { return bfloat16BitsToFloat(bits); }
};

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

} // namespace pto
