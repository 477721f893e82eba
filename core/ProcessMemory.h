// How the programs (pto, pto-studio, the benchmarks) ask the C library to
// manage their memory. Not for the `pypto` Python module, which lives in a
// host process whose allocator is not ours to tune.
#pragma once

#include <cstddef>

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

// No huge pages (madvise(MADV_HUGEPAGE)) for the simulator's large arrays:
// they were asked for a million-task schedule's records and pipe intervals
// and for the L2 model's line index, and given up. On the shared 2-core VM a
// fresh 2 MiB page is zeroed at 0.45-0.57 GB/s (the host backs it as it is
// written), 4 KiB pages at 2.5 GB/s, and only huge pages freed a moment
// before come at 10 GB/s; a one-shot million-task run spent 300-590 ns a
// task in the kernel with them and 150-240 without, its user time the same
// (simulateIndependentIterations/1000000, kernel_ns_per_task).

} // namespace pto
