// ErrorClass: how far a task's measured duration is from its simulated
// twin's, in bands, for the swimlane's "error vs measured" colours (a
// measured trace opened beside a run; analysis/Calibration pairs the tasks).
// The bands are symmetric in the log ratio's sign and close to it in size:
// within 3 %, 3-10 %, 10-25 %, beyond 25 %, each side.
#pragma once

#include "widgets/models/LabelPalette.h"

#include <cstdint>
#include <string_view>

namespace pto::widgets {

enum class ErrorClass : std::uint8_t {
  Unpaired,     // no twin (or not compared): the unknown grey
  MuchShorter,  // the chip was more than 25 % faster than the simulation
  Shorter,      // 10-25 % faster
  SlightlyShorter,  // 3-10 % faster
  Close,            // within 3 %
  SlightlyLonger,   // 3-10 % slower on the chip
  Longer,           // 10-25 % slower
  MuchLonger,       // more than 25 % slower
};
inline constexpr int kErrorClassCount = 8;

// `error` is measured / simulated - 1; NaN is Unpaired.
ErrorClass errorClassOf(double error);
// "within 3 %", "10-25 % longer on the chip", ...
std::string_view name(ErrorClass error);
// A diverging scale: blues where the chip was faster, reds where it was
// slower, a pale neutral where they agree; Unpaired is kUnknownColor.
Rgb errorColor(ErrorClass error);

} // namespace pto::widgets
