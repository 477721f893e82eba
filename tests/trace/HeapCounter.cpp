// Global operator new/delete replacements that count live heap bytes
// (malloc_usable_size, so unsized deletes are counted too).
#include "HeapCounter.h"

#include <atomic>
#include <cstdlib>
#include <malloc.h>
#include <new>

namespace {
std::atomic<std::size_t> g_inUse{0};
std::atomic<std::size_t> g_peak{0};

void* allocate(std::size_t bytes) {
  void* p = std::malloc(bytes == 0 ? 1 : bytes);
  if (!p) throw std::bad_alloc();
  std::size_t now = g_inUse.fetch_add(malloc_usable_size(p)) + malloc_usable_size(p);
  std::size_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {}
  return p;
}
void release(void* p) noexcept {
  if (!p) return;
  g_inUse.fetch_sub(malloc_usable_size(p));
  std::free(p);
}
} // namespace

// Every form the library may pair: std::stable_sort's temporary buffer comes
// from the nothrow new and goes back through the plain delete, so a form
// left to the default would mix two allocators (AddressSanitizer reports it).
void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return allocate(bytes);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}
void* operator new[](std::size_t bytes, const std::nothrow_t& nothrow) noexcept { return operator new(bytes, nothrow); }
void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }

namespace pto::trace::testing {
std::size_t heapBytesInUse() { return g_inUse.load(); }
std::size_t heapPeakBytes() { return g_peak.load(); }
void resetHeapPeak() { g_peak.store(g_inUse.load()); }
} // namespace pto::trace::testing
