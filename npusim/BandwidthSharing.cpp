// Water-filling over the transfers' own limits.
#include "npusim/BandwidthSharing.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace pto {

void shareBandwidth(std::span<const double> limits, double capacity, std::span<double> rates) {
  const std::size_t n = limits.size();
  double total = 0.0;
  for (double limit : limits) total += limit;
  if (total <= capacity) {
    std::copy(limits.begin(), limits.end(), rates.begin());
    return;
  }
  // Raise a common level from the smallest limit up: each transfer whose
  // limit is below the equal share of what is left takes its limit.
  thread_local std::vector<std::size_t> order;
  order.resize(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return limits[a] < limits[b] || (limits[a] == limits[b] && a < b);
  });
  double left = capacity;
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = order[k];
    double share = left / static_cast<double>(n - k);
    if (limits[i] <= share) {
      rates[i] = limits[i];
      left -= limits[i];
      continue;
    }
    for (std::size_t j = k; j < n; ++j) rates[order[j]] = share;
    return;
  }
}

} // namespace pto
