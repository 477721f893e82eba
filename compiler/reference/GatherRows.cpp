// Implementation of gatherRows.
#include "compiler/reference/GatherRows.h"

#include <vector>

namespace pto {

std::string gatherRows(const HostTensor& table, const HostTensor& index, HostTensor& target) {
  const std::size_t rank = table.rank();
  if (rank == 0 || target.rank() == 0) return "a gather needs a table and a target with at least one dim";
  const std::int64_t width = table.shape()[rank - 1];
  const std::int64_t rows = target.shape()[0];
  if (target.elementCount() != rows * width)
    return "gathers rows of " + std::to_string(width) + " elements into a " + target.shape().str() + " tile";
  if (index.elementCount() != rows)
    return "gathers " + std::to_string(rows) + " rows with " + std::to_string(index.elementCount()) + " indices";
  std::int64_t tableRows = 1;
  for (std::size_t d = 0; d + 1 < rank; ++d) tableRows *= table.shape()[d];
  const HostTensor picks = index.contiguous();
  std::vector<std::int64_t> from(rank, 0), oneRow(rank, 1);
  oneRow[rank - 1] = width;
  std::vector<std::int64_t> to(target.rank(), 0), targetRow = target.shape().dims();
  targetRow[0] = 1;
  const Shape targetRowShape(targetRow);
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t row = picks.getAsInt64(i);
    if (row < 0 || row >= tableRows)
      return "index " + std::to_string(row) + " (entry " + std::to_string(i) + ") lies outside the " +
             std::to_string(tableRows) + " rows it picks from";
    // The row's index over the table's leading dims, innermost fastest.
    std::int64_t rest = row;
    for (std::size_t d = rank - 1; d-- > 0;) {
      from[d] = rest % table.shape()[d];
      rest /= table.shape()[d];
    }
    to[0] = i;
    target.view(to, targetRow).copyFrom(table.view(from, oneRow).contiguous().reshapedView(targetRowShape));
  }
  return {};
}

} // namespace pto
