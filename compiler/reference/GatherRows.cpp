// Implementation of gatherRows.
#include "compiler/reference/GatherRows.h"

#include "compiler/reference/CacheRows.h"

namespace pto {

std::string gatherRows(const HostTensor& table, const HostTensor& index, HostTensor& target) {
  if (table.rank() == 0 || target.rank() == 0) return "a gather needs a table and a target with at least one dim";
  const CacheRows rows(table);
  if (std::string problem = tileRowsProblem(target, index, rows.width(), "gathers", "into"); !problem.empty())
    return problem;
  const HostTensor picks = index.contiguous();
  for (std::int64_t i = 0; i < picks.elementCount(); ++i) {
    const std::int64_t row = picks.getAsInt64(i);
    if (std::string problem = rows.rowProblem(row, i, "picks from"); !problem.empty()) return problem;
    copyElements(tileRow(target, i), rows.row(row));
  }
  return {};
}

} // namespace pto
