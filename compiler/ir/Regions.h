// Regions: where a tile op reads and writes, as boxes of numbers, the one test
// of whether two may share an element, and the grid index that finds the
// boxes a query overlaps.
//
// A tile region's offsets are expressions of the loop indices. A box splits
// each dim's offset into a symbolic part (the simplified offset without its
// constant term, named by a small id; 0 for none) and the constant interval
// [lo, hi) that the constant term and the extent give. Two boxes whose
// symbolic parts agree in a dim then compare by numbers in that dim; whether
// equal symbolic parts are equal values depends on the question
// (OverlapMode): within one run of one scope they are, across runs they may
// be anything.
//
// Who uses it: GraphPartition, GenerateMoveOp, AllocateBuffers, the merges
// and LowerToPto (which tile ops touch the same data), TileDataEdges and the
// block-graph dump (the edges the IR views draw), and the analysis' IR graph
// (regions read back from a dump). BuildExecuteGraph keeps an index of its
// own (BuildExecuteGraph.cpp, DependencyIndex): its boxes are plain numbers
// (every loop unrolled, no symbolic part), of any rank, of many sizes on one
// tensor (a task's whole-row read beside tile-sized writes), and it is asked
// for the last writer of each box, not only for overlaps. This index's grid
// takes its cell from the first box on a tensor and sends every box over 64
// cells to a list each query scans. Measured with `pto_bench
// --benchmark_filter=regionIndex` (2 cores): 64 x 64 tiles alone cost
// 0.26 / 0.34 / 0.31 / 0.69 us per region at 1k / 10k / 100k / 1M regions;
// with one whole-row band per 64 tiles it is 0.22 / 1.2 / 15 us at 1k / 10k /
// 100k, quadratic. The execute graph's size classes keep every box within
// two cells per dim, and BuildExecuteGraph's whole compile stays at about
// 1.8 us per task from 100k to 1M tasks (compileIndependentIterations).
#pragma once

#include "compiler/ir/TileGraph.h"
#include "core/DenseIds.h"
#include "core/SymbolicScalar.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pto {

enum class OverlapMode : unsigned char {
  SameIteration,  // one run of one scope: equal symbolic parts are equal values
  AnyIteration,   // any runs of any scopes: a symbolic offset may be anything
};

// Dims a box keeps; a region with more is `truncated`: its later dims count
// as overlapping anything, and it never surely contains another box.
inline constexpr std::size_t kMaxBoxRank = 6;

struct RegionBox {
  TensorId tensor = kNoId;
  std::uint8_t rank = 0;
  bool truncated = false;
  std::array<std::int32_t, kMaxBoxRank> symbol{};  // per dim: id of the symbolic part, 0 for none
  std::array<std::int64_t, kMaxBoxRank> lo{}, hi{};  // per dim: constant parts of [offset, offset + size)
  bool empty() const;
  friend bool operator==(const RegionBox& a, const RegionBox& b);
};

struct RegionBoxHash {
  std::size_t operator()(const RegionBox& box) const;
};

// Dense ids of distinct boxes (0, 1, ... in order of first sight) that the
// caller keeps where they are while the ids are used: GraphPartition
// numbers the half a million regions its tile ops read, and a copy of each
// box (128 bytes) was 65 MB of fresh memory at 512k tile ops. Neighbouring
// tiles of a row go to neighbouring slots (Regions.cpp, boxPlace), where a
// random slot per box was a cache miss each.
struct KeptRegionBoxTraits {
  static DenseIdPlace place(const RegionBox* box);
  static bool same(const RegionBox* a, const RegionBox* b) { return *a == *b; }
};
using RegionBoxIds = DenseIds<const RegionBox*, KeptRegionBoxTraits>;

// Makes boxes of tile regions: simplify() runs once per distinct offset
// expression, and equal symbolic parts get equal ids (per RegionBoxes).
class RegionBoxes {
public:
  RegionBox box(const TileRegion& region);

private:
  std::pair<std::int32_t, std::int64_t> split(const SymbolicScalar& offset);

  std::unordered_map<SymbolicScalar, std::pair<std::int32_t, std::int64_t>, SymbolicScalarHash> m_splits;
  std::unordered_map<SymbolicScalar, std::int32_t, SymbolicScalarHash> m_symbols;
};

// Whether two boxes of one tensor may share an element; undecidable dims
// count as overlapping, empty boxes overlap nothing.
bool mayOverlap(const RegionBox& a, const RegionBox& b, OverlapMode mode);
// Whether `outer` surely holds every element of `inner` in the same run.
bool containsBox(const RegionBox& outer, const RegionBox& inner);
// Whether boxes of one run together hold every element of `box` (tiles of
// another shape than the reader's: a [22, 16] read of [1, 48] row tiles, a
// [1, 64, 64] slice of 64 head tiles). Decided on the grid of their
// boundaries, each piece painting the cells it holds; undecided (false)
// beyond 4096 pieces or 65536 grid cells, and for fewer than two parts.
bool coveredTogether(const RegionBox& box, const std::vector<const RegionBox*>& parts);

// Boxes with a payload, found by overlap with a query box: a grid per tensor
// and symbolic signature, cells about the size of the smallest tile on the
// tensor, so a query costs about the number of boxes it overlaps. Boxes
// over more than 64 cells are kept in a list every query of their group
// scans.
class RegionIndex {
public:
  enum class Visit : unsigned char { Keep, Drop, Stop };
  // A callable Visit(std::int32_t payload, const RegionBox& box), held by
  // reference for the length of one call: a query per tile op made a
  // std::function, often allocated, each time.
  class Visitor {
  public:
    template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Visitor>>>
    Visitor(F&& visit)  // NOLINT(google-explicit-constructor): lambdas pass as they are
        : m_object(const_cast<void*>(static_cast<const void*>(std::addressof(visit)))),
          m_call([](void* object, std::int32_t payload, const RegionBox& box) {
            return (*static_cast<std::remove_reference_t<F>*>(object))(payload, box);
          }) {}
    Visit operator()(std::int32_t payload, const RegionBox& box) const { return m_call(m_object, payload, box); }

