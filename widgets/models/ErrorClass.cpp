// Error bands of measured against simulated task durations.
#include "widgets/models/ErrorClass.h"

#include "core/XMacroEnum.h"

#include <cmath>

namespace pto::widgets {

ErrorClass errorClassOf(double error) {
  if (std::isnan(error)) return ErrorClass::Unpaired;
  const double magnitude = std::abs(error);
  if (magnitude <= 0.03) return ErrorClass::Close;
  const bool longer = error > 0;
  if (magnitude <= 0.10) return longer ? ErrorClass::SlightlyLonger : ErrorClass::SlightlyShorter;
  if (magnitude <= 0.25) return longer ? ErrorClass::Longer : ErrorClass::Shorter;
  return longer ? ErrorClass::MuchLonger : ErrorClass::MuchShorter;
}

namespace {

struct ErrorClassInfo {
  ErrorClass error;
  std::string_view name;
  Rgb color;
};

// Colours: ColorBrewer's RdBu diverging scheme (7 classes), reversed so red is slower.
constexpr ErrorClassInfo kErrorClasses[] = {
    {ErrorClass::Unpaired, "not paired", kUnknownColor},
    {ErrorClass::MuchShorter, "> 25 % shorter on the chip", {33, 102, 172}},
    {ErrorClass::Shorter, "10-25 % shorter on the chip", {103, 169, 207}},
    {ErrorClass::SlightlyShorter, "3-10 % shorter on the chip", {209, 229, 240}},
    {ErrorClass::Close, "within 3 %", {240, 240, 240}},
    {ErrorClass::SlightlyLonger, "3-10 % longer on the chip", {253, 219, 199}},
    {ErrorClass::Longer, "10-25 % longer on the chip", {239, 138, 98}},
    {ErrorClass::MuchLonger, "> 25 % longer on the chip", {178, 24, 43}},
};

static_assert(rowsFollowEnumerators<&ErrorClassInfo::error>(kErrorClasses), "kErrorClasses is indexed by ErrorClass");

} // namespace

std::string_view name(ErrorClass error) { return enumRow(kErrorClasses, error).name; }

Rgb errorColor(ErrorClass error) { return enumRow(kErrorClasses, error).color; }

} // namespace pto::widgets
