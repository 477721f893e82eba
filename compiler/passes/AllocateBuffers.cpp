// Implementation of AllocateBuffers.
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/MatmulL1Block.h"

#include "compiler/ir/Regions.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/SubgraphOpOrder.h"
#include "core/DenseIds.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <deque>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>

namespace pto {
namespace {

// A buffer in the making: what AllocateBuffers records, plus the position
// after which its bytes may be reused.
struct Planned {
  // Its region is left empty while planning and filled from `region` only in
  // a plan that lists its buffers: most plans are the partitioner's fit
  // checks, which ask for peaks alone, and copying every buffer's region
  // into them was a tenth of a large kernel's partitioning.
  BufferAllocation buffer;
  const TileRegion* region = nullptr;  // the tile graph's, or the planner's own (m_ownedRegions)
  OpId tensorOp = kNoId;  // whose kernel line a too-big tile is blamed on
  int releaseAfter = 0;
  BufferOrigin origin;
  int id = 0;  // creation order: stable across the sort by first use
  // The buffers (by id) of same-shape inputs whose bytes this result may take when the input dies at the op
  // that makes it (computesInPlace).
  std::vector<int> inPlaceCandidates;
  // A loaded input a result was then written over in place (an in-place scatter): indexed as produced.
  bool writtenInPlace = false;
};

// Whether a tile op may write its result over one of its same-shape inputs: elementwise ops read element i
// of each input and write element i of the result, so the vector unit computes them in place (PTO-ISA's
// elementwise instructions take dst == src), and a copy over its own source moves nothing. Scans, which
// read earlier elements, and everything else that moves elements do not.
bool computesInPlace(TensorOpKind kind) {
  switch (kind) {
  case TensorOpKind::Cumsum:
  case TensorOpKind::Cumprod:
  case TensorOpKind::ExpandClone: return false;
  case TensorOpKind::Copy:
  case TensorOpKind::Assemble:
  case TensorOpKind::Scatter:
  case TensorOpKind::ScatterUpdate: return true;
  default: return isElementwise(category(kind));
  }
}

// Whether a tile made at `made` lies at a distance from a read of `read` known while compiling (the same
// symbolic part per dim), the rule LowerToPto's ubPieces uses to read it from its buffer.
bool atConstantDistance(const RegionBox& made, const RegionBox& read) {
  if (made.rank != read.rank) return false;
  for (std::size_t d = 0; d < read.rank; ++d)
    if (made.symbol[d] != read.symbol[d]) return false;
  return true;
}

// Which inputs a result computed in place may overwrite: a scatter's result is its input 0 with the
// source's elements written at the index's positions (TSCATTER updates dst in place), so it may take
// input 0's bytes, never the index's or the source's, which it reads element by element while writing.
bool mayOverwriteInput(TensorOpKind kind, std::size_t input) {
  return (kind != TensorOpKind::Scatter && kind != TensorOpKind::ScatterUpdate) || input == 0;
}

// Regions hashed by box (memory, tensor, per dim the symbolic part and the
// constant bounds); a region of more dims than a box keeps is keyed by its
// simplified text instead, since its box cannot tell such regions apart.
struct BufferKey {
  MemoryKind memory = MemoryKind::UB;
  RegionBox box;
  std::string text;  // truncated boxes only
  // A merged cube subgraph's operand buffers are per member where members do
  // not share them (Planner::memberOfBuffer); -1 elsewhere.
  int member = -1;
  friend bool operator==(const BufferKey&, const BufferKey&) = default;
};
// Where a key's probe starts and its tag: the low and high halves of one hash.
struct BufferKeyTraits {
  static DenseIdPlace place(const BufferKey& key) {
    const std::size_t hash =
        (RegionBoxHash{}(key.box) * 31 + static_cast<std::size_t>(key.memory) + std::hash<std::string>{}(key.text)) * 31 +
        static_cast<std::size_t>(key.member + 1);
    return DenseIdPlace{hash, static_cast<std::uint32_t>(hash >> 32)};
  }
  static bool same(const BufferKey& a, const BufferKey& b) { return a == b; }
};

// A planner's buffers by key, as positions in the order they were made (a
// buffer's index in the planner's list before its sort by first use). A
// hash-map node per buffer (a heap block of some 200 bytes, the key's box
// copied in), made in each of the partitioner's thousands of fit-check
// plans, cost 1.5 % of deepseek_indexer_attention's compile instructions.
using BufferIndex = DenseIds<BufferKey, BufferKeyTraits>;

// Per on-chip memory: whether a placement keeps its buffers one op past their last use (ping-pong).
using MemorySet = std::array<bool, kMemoryKindCount>;
constexpr MemorySet kEveryMemory = [] {
  MemorySet all{};
  for (bool& memory : all) memory = true;
  return all;
}();

class Planner {
public:
  // `l1PerMember`: a merged cube subgraph's members load their own L1
  // operands even where they read the same data (when sharing them does not
  // fit; planSubgraphBuffers).
  Planner(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph, bool l1PerMember = false)
      : m_tiles(tiles), m_target(target), m_subgraph(subgraph), m_produced(OverlapMode::SameIteration),
        m_memberOf(memberOfPositions()), m_l1PerMember(l1PerMember) {
    // A vector op's buffers are about its inputs and its output; the lists
    // then rarely grow (each growth moved every entry).
    const std::size_t expected = 2 * subgraph.ops.size() + 8;
    m_planned.reserve(expected);
    m_byKey.reserve(expected);
  }

