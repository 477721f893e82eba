// How many random cases a property test runs.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>

namespace pto::test {

// `count`, or PTO_RANDOM_CASES_PERCENT percent of it (at least one). The
// sanitizer suite (the asan test preset) sets 25: every case takes the same
// code paths with other numbers, so a quarter of them finds what the
// sanitizers can find, while all of them under ASan would take most of CI's
// time. The release suite runs every case.
inline int randomCaseCount(int count) {
  const char* percent = std::getenv("PTO_RANDOM_CASES_PERCENT");
  if (!percent || !*percent) return count;
  const int scaled = static_cast<int>(static_cast<long long>(count) * std::clamp(std::atoi(percent), 0, 100) / 100);
  return std::max(1, scaled);
}

} // namespace pto::test
