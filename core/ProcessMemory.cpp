// Implementation of keepFreedMemoryForReuse (glibc's mallopt).
#include "core/ProcessMemory.h"

#include <cstdint>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pto {

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

} // namespace pto
