// How the programs (pto, pto-studio, the benchmarks) ask the C library to
// manage their memory. Not for the `pypto` Python module, which lives in a
// host process whose allocator is not ours to tune.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pto {

// Keeps memory the process frees for its own reuse instead of handing it
// back to the kernel. The compiler and the simulator build and drop large
// vectors pass after pass (tile graphs, region indexes, the L2 model's
// table); by default glibc maps each one above 128 KiB on its own and unmaps
// it when freed, and every page of the next one is faulted in again, which
// costs much more on a virtual machine than the work done in it (a quarter
// of the page faults of `compileSyntheticVector/4096`, a sixth of a
// deepseek_indexer_attention run; its peak memory grows 2 %). Call first
// thing in main(). Does nothing outside glibc.
void keepFreedMemoryForReuse();

// Backs the heap with transparent huge pages (glibc's tunable
// glibc.malloc.hugetlb=1), by running the program again, same process and
// arguments, with GLIBC_TUNABLES saying so: glibc reads its tunables only
// when a program starts, and no call sets this one later. A tile op is some
// ten heap blocks and a compile touches about 1.5 kB of fresh memory per
// tile op, so the page faults and TLB misses of 4 KiB pages were a quarter
// to a third of a large compile. Measured on the 2-core VM (bench/README.md,
// eleventh session): `pto run` of deepseek_indexer_attention 1.17 -> 0.93 s
// wall (peak 116 -> 148 MB), `compileSyntheticVector` at 512k tile ops
// 128k -> 310k ops/s, a million-task timing simulation 2.29 -> 1.51 us a
// task; the small cases unchanged. The restart costs about 10 ms.
//
// Restarts only when it helps and is safe: glibc, no sanitizer or valgrind
// (their allocators are their own), transparent huge pages in `madvise` mode
// (under `always` the heap has them already, under `never` it cannot), the
// user has not set glibc.malloc.hugetlb themselves, and PTO_HEAP_HUGE_PAGES
// is not 0. After the restart GLIBC_TUNABLES is put back as it was, so the
// programs this one starts inherit the user's environment. Call first thing
// in main(), with main's argv; returns when there is nothing (more) to do,
// also when the restart fails.
void useHeapHugePages(char** argv);

// What useHeapHugePages decides, without doing it: whether to restart and
// with which GLIBC_TUNABLES. `tunables`: GLIBC_TUNABLES now (null: unset);
// `hugePageMode`: the text of /sys/kernel/mm/transparent_hugepage/enabled
// (e.g. "always [madvise] never"); `optOut`: PTO_HEAP_HUGE_PAGES (null:
// unset); `restarted`: this run is the restart already.
struct HeapRestart {
  bool restart = false;
  std::string tunables;  // GLIBC_TUNABLES for the restarted program
};
HeapRestart planHeapRestart(const char* tunables, std::string_view hugePageMode, const char* optOut, bool restarted);

// No huge pages asked for (madvise(MADV_HUGEPAGE)) on the simulator's large
// arrays one by one: they were tried for a million-task schedule's records
// and pipe intervals and for the L2 model's line index, and given up. On
// the shared 2-core VM a fresh 2 MiB page was zeroed at 0.45-0.57 GB/s, 4
// KiB pages at 2.5 GB/s; a one-shot million-task run spent 300-590 ns a task
// in the kernel with them and 150-240 without. glibc's heap mode
// (useHeapHugePages) gives them to the heap as it grows and did not show
// that cost (simulateIndependentIterations/1000000, kernel_ns_per_task 649
// -> 324 on the eleventh session's VM).

} // namespace pto
