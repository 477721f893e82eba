// The L2 over global-memory lines: LRU or random replacement.
#include "npusim/L2CacheModel.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <new>

namespace pto {

namespace {

// A line's key: the tensor in the top bits, the line index in the rest.
constexpr int kLineBits = 44;
// Table slots per block of consecutive lines: 4 x 16 bytes, one cache line.
constexpr int kRunBits = 2;
constexpr std::uint64_t kRunSlots = 1u << kRunBits;

// xorshift64: Random's victims.
std::uint64_t l2Xorshift(std::uint64_t state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

} // namespace

// Any fixed non-zero seed: runs must repeat exactly.
constexpr std::uint64_t kRandomSeed = 0x2545F4914F6CDD1Dull;

L2CacheModel::L2CacheModel(std::int64_t capacityBytes, std::int64_t lineBytes, std::vector<GmTensorLayout> layouts,
                           L2Replacement replacement)
    : m_lineBytes(lineBytes),
      m_lineShift(lineBytes > 0 && (lineBytes & (lineBytes - 1)) == 0 ? std::countr_zero(static_cast<std::uint64_t>(lineBytes)) : -1),
      m_capacityLines(lineBytes > 0 && capacityBytes > 0 ? static_cast<std::size_t>(capacityBytes / lineBytes) : 0),
      m_layouts(std::move(layouts)),
      m_replacement(replacement),
      m_random(kRandomSeed) {
  // At most every line of every tensor can be present: sizing the table for
  // that (or for the capacity) at the first touch spares the regrowth, whose
  // fresh pages cost more than the rehashing on a virtual machine.
  double tensorLines = 0.0;  // a double: a huge tensor only says "the capacity"
  std::vector<double> linesOf(m_layouts.size(), 0.0);  // by byte-owning tensor
  for (std::size_t t = 0; t < m_layouts.size(); ++t) {
    const GmTensorLayout& layout = m_layouts[t];
    if (layout.shape.empty() || layout.elementBytes <= 0 || m_lineBytes <= 0) continue;
    double bytes = static_cast<double>(layout.elementBytes);
    for (std::int64_t extent : layout.shape) bytes *= static_cast<double>(std::max<std::int64_t>(extent, 0));
    const double lines = bytes / static_cast<double>(m_lineBytes) + 1.0;
    tensorLines += lines;
    const auto owner = layout.bytesOf != kNoId ? static_cast<std::size_t>(layout.bytesOf) : t;
    if (owner >= linesOf.size()) linesOf.resize(owner + 1, 0.0);
    linesOf[owner] = std::max(linesOf[owner], std::ceil(lines));
  }
  m_lineBound = tensorLines >= static_cast<double>(m_capacityLines) ? m_capacityLines
                                                                     : static_cast<std::size_t>(tensorLines);
  // Tensors get entries in m_direct in id order while they fit its budget
  // (4 bytes a line, 256 MB of address space, resident only where touched);
  // the rest are hashed.
  constexpr double kDirectLineBudget = 64.0 * 1024 * 1024;
  double hashedLines = 0.0;
  m_directBase.assign(linesOf.size(), kNotDirect);
  m_directLines.assign(linesOf.size(), 0);
  for (std::size_t t = 0; t < linesOf.size() && m_capacityLines > 0; ++t) {
    if (linesOf[t] <= 0.0) continue;
    if (static_cast<double>(m_directSize) + linesOf[t] > kDirectLineBudget) {
      hashedLines += linesOf[t];
      continue;
    }
    m_directBase[t] = m_directSize;
    m_directLines[t] = static_cast<std::uint64_t>(linesOf[t]);
    m_directSize += m_directLines[t];
  }
  m_hashLineBound = hashedLines >= static_cast<double>(m_capacityLines) ? m_capacityLines
                                                                         : static_cast<std::size_t>(hashedLines);
}

void L2CacheModel::clear() {
  m_nodeKeys.clear();
  m_links.clear();
  m_direct.reset();
  m_table.clear();
  m_hashed = 0;
  m_head = m_tail = -1;
  m_hits = m_misses = 0;
  m_random = kRandomSeed;
  m_nextVictim = 0;
  m_victimsDrawn = false;
}

std::size_t L2CacheModel::home(std::uint64_t key) const {
  // Consecutive lines (a tile row spans several; a tile of whole rows is one
  // run) share a block of kRunSlots slots, so probing them reads one cache
  // line of the table instead of one each: the probes' cache misses were
  // most of the simulator's time. The block is placed by Fibonacci hashing,
  // whose top bits mix every bit of the rest of the key.
  const auto block = static_cast<std::size_t>(((key >> kRunBits) * 0x9E3779B97F4A7C15ull) >> (m_shift + kRunBits));
  return (block << kRunBits) | static_cast<std::size_t>(key & (kRunSlots - 1));
}

std::size_t L2CacheModel::findSlot(std::uint64_t key) const {
  const std::size_t mask = m_table.size() - 1;
  std::size_t slot = home(key);
  while (m_table[slot].key != kEmptyKey && m_table[slot].key != key) slot = (slot + 1) & mask;
  return slot;
}

void L2CacheModel::grow() {
  std::size_t size = std::max<std::size_t>(1024, m_table.size() * 2);
  if (m_table.empty())
    while (size < 2 * m_hashLineBound) size *= 2;
  m_table.assign(size, Slot{});
  m_shift = 64;
  for (std::size_t s = size; s > 1; s >>= 1) --m_shift;
  for (std::size_t i = 0; i < m_nodeKeys.size(); ++i)
    if (!directEntry(m_nodeKeys[i])) m_table[findSlot(m_nodeKeys[i])] = {m_nodeKeys[i], static_cast<std::int32_t>(i)};
}

std::int32_t* L2CacheModel::directEntry(std::uint64_t key) {
  const std::uint64_t tensor = key >> kLineBits;
  const std::uint64_t line = key & ((std::uint64_t{1} << kLineBits) - 1);
  if (tensor >= m_directBase.size() || m_directBase[tensor] == kNotDirect || line >= m_directLines[tensor]) return nullptr;
  return m_direct.get() + m_directBase[tensor] + line;
}

void L2CacheModel::forget(std::uint64_t key) {
  if (!directEntry(key)) removeFromTable(key);
}

void L2CacheModel::removeFromTable(std::uint64_t key) {
  // Backward-shift deletion keeps every probe chain unbroken.
  const std::size_t mask = m_table.size() - 1;
  std::size_t hole = findSlot(key);
  std::size_t probe = hole;
  while (true) {
    probe = (probe + 1) & mask;
    const Slot moved = m_table[probe];
    if (moved.key == kEmptyKey) break;
    std::size_t wanted = home(moved.key);
    // Move it into the hole unless its home lies cyclically in (hole, probe].
    bool stays = hole <= probe ? (wanted > hole && wanted <= probe) : (wanted > hole || wanted <= probe);
    if (stays) continue;
    m_table[hole] = moved;
    hole = probe;
  }
  m_table[hole] = Slot{};
  --m_hashed;
}

void L2CacheModel::unlink(std::int32_t node) {
  Link& n = m_links[static_cast<std::size_t>(node)];
  if (n.prev >= 0) m_links[static_cast<std::size_t>(n.prev)].next = n.next;
  else m_head = n.next;
  if (n.next >= 0) m_links[static_cast<std::size_t>(n.next)].prev = n.prev;
  else m_tail = n.prev;
  n.prev = n.next = -1;
}

void L2CacheModel::pushFront(std::int32_t node) {
  Link& n = m_links[static_cast<std::size_t>(node)];
  n.prev = -1;
  n.next = m_head;
  if (m_head >= 0) m_links[static_cast<std::size_t>(m_head)].prev = node;
  m_head = node;
  if (m_tail < 0) m_tail = node;
}

bool L2CacheModel::touch(std::uint64_t key, std::int32_t* direct) {
  const bool lru = m_replacement == L2Replacement::Lru;
  std::size_t slot = 0;
  std::int32_t present = -1;
  if (direct) {
    present = directNode(key, direct);
  } else {
    if (m_table.empty()) grow();
    slot = findSlot(key);
    if (m_table[slot].key == key) present = m_table[slot].node;
  }
  if (present >= 0) {
    if (lru && present != m_head) {
      unlink(present);
      pushFront(present);
    }
    return true;
  }
  std::int32_t node;
  if (m_nodeKeys.size() < m_capacityLines) {
    node = static_cast<std::int32_t>(m_nodeKeys.size());
    if (m_nodeKeys.empty()) {
      m_nodeKeys.reserve(m_lineBound);
      if (lru) m_links.reserve(m_lineBound);
    }
    m_nodeKeys.push_back(key);
    if (lru) m_links.push_back({});
  } else {
    // Reuse the victim's node: its key leaves the index.
    node = m_tail;
    if (!lru) {
      // The victims are drawn kVictimsAhead ahead (the node count no longer
      // changes once the cache is full), one division each, and the key of
      // the newest drawn is fetched: each lies far from the last in memory.
      // (Hints only: a key that changes before its eviction costs a wasted
      // fetch, nothing else.)
      const std::uint64_t nodes = m_nodeKeys.size();
      if (!m_victimsDrawn) {
        for (std::uint64_t& victim : m_victims) {
          m_random = l2Xorshift(m_random);
          victim = m_random % nodes;
          __builtin_prefetch(&m_nodeKeys[victim]);
        }
        m_victimsDrawn = true;
      }
      std::uint64_t& victim = m_victims[m_nextVictim];
      node = static_cast<std::int32_t>(victim);
      m_random = l2Xorshift(m_random);
      victim = m_random % nodes;
      __builtin_prefetch(&m_nodeKeys[victim], 1);
      m_nextVictim = (m_nextVictim + 1) % kVictimsAhead;
    } else {
      unlink(node);
    }
    forget(m_nodeKeys[static_cast<std::size_t>(node)]);
    m_nodeKeys[static_cast<std::size_t>(node)] = key;
    if (!direct) slot = findSlot(key);  // the removal may have shifted the probe chain
  }
  if (direct) {
    *direct = node + 1;
  } else {
    m_table[slot] = {key, node};
    // Keep the table at most half full.
    if (++m_hashed * 2 > m_table.size()) grow();
  }
  if (lru) pushFront(node);
  return false;
}

template <typename Visit> void L2CacheModel::forEachRun(const ConcreteRegion& region, Visit&& visit) const {
  if (region.tensor < 0 || static_cast<std::size_t>(region.tensor) >= m_layouts.size()) return;
  const GmTensorLayout& layout = m_layouts[static_cast<std::size_t>(region.tensor)];
  const std::size_t rank = layout.shape.size();
  if (rank == 0 || region.shape.size() != rank || region.offsets.size() != rank || layout.elementBytes <= 0) return;
  for (std::int64_t extent : region.shape)
    if (extent <= 0) return;
  // Row-major strides in bytes; ranks beyond kSmallRank (none in practice) use the heap.
  constexpr std::size_t kSmallRank = 8;
  std::array<std::int64_t, kSmallRank> smallStride{}, smallIndex{};
  std::vector<std::int64_t> largeStride, largeIndex;
  std::int64_t* stride = smallStride.data();
  std::int64_t* index = smallIndex.data();  // position within the region, the dims of a row fixed at 0
  if (rank > kSmallRank) {
    largeStride.assign(rank, 0);
    largeIndex.assign(rank, 0);
    stride = largeStride.data();
    index = largeIndex.data();
  }
  stride[rank - 1] = layout.elementBytes;
  for (std::size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * layout.shape[d];
  // The row's first byte, kept up to date as the odometer turns.
  std::int64_t rowStart = 0;
  bool offsetsNonNegative = true;
  for (std::size_t d = 0; d < rank; ++d) {
    rowStart += region.offsets[d] * stride[d];
    offsetsNonNegative = offsetsNonNegative && region.offsets[d] >= 0;
  }
  // Inner dims the region covers whole make its rows back to back in memory:
  // one longer row (a tile of whole tensor rows, the usual K or V block, is a
  // single run of lines instead of a row each; walking rows one by one was
  // most of a lookup). The lines are the same, in the same order: rows visit
  // ascending addresses, and back-to-back rows leave no line out. Negative
  // offsets keep the row-by-row walk, whose rounding toward zero differs.
  std::size_t rowDim = rank - 1;  // the dim whose extent makes up a row
  if (offsetsNonNegative)
    while (rowDim > 0 && region.offsets[rowDim] == 0 && region.shape[rowDim] == layout.shape[rowDim]) --rowDim;
  const std::int64_t rowBytes = region.shape[rowDim] * stride[rowDim];
  // A line is the byte offset divided by the line size, rounding toward zero
  // (what a division gives for the rare negative offset too).
  auto lineOf = [this](std::int64_t byte) {
    return m_lineShift >= 0 && byte >= 0 ? byte >> m_lineShift : byte / m_lineBytes;
  };
  std::int64_t lastLine = -1;
  while (true) {
    const std::int64_t first = lineOf(rowStart);
    const std::int64_t last = lineOf(rowStart + rowBytes - 1);
    if (std::max(first, lastLine + 1) <= last) visit(std::max(first, lastLine + 1), last);
    lastLine = std::max(lastLine, last);
    if (rowDim == 0) return;
    // Next row: odometer over the dims outside a row.
    std::size_t d = rowDim;
    while (true) {
      --d;
      if (++index[d] < region.shape[d]) {
        rowStart += stride[d];
        break;
      }
      rowStart -= (region.shape[d] - 1) * stride[d];
      index[d] = 0;
      if (d == 0) return;
    }
  }
}

L2CacheModel::ZeroedEntries& L2CacheModel::ZeroedEntries::operator=(const ZeroedEntries& other) {
  if (this == &other) return *this;
  reset();
  if (other.m_entries) {
    m_entries.reset(static_cast<std::int32_t*>(std::malloc(other.m_count * sizeof(std::int32_t))));
    if (!m_entries) throw std::bad_alloc();
    std::memcpy(m_entries.get(), other.m_entries.get(), other.m_count * sizeof(std::int32_t));
    m_count = other.m_count;
  }
  return *this;
}

void L2CacheModel::ZeroedEntries::allocate(std::size_t count) {
  m_entries.reset(static_cast<std::int32_t*>(std::calloc(count, sizeof(std::int32_t))));
  if (!m_entries) throw std::bad_alloc();
  m_count = count;
}

double L2CacheModel::access(const ConcreteRegion& region) { return accessLines(region).hitFraction; }

L2CacheModel::Lines L2CacheModel::accessLines(const ConcreteRegion& region) {
  if (m_capacityLines == 0) return {};
  std::int64_t hit = 0, total = 0;
  TensorId bytes = region.tensor;
  if (region.tensor >= 0 && static_cast<std::size_t>(region.tensor) < m_layouts.size() &&
      m_layouts[static_cast<std::size_t>(region.tensor)].bytesOf != kNoId)
    bytes = m_layouts[static_cast<std::size_t>(region.tensor)].bytesOf;
  const auto tensorKey = static_cast<std::uint64_t>(bytes) << kLineBits;
  if (!m_direct && m_directSize > 0) m_direct.allocate(m_directSize);
  // The region's tensor's entries in m_direct, when it has them.
  std::int32_t* directLines = nullptr;
  std::int64_t directCount = 0;
  if (bytes >= 0 && static_cast<std::size_t>(bytes) < m_directBase.size() &&
      m_directBase[static_cast<std::size_t>(bytes)] != kNotDirect) {
    directLines = m_direct.get() + m_directBase[static_cast<std::size_t>(bytes)];
    directCount = static_cast<std::int64_t>(m_directLines[static_cast<std::size_t>(bytes)]);
  }
  // The runs first, then the touches, fetching a few runs' entries ahead: a
  // tile's rows lie a tensor row apart, so each row's entry is a cache miss
  // of its own, and waiting for them one by one was most of a lookup (the
  // lines of one run have neighbouring entries, which the hardware fetches
  // ahead). The touches (and so every decision) keep their order.
  thread_local std::vector<LineRun> runs;
  runs.clear();
  forEachRun(region, [&](std::int64_t first, std::int64_t last) { runs.push_back({first, last}); });
  const auto inDirect = [&](const LineRun& run) { return directLines && run.first >= 0 && run.last < directCount; };
  constexpr std::size_t kRunsAhead = 8;
  for (std::size_t r = 0; r < std::min(kRunsAhead, runs.size()); ++r)
    if (inDirect(runs[r])) __builtin_prefetch(directLines + runs[r].first, 1);
  // Halfway there, a run's first entry has arrived: fetch the key of the
  // node it names, which says whether the line is still present.
  constexpr std::size_t kKeyAhead = kRunsAhead / 2;
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const LineRun run = runs[r];
    total += run.last - run.first + 1;
    if (r + kRunsAhead < runs.size() && inDirect(runs[r + kRunsAhead]))
      __builtin_prefetch(directLines + runs[r + kRunsAhead].first, 1);
    if (r + kKeyAhead < runs.size() && inDirect(runs[r + kKeyAhead]))
      if (const std::int32_t entry = directLines[runs[r + kKeyAhead].first]; entry > 0)
        __builtin_prefetch(&m_nodeKeys[static_cast<std::size_t>(entry - 1)]);
    if (inDirect(run)) {
      std::int32_t* entry = directLines + run.first;
      for (std::int64_t line = run.first; line <= run.last; ++line, ++entry) {
        const std::uint64_t key = tensorKey | static_cast<std::uint64_t>(line);
        // A hit under Random replacement changes nothing, so it needs no
        // call of touch() (most touches of a resident tile).
        if (m_replacement == L2Replacement::Random && directNode(key, entry) >= 0) {
          ++hit;
          continue;
        }
        hit += touch(key, entry);
      }
    } else {
      for (std::int64_t line = run.first; line <= run.last; ++line)
        hit += touch(tensorKey | static_cast<std::uint64_t>(line),
                     line >= 0 && line < directCount ? directLines + line : nullptr);
    }
  }
  m_hits += hit;
  m_misses += total - hit;
  if (total == 0) return {};
  return {static_cast<double>(hit) / static_cast<double>(total), (total - hit) * m_lineBytes};
}

} // namespace pto
