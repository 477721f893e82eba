// How the programs (pto, pto-studio, the benchmarks) ask the C library to
// manage their memory. Not for the `pypto` Python module, which lives in a
// host process whose allocator is not ours to tune.
#pragma once

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

} // namespace pto