  void plan() {
    if (m_subgraph.coreType == CoreType::AIC) planCube();
    else planVector();
    // Stable: buffers first used by the same op keep the order they appeared in.
    // A vector subgraph's buffers are made in the order of their first use
    // already, and a stable sort of a sorted array still merges and moves
    // every entry (an eighth of a fit check's plan).
    auto byFirstUse = [](const Planned& a, const Planned& b) { return a.buffer.firstUse < b.buffer.firstUse; };
    if (!std::is_sorted(m_planned.begin(), m_planned.end(), byFirstUse))
      std::stable_sort(m_planned.begin(), m_planned.end(), byFirstUse);
  }

  // Sets every buffer's offset; `membersApart` keeps buffers reserved until
  // the member after their last use ends, `pingPong` until one op after it.
  // `bySize` places the largest buffers first, each at the lowest offset
  // free over its whole live range (greedy by size): slower than first fit in
  // order of use, but it leaves fewer gaps too small for a later large tile
  // (a pinned scope's row chains alternate 32 KB and 64 KB tiles), so it is
  // the fallback when first fit overflows.
  // `inPlace` lets an elementwise result take the bytes of an input that dies at its op (first fit only).
  std::array<std::int64_t, kMemoryKindCount> place(bool membersApart, MemorySet pingPong, bool bySize = false,
                                                   bool inPlace = false) {
    setReleases(membersApart, pingPong);
    return bySize ? placeBySize() : placeFirstFit(inPlace);
  }

  // Whether some placement under these releases could fit every memory (the
  // live bytes at each position do).
  bool mayFit(bool membersApart, MemorySet pingPong) {
    setReleases(membersApart, pingPong);
    const std::array<std::int64_t, kMemoryKindCount> bound = liveBytesBound();
    for (std::size_t m = 0; m < kMemoryKindCount; ++m)
      if (static_cast<MemoryKind>(m) != MemoryKind::GM && bound[m] > m_target.capacity(static_cast<MemoryKind>(m)))
        return false;
    return true;
  }

  void setReleases(bool membersApart, MemorySet pingPong) {
    const std::vector<int> memberEnd = memberEnds();
    const std::vector<int>& memberOf = m_memberOf;
    for (Planned& entry : m_planned) {
      entry.releaseAfter = entry.buffer.lastUse + (pingPong[static_cast<std::size_t>(entry.buffer.memory)] ? 1 : 0);
      // A cube operand loaded from GM (L1, L0A, L0B) is only read: once its last reader is done, the next
      // member's loads may take its bytes (ping-pong keeps it one op longer), so it needs no reservation;
      // keeping a member's L1 blocks until the next member ends would leave no room for that member's own.
      const MemoryKind memory = entry.buffer.memory;
      const bool loadedCubeOperand = entry.buffer.producer == kNoId && (memory == MemoryKind::L1 ||
                                                                        memory == MemoryKind::L0A ||
                                                                        memory == MemoryKind::L0B);
      if (membersApart && !memberEnd.empty() && !loadedCubeOperand) {
        int member = memberOf[static_cast<std::size_t>(entry.buffer.lastUse)];
        if (member + 1 < static_cast<int>(memberEnd.size()))
          entry.releaseAfter = std::max(entry.releaseAfter, memberEnd[static_cast<std::size_t>(member) + 1]);
      }
    }
  }

  std::array<std::int64_t, kMemoryKindCount> placeFirstFit(bool inPlaceResults) {
    std::array<std::int64_t, kMemoryKindCount> peak{};
    // Per memory: free byte ranges (the last runs to "infinity") and the
    // live buffers by release position. First fit = the lowest free range
    // that is long enough, which is the lowest gap between live buffers.
    constexpr std::int64_t kEnd = std::int64_t{1} << 62;
    std::array<FreeRanges, kMemoryKindCount> freeRanges;
    for (auto& ranges : freeRanges) ranges.assign(1, {0, kEnd});
    using Release = std::pair<int, std::size_t>;  // releaseAfter, index in m_planned
    std::array<std::priority_queue<Release, std::vector<Release>, std::greater<>>, kMemoryKindCount> live;
    // A result written in place over an input owns that input's bytes from then on (inherited[input]).
    std::vector<int> indexOfId(m_planned.size());
    for (std::size_t i = 0; i < m_planned.size(); ++i) indexOfId[static_cast<std::size_t>(m_planned[i].id)] = static_cast<int>(i);
    std::vector<char> inherited(m_planned.size(), 0);
    for (std::size_t i = 0; i < m_planned.size(); ++i) {
      BufferAllocation& buffer = m_planned[i].buffer;
      const auto memory = static_cast<std::size_t>(buffer.memory);
      auto& ranges = freeRanges[memory];
      while (!live[memory].empty() && live[memory].top().first < buffer.firstUse) {
        const std::size_t doneIndex = live[memory].top().second;
        const BufferAllocation& done = m_planned[doneIndex].buffer;
        live[memory].pop();
        if (!inherited[doneIndex]) release(ranges, done.offsetBytes, done.offsetBytes + done.bytes);
      }
      // In place: an input that dies at this op (released right after it in this placement) whose bytes no
      // other result took.
      bool inPlace = false;
      for (std::size_t c = 0; inPlaceResults && !inPlace && c < m_planned[i].inPlaceCandidates.size(); ++c) {
        const auto input = static_cast<std::size_t>(indexOfId[static_cast<std::size_t>(m_planned[i].inPlaceCandidates[c])]);
        if (input >= i || inherited[input] || m_planned[input].releaseAfter != buffer.firstUse) continue;
        buffer.offsetBytes = m_planned[input].buffer.offsetBytes;
        inherited[input] = 1;
        inPlace = true;
      }
      if (inPlace) {
        live[memory].emplace(m_planned[i].releaseAfter, i);
        continue;
      }
      auto range = ranges.begin();
      while (range->second - range->first < buffer.bytes) ++range;  // the last range is endless
      buffer.offsetBytes = range->first;
      if (buffer.offsetBytes + buffer.bytes < range->second) range->first = buffer.offsetBytes + buffer.bytes;
      else ranges.erase(range);
      live[memory].emplace(m_planned[i].releaseAfter, i);
      peak[memory] = std::max(peak[memory], buffer.offsetBytes + buffer.bytes);
    }
    return peak;
  }

