// Implementation of keepFreedMemoryForReuse (glibc's mallopt) and
// useHeapHugePages (glibc's tunables, read at start).
#include "core/ProcessMemory.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#if defined(__GLIBC__)
#include <malloc.h>
#include <unistd.h>
#endif

// Sanitizers bring their own allocator: glibc's tunable would change nothing.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PTO_OWN_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define PTO_OWN_ALLOCATOR 1
#endif
#endif

namespace pto {

namespace {

constexpr std::string_view kHugeHeapTunable = "glibc.malloc.hugetlb";
// Set for the restarted program: "-" when GLIBC_TUNABLES was unset before,
// else "=" and its value, so that the restart can put it back.
constexpr const char* kRestartMark = "PTO_HEAP_RESTART";

} // namespace

void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  // Blocks up to 32 MiB (the largest threshold glibc accepts) come from the
  // heap rather than a mapping of their own...
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  // ...and the heap keeps up to 1 GiB of free memory at its top. Setting
  // either turns off glibc's own threshold adjustment, so both are set: the
  // trim threshold alone leaves every block above 128 KiB mapped anew.
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}

HeapRestart planHeapRestart(const char* tunables, std::string_view hugePageMode, const char* optOut, bool restarted) {
  HeapRestart plan;
  if (restarted) return plan;
  if (optOut && std::string_view(optOut) == "0") return plan;
  // Only `madvise` mode needs glibc to ask; the selected mode is bracketed.
  if (hugePageMode.find("[madvise]") == std::string_view::npos) return plan;
  const std::string_view given = tunables ? std::string_view(tunables) : std::string_view();
  if (given.find(kHugeHeapTunable) != std::string_view::npos) return plan;  // the user's own choice stands
  plan.restart = true;
  plan.tunables = std::string(given);
  if (!plan.tunables.empty()) plan.tunables += ':';
  plan.tunables += std::string(kHugeHeapTunable) + "=1";
  return plan;
}

void useHeapHugePages(char** argv) {
#if defined(__GLIBC__) && !defined(PTO_OWN_ALLOCATOR)
  if (const char* mark = std::getenv(kRestartMark)) {
    // The restart: glibc has read the setting; the environment goes back.
    if (mark[0] == '=') ::setenv("GLIBC_TUNABLES", mark + 1, 1);
    else ::unsetenv("GLIBC_TUNABLES");
    ::unsetenv(kRestartMark);
    return;
  }
  if (!argv || !argv[0]) return;
  // Valgrind runs the program on its own allocator, from a preloaded library.
  if (const char* preload = std::getenv("LD_PRELOAD"); preload && std::strstr(preload, "vgpreload")) return;
  std::ifstream modeFile("/sys/kernel/mm/transparent_hugepage/enabled");
  const std::string mode((std::istreambuf_iterator<char>(modeFile)), std::istreambuf_iterator<char>());
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const HeapRestart plan = planHeapRestart(tunables, mode, std::getenv("PTO_HEAP_HUGE_PAGES"), false);
  if (!plan.restart) return;
  const std::string mark = tunables ? "=" + std::string(tunables) : std::string("-");
  ::setenv(kRestartMark, mark.c_str(), 1);
  ::setenv("GLIBC_TUNABLES", plan.tunables.c_str(), 1);
  ::execv("/proc/self/exe", argv);
  // The restart failed (no /proc, say): run on as before, environment restored.
  if (tunables) ::setenv("GLIBC_TUNABLES", mark.c_str() + 1, 1);
  else ::unsetenv("GLIBC_TUNABLES");
  ::unsetenv(kRestartMark);
#else
  (void)argv;
#endif
}

} // namespace pto
