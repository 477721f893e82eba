// Max-min fair sharing of one bandwidth cap among transfers that each have
// their own rate limit (water-filling), for the chip-wide global memory.
#pragma once

#include <span>

namespace pto {

// Fills `rates` (same length as `limits`, bytes per cycle) so that
//   rates[i] <= limits[i], sum(rates) <= capacity,
// and no transfer could get more without taking from one that has no more
// than it: transfers below the fair level get their whole limit, the others
// share what is left equally. When the limits sum to no more than the cap,
// every transfer runs at its limit. Cost: O(n) per distinct limit below
// the fair level.
void shareBandwidth(std::span<const double> limits, double capacity, std::span<double> rates);

} // namespace pto
