// PackedColumn: an append-only column of int64 values stored in a few bytes
// each, so a trace's per-task fields cost what their values need rather than
// eight bytes apiece (a 10 000 000-task swimlane fits in about a tenth of the
// memory of an array of structs).
//
// Frame of reference: values are grouped in blocks of kBlockValues; a block
// keeps its minimum as the base and each value as its unsigned distance from
// that base in the fewest whole bytes that hold the block's largest distance
// (0 bytes when all values of the block are equal, at most 8). Consecutive
// tasks have close start times, small durations, ids counting up and a few
// distinct labels, so most fields take 0-2 bytes. Random access is O(1): one
// block lookup and one unaligned 8-byte load. The last, unfinished block is
// kept unpacked until it fills.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pto::trace {

class PackedColumn {
public:
  static constexpr std::size_t kBlockValues = 128;

  void push_back(std::int64_t value) {
    if (m_open.empty()) m_open.resize(kBlockValues);
    m_open[m_size % kBlockValues] = value;
    if (++m_size % kBlockValues == 0) packOpenBlock();
  }
  // Inlined by force: -O2 keeps it out of line, and loops over millions of
  // tasks spend most of their time calling it.
  [[gnu::always_inline]] std::int64_t operator[](std::size_t i) const {
    std::size_t block = i / kBlockValues;
    if (block >= m_blocks.size()) [[unlikely]]
      return m_open[i % kBlockValues];
    const Block& b = m_blocks[block];
    std::uint64_t raw = 0;
    // m_bytes keeps 8 bytes of slack at its end, so this load never runs past
    // it; a 0-byte block reads whatever follows and masks it all away.
    std::memcpy(&raw, m_bytes.data() + b.offset + (i % kBlockValues) * b.widthBytes, sizeof raw);
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(b.base) + (raw & kMasks[b.widthBytes]));
  }
  std::size_t size() const { return m_size; }
  bool empty() const { return m_size == 0; }
  void clear();
  void shrink_to_fit();
  // Heap bytes held plus the object itself.
  std::size_t memoryBytes() const;

private:
  static_assert(std::endian::native == std::endian::little, "PackedColumn reads values as little-endian bytes");
  struct Block {
    std::int64_t base = 0;
    std::uint32_t offset = 0;   // of the block's first value in m_bytes
    std::uint8_t widthBytes = 0;
  };
  static constexpr std::uint64_t kMasks[9] = {0,           0xff,           0xffff,           0xffffff,
                                              0xffffffff,  0xffffffffff,   0xffffffffffff,   0xffffffffffffff,
                                              ~std::uint64_t{0}};
  void packOpenBlock();

  std::vector<Block> m_blocks;
  std::vector<std::uint8_t> m_bytes;  // packed blocks, then 8 bytes of slack
  std::vector<std::int64_t> m_open;  // the unfinished block (kBlockValues once used)
  std::size_t m_size = 0;
};

} // namespace pto::trace
