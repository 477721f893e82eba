// Error bands of measured against simulated task durations.
#include "widgets/models/ErrorClass.h"

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

std::string_view name(ErrorClass error) {
  switch (error) {
  case ErrorClass::Unpaired: return "not paired";
  case ErrorClass::MuchShorter: return "> 25 % shorter on the chip";
  case ErrorClass::Shorter: return "10-25 % shorter on the chip";
  case ErrorClass::SlightlyShorter: return "3-10 % shorter on the chip";
  case ErrorClass::Close: return "within 3 %";
  case ErrorClass::SlightlyLonger: return "3-10 % longer on the chip";
  case ErrorClass::Longer: return "10-25 % longer on the chip";
  case ErrorClass::MuchLonger: return "> 25 % longer on the chip";
  }
  return "?";
}

Rgb errorColor(ErrorClass error) {
  // ColorBrewer's RdBu diverging scheme (7 classes), reversed so red is slower.
  switch (error) {
  case ErrorClass::Unpaired: return kUnknownColor;
  case ErrorClass::MuchShorter: return {33, 102, 172};
  case ErrorClass::Shorter: return {103, 169, 207};
  case ErrorClass::SlightlyShorter: return {209, 229, 240};
  case ErrorClass::Close: return {240, 240, 240};
  case ErrorClass::SlightlyLonger: return {253, 219, 199};
  case ErrorClass::Longer: return {239, 138, 98};
  case ErrorClass::MuchLonger: return {178, 24, 43};
  }
  return kUnknownColor;
}

} // namespace pto::widgets