  // Per memory, the most bytes live at one position under the releases set:
  // no placement needs less.
  std::array<std::int64_t, kMemoryKindCount> liveBytesBound() const {
    std::array<std::vector<std::pair<int, std::int64_t>>, kMemoryKindCount> events;  // (position, +bytes / -bytes)
    for (const Planned& entry : m_planned) {
      auto& list = events[static_cast<std::size_t>(entry.buffer.memory)];
      list.emplace_back(entry.buffer.firstUse, entry.buffer.bytes);
      list.emplace_back(entry.releaseAfter + 1, -entry.buffer.bytes);
    }
    std::array<std::int64_t, kMemoryKindCount> bound{};
    for (std::size_t m = 0; m < kMemoryKindCount; ++m) {
      std::sort(events[m].begin(), events[m].end());  // at one position, releases (negative) first
      std::int64_t live = 0;
      for (const auto& [position, bytes] : events[m]) bound[m] = std::max(bound[m], live += bytes);
    }
    return bound;
  }

  std::array<std::int64_t, kMemoryKindCount> placeBySize() {
    std::vector<std::size_t> order(m_planned.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return m_planned[a].buffer.bytes > m_planned[b].buffer.bytes;
    });
    int positions = 0;
    for (const Planned& entry : m_planned) positions = std::max(positions, entry.releaseAfter + 1);
    // The placed buffers live at each position; a buffer conflicts with those
    // of its memory at any position from its first use to its release.
    std::vector<std::vector<std::uint32_t>> liveAt(static_cast<std::size_t>(positions));
    std::vector<std::uint32_t> seen(m_planned.size(), 0);
    std::uint32_t stamp = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> taken;  // [offset, end) of the conflicting buffers
    std::array<std::int64_t, kMemoryKindCount> peak{};
    for (std::size_t i : order) {
      BufferAllocation& buffer = m_planned[i].buffer;
      const int from = buffer.firstUse, to = m_planned[i].releaseAfter;
      ++stamp;
      taken.clear();
      for (int p = from; p <= to; ++p)
        for (std::uint32_t other : liveAt[static_cast<std::size_t>(p)]) {
          const BufferAllocation& placed = m_planned[other].buffer;
          if (seen[other] == stamp || placed.memory != buffer.memory) continue;
          seen[other] = stamp;
          taken.emplace_back(placed.offsetBytes, placed.offsetBytes + placed.bytes);
        }
      std::sort(taken.begin(), taken.end());
      std::int64_t offset = 0;
      for (const auto& [begin, end] : taken) {
        if (begin - offset >= buffer.bytes) break;
        offset = std::max(offset, end);
      }
      buffer.offsetBytes = offset;
      for (int p = from; p <= to; ++p) liveAt[static_cast<std::size_t>(p)].push_back(static_cast<std::uint32_t>(i));
      const auto memory = static_cast<std::size_t>(buffer.memory);
      peak[memory] = std::max(peak[memory], offset + buffer.bytes);
    }
    return peak;
  }

  bool hasMembers() const { return m_subgraph.memberStarts.size() > 1; }

  // The plan of the placement just made; `withBuffers` false: its peaks and
  // overlap only (planSubgraphPeaks).
  SubgraphBufferPlan result(const std::array<std::int64_t, kMemoryKindCount>& peak, BufferOverlap overlap,
                            bool withBuffers) const {
    SubgraphBufferPlan plan;
    plan.peakBytes = peak;
    plan.overlap = overlap;
    if (!withBuffers) return plan;
    plan.buffers.reserve(m_planned.size());
    plan.blame.reserve(m_planned.size());
    for (const Planned& entry : m_planned) {
      plan.buffers.push_back(entry.buffer);
      plan.buffers.back().region = *entry.region;
      plan.blame.push_back(entry.tensorOp);
      plan.origins.push_back(entry.origin);
    }
    return plan;
  }

private:
  // Free byte ranges [first, second) of one memory, ascending and apart: a
  // few (the gaps between live buffers), so a sorted array; a map took an
  // allocation per buffer placed, in every one of a compile's thousands of
  // trial plans.
  using FreeRanges = std::vector<std::pair<std::int64_t, std::int64_t>>;

  static void release(FreeRanges& ranges, std::int64_t begin, std::int64_t end) {
    auto next = std::lower_bound(ranges.begin(), ranges.end(), begin,
                                 [](const std::pair<std::int64_t, std::int64_t>& range, std::int64_t at) {
                                   return range.first < at;
                                 });
    if (next != ranges.end() && next->first == end) {
      end = next->second;
      next = ranges.erase(next);
    }
    if (next != ranges.begin()) {
      auto previous = std::prev(next);
      if (previous->second == begin) {
        previous->second = end;
        return;
      }
    }
    ranges.emplace(next, begin, end);
  }

  // The last position of each member (empty: one member).
  std::vector<int> memberEnds() const {
    std::vector<int> ends;
    if (!hasMembers()) return ends;
    const std::vector<int>& starts = m_subgraph.memberStarts;
    for (std::size_t k = 0; k < starts.size(); ++k)
      ends.push_back((k + 1 < starts.size() ? starts[k + 1] : static_cast<int>(m_subgraph.ops.size())) - 1);
    return ends;
  }
  std::vector<int> memberOfPositions() const {
    std::vector<int> member(m_subgraph.ops.size(), 0);
    if (!hasMembers()) return member;
    const std::vector<int>& starts = m_subgraph.memberStarts;
    for (std::size_t k = 0; k < starts.size(); ++k)
      for (int p = starts[k]; p < (k + 1 < starts.size() ? starts[k + 1] : static_cast<int>(member.size())); ++p)
        if (p >= 0) member[static_cast<std::size_t>(p)] = static_cast<int>(k);
    return member;
  }

