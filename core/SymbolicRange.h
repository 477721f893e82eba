// The range a symbolic scalar can take when each symbol it names lies in a
// known interval (a loop index between its loop's bounds): interval
// arithmetic, so a size such as min(64 - i*16, 16) with i in [0, 3] is known
// to be 16 for every iteration.
#pragma once

#include "core/SymbolicScalar.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace pto {

struct IntRange {
  std::int64_t lo = 0;
  std::int64_t hi = 0;  // inclusive
  bool single() const { return lo == hi; }
};

using SymbolRanges = std::map<std::string, IntRange>;

// Bounds of `value` over every assignment of its symbols within `ranges`
// (sound: the true range lies inside). nullopt when a symbol has no range, an
// element is read, an operation is not one of + - * // % min max with the
// operands it can bound, or a bound would overflow.
std::optional<IntRange> rangeOf(const SymbolicScalar& value, const SymbolRanges& ranges);

} // namespace pto
