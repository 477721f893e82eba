// What row gathers and scatters share (GatherRows.h, ScatterRows.h): a cache
// seen as rows, a tile of rows, and the checks that the two fit.
#pragma once

#include "core/HostTensor.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace pto {

// A cache as MGATHER and MSCATTER see it: one row per index over all its
// dims but the last (a paged cache [blocks, 128, 1, d] has blocks * 128
// rows of d). The cache must have at least one dim.
class CacheRows {
public:
  explicit CacheRows(const HostTensor& cache);

  std::int64_t width() const { return m_width; }
  std::int64_t count() const { return m_count; }
  // Why `row`, entry `entry` of an index, names no row, or "": "index 9
  // (entry 2) lies outside the 8 rows it picks from" for `use` "picks from".
  std::string rowProblem(std::int64_t row, std::int64_t entry, std::string_view use) const;
  // Row `row` (0 <= row < count()): a view of the cache shaped [1, ..., 1, width].
  HostTensor row(std::int64_t row) const;

private:
  HostTensor m_cache;  // shares the cache's storage
  std::int64_t m_width = 0;
  std::int64_t m_count = 1;
};

// Why `tile` ([rows, ...], at least one dim) cannot hold one row of `width`
// elements per entry of `index`, or "". `verb` and `preposition` word it:
// "gathers rows of 128 elements into a [4, 64] tile", "gathers 4 rows with
// 5 indices".
std::string tileRowsProblem(const HostTensor& tile, const HostTensor& index, std::int64_t width,
                            std::string_view verb, std::string_view preposition);
// Row `i` of `tile`: a view shaped [1, ...].
HostTensor tileRow(const HostTensor& tile, std::int64_t i);
// `to` takes the elements of `from` in C order (as many, in any shape).
void copyElements(HostTensor to, const HostTensor& from);

} // namespace pto
