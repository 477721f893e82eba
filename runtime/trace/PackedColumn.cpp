// Packing full blocks of a PackedColumn.
#include "runtime/trace/PackedColumn.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace pto::trace {

void PackedColumn::packOpenBlock() {
  Block block;
  block.base = *std::min_element(m_open.begin(), m_open.end());
  std::uint64_t largest = 0;
  for (std::int64_t value : m_open)
    largest = std::max(largest, static_cast<std::uint64_t>(value) - static_cast<std::uint64_t>(block.base));
  block.widthBytes = static_cast<std::uint8_t>((std::bit_width(largest) + 7) / 8);
  constexpr std::size_t kSlack = sizeof(std::uint64_t);
  std::size_t used = m_bytes.empty() ? 0 : m_bytes.size() - kSlack;
  std::size_t needed = used + block.widthBytes * kBlockValues + kSlack;
  if (needed > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("PackedColumn: more than 4 GiB of packed values in one column");
  block.offset = static_cast<std::uint32_t>(used);
  m_bytes.resize(needed, 0);
  for (std::size_t i = 0; i < kBlockValues && block.widthBytes > 0; ++i) {
    std::uint64_t distance = static_cast<std::uint64_t>(m_open[i]) - static_cast<std::uint64_t>(block.base);
    std::memcpy(m_bytes.data() + used + i * block.widthBytes, &distance, block.widthBytes);
  }
  m_blocks.push_back(block);
}

void PackedColumn::clear() {
  m_blocks.clear();
  m_bytes.clear();
  m_size = 0;
}

void PackedColumn::shrink_to_fit() {
  m_blocks.shrink_to_fit();
  m_bytes.shrink_to_fit();
}

std::size_t PackedColumn::memoryBytes() const {
  return sizeof(*this) + m_blocks.capacity() * sizeof(Block) + m_bytes.capacity() + m_open.capacity() * sizeof(std::int64_t);
}

} // namespace pto::trace
