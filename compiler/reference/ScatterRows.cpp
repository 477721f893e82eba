// Implementation of scatterRows.
#include "compiler/reference/ScatterRows.h"

#include "compiler/reference/CacheRows.h"

namespace pto {

std::string scatterRows(HostTensor& target, const HostTensor& index, const HostTensor& rows) {
  if (target.rank() == 0 || rows.rank() == 0) return "a scatter needs a target and rows with at least one dim";
  const CacheRows targetRows(target);
  if (std::string problem = tileRowsProblem(rows, index, targetRows.width(), "scatters", "from"); !problem.empty())
    return problem;
  const HostTensor slots = index.contiguous();
  // Checked first: a bad index leaves the target as it was.
  for (std::int64_t i = 0; i < slots.elementCount(); ++i)
    if (std::string problem = targetRows.rowProblem(slots.getAsInt64(i), i, "writes"); !problem.empty()) return problem;
  for (std::int64_t i = 0; i < slots.elementCount(); ++i) copyElements(targetRows.row(slots.getAsInt64(i)), tileRow(rows, i));
  return {};
}

} // namespace pto