  std::int64_t bytesOf(const TileRegion& region) const {
    return tileBytes(region.shape, m_tiles.graph.tensor(region.tensor).dtype, m_target.allocationGranularityBytes);
  }

  BufferKey keyOf(MemoryKind memory, const TileRegion& region, int member = -1) {
    BufferKey key{memory, m_boxes.box(region), {}, member};
    if (key.box.truncated)
      for (std::size_t d = 0; d < region.shape.size(); ++d)
        key.text += "|" + simplify(region.offsets[d]).str() + "+" + std::to_string(region.shape[d]);
    return key;
  }

  // Adds a buffer for `region` used at `position`, or extends the live range
  // of the one already holding it. `region` outlives the planner: a tile
  // op's, or one in m_ownedRegions.
  void use(MemoryKind memory, const TileRegion& region, int position, TileOpId producer, OpId tensorOp,
           BufferOrigin origin, int member = -1) {
    BufferKey key = keyOf(memory, region, member);
    const DenseIdPlace place = BufferKeyTraits::place(key);
    if (const std::uint32_t found = m_byKey.find(key, place); found != BufferIndex::kAbsent) {
      BufferAllocation& buffer = m_planned[found].buffer;
      buffer.lastUse = std::max(buffer.lastUse, position);
      // A result written in place over the input loaded into this buffer (an in-place scatter): later
      // partial reads of the region must find it here too, not load the bytes it has not stored yet.
      Planned& entry = m_planned[found];
      if (producer != kNoId && memory == MemoryKind::UB && buffer.producer == kNoId && !entry.writtenInPlace) {
        entry.writtenInPlace = true;
        m_produced.insert(key.box, static_cast<std::int32_t>(found));
      }
      return;
    }
    const std::size_t index = m_planned.size();
    if (producer != kNoId && memory == MemoryKind::UB) {
      // Indexed so that a later partial read finds it without a scan.
      m_produced.insert(key.box, static_cast<std::int32_t>(index));
    }
    m_byKey.add(std::move(key), place);
    Planned& entry = m_planned.emplace_back();  // made in place: a Planned holds an empty region to move
    entry.id = static_cast<int>(index);
    entry.buffer.memory = memory;
    entry.region = &region;
    entry.buffer.bytes = bytesOf(region);
    entry.buffer.producer = producer;
    entry.buffer.firstUse = position;
    entry.buffer.lastUse = position;
    entry.tensorOp = tensorOp;
    entry.origin = origin;
  }

  void planVector() {
    int position = 0;
    for (TileOpId id : m_subgraph.ops) {
      planVectorOp(m_tiles.tileOp(id), id, position);
      ++position;
    }
  }

  // The UB buffers of one vector op: its inputs read where this subgraph made them or loaded (from GM, or in a
  // cube subgraph from L0C by the TMOV_ACC LowerToPto emits at the op), its outputs where it makes them.
  void planVectorOp(const TileOp& op, TileOpId id, int position) {
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      if (readsInPlace(op, i)) continue;  // the MGATHER's rows land in its output buffer
      const TileRegion& input = op.inputs[i];
      // A tile produced earlier in this subgraph is read from its buffer
      // (the same region: a hash hit; part of one: the produced tiles it
      // overlaps); anything else is loaded from global memory.
      BufferKey key = keyOf(MemoryKind::UB, input);
      if (const std::uint32_t exact = m_byKey.find(key);
          exact != BufferIndex::kAbsent && m_planned[exact].buffer.producer != kNoId) {
        // Unless a tile made after it overlaps it (a later write over part of it): then the read takes
        // pieces of both (LowerToPto's ubPieces), and both stay alive.
        bool overwrittenLater = false;
        m_produced.visitOverlapping(key.box, [&](std::int32_t index, const RegionBox&) {
          overwrittenLater = overwrittenLater || static_cast<std::size_t>(index) > exact;
          return RegionIndex::Visit::Keep;
        });
        if (!overwrittenLater) {
          BufferAllocation& buffer = m_planned[exact].buffer;
          buffer.lastUse = std::max(buffer.lastUse, position);
          continue;
        }
      }
      bool covered = false;
      std::vector<const RegionBox*>& parts = m_parts;
      parts.clear();
      m_produced.visitOverlapping(key.box, [&](std::int32_t index, const RegionBox& made) {
        // A tile made at a distance from the read known only at run time (a concat's halves read
        // through a view at a computed row) is no piece of it: it goes to GM before the read's load,
        // which holds its bytes (LowerToPto's ubPieces), so it need not stay in the buffer until then.
        if (!atConstantDistance(made, key.box)) return RegionIndex::Visit::Keep;
        BufferAllocation& buffer = m_planned[static_cast<std::size_t>(index)].buffer;
        buffer.lastUse = std::max(buffer.lastUse, position);
        covered = covered || containsBox(made, key.box);
        parts.push_back(&made);
        return RegionIndex::Visit::Keep;
      });
      // Tiles made here that hold only part of the read (an assemble into rows of a tensor another op
      // then reads whole): the rest comes from GM into a buffer of the read's own shape, which
      // LowerToPto's ubPieces lists first, under the pieces made here.
      if (!covered && !coveredTogether(key.box, parts))
        use(MemoryKind::UB, input, position, kNoId, op.tensorOp, {position, false, static_cast<int>(i)});
    }
    for (std::size_t o = 0; o < op.outputs.size(); ++o) {
      if (writesInPlace(op, o)) continue;  // the MSCATTER's rows go from its input buffer to GM
      const std::size_t before = m_planned.size();
      use(MemoryKind::UB, op.outputs[o], position, id, op.tensorOp, {position, true, static_cast<int>(o)});
      if (m_planned.size() > before && computesInPlace(op.kind) && op.outputs.size() == 1)
        m_planned.back().inPlaceCandidates = sameShapeInputBuffers(op, position);
    }
  }

