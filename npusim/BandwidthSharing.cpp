// Water-filling over the transfers' own limits.
#include "npusim/BandwidthSharing.h"

#include <vector>

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
  // Rates of -1 mark the transfers still sharing.
  for (std::size_t i = 0; i < n; ++i) rates[i] = -1.0;
  double left = capacity;
  std::size_t sharing = n;
  bool settled = false;
  while (!settled && sharing > 0) {
    settled = true;
    double level = left / static_cast<double>(sharing);
    for (std::size_t i = 0; i < n; ++i) {
      if (rates[i] >= 0.0 || limits[i] > level) continue;
      rates[i] = limits[i];
      left -= limits[i];
      --sharing;
      settled = false;
    }
  }
  double level = sharing > 0 ? left / static_cast<double>(sharing) : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (rates[i] < 0.0) rates[i] = level;
}

} // namespace pto