  private:
    void* m_object;
    Visit (*m_call)(void*, std::int32_t, const RegionBox&);
  };

  // By default within one run of one scope (one task).
  explicit RegionIndex(OverlapMode mode = OverlapMode::SameIteration) : m_mode(mode) {}
  // The grid cell of a tensor, per dim (the smallest tile extent is a good
  // choice); without it the first box inserted on the tensor sets it. Call
  // before inserting on the tensor.
  void setCellSize(TensorId tensor, const std::vector<std::int64_t>& cell);
  // Room for `boxes` inserts without moving the boxes held.
  void reserve(std::size_t boxes);
  // Adds a copy of `box` (an empty box is not added).
  void insert(const RegionBox& box, std::int32_t payload);
  // Adds `box` itself, which must stay where it is, unchanged, while the
  // index is used: a pass indexing boxes it keeps in an array (half a
  // million tile writes) saves copying them, 128 bytes each.
  void insertKept(const RegionBox& box, std::int32_t payload);
  // Calls `visit` once for every live box that may overlap `query` (in
  // unspecified order); Drop removes that box, Stop ends the search. `visit`
  // must not insert.
  void visitOverlapping(const RegionBox& query, const Visitor& visit);
  // The same, for callers that only collect: `visit(payload)`.
  template <typename Collect> void forEachOverlapping(const RegionBox& query, Collect&& collect) {
    visitOverlapping(query, [&](std::int32_t payload, const RegionBox&) {
      collect(payload);
      return Visit::Keep;
    });
  }

private:
  using Cells = std::array<std::int64_t, kMaxBoxRank>;
  struct Entry {
    const RegionBox* box = nullptr;  // the caller's (insertKept) or in m_copies
    std::int32_t payload = 0;
    bool alive = true;
    std::uint32_t seen = 0;
  };
  // Copies of the boxes insert() was given, in chunks that never move.
  static constexpr std::size_t kCopiesPerChunk = 256;
  std::vector<std::unique_ptr<RegionBox[]>> m_copies;
  static constexpr std::size_t kFirstChunk = 8;
  std::size_t m_lastChunkSize = 0;
  std::size_t m_copiesInLastChunk = 0;
  struct Slot {  // a link of a list of entries
    std::int32_t entry = 0;
    std::int32_t next = -1;
  };
  // Cell key -> first slot of the cell's list, by open addressing: a
  // scope-wide index of a large kernel holds hundreds of thousands of cells,
  // and a node each (std::unordered_map) cost more than the searches.
  class CellTable {
  public:
    std::size_t size() const { return m_count; }
    std::int32_t* find(std::uint64_t key);
    std::int32_t& head(std::uint64_t key);  // a new cell's list is empty (-1)

  private:
    struct Cell {
      std::uint64_t key = 0;
      std::int32_t head = -1;
      bool used = false;
    };
    std::size_t indexOf(std::uint64_t key) const;
    std::vector<Cell> m_cells;  // a power of two long, at most half full
    std::size_t m_count = 0;
  };
  struct Group {  // the boxes of one rank and symbolic signature
    std::uint8_t rank = 0;
    std::array<std::int32_t, kMaxBoxRank> symbol{};
    std::array<bool, kMaxBoxRank> keyDim{};  // dims the grid cuts
    CellTable cells;
    std::int32_t wide = -1;  // boxes over too many cells
    std::int32_t all = -1;
  };
  struct TensorEntries {
    Cells cell{};
    bool cellSet = false;
    std::vector<Group> groups;
  };

  // An index of a few boxes is a list, searched by a scan: the buffer
  // planner makes one for every subgraph it tries (thousands a compile),
  // most holding a few dozen boxes, and filing each box in a grid of cells
  // cost more than the scans it saved. Past this many entries they are
  // filed (file()) and searched through the grid.
  static constexpr std::size_t kScannedEntries = 128;
  void file(std::int32_t entry);
  Group& groupFor(TensorEntries& entries, const RegionBox& box);
  std::uint64_t cellRange(const TensorEntries& entries, const Group& group, const RegionBox& box, Cells& first,
                          Cells& last) const;
  void push(std::int32_t& head, std::int32_t entry);
  bool visitList(std::int32_t& head, const RegionBox& query, const Visitor& visit);

  // The entries of the tensors with boxes, found through an array by tensor
  // id + 1 (kNoId first): a hash lookup per query and insert showed in
  // GraphPartition's and GenerateMoveOp's profiles. The array holds indices,
  // not the entries: the buffer planner makes an index per subgraph it
  // tries (thousands a compile), and entries for every tensor id up to the
  // highest used (DIA: thousands, 80 bytes each) were most of that cost.
  TensorEntries& entriesOf(TensorId tensor);
  TensorEntries* findEntries(TensorId tensor);

  OverlapMode m_mode;
  std::vector<std::int32_t> m_entriesOfTensor;  // by tensor id + 1: index into m_tensors, -1: none
  std::vector<TensorEntries> m_tensors;
  std::vector<Entry> m_entries;
  std::vector<Slot> m_slots;
  std::uint32_t m_query = 0;
};

} // namespace pto