  // The ids of the buffers holding op's inputs that have its result's shape and bytes.
  std::vector<int> sameShapeInputBuffers(const TileOp& op, int position) {
    std::vector<int> ids;
    const TileRegion& output = op.outputs.front();
    const std::int64_t bytes = bytesOf(output);
    for (std::size_t i = 0; i < op.inputs.size(); ++i) {
      const TileRegion& input = op.inputs[i];
      if (!mayOverwriteInput(op.kind, i) || input.shape != output.shape || bytesOf(input) != bytes) continue;
      const std::uint32_t found = m_byKey.find(keyOf(MemoryKind::UB, input));
      if (found == BufferIndex::kAbsent) continue;
      const Planned& buffer = m_planned[found];
      if (buffer.buffer.lastUse == position && buffer.buffer.bytes == bytes) ids.push_back(buffer.id);
    }
    return ids;
  }

  // The member a cube operand's buffer at `position` belongs to: L0A/L0B are
  // filled for each k-step anyway, so members never share them (a shared one
  // would stay live from the first member's use to the last's); L1 only with
  // m_l1PerMember.
  int memberOfBuffer(MemoryKind memory, int position) const {
    if (!hasMembers() || (memory == MemoryKind::L1 && !m_l1PerMember)) return -1;
    return m_memberOf[static_cast<std::size_t>(position)];
  }

  // A matmul operand in L1: inside the rows a gather of this subgraph put
  // there (its tile may hold several operand tiles), or a tile of its own
  // that a copy-in fills.
  void useL1Operand(const TileRegion& operand, int position, OpId tensorOp, int index) {
    BufferKey key = keyOf(MemoryKind::L1, operand, memberOfBuffer(MemoryKind::L1, position));
    // Only gathers produce L1 tiles: without one, skip the scan (a merged cube subgraph has many operands).
    if (m_gathersIntoL1 && m_byKey.find(key) == BufferIndex::kAbsent) {
      for (Planned& entry : m_planned)
        if (entry.buffer.memory == MemoryKind::L1 && entry.buffer.producer != kNoId &&
            containsBox(m_boxes.box(*entry.region), key.box)) {
          entry.buffer.lastUse = std::max(entry.buffer.lastUse, position);
          return;
        }
    }
    use(MemoryKind::L1, operand, position, kNoId, tensorOp, {position, false, index},
        memberOfBuffer(MemoryKind::L1, position));
  }

  void planCube() {
    // A matmul operand comes in its L1 block (MatmulL1Block.h) unless this subgraph writes its tensor, as
    // GenerateMoveOp copies it in: one L1 buffer then holds the block for all its k-steps.
    std::unordered_set<TensorId> writtenHere;
    for (TileOpId id : m_subgraph.ops)
      for (const TileRegion& output : m_tiles.tileOp(id).outputs) writtenHere.insert(output.tensor);
    auto inL1 = [&](const TileOp& op, std::size_t input) -> const TileRegion& {
      const TileRegion& operand = op.inputs[input];
      if (writtenHere.count(operand.tensor)) return operand;
      std::optional<TileRegion> block = matmulL1Block(op, input, operand);
      return block ? m_ownedRegions.emplace_back(std::move(*block)) : operand;
    };
    int position = 0;
    for (TileOpId id : m_subgraph.ops) {
      const TileOp& op = m_tiles.tileOp(id);
      if (gathersIntoL1(op)) {
        // The picked rows land in L1; source and index stay in GM.
        use(MemoryKind::L1, op.outputs[0], position, id, op.tensorOp, {position, true, 0});
        m_gathersIntoL1 = true;
      } else if (op.kind == TensorOpKind::Matmul) {
        useL1Operand(inL1(op, 0), position, op.tensorOp, 0);
        useL1Operand(inL1(op, 1), position, op.tensorOp, 1);
        // An operand a vector op of this subgraph made (a machine with a UB -> L1 path): its UB tile stays
        // until the move into L1 here.
        for (std::size_t i = 0; i < 2; ++i)
          m_produced.visitOverlapping(m_boxes.box(op.inputs[i]), [&](std::int32_t index, const RegionBox&) {
            BufferAllocation& made = m_planned[static_cast<std::size_t>(index)].buffer;
            made.lastUse = std::max(made.lastUse, position);
            return RegionIndex::Visit::Keep;
          });
        use(MemoryKind::L0A, op.inputs[0], position, kNoId, op.tensorOp, {position, false, 0},
            memberOfBuffer(MemoryKind::L0A, position));
        use(MemoryKind::L0B, op.inputs[1], position, kNoId, op.tensorOp, {position, false, 1},
            memberOfBuffer(MemoryKind::L0B, position));
        use(MemoryKind::L0C, op.outputs[0], position, id, op.tensorOp, {position, true, 0});
      } else if (op.kind == TensorOpKind::View || isFixpipeCast(op)) {
        // The fixpipe converts an L0C tile on its way to global memory.
        for (std::size_t i = 0; i < op.inputs.size(); ++i)
          use(MemoryKind::L0C, op.inputs[i], position, kNoId, op.tensorOp, {position, false, static_cast<int>(i)});
        if (op.kind != TensorOpKind::View)
          m_fixpipeResults.push_back({m_boxes.box(op.outputs[0]), position, id, false});
      } else {
        // A vector op of a cube subgraph (a machine with an L0C -> UB path: GraphPartition put it here). Its
        // tiles take UB like a vector subgraph's, so the plan holds every byte LowerToPto uses there. A
        // converted matmul result it reads goes from L0C into UB at its Cast (TMOV_ACC): that buffer lives
        // from the Cast on.
        for (const TileRegion& input : op.inputs) {
          const RegionBox box = m_boxes.box(input);
          // A matmul result read straight from its accumulator: L0C keeps it until the TMOV_ACC here.
          for (Planned& entry : m_planned)
            if (entry.buffer.memory == MemoryKind::L0C && entry.buffer.producer != kNoId &&
                mayOverlap(m_boxes.box(*entry.region), box, OverlapMode::SameIteration))
              entry.buffer.lastUse = std::max(entry.buffer.lastUse, position);
          for (FixpipeResult& result : m_fixpipeResults) {
            if (result.planned || !mayOverlap(result.box, box, OverlapMode::SameIteration)) continue;
            const TileOp& cast = m_tiles.tileOp(result.castOp);
            use(MemoryKind::UB, cast.outputs[0], result.position, result.castOp, cast.tensorOp,
                {result.position, true, 0});
            result.planned = true;
          }
        }
        planVectorOp(op, id, position);
      }
      ++position;
    }
  }

