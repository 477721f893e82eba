// HeapCounter: bytes currently allocated through operator new in this test
// binary and their peak, to show an import's memory follows its result.
#pragma once

#include <cstddef>

namespace pto::trace::testing {

std::size_t heapBytesInUse();
std::size_t heapPeakBytes();
void resetHeapPeak();  // peak := current

} // namespace pto::trace::testing
