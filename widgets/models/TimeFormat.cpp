// Nanosecond times as short text.
#include "widgets/models/TimeFormat.h"

#include <cmath>
#include <cstdio>

namespace pto::widgets {
namespace {

struct Unit {
  double ns;
  const char* name;
};

Unit unitFor(double magnitudeNs) {
  if (magnitudeNs >= 1e9) return {1e9, "s"};
  if (magnitudeNs >= 1e6) return {1e6, "ms"};
  if (magnitudeNs >= 1e3) return {1e3, "µs"};
  return {1, "ns"};
}

} // namespace

std::string formatDurationNs(double ns) {
  Unit unit = unitFor(std::fabs(ns));
  double value = ns / unit.ns;
  char buffer[48];
  if (unit.ns == 1)
    std::snprintf(buffer, sizeof buffer, "%.0f ns", value);
  else if (std::fabs(value) >= 100)
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, unit.name);
  else
    std::snprintf(buffer, sizeof buffer, "%.3f %s", value, unit.name);
  return buffer;
}

std::string formatTickNs(double ns, double stepNs) {
  // The largest unit in which a step is at least a half: 500 ns steps read
  // 0.5 µs, 1 µs, ...; 50 µs steps 50 µs, 100 µs (not 0.05 ms, which reads as
  // a rounding error on a 170 µs run); 500 µs steps 0.5 ms, 1 ms.
  Unit unit = unitFor(stepNs * 2);
  double stepInUnit = stepNs / unit.ns;
  // A step of 0.5 units needs 1 decimal, 0.02 needs 2, 1 or more needs none.
  int decimals = stepInUnit >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(stepInUnit) - 1e-9));
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, ns / unit.ns, unit.name);
  return buffer;
}

double niceStepNs(double minNs) {
  if (!(minNs > 0)) return 1;
  double power = std::pow(10.0, std::floor(std::log10(minNs)));
  for (double mantissa : {1.0, 2.0, 5.0, 10.0})
    if (mantissa * power >= minNs * (1 - 1e-12)) return mantissa * power;
  return 10 * power;
}

} // namespace pto::widgets