  // The Cast a matmul's tensor op ends in: the fixpipe converts the accumulator on its way out of L0C
  // (GraphPartition makes it a cube op).
  bool isFixpipeCast(const TileOp& op) const {
    return op.kind == TensorOpKind::Cast && m_tiles.graph.op(op.tensorOp).kind == TensorOpKind::Matmul;
  }

  const TileGraph& m_tiles;
  const TargetInfo& m_target;
  const Subgraph& m_subgraph;
  RegionBoxes m_boxes;
  std::vector<Planned> m_planned;
  std::deque<TileRegion> m_ownedRegions;  // regions made here (matmul operands' L1 blocks): a deque keeps their addresses
  BufferIndex m_byKey;  // -> m_planned index (before sorting)
  // planVectorOp's produced tiles that the read at hand overlaps: a member,
  // so that a plan makes its block once, not once for every read.
  std::vector<const RegionBox*> m_parts;
  RegionIndex m_produced;                 // UB tiles made inside -> m_planned index
  bool m_gathersIntoL1 = false;           // a gather of this subgraph filled an L1 tile
  // The results of this cube subgraph's fixpipe Casts: given a UB buffer from their Cast on once a vector op
  // of the subgraph reads them.
  struct FixpipeResult {
    RegionBox box;
    int position = 0;
    TileOpId castOp = kNoId;
    bool planned = false;
  };
  std::vector<FixpipeResult> m_fixpipeResults;
  std::vector<int> m_memberOf;  // by position
  bool m_l1PerMember = false;
};

// The first memory whose peak exceeds the machine, with the tile to blame.
bool checkCapacities(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                     const SubgraphBufferPlan& plan, DiagnosticEngine& diags) {
  for (std::size_t m = 0; m < kMemoryKindCount; ++m) {
    auto memory = static_cast<MemoryKind>(m);
    if (memory == MemoryKind::GM || plan.peakBytes[m] <= target.capacity(memory)) continue;
    std::size_t largest = plan.buffers.size();
    for (std::size_t b = 0; b < plan.buffers.size(); ++b)
      if (plan.buffers[b].memory == memory &&
          (largest == plan.buffers.size() || plan.buffers[b].bytes > plan.buffers[largest].bytes))
        largest = b;
    const BufferAllocation& buffer = plan.buffers[largest];
    const TensorOp& op = tiles.graph.op(plan.blame[largest]);
    const TensorValue& tensor = tiles.graph.tensor(buffer.region.tensor);
    std::string shape = "[";
    for (std::size_t d = 0; d < buffer.region.shape.size(); ++d)
      shape += (d ? ", " : "") + std::to_string(buffer.region.shape[d]);
    shape += "]";
    return diags.error(op.location)
           << "subgraph " << subgraph.id << " (" << name(subgraph.coreType)
           << (subgraph.label.empty() ? "" : ", label '" + subgraph.label + "'") << ") needs " << plan.peakBytes[m]
           << " bytes of " << title(memory) << " but " << target.name << " has " << target.capacity(memory)
           << " per core; the largest tile is " << name(op.kind) << "'s " << shape << " " << name(tensor.dtype) << " ("
           << buffer.bytes << " bytes) here — "
           << (buffer.bytes * 4 > target.capacity(memory)
                   ? std::string(memory == MemoryKind::UB ? "use smaller vec tile shapes (pypto.set_vec_tile_shapes)"
                                                          : "use smaller cube tile shapes (pypto.set_cube_tile_shapes)")
                   : "too many tiles are live at once; split the work (pass option mg_copyin_upper_bound, "
                     "sg_set_scope) or use smaller tiles");
  }
  return true;
}

} // namespace

std::int64_t tileBytes(const std::vector<std::int64_t>& shape, DataType dtype, std::int64_t granularity) {
  std::int64_t item = static_cast<std::int64_t>(sizeOf(dtype));
  std::int64_t perBlock = std::max<std::int64_t>(1, 32 / item);
  std::int64_t elements = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::int64_t extent = shape[d];
    if (d + 1 == shape.size()) extent = (extent + perBlock - 1) / perBlock * perBlock;
    elements *= extent;
  }
  std::int64_t bytes = elements * item;
  granularity = std::max<std::int64_t>(granularity, 1);
  return (bytes + granularity - 1) / granularity * granularity;
}

