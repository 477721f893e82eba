// Water-filling over the transfers' own limits.
#include "npusim/BandwidthSharing.h"

#include <algorithm>
#include <limits>

namespace pto {

void shareBandwidth(std::span<const double> limits, double capacity, std::span<double> rates) {
  const std::size_t n = limits.size();
  double total = 0.0;
  for (double limit : limits) total += limit;
  if (total <= capacity) {
    for (std::size_t i = 0; i < n; ++i) rates[i] = limits[i];
    return;
  }
  // Raise a common level: every transfer whose limit is at or below the equal
  // share of what is left takes its limit; repeat until nobody else does (at
  // most one round per distinct limit, and chips have a handful of paths).
  // Rates of -1 mark the transfers still sharing. A round is skipped, not
  // scanned, when the lowest limit still sharing is above its level: it
  // would take nothing.
  double left = capacity;
  std::size_t sharing = n;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  double lowest = -kInfinity;  // the first round scans every transfer
  for (bool first = true;; first = false) {
    const double level = left / static_cast<double>(sharing);
    if (lowest > level) break;
    bool taken = false;
    lowest = kInfinity;
    for (std::size_t i = 0; i < n; ++i) {
      if (!first && rates[i] >= 0.0) continue;
      if (limits[i] > level) {
        rates[i] = -1.0;
        lowest = std::min(lowest, limits[i]);
        continue;
      }
      rates[i] = limits[i];
      left -= limits[i];
      --sharing;
      taken = true;
    }
    if (!taken || sharing == 0) break;
  }
  double level = sharing > 0 ? left / static_cast<double>(sharing) : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (rates[i] < 0.0) rates[i] = level;
}

} // namespace pto
