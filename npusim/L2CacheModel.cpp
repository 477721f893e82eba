// LRU over global-memory lines.
#include "npusim/L2CacheModel.h"

#include <algorithm>

namespace pto {

namespace {

// A line's key: the tensor in the top bits, the line index in the rest.
constexpr int kLineBits = 44;

} // namespace

L2CacheModel::L2CacheModel(std::int64_t capacityBytes, std::int64_t lineBytes, std::vector<GmTensorLayout> layouts)
    : m_lineBytes(lineBytes),
      m_capacityLines(lineBytes > 0 && capacityBytes > 0 ? static_cast<std::size_t>(capacityBytes / lineBytes) : 0),
      m_layouts(std::move(layouts)) {}

void L2CacheModel::clear() {
  m_recency.clear();
  m_lines.clear();
  m_hits = m_misses = 0;
}

template <typename Visit> void L2CacheModel::forEachLine(const ConcreteRegion& region, Visit&& visit) const {
  if (region.tensor < 0 || static_cast<std::size_t>(region.tensor) >= m_layouts.size()) return;
  const GmTensorLayout& layout = m_layouts[static_cast<std::size_t>(region.tensor)];
  const std::size_t rank = layout.shape.size();
  if (rank == 0 || region.shape.size() != rank || region.offsets.size() != rank || layout.elementBytes <= 0) return;
  for (std::int64_t extent : region.shape)
    if (extent <= 0) return;
  // Row-major strides in elements.
  std::vector<std::int64_t> stride(rank, 1);
  for (std::size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * layout.shape[d];
  const std::int64_t rowBytes = region.shape.back() * layout.elementBytes;
  std::vector<std::int64_t> index(rank, 0);  // position within the region, innermost dim fixed at 0
  std::int64_t lastLine = -1;
  while (true) {
    std::int64_t element = 0;
    for (std::size_t d = 0; d < rank; ++d) element += (region.offsets[d] + index[d]) * stride[d];
    std::int64_t first = element * layout.elementBytes / m_lineBytes;
    std::int64_t last = (element * layout.elementBytes + rowBytes - 1) / m_lineBytes;
    for (std::int64_t line = std::max(first, lastLine + 1); line <= last; ++line) visit(line);
    lastLine = std::max(lastLine, last);
    // Next row: odometer over every dim but the innermost.
    std::size_t d = rank - 1;
    while (d > 0) {
      --d;
      if (++index[d] < region.shape[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (rank == 1) return;
  }
}

double L2CacheModel::access(const ConcreteRegion& region) {
  if (m_capacityLines == 0) return 0.0;
  std::int64_t hit = 0, total = 0;
  const auto tensorKey = static_cast<std::uint64_t>(region.tensor) << kLineBits;
  forEachLine(region, [&](std::int64_t line) {
    std::uint64_t key = tensorKey | static_cast<std::uint64_t>(line);
    ++total;
    auto found = m_lines.find(key);
    if (found != m_lines.end()) {
      ++hit;
      m_recency.splice(m_recency.begin(), m_recency, found->second);
      return;
    }
    m_recency.push_front(key);
    m_lines.emplace(key, m_recency.begin());
    if (m_lines.size() > m_capacityLines) {
      m_lines.erase(m_recency.back());
      m_recency.pop_back();
    }
  });
  m_hits += hit;
  m_misses += total - hit;
  return total == 0 ? 0.0 : static_cast<double>(hit) / static_cast<double>(total);
}

} // namespace pto
