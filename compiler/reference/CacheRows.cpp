// Implementation of CacheRows and the tile-of-rows helpers.
#include "compiler/reference/CacheRows.h"

#include <vector>

namespace pto {

CacheRows::CacheRows(const HostTensor& cache) : m_cache(cache) {
  const std::size_t rank = cache.rank();
  m_width = cache.shape()[rank - 1];
  for (std::size_t d = 0; d + 1 < rank; ++d) m_count *= cache.shape()[d];
}

std::string CacheRows::rowProblem(std::int64_t row, std::int64_t entry, std::string_view use) const {
  if (row >= 0 && row < m_count) return {};
  return "index " + std::to_string(row) + " (entry " + std::to_string(entry) + ") lies outside the " +
         std::to_string(m_count) + " rows it " + std::string(use);
}

HostTensor CacheRows::row(std::int64_t row) const {
  const std::size_t rank = m_cache.rank();
  std::vector<std::int64_t> start(rank, 0), oneRow(rank, 1);
  oneRow[rank - 1] = m_width;
  // The row's index over the leading dims, innermost fastest.
  for (std::size_t d = rank - 1; d-- > 0;) {
    start[d] = row % m_cache.shape()[d];
    row /= m_cache.shape()[d];
  }
  return m_cache.view(start, oneRow);
}

std::string tileRowsProblem(const HostTensor& tile, const HostTensor& index, std::int64_t width,
                            std::string_view verb, std::string_view preposition) {
  const std::int64_t rows = tile.shape()[0];
  if (tile.elementCount() != rows * width)
    return std::string(verb) + " rows of " + std::to_string(width) + " elements " + std::string(preposition) + " a " +
           tile.shape().str() + " tile";
  if (index.elementCount() != rows)
    return std::string(verb) + " " + std::to_string(rows) + " rows with " + std::to_string(index.elementCount()) +
           " indices";
  return {};
}

HostTensor tileRow(const HostTensor& tile, std::int64_t i) {
  std::vector<std::int64_t> start(tile.rank(), 0), sizes = tile.shape().dims();
  start[0] = i;
  sizes[0] = 1;
  return tile.view(start, sizes);
}

void copyElements(HostTensor to, const HostTensor& from) { to.copyFrom(from.contiguous().reshapedView(to.shape())); }

} // namespace pto