bool fitsCapacities(const SubgraphBufferPlan& plan, const TargetInfo& target) {
  for (std::size_t m = 0; m < kMemoryKindCount; ++m)
    if (static_cast<MemoryKind>(m) != MemoryKind::GM && plan.peakBytes[m] > target.capacity(static_cast<MemoryKind>(m)))
      return false;
  return true;
}

namespace {

// The bytes by which `plan` overflows the on-chip memories, summed: which of
// two plans that both overflow comes closer.
std::int64_t overflowBytes(const SubgraphBufferPlan& plan, const TargetInfo& target) {
  std::int64_t total = 0;
  for (std::size_t m = 0; m < kMemoryKindCount; ++m)
    if (static_cast<MemoryKind>(m) != MemoryKind::GM)
      total += std::max<std::int64_t>(0, plan.peakBytes[m] - target.capacity(static_cast<MemoryKind>(m)));
  return total;
}

} // namespace

namespace {

SubgraphBufferPlan planWith(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                            BufferOverlap most, bool bySizeFallback, bool l1PerMember, bool withBuffers) {
  Planner planner(tiles, target, subgraph, l1PerMember);
  // Every choice below reads the plans' peaks alone.
  auto result = [&](const std::array<std::int64_t, kMemoryKindCount>& peak, BufferOverlap overlap) {
    return planner.result(peak, overlap, withBuffers);
  };
  planner.plan();
  std::optional<SubgraphBufferPlan> pingPong;
  // The memories that keep ping-pong when the whole plan cannot.
  MemorySet pingPongIn{};
  if (most == BufferOverlap::PingPong) {
    pingPong = result(planner.place(planner.hasMembers(), kEveryMemory), BufferOverlap::PingPong);
    if (fitsCapacities(*pingPong, target)) return *pingPong;
    for (std::size_t m = 0; m < kMemoryKindCount; ++m)
      pingPongIn[m] = pingPong->peakBytes[m] <= target.capacity(static_cast<MemoryKind>(m));
  }
  SubgraphBufferPlan plan;
  if (most != BufferOverlap::Single && planner.hasMembers())
    plan = result(planner.place(true, pingPongIn), BufferOverlap::MembersApart);
  if (plan.overlap != BufferOverlap::MembersApart || !fitsCapacities(plan, target)) {
    plan = result(planner.place(false, pingPongIn), BufferOverlap::Single);
    if (!fitsCapacities(plan, target) && pingPongIn != MemorySet{})
      plan = result(planner.place(false, MemorySet{}), BufferOverlap::Single);
    // Results written over their dying inputs (elementwise instructions take dst == src), here only
    // when the plan overflows without it, so that every plan that fits (and what the merge passes decide
    // by it) stays as it was.
    if (bySizeFallback && !fitsCapacities(plan, target)) {
      SubgraphBufferPlan inPlace = result(planner.place(false, MemorySet{}, false, true), BufferOverlap::Single);
      if (overflowBytes(inPlace, target) < overflowBytes(plan, target)) plan = std::move(inPlace);
    }
    // Greedy by size costs a scan of the buffers live beside each one: only when it can help.
    if (bySizeFallback && !fitsCapacities(plan, target) && planner.mayFit(false, MemorySet{})) {
      SubgraphBufferPlan bySize = result(planner.place(false, MemorySet{}, true), BufferOverlap::Single);
      if (overflowBytes(bySize, target) < overflowBytes(plan, target)) plan = std::move(bySize);
    }
  }
  if (pingPong) {
    // Say which memory ping-pong overflowed and what it would have needed.
    for (std::size_t m = 0; m < kMemoryKindCount; ++m) {
      auto memory = static_cast<MemoryKind>(m);
      if (memory == MemoryKind::GM || pingPong->peakBytes[m] <= target.capacity(memory)) continue;
      plan.overlapLimitedBy = memory;
      plan.overlapNeededBytes = pingPong->peakBytes[m];
      break;
    }
  }
  return plan;
}

} // namespace

namespace {

SubgraphBufferPlan planSubgraph(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                                BufferOverlap most, bool bySizeFallback, bool withBuffers) {
  SubgraphBufferPlan shared = planWith(tiles, target, subgraph, most, bySizeFallback, false, withBuffers);
  // Merged cube members that read the same operand share its L1 buffer (one load; what
  // cube_l1_reuse_setting is for) while that fits. When it does not (the output tiles of a
  // GEMM block merged into one task: their A and B blocks would all stay in L1), each member
  // loads its own, as a cube core running the tiles one after the other does.
  if (subgraph.coreType != CoreType::AIC || subgraph.memberStarts.size() < 2 || fitsCapacities(shared, target))
    return shared;
  SubgraphBufferPlan perMember = planWith(tiles, target, subgraph, most, bySizeFallback, true, withBuffers);
  return fitsCapacities(perMember, target) || overflowBytes(perMember, target) < overflowBytes(shared, target)
             ? perMember
             : shared;
}

} // namespace

SubgraphBufferPlan planSubgraphBuffers(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                                       BufferOverlap most, bool bySizeFallback) {
  return planSubgraph(tiles, target, subgraph, most, bySizeFallback, true);
}

SubgraphBufferPlan planSubgraphPeaks(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                                     BufferOverlap most, bool bySizeFallback) {
  return planSubgraph(tiles, target, subgraph, most, bySizeFallback, false);
}

std::array<std::int64_t, kMemoryKindCount> plannedPeakBytes(const TileGraph& tiles, const TargetInfo& target,
                                                             const Subgraph& subgraph) {
  Subgraph trial;
  trial.id = subgraph.id;
  trial.coreType = subgraph.coreType;
  trial.ops = subgraph.ops;
  return planSubgraphPeaks(tiles, target, trial).peakBytes;
}

