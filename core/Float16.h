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
template <std::uint16_t (*ToBits)(float), float (*ToFloat)(std::uint16_t)>
struct SixteenBitFloat {
  std::uint16_t bits = 0;
  SixteenBitFloat() = default;
  explicit SixteenBitFloat(float value) : bits(ToBits(value)) {}
  static SixteenBitFloat fromBits(std::uint16_t raw) {
    SixteenBitFloat value;
    value.bits = raw;
    return value;
  }
  explicit operator float() const { return ToFloat(bits); }
};

using Float16 = SixteenBitFloat<floatToHalfBits, halfBitsToFloat>;
using BFloat16 = SixteenBitFloat<floatToBfloat16Bits, bfloat16BitsToFloat>;

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2);

} // namespace pto
