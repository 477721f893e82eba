// TF32 operands of a float32 matmul: the Ascend 950's cube can read fp32 operands as TF32 (sign, 8 exponent bits,
// 10 mantissa bits) before it multiplies, PyPTO's matmul extend_params["trans_mode"]. A matmul op carries the mode
// as its string attribute "tf32" ("rint": ties to even, CAST_RINT; "round": ties away from zero, CAST_ROUND);
// without it the operands are used as they are. The product then accumulates in fp32 as any float matmul.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pto::reference {

enum class Tf32Rounding { None, TiesToEven, TiesAwayFromZero };

// The matmul attribute's value as a rounding; anything else is None (the frontend accepts only the two names).
inline Tf32Rounding tf32RoundingNamed(std::string_view mode) {
  if (mode == "rint") return Tf32Rounding::TiesToEven;
  if (mode == "round") return Tf32Rounding::TiesAwayFromZero;
  return Tf32Rounding::None;
}

// `value` rounded to 10 mantissa bits (the 13 low bits cleared), to nearest; a carry moves into the exponent, up
// to infinity past TF32's largest finite value, as a float rounding does. NaN and infinities pass unchanged.
inline float roundToTf32(float value, Tf32Rounding rounding) {
  if (rounding == Tf32Rounding::None || !std::isfinite(value)) return value;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  constexpr std::uint32_t kDropped = 0x1FFFu, kHalf = 0x1000u;
  bits += rounding == Tf32Rounding::TiesToEven ? (kHalf - 1u) + ((bits >> 13) & 1u) : kHalf;
  return std::bit_cast<float>(bits & ~kDropped);
}

inline void roundToTf32(float* values, std::size_t count, Tf32Rounding rounding) {
  if (rounding == Tf32Rounding::None) return;
  for (std::size_t i = 0; i < count; ++i) values[i] = roundToTf32(values[i], rounding);
}

} // namespace pto::reference
