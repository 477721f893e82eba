// Implementation of the region boxes, their overlap test and grid index.
#include "compiler/ir/Regions.h"

#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <climits>

namespace pto {

namespace {

std::size_t mixHash(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::int64_t floorDivide(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// More cells than this and a box goes to its group's list of wide boxes.
constexpr std::uint64_t kMaxCellsPerBox = 64;

// Where a box's probe starts among RegionBoxIds' slots, and its tag: a hash
// of the box without its place along the innermost dim, spread over blocks
// of 8 slots by Fibonacci hashing, and that place (in box widths) picking
// the slot in the block. Boxes are interned in tile order, row by row:
// neighbours along a row then sit in neighbouring slots.
DenseIdPlace boxPlace(const RegionBox& box) {
  std::size_t hash = std::hash<std::int32_t>{}(box.tensor);
  std::uint64_t run = 0;
  for (std::size_t d = 0; d < box.rank; ++d) {
    hash = mixHash(hash, static_cast<std::size_t>(box.symbol[d]));
    const std::int64_t width = box.hi[d] - box.lo[d];
    if (d + 1 == box.rank) {
      const auto step = static_cast<std::uint64_t>(floorDivide(box.lo[d], std::max<std::int64_t>(width, 1)));
      hash = mixHash(hash, static_cast<std::size_t>(step >> 3));
      hash = mixHash(hash, static_cast<std::size_t>(width));
      run = step & 7;
    } else {
      hash = mixHash(hash, static_cast<std::size_t>(box.lo[d]));
      hash = mixHash(hash, static_cast<std::size_t>(width));
    }
  }
  const std::uint64_t spread = static_cast<std::uint64_t>(hash) * 0x9E3779B97F4A7C15ULL;
  return DenseIdPlace{((spread >> 32) << 3) | run, static_cast<std::uint32_t>(spread)};
}

} // namespace

bool RegionBox::empty() const {
  for (std::size_t d = 0; d < rank; ++d)
    if (lo[d] >= hi[d]) return true;
  return false;
}

bool operator==(const RegionBox& a, const RegionBox& b) {
  if (a.tensor != b.tensor || a.rank != b.rank || a.truncated != b.truncated) return false;
  for (std::size_t d = 0; d < a.rank; ++d)
    if (a.symbol[d] != b.symbol[d] || a.lo[d] != b.lo[d] || a.hi[d] != b.hi[d]) return false;
  return true;
}

std::size_t RegionBoxHash::operator()(const RegionBox& box) const {
  std::size_t hash = std::hash<std::int32_t>{}(box.tensor);
  for (std::size_t d = 0; d < box.rank; ++d) {
    hash = mixHash(hash, static_cast<std::size_t>(box.symbol[d]));
    hash = mixHash(hash, static_cast<std::size_t>(box.lo[d]));
    hash = mixHash(hash, static_cast<std::size_t>(box.hi[d]));
  }
  return hash;
}

DenseIdPlace KeptRegionBoxTraits::place(const RegionBox* box) { return boxPlace(*box); }

std::pair<std::int32_t, std::int64_t> RegionBoxes::split(const SymbolicScalar& offset) {
  if (auto constant = offset.constantValue()) return {0, *constant};
  if (auto found = m_splits.find(offset); found != m_splits.end()) return found->second;
  SymbolicScalar simple = simplify(offset);
  std::pair<std::int32_t, std::int64_t> result{0, 0};
  if (auto constant = simple.constantValue()) {
    result.second = *constant;
  } else {
    SymbolicScalar rest = simple;
    if (simple.kind() == SymbolicKind::Add) {
      if (auto term = simple.rhs().constantValue()) {
        rest = simple.lhs();
        result.second = *term;
      }
    } else if (simple.kind() == SymbolicKind::Sub) {
      if (auto term = simple.rhs().constantValue(); term && *term != INT64_MIN) {
        rest = simple.lhs();
        result.second = -*term;
      }
    }
    result.first = m_symbols.try_emplace(rest, static_cast<std::int32_t>(m_symbols.size()) + 1).first->second;
  }
  m_splits.emplace(offset, result);
  return result;
}

RegionBox RegionBoxes::box(const TileRegion& region) {
  RegionBox box;
  box.tensor = region.tensor;
  std::size_t rank = std::min(region.offsets.size(), region.shape.size());
  box.truncated = rank > kMaxBoxRank;
  box.rank = static_cast<std::uint8_t>(std::min(rank, kMaxBoxRank));
  for (std::size_t d = 0; d < box.rank; ++d) {
    auto [symbol, constant] = split(region.offsets[d]);
    box.symbol[d] = symbol;
    box.lo[d] = constant;
    box.hi[d] = constant + region.shape[d];
  }
  return box;
}

bool mayOverlap(const RegionBox& a, const RegionBox& b, OverlapMode mode) {
  if (a.tensor != b.tensor) return false;
  std::size_t rank = std::min(a.rank, b.rank);
  for (std::size_t d = 0; d < rank; ++d) {
    if (a.lo[d] >= a.hi[d] || b.lo[d] >= b.hi[d]) return false;
    bool comparable = a.symbol[d] == b.symbol[d] && (a.symbol[d] == 0 || mode == OverlapMode::SameIteration);
    if (comparable && (a.hi[d] <= b.lo[d] || b.hi[d] <= a.lo[d])) return false;
  }
  return true;
}

bool containsBox(const RegionBox& outer, const RegionBox& inner) {
  if (outer.tensor != inner.tensor || outer.rank != inner.rank || outer.truncated || inner.truncated) return false;
  for (std::size_t d = 0; d < outer.rank; ++d)
    if (outer.symbol[d] != inner.symbol[d] || inner.lo[d] < outer.lo[d] || outer.hi[d] < inner.hi[d]) return false;
  return true;
}

bool coveredTogether(const RegionBox& box, const std::vector<const RegionBox*>& parts) {
  if (parts.size() < 2 || parts.size() > 4096 || box.truncated) return false;
  std::vector<RegionBox> clipped;
  for (const RegionBox* part : parts) {
    if (!part || part->rank != box.rank || part->truncated) continue;
    RegionBox piece = *part;
    bool usable = true;
    for (std::size_t d = 0; d < box.rank && usable; ++d) {
      usable = piece.symbol[d] == box.symbol[d];
      piece.lo[d] = std::max(piece.lo[d], box.lo[d]);
      piece.hi[d] = std::min(piece.hi[d], box.hi[d]);
    }
    if (usable && !piece.empty()) clipped.push_back(piece);
  }
  std::vector<std::vector<std::int64_t>> cuts(box.rank);
  std::size_t cells = 1;
  for (std::size_t d = 0; d < box.rank; ++d) {
    cuts[d] = {box.lo[d], box.hi[d]};
    for (const RegionBox& piece : clipped) {
      cuts[d].push_back(piece.lo[d]);
      cuts[d].push_back(piece.hi[d]);
    }
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
    cells *= cuts[d].size() - 1;
    if (cells > 65536) return false;
  }
  // Cell strides (row-major over the grid), then each piece paints its cells.
  std::vector<std::size_t> stride(box.rank, 1);
  for (std::size_t d = box.rank; d-- > 1;) stride[d - 1] = stride[d] * (cuts[d].size() - 1);
  std::vector<char> painted(cells, 0);
  std::vector<std::size_t> from(box.rank), to(box.rank), at(box.rank);
  for (const RegionBox& piece : clipped) {
    for (std::size_t d = 0; d < box.rank; ++d) {
      from[d] = static_cast<std::size_t>(std::lower_bound(cuts[d].begin(), cuts[d].end(), piece.lo[d]) - cuts[d].begin());
      to[d] = static_cast<std::size_t>(std::lower_bound(cuts[d].begin(), cuts[d].end(), piece.hi[d]) - cuts[d].begin());
    }
    at = from;
    while (true) {
      std::size_t cell = 0;
      for (std::size_t d = 0; d < box.rank; ++d) cell += at[d] * stride[d];
      painted[cell] = 1;
      std::size_t d = box.rank;
      while (d > 0 && ++at[d - 1] == to[d - 1]) {
        at[d - 1] = from[d - 1];
        --d;
      }
      if (d == 0) break;
    }
  }
  return std::all_of(painted.begin(), painted.end(), [](char cell) { return cell != 0; });
}

RegionIndex::TensorEntries& RegionIndex::entriesOf(TensorId tensor) {
  const auto slot = static_cast<std::size_t>(static_cast<std::int64_t>(tensor) + 1);
  if (slot >= m_entriesOfTensor.size()) m_entriesOfTensor.resize(slot + 1, -1);
  std::int32_t& index = m_entriesOfTensor[slot];
  if (index < 0) {
    index = static_cast<std::int32_t>(m_tensors.size());
    m_tensors.emplace_back();
  }
  return m_tensors[static_cast<std::size_t>(index)];
}

RegionIndex::TensorEntries* RegionIndex::findEntries(TensorId tensor) {
  const auto slot = static_cast<std::size_t>(static_cast<std::int64_t>(tensor) + 1);
  if (slot >= m_entriesOfTensor.size() || m_entriesOfTensor[slot] < 0) return nullptr;
  return &m_tensors[static_cast<std::size_t>(m_entriesOfTensor[slot])];
}

void RegionIndex::setCellSize(TensorId tensor, const std::vector<std::int64_t>& cell) {
  TensorEntries& entries = entriesOf(tensor);
  entries.cell.fill(1);
  for (std::size_t d = 0; d < cell.size() && d < kMaxBoxRank; ++d) entries.cell[d] = std::max<std::int64_t>(cell[d], 1);
  entries.cellSet = true;
}

RegionIndex::Group& RegionIndex::groupFor(TensorEntries& entries, const RegionBox& box) {
  for (Group& group : entries.groups)
    if (group.rank == box.rank && group.symbol == box.symbol) return group;
  Group group;
  group.rank = box.rank;
  group.symbol = box.symbol;
  for (std::size_t d = 0; d < box.rank; ++d)
    group.keyDim[d] = m_mode == OverlapMode::SameIteration || box.symbol[d] == 0;
  entries.groups.push_back(std::move(group));
  return entries.groups.back();
}

// The cells of `box` on the grid's dims: [first, last] per dim; returns
// their count (saturating).
std::uint64_t RegionIndex::cellRange(const TensorEntries& entries, const Group& group, const RegionBox& box,
                                     Cells& first, Cells& last) const {
  std::uint64_t count = 1;
  for (std::size_t d = 0; d < kMaxBoxRank; ++d) {
    first[d] = last[d] = 0;
    if (d >= box.rank || !group.keyDim[d]) continue;
    first[d] = floorDivide(box.lo[d], entries.cell[d]);
    last[d] = floorDivide(box.hi[d] - 1, entries.cell[d]);
    auto extent = static_cast<std::uint64_t>(last[d] - first[d]) + 1;
    count = count > (std::uint64_t{1} << 40) / extent ? (std::uint64_t{1} << 40) : count * extent;
  }
  return count;
}

namespace {

// Cells along the innermost dim in runs of this many share a block of
// neighbouring slots of the cell table (CellTable::indexOf).
constexpr unsigned kCellRunBits = 3;
constexpr std::uint64_t kCellRunMask = (std::uint64_t{1} << kCellRunBits) - 1;

// A cell's key: a hash of its coordinates with the innermost dim's low bits
// left in the key's low bits. The tile ops of a tensor op come row by row,
// so consecutive queries ask for neighbouring cells; kept in neighbouring
// slots, a query's cell is usually in a cache line the one before read
// (hashed apart, each lookup of a large index was a cache miss: the
// largest item of GraphPartition's profile).
std::uint64_t cellKey(const std::array<std::int64_t, kMaxBoxRank>& coordinates, std::size_t rank) {
  const std::size_t inner = rank > 0 ? rank - 1 : 0;
  std::uint64_t hash = 0x84222325cbf29ce4ULL;
  for (std::size_t d = 0; d < kMaxBoxRank; ++d) {
    const auto coordinate = static_cast<std::uint64_t>(coordinates[d]);
    hash = mixHash(hash, static_cast<std::size_t>(d == inner ? coordinate >> kCellRunBits : coordinate));
  }
  return (hash << kCellRunBits) | (static_cast<std::uint64_t>(coordinates[inner]) & kCellRunMask);
}

// Steps `at` through the cells [first, last] (row-major); false after the last.
bool nextCell(std::array<std::int64_t, kMaxBoxRank>& at, const std::array<std::int64_t, kMaxBoxRank>& first,
              const std::array<std::int64_t, kMaxBoxRank>& last) {
  for (std::size_t d = kMaxBoxRank; d-- > 0;) {
    if (at[d] < last[d]) {
      ++at[d];
      return true;
    }
    at[d] = first[d];
  }
  return false;
}

} // namespace

std::size_t RegionIndex::CellTable::indexOf(std::uint64_t key) const {
  // Keys are hashes already (cellKey); Fibonacci hashing spreads their high
  // bits over blocks, and a run of neighbouring cells fills one block.
  const std::size_t mask = m_cells.size() - 1;
  const std::uint64_t block = ((key >> kCellRunBits) * 0x9E3779B97F4A7C15ULL) >> 32;
  return static_cast<std::size_t>((block << kCellRunBits) | (key & kCellRunMask)) & mask;
}

std::int32_t* RegionIndex::CellTable::find(std::uint64_t key) {
  if (m_cells.empty()) return nullptr;
  const std::size_t mask = m_cells.size() - 1;
  for (std::size_t i = indexOf(key);; i = (i + 1) & mask) {
    Cell& cell = m_cells[i];
    if (!cell.used) return nullptr;
    if (cell.key == key) return &cell.head;
  }
}

std::int32_t& RegionIndex::CellTable::head(std::uint64_t key) {
  if (2 * (m_count + 1) > m_cells.size()) {
    std::vector<Cell> old = std::move(m_cells);
    m_cells.assign(std::max<std::size_t>(16, 2 * old.size()), Cell{});
    const std::size_t mask = m_cells.size() - 1;
    for (const Cell& cell : old)
      if (cell.used) {
        std::size_t i = indexOf(cell.key);
        while (m_cells[i].used) i = (i + 1) & mask;
        m_cells[i] = cell;
      }
  }
  const std::size_t mask = m_cells.size() - 1;
  std::size_t i = indexOf(key);
  while (m_cells[i].used && m_cells[i].key != key) i = (i + 1) & mask;
  Cell& cell = m_cells[i];
  if (!cell.used) {
    cell = Cell{key, -1, true};
    ++m_count;
  }
  return cell.head;
}

void RegionIndex::reserve(std::size_t boxes) {
  m_entries.reserve(boxes);
  m_slots.reserve(2 * boxes);  // in `all` and in one cell, at least
}

void RegionIndex::push(std::int32_t& head, std::int32_t entry) {
  m_slots.push_back(Slot{entry, head});
  head = static_cast<std::int32_t>(m_slots.size()) - 1;
}

void RegionIndex::insert(const RegionBox& box, std::int32_t payload) {
  if (box.empty()) return;
  if (m_copiesInLastChunk == m_lastChunkSize) {
    // Chunks of 8, 16, ... up to kCopiesPerChunk boxes: the buffer planner
    // makes an index for each subgraph it tries, most holding a few dozen
    // boxes, and a first chunk of 256 (32 KB, every box initialised) was
    // most of what each cost.
    m_lastChunkSize = m_copies.empty() ? kFirstChunk : std::min(kCopiesPerChunk, 2 * m_lastChunkSize);
    m_copies.push_back(std::make_unique<RegionBox[]>(m_lastChunkSize));
    m_copiesInLastChunk = 0;
  }
  RegionBox& copy = m_copies.back()[m_copiesInLastChunk++];
  copy = box;
  insertKept(copy, payload);
}

void RegionIndex::insertKept(const RegionBox& box, std::int32_t payload) {
  if (box.empty()) return;
  const auto id = static_cast<std::int32_t>(m_entries.size());
  m_entries.push_back(Entry{&box, payload, true, 0});
  if (m_entries.size() <= kScannedEntries) return;
  // Past the size a scan serves: the earlier entries go into the grid too,
  // in the order they came (the first box of a tensor sets its cells).
  if (m_entries.size() == kScannedEntries + 1)
    for (std::int32_t earlier = 0; earlier < id; ++earlier) file(earlier);
  file(id);
}

void RegionIndex::file(std::int32_t id) {
  const RegionBox& box = *m_entries[static_cast<std::size_t>(id)].box;
  TensorEntries& entries = entriesOf(box.tensor);
  if (!entries.cellSet) {
    for (std::size_t d = 0; d < kMaxBoxRank; ++d)
      entries.cell[d] = d < box.rank ? std::max<std::int64_t>(box.hi[d] - box.lo[d], 1) : 1;
    entries.cellSet = true;
  }
  Group& group = groupFor(entries, box);
  push(group.all, id);
  Cells first, last;
  if (cellRange(entries, group, box, first, last) > kMaxCellsPerBox) {
    push(group.wide, id);
    return;
  }
  Cells at = first;
  do push(group.cells.head(cellKey(at, box.rank)), id);
  while (nextCell(at, first, last));
}

bool RegionIndex::visitList(std::int32_t& head, const RegionBox& query, const Visitor& visit) {
  std::int32_t* link = &head;
  while (*link >= 0) {
    Slot& slot = m_slots[static_cast<std::size_t>(*link)];
    Entry& entry = m_entries[static_cast<std::size_t>(slot.entry)];
    if (!entry.alive) {
      *link = slot.next;  // unlink a dropped entry
      continue;
    }
    link = &slot.next;
    if (entry.seen == m_query) continue;
    entry.seen = m_query;
    if (!mayOverlap(query, *entry.box, m_mode)) continue;
    Visit action = visit(entry.payload, *entry.box);
    if (action == Visit::Drop) entry.alive = false;
    if (action == Visit::Stop) return false;
  }
  return true;
}

void RegionIndex::visitOverlapping(const RegionBox& query, const Visitor& visit) {
  if (query.empty()) return;
  if (m_entries.size() <= kScannedEntries) {
    for (Entry& entry : m_entries) {
      if (!entry.alive || entry.box->tensor != query.tensor || !mayOverlap(query, *entry.box, m_mode)) continue;
      const Visit action = visit(entry.payload, *entry.box);
      if (action == Visit::Drop) entry.alive = false;
      if (action == Visit::Stop) return;
    }
    return;
  }
  TensorEntries* found = findEntries(query.tensor);
  if (!found || found->groups.empty()) return;
  if (++m_query == 0) {
    for (Entry& entry : m_entries) entry.seen = 0;
    m_query = 1;
  }
  TensorEntries& entries = *found;
  Cells first, last;
  for (Group& group : entries.groups) {
    bool lookup = !query.truncated && query.rank == group.rank;
    for (std::size_t d = 0; lookup && d < query.rank; ++d)
      if (group.keyDim[d])
        lookup = m_mode == OverlapMode::SameIteration ? query.symbol[d] == group.symbol[d] : query.symbol[d] == 0;
    if (lookup) lookup = cellRange(entries, group, query, first, last) <= group.cells.size();
    if (!lookup) {
      if (!visitList(group.all, query, visit)) return;
      continue;
    }
    Cells at = first;
    do {
      std::int32_t* cell = group.cells.find(cellKey(at, query.rank));
      if (cell && !visitList(*cell, query, visit)) return;
    } while (nextCell(at, first, last));
    if (!visitList(group.wide, query, visit)) return;
  }
}

} // namespace pto
