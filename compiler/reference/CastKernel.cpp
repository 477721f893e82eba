// The cast kernel: dtype conversion with a rounding mode (rint, round, floor, ceil, trunc).
#include "compiler/reference/ElementAccess.h"
#include "compiler/reference/ReferenceKernels.h"

#include <cmath>
#include <string>

namespace pto::reference {
namespace {

enum class CastMode : unsigned char { Rint, Round, Floor, Ceil, Trunc };

std::optional<CastMode> parseCastMode(const std::string& text) {
  if (text == "rint") return CastMode::Rint;
  if (text == "round") return CastMode::Round;
  if (text == "floor") return CastMode::Floor;
  if (text == "ceil") return CastMode::Ceil;
  if (text == "trunc") return CastMode::Trunc;
  return std::nullopt;
}

double roundToIntegral(double value, CastMode mode) {
  switch (mode) {
  case CastMode::Rint: return std::nearbyint(value);  // half to even
  case CastMode::Round: return std::round(value);     // half away from zero
  case CastMode::Floor: return std::floor(value);
  case CastMode::Ceil: return std::ceil(value);
  case CastMode::Trunc: return std::trunc(value);
  }
  return value;
}

// fp16 and bf16 are sign-magnitude 16-bit formats whose magnitude bits order like the values, so the
// neighbour of a value is one magnitude step away (and the step from the largest finite is infinity).
struct Narrow16 {
  std::uint16_t (*fromFloat)(float);  // nearest-even
  float (*toFloat)(std::uint16_t);
};

std::uint16_t towardZero(std::uint16_t bits) { return static_cast<std::uint16_t>(bits - 1u); }
std::uint16_t awayFromZero(std::uint16_t bits) { return static_cast<std::uint16_t>(bits + 1u); }
bool isNegative(std::uint16_t bits) { return (bits & 0x8000u) != 0; }

// `value` rounded into the 16-bit format by `mode`, starting from the nearest-even result.
std::uint16_t narrowWithMode(float value, CastMode mode, const Narrow16& format) {
  const std::uint16_t nearest = format.fromFloat(value);
  const float rounded = format.toFloat(nearest);
  if (std::isnan(value) || rounded == value || mode == CastMode::Rint) return nearest;
  // `rounded` and `other` bracket value; `other` is the neighbour on value's far side.
  const bool above = rounded > value;
  const bool outward = (above && !isNegative(nearest)) || (!above && isNegative(nearest));
  const std::uint16_t other = outward ? towardZero(nearest) : awayFromZero(nearest);
  switch (mode) {
  case CastMode::Floor: return above ? other : nearest;
  case CastMode::Ceil: return above ? nearest : other;
  case CastMode::Trunc: return outward ? other : nearest;
  case CastMode::Round: {
    if (std::isinf(rounded)) return nearest;  // past the largest finite value plus half a step
    const double distance = std::fabs(static_cast<double>(rounded) - value);
    const double otherDistance = std::fabs(static_cast<double>(format.toFloat(other)) - value);
    if (distance == otherDistance) return outward ? nearest : other;  // a tie goes away from zero
    return nearest;
  }
  case CastMode::Rint: break;
  }
  return nearest;
}

} // namespace

bool runCast(KernelCall& call) {
  const HostTensor& source = call.inputs[0];
  HostTensor& out = call.outputs[0];
  if (!call.expectOutputShape(0, source.shape())) return false;
  std::string modeText = "rint";
  if (const auto* given = call.attr<std::string>("mode")) modeText = *given;
  const std::optional<CastMode> mode = parseCastMode(modeText);
  if (!mode)
    return call.fail() << "unknown mode '" << modeText << "' (expected rint, round, floor, ceil or trunc)";

  const DataType from = source.dtype();
  const DataType to = out.dtype();
  if (isFloatingPoint(from) && !isFloatingPoint(to) && to != DataType::Bool) {
    std::vector<double> values = loadAs<double>(source);
    for (double& value : values) value = roundToIntegral(value, *mode);
    storeFrom(out, values);  // saturates, NaN -> 0
    return true;
  }
  if (isFloatingPoint(from) && from != to && (to == DataType::Fp16 || to == DataType::Bf16) &&
      *mode != CastMode::Rint) {
    const Narrow16 format = to == DataType::Fp16 ? Narrow16{floatToHalfBits, halfBitsToFloat}
                                                 : Narrow16{floatToBfloat16Bits, bfloat16BitsToFloat};
    const std::vector<float> values = loadAs<float>(source);
    auto* bits = reinterpret_cast<std::uint16_t*>(out.data());
    for (std::size_t i = 0; i < values.size(); ++i) bits[i] = narrowWithMode(values[i], *mode, format);
    return true;
  }
  // Exact, nearest-even, wrapping or nonzero-is-true: numpy's astype, which HostTensor implements.
  out.copyFrom(source);
  return true;
}

} // namespace pto::reference
