// Implementation of scatterRows.
#include "compiler/reference/ScatterRows.h"

#include <vector>

namespace pto {

std::string scatterRows(HostTensor& target, const HostTensor& index, const HostTensor& rows) {
  const std::size_t rank = target.rank();
  if (rank == 0 || rows.rank() == 0) return "a scatter needs a target and rows with at least one dim";
  const std::int64_t width = target.shape()[rank - 1];
  const std::int64_t count = rows.shape()[0];
  if (rows.elementCount() != count * width)
    return "scatters rows of " + std::to_string(width) + " elements from a " + rows.shape().str() + " tile";
  if (index.elementCount() != count)
    return "scatters " + std::to_string(count) + " rows with " + std::to_string(index.elementCount()) + " indices";
  std::int64_t targetRows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) targetRows *= target.shape()[d];
  const HostTensor slots = index.contiguous();
  // Checked first: a bad index leaves the target as it was.
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t row = slots.getAsInt64(i);
    if (row < 0 || row >= targetRows)
      return "index " + std::to_string(row) + " (entry " + std::to_string(i) + ") lies outside the " +
             std::to_string(targetRows) + " rows it writes";
  }
  std::vector<std::int64_t> to(rank, 0), oneRow(rank, 1);
  oneRow[rank - 1] = width;
  const Shape oneRowShape(oneRow);
  std::vector<std::int64_t> from(rows.rank(), 0), rowsRow = rows.shape().dims();
  rowsRow[0] = 1;
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t rest = slots.getAsInt64(i);
    // The row's index over the target's leading dims, innermost fastest.
    for (std::size_t d = rank - 1; d-- > 0;) {
      to[d] = rest % target.shape()[d];
      rest /= target.shape()[d];
    }
    from[0] = i;
    target.view(to, oneRow).copyFrom(rows.view(from, rowsRow).contiguous().reshapedView(oneRowShape));
  }
  return {};
}

} // namespace pto
