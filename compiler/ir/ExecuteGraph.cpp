// Implementation of ExecuteGraph's ByteAlias.
#include "compiler/ir/ExecuteGraph.h"

namespace pto {

void ByteAlias::storageBox(const std::int64_t* offsets, const std::int64_t* sizes, std::int64_t* lo,
                           std::int64_t* hi) const {
  std::int64_t first = 0, last = 0;  // elements of the alias, row-major
  for (std::size_t d = 0; d < aliasShape.size(); ++d) {
    first = first * aliasShape[d] + offsets[d];
    last = last * aliasShape[d] + offsets[d] + sizes[d] - 1;
  }
  std::int64_t a = first * aliasElementBytes / storageElementBytes;
  std::int64_t b = ((last + 1) * aliasElementBytes - 1) / storageElementBytes;
  const std::size_t rank = storageShape.size();
  for (std::size_t d = rank; d-- > 0;) {  // the run's ends as storage coordinates, kept in lo and hi
    lo[d] = a % storageShape[d];
    hi[d] = b % storageShape[d];
    a /= storageShape[d];
    b /= storageShape[d];
  }
  bool differed = false;
  for (std::size_t d = 0; d < rank; ++d) {
    if (differed) {
      lo[d] = 0, hi[d] = storageShape[d];
    } else {
      differed = lo[d] != hi[d];
      hi[d] += 1;
    }
  }
}

} // namespace pto
