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

// Asks the kernel to back the whole 2 MiB pages of [data, data + bytes) with
// huge pages (transparent huge pages in madvise mode) when they are first
// written. For large arrays written once and read back (a million-task
// schedule's records and pipe intervals, the L2 model's line index): faulted
// in 4 KiB at a time they cost a fifth of such a run on a virtual machine,
// whose page faults are slow. Memory never touched stays unbacked, but a
// touched byte brings in its whole 2 MiB: not for arrays written sparsely.
// A hint: where the kernel declines (or outside Linux) nothing changes.
void adviseHugePages(const void* data, std::size_t bytes);

} // namespace pto
