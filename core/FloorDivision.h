// Python's floor division and modulo on int64, shared by the symbolic
// scalars' evaluation and their range analysis. The caller rules out b == 0
// and the one overflowing quotient, INT64_MIN // -1.
#pragma once

#include <cstdint>

namespace pto {

inline std::int64_t floorDivide(std::int64_t a, std::int64_t b) {
  const std::int64_t quotient = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? quotient - 1 : quotient;
}

inline std::int64_t floorModulo(std::int64_t a, std::int64_t b) {
  if (b == -1) return 0;  // a % -1 is UB in C++ for INT64_MIN and 0 anyway
  const std::int64_t remainder = a % b;
  return (remainder != 0 && ((remainder < 0) != (b < 0))) ? remainder + b : remainder;
}

} // namespace pto
