// Nanosecond times as short text for rulers, tooltips and tables.
#pragma once

#include <cstdint>
#include <string>

namespace pto::widgets {

// A duration with a unit chosen for its size and 4 significant digits at
// most: "850 ns", "1.234 µs", "12.5 ms", "2.000 s".
std::string formatDurationNs(double ns);

// A time on a ruler whose ticks are `stepNs` apart, in the unit of twenty
// steps with as many decimals as the step needs ("12 µs", "12.5 µs", "1.25 ms").
std::string formatTickNs(double ns, double stepNs);

// The smallest "nice" step (1, 2 or 5 times a power of ten, in ns) that is at
// least `minNs`.
double niceStepNs(double minNs);

} // namespace pto::widgets