namespace {

// `plan` (made for an isomorphic subgraph: same program, so the same ops in
// the same order with regions that relate alike) moved onto `subgraph`: the
// same offsets and live ranges, each buffer holding the region at its origin.
SubgraphBufferPlan planLike(const SubgraphBufferPlan& plan, const TileGraph& tiles, const Subgraph& subgraph) {
  // Every field but the buffers' regions is the plan's; each region is
  // copied once, from its op (not the plan's region copied and overwritten).
  SubgraphBufferPlan moved;
  moved.peakBytes = plan.peakBytes;
  moved.overlap = plan.overlap;
  moved.overlapLimitedBy = plan.overlapLimitedBy;
  moved.overlapNeededBytes = plan.overlapNeededBytes;
  moved.origins = plan.origins;
  moved.blame = plan.blame;
  moved.buffers.reserve(plan.buffers.size());
  for (std::size_t b = 0; b < plan.buffers.size(); ++b) {
    const BufferOrigin& origin = plan.origins[b];
    const TileOpId id = subgraph.ops[static_cast<std::size_t>(origin.position)];
    const TileOp& op = tiles.tileOp(id);
    const BufferAllocation& like = plan.buffers[b];
    moved.buffers.push_back(BufferAllocation{like.memory, like.offsetBytes, like.bytes,
                                             origin.output ? op.outputs[static_cast<std::size_t>(origin.index)]
                                                           : op.inputs[static_cast<std::size_t>(origin.index)],
                                             like.producer != kNoId ? id : kNoId, like.firstUse, like.lastUse});
    moved.blame[b] = op.tensorOp;
  }
  return moved;
}

// The subgraph's ops in `order` (positions into them).
void reorderOps(Subgraph& subgraph, const std::vector<int>& order) {
  std::vector<TileOpId> ops;
  ops.reserve(order.size());
  for (int position : order) ops.push_back(subgraph.ops[static_cast<std::size_t>(position)]);
  subgraph.ops = std::move(ops);
}

// When the ops in the order they were made overflow a buffer, the depth-first
// order (SubgraphOpOrder.h), if it needs less of the memory that overflowed.
// Sets `order` to the permutation taken (left empty otherwise).
void tryDepthFirstOrder(const TileGraph& tiles, const TargetInfo& target, Subgraph& subgraph,
                        SubgraphBufferPlan& plan, std::vector<int>& order) {
  if (fitsCapacities(plan, target) || !subgraph.memberStarts.empty()) return;
  std::vector<int> candidate = depthFirstOpOrder(tiles, subgraph);
  if (candidate.size() != subgraph.ops.size() || std::is_sorted(candidate.begin(), candidate.end())) return;
  Subgraph trial = subgraph;
  reorderOps(trial, candidate);
  SubgraphBufferPlan reordered =
      planSubgraphBuffers(tiles, target, trial, BufferOverlap::PingPong, /*bySizeFallback=*/true);
  if (overflowBytes(reordered, target) >= overflowBytes(plan, target)) return;
  subgraph.ops = std::move(trial.ops);
  plan = std::move(reordered);
  order = std::move(candidate);
}

} // namespace

bool fitsOnChipInSomeOrder(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph) {
  SubgraphBufferPlan plan =
      planSubgraphBuffers(tiles, target, subgraph, BufferOverlap::PingPong, /*bySizeFallback=*/true);
  if (fitsCapacities(plan, target)) return true;
  Subgraph trial = subgraph;
  std::vector<int> order;
  tryDepthFirstOrder(tiles, target, trial, plan, order);
  return fitsCapacities(plan, target);
}

bool allocateBuffers(Compilation& compilation, DiagnosticEngine& diags) {
  // Isomorphic subgraphs (one program) get one placement, planned once: a
  // GEMM's 1152 output tiles are one plan, not 1152. A program whose ops
  // were reordered to fit has each of its subgraphs reordered alike.
  struct Planned {
    const Subgraph* subgraph;
    SubgraphBufferPlan plan;
    std::vector<int> order;  // empty: as made
  };
  std::map<int, Planned> byProgram;
  for (Subgraph& subgraph : compilation.blocks.subgraphs) {
    auto found = subgraph.programId >= 0 ? byProgram.find(subgraph.programId) : byProgram.end();
    const bool alike = found != byProgram.end() && found->second.subgraph->ops.size() == subgraph.ops.size() &&
                       found->second.subgraph->coreType == subgraph.coreType &&
                       found->second.subgraph->memberStarts == subgraph.memberStarts;
    SubgraphBufferPlan plan;
    std::vector<int> order;
    if (alike) {
      if (!found->second.order.empty()) reorderOps(subgraph, found->second.order);
      plan = planLike(found->second.plan, compilation.tiles, subgraph);
    } else {
      plan = planSubgraphBuffers(compilation.tiles, compilation.settings.target, subgraph, BufferOverlap::PingPong,
                                 /*bySizeFallback=*/true);
      tryDepthFirstOrder(compilation.tiles, compilation.settings.target, subgraph, plan, order);
    }
    if (!alike && subgraph.programId >= 0 && found == byProgram.end())
      byProgram.emplace(subgraph.programId, Planned{&subgraph, plan, std::move(order)});
    subgraph.peakBytes = plan.peakBytes;
    subgraph.overlap = plan.overlap;
    subgraph.overlapLimitedBy = plan.overlapLimitedBy;
    subgraph.overlapNeededBytes = plan.overlapNeededBytes;
    const bool fits = checkCapacities(compilation.tiles, compilation.settings.target, subgraph, plan, diags);
    subgraph.buffers = std::move(plan.buffers);  // the plan is done with (byProgram kept a copy)
    if (!fits) return false;
  }
  return true;
}

} // namespace pto
