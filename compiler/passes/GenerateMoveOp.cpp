// Implementation of GenerateMoveOp.
#include "compiler/passes/GenerateMoveOp.h"
#include "compiler/passes/MatmulL1Block.h"

#include "compiler/ir/Regions.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace pto {
namespace {

// A subgraph's earlier boxes, searched one by one: it visits the boxes a
// RegionIndex would (every box inserted that may overlap the query), and for
// the few boxes of a small subgraph a scan is cheaper than a grid index and
// hash sets made and freed per subgraph (most subgraphs of a large kernel
// hold a handful of tile ops). Kept by the pass and cleared per subgraph, so
// its storage is allocated once.
class BoxScan {
public:
  explicit BoxScan(OverlapMode mode) : m_mode(mode) {}
  void clear() { m_entries.clear(); }
  void insert(const RegionBox& box, std::int32_t payload) {
    if (!box.empty()) m_entries.push_back(Entry{box, payload});
  }
  // `visit` answers Keep or Stop (never Drop).
  template <typename Visit> void visitOverlapping(const RegionBox& query, Visit&& visit) {
    if (query.empty()) return;
    for (const Entry& entry : m_entries)
      if (mayOverlap(query, entry.box, m_mode) && visit(entry.payload, entry.box) == RegionIndex::Visit::Stop) return;
  }

private:
  struct Entry {
    RegionBox box;
    std::int32_t payload;
  };
  OverlapMode m_mode;
  std::vector<Entry> m_entries;
};

// Boxes already listed and a number per box, by scan (small subgraphs) or by hash.
class ListedBoxes {
public:
  void clear(bool byScan) {
    m_byScan = byScan;
    m_scan.clear();
    m_hash.clear();
  }
  // The number kept for `box`, after keeping `number` if there was none; and whether it is new.
  std::pair<std::size_t, bool> tryEmplace(const RegionBox& box, std::size_t number) {
    if (!m_byScan) {
      auto [at, inserted] = m_hash.try_emplace(box, number);
      return {at->second, inserted};
    }
    for (const auto& [listed, kept] : m_scan)
      if (listed == box) return {kept, false};
    m_scan.emplace_back(box, number);
    return {number, true};
  }

private:
  bool m_byScan = true;
  std::vector<std::pair<RegionBox, std::size_t>> m_scan;
  std::unordered_map<RegionBox, std::size_t, RegionBoxHash> m_hash;
};

// Subgraphs with at most this many tile ops are searched by BoxScan.
constexpr std::size_t kScannedSubgraphOps = 16;

class MoveGenerator {
public:
  MoveGenerator(Compilation& compilation, DiagnosticEngine& diags)
      : m_tiles(compilation.tiles), m_graph(compilation.tiles.graph), m_blocks(compilation.blocks), m_diags(diags) {}

  bool run() {
    if (m_blocks.subgraphOfTileOp.size() != m_tiles.tileOps().size())
      return m_diags.error(m_graph.kernelLocation) << "internal error: GenerateMoveOp runs after GraphPartition";
    m_readThroughAlias.assign(m_graph.tensors().size(), 0);
    for (const TensorValue& value : m_graph.tensors())
      if (value.reshapeOf != kNoId) m_readThroughAlias[static_cast<std::size_t>(value.reshapeOf)] = 1;
    collectRegions();
    for (Subgraph& subgraph : m_blocks.subgraphs) {
      if (subgraph.ops.size() <= kScannedSubgraphOps) {
        m_writtenScan.clear();
        m_scatteredScan.clear();
        findCopyIns(subgraph, m_writtenScan, m_scatteredScan);
      } else {
        RegionIndex written(OverlapMode::SameIteration), scattered(OverlapMode::SameIteration);
        findCopyIns(subgraph, written, scattered);
      }
    }
    RegionIndex reads(OverlapMode::AnyIteration);
    reads.reserve(m_reads.size());
    for (const auto& [tensor, cell] : m_cells) reads.setCellSize(tensor, cell);
    // Only reads of temporaries matter: every write to an argument goes out
    // anyway. m_reads is not resized while `reads` lives.
    for (std::size_t r = 0; r < m_reads.size(); ++r)
      if (!alwaysWrittenOut(m_reads[r].box.tensor))
        reads.insertKept(m_reads[r].box, static_cast<std::int32_t>(r));
    for (Subgraph& subgraph : m_blocks.subgraphs) {
      if (subgraph.ops.size() <= kScannedSubgraphOps) {
        m_laterScan.clear();
        findCopyOuts(subgraph, reads, m_laterScan);
      } else {
        RegionIndex later(OverlapMode::SameIteration);
        findCopyOuts(subgraph, reads, later);
      }
    }
    return true;
  }

private:
  // Whether every write of `id` goes to global memory whoever reads it: an
  // argument or an alias of one (TensorValue::reshapeOf) holds the kernel's
  // result even when nothing reads it, and a temporary a folded reshape
  // reads is read there in the alias's shape (its readers name the alias,
  // so the reads below cannot find them).
  bool alwaysWrittenOut(TensorId id) const {
    const TensorValue& value = m_graph.tensor(id);
    return value.role == TensorRole::Argument || m_readThroughAlias[static_cast<std::size_t>(id)] ||
           (value.reshapeOf != kNoId && m_graph.tensor(value.reshapeOf).role == TensorRole::Argument);
  }

  struct Access {
    RegionBox box;
    const TileRegion* region = nullptr;  // on its storage tensor
    TileOpId op = kNoId;
    bool fromGlobal = false;  // reads: not produced earlier in the subgraph
    // reads: rows an MGATHER picks in GM (readsInPlace); writes: rows an
    // MSCATTER writes in GM (writesInPlace), a partial write.
    bool inPlace = false;
  };

  // The region itself, or (on a view) a copy on its storage tensor that lives as long as this pass.
  const TileRegion& storage(const TileRegion& region) {
    if (m_graph.tensor(region.tensor).role != TensorRole::View) return region;
    return m_resolved.emplace_back(resolveViews(m_graph, region));
  }

  // Every read (inputs, then the accumulated output) and write of every tile
  // op, in op order; the smallest extent per tensor and dim for the grids.
  void collectRegions() {
    m_readStart.assign(1, 0);
    m_writeStart.assign(1, 0);
    std::size_t readCount = 0, writeCount = 0;
    for (const TileOp& op : m_tiles.tileOps()) {
      readCount += op.inputs.size() + (op.accumulate != TileAccumulate::None ? op.outputs.size() : 0);
      writeCount += op.outputs.size();
    }
    m_reads.reserve(readCount);
    m_writes.reserve(writeCount);
    auto note = [&](const TileRegion& region) {
      auto [it, inserted] = m_cells.try_emplace(region.tensor, region.shape);
      if (!inserted && it->second.size() == region.shape.size())
        for (std::size_t d = 0; d < region.shape.size(); ++d) it->second[d] = std::min(it->second[d], region.shape[d]);
    };
    for (const TileOp& op : m_tiles.tileOps()) {
      if (op.kind == TensorOpKind::View) {  // moves no data (RemoveRedundantOp was disabled)
        m_readStart.push_back(m_reads.size());
        m_writeStart.push_back(m_writes.size());
        continue;
      }
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const TileRegion& region = storage(op.inputs[i]);
        note(region);
        m_reads.push_back(Access{m_boxes.box(region), &region, op.id, false, readsInPlace(op, i)});
      }
      for (std::size_t i = 0; i < op.outputs.size(); ++i) {
        const TileRegion& region = storage(op.outputs[i]);
        note(region);
        RegionBox box = m_boxes.box(region);
        if (op.accumulate != TileAccumulate::None) m_reads.push_back(Access{box, &region, op.id, false});
        m_writes.push_back(Access{box, &region, op.id, false, writesInPlace(op, i)});
      }
      m_readStart.push_back(m_reads.size());
      m_writeStart.push_back(m_writes.size());
    }
  }

  // The grid cell of `tensor` in `index`, set before its first box (a scan has no grid).
  void prepare(RegionIndex& index, std::unordered_set<TensorId>& prepared, TensorId tensor) {
    if (!prepared.insert(tensor).second) return;
    if (auto found = m_cells.find(tensor); found != m_cells.end()) index.setCellSize(tensor, found->second);
  }
  void prepare(BoxScan&, std::unordered_set<TensorId>&, TensorId) {}

  // One copy-in serves every read of its box: it moves what any of them needs. Two views of one box
  // with different valid_shapes are rare; the copy then moves the larger part.
  static void widenValid(TileRegion& copy, const TileRegion& read) {
    if (copy.valid.empty()) return;
    if (read.valid.size() != copy.valid.size()) {
      copy.valid.clear();
      return;
    }
    for (std::size_t d = 0; d < copy.valid.size(); ++d)
      if (!provablyEqual(copy.valid[d], read.valid[d])) copy.valid[d] = simplify(max(copy.valid[d], read.valid[d]));
  }

  // Reads not covered by earlier writes of the subgraph come from GM.
  // `written` and `scattered` (what this subgraph's MSCATTERs wrote so far: a
  // read overlapping it comes from GM, where the rows went, even when an
  // earlier write here covers it; that write then goes out first,
  // findCopyOuts) start empty.
  template <typename Index> void findCopyIns(Subgraph& subgraph, Index& written, Index& scattered) {
    const bool byScan = std::is_same_v<Index, BoxScan>;
    std::unordered_set<TensorId> prepared, preparedScattered;
    ListedBoxes& listed = m_listedCopyIns;  // copy-in of each box
    ListedBoxes& gathered = m_listedGathers;
    ListedBoxes& targets = m_listedTargets;
    listed.clear(byScan);
    gathered.clear(byScan);
    targets.clear(byScan);
    std::vector<const RegionBox*>& parts = m_parts;  // of one read
    // A matmul operand comes in its L1 block (MatmulL1Block.h) unless this subgraph writes its tensor.
    std::unordered_set<TensorId>& writtenHere = m_writtenHere;
    writtenHere.clear();
    for (TileOpId op : subgraph.ops)
      for (std::size_t w = m_writeStart[static_cast<std::size_t>(op)]; w < m_writeStart[static_cast<std::size_t>(op) + 1]; ++w)
        writtenHere.insert(m_writes[w].box.tensor);
    for (TileOpId op : subgraph.ops) {
      auto o = static_cast<std::size_t>(op);
      for (std::size_t r = m_readStart[o]; r < m_readStart[o + 1]; ++r) {
        Access& read = m_reads[r];
        if (read.box.empty()) continue;
        // Gathered rows always come from GM, even when this subgraph wrote
        // them: a write earlier here then goes out first (findCopyOuts).
        if (read.inPlace) {
          read.fromGlobal = true;
          if (gathered.tryEmplace(read.box, 0).second) subgraph.gatherSources.push_back(*read.region);
          continue;
        }
        bool afterScatter = false;
        scattered.visitOverlapping(read.box, [&](std::int32_t, const RegionBox&) {
          afterScatter = true;
          return RegionIndex::Visit::Stop;
        });
        bool covered = false;
        parts.clear();
        if (!afterScatter)
          written.visitOverlapping(read.box, [&](std::int32_t, const RegionBox& earlier) {
            covered = containsBox(earlier, read.box);
            parts.push_back(&earlier);
            return covered ? RegionIndex::Visit::Stop : RegionIndex::Visit::Keep;
          });
        if (covered || (!afterScatter && coveredTogether(read.box, parts))) continue;
        read.fromGlobal = true;
        const TileOp& reader = std::as_const(m_tiles).tileOp(op);  // a read: the tile ops' stamp stays
        const std::size_t input = r - m_readStart[o];
        if (input < 2 && !writtenHere.count(read.box.tensor))
          if (std::optional<TileRegion> block = matmulL1Block(reader, input, *read.region)) {
            const RegionBox blockBox = m_boxes.box(*block);
            if (listed.tryEmplace(blockBox, subgraph.copyIns.size()).second) subgraph.copyIns.push_back(*block);
            continue;
          }
        auto [at, inserted] = listed.tryEmplace(read.box, subgraph.copyIns.size());
        if (inserted) subgraph.copyIns.push_back(*read.region);
        else widenValid(subgraph.copyIns[at], *read.region);
      }
      for (std::size_t w = m_writeStart[o]; w < m_writeStart[o + 1]; ++w) {
        const Access& write = m_writes[w];
        if (write.inPlace) {
          // A partial write: it covers nothing, and only the rows move.
          prepare(scattered, preparedScattered, write.box.tensor);
          scattered.insert(write.box, static_cast<std::int32_t>(w));
          if (!write.box.empty() && targets.tryEmplace(write.box, 0).second)
            subgraph.scatterTargets.push_back(*write.region);
          continue;
        }
        prepare(written, prepared, write.box.tensor);
        written.insert(write.box, static_cast<std::int32_t>(w));
      }
    }
  }

  // The last write of each region goes out when an argument holds it or
  // someone reads it from GM: another subgraph, or this one copying it in.
  // `later` starts empty.
  template <typename Index> void findCopyOuts(Subgraph& subgraph, RegionIndex& reads, Index& later) {
    std::unordered_set<TensorId> prepared;
    ListedBoxes& listed = m_listedCopyOuts;
    listed.clear(std::is_same_v<Index, BoxScan>);
    std::vector<const TileRegion*>& outs = m_outs;
    outs.clear();
    for (auto op = subgraph.ops.rbegin(); op != subgraph.ops.rend(); ++op) {
      auto o = static_cast<std::size_t>(*op);
      for (std::size_t w = m_writeStart[o + 1]; w-- > m_writeStart[o];) {
        const Access& write = m_writes[w];
        if (write.box.empty() || write.inPlace) continue;  // an MSCATTER's rows are in GM already
        bool last = true;
        later.visitOverlapping(write.box, [&](std::int32_t, const RegionBox& after) {
          if (!containsBox(after, write.box)) return RegionIndex::Visit::Keep;
          last = false;
          return RegionIndex::Visit::Stop;
        });
        if (!last) continue;
        bool needed = alwaysWrittenOut(write.box.tensor);
        if (!needed)
          reads.visitOverlapping(write.box, [&](std::int32_t r, const RegionBox&) {
            const Access& read = m_reads[static_cast<std::size_t>(r)];
            if (m_blocks.subgraphOfTileOp[static_cast<std::size_t>(read.op)] == subgraph.id && !read.fromGlobal)
              return RegionIndex::Visit::Keep;
            needed = true;
            return RegionIndex::Visit::Stop;
          });
        if (!needed || !listed.tryEmplace(write.box, 0).second) continue;
        outs.push_back(write.region);
      }
      for (std::size_t w = m_writeStart[o]; w < m_writeStart[o + 1]; ++w) {
        // A scatter overwrites some rows only: an earlier write stays the last one for the others.
        if (m_writes[w].inPlace) continue;
        prepare(later, prepared, m_writes[w].box.tensor);
        later.insert(m_writes[w].box, static_cast<std::int32_t>(w));
      }
    }
    subgraph.copyOuts.reserve(outs.size());
    for (auto out = outs.rbegin(); out != outs.rend(); ++out) subgraph.copyOuts.push_back(**out);
  }

  TileGraph& m_tiles;
  const TensorGraph& m_graph;
  BlockGraph& m_blocks;
  DiagnosticEngine& m_diags;
  RegionBoxes m_boxes;
  std::unordered_map<TensorId, std::vector<std::int64_t>> m_cells;
  std::vector<Access> m_reads, m_writes;
  std::deque<TileRegion> m_resolved;  // regions on views, resolved
  std::vector<std::size_t> m_readStart, m_writeStart;  // CSR by tile op id
  std::vector<char> m_readThroughAlias;  // by tensor: some folded reshape holds its bytes
  // Per-subgraph working storage, kept from one subgraph to the next.
  BoxScan m_writtenScan{OverlapMode::SameIteration}, m_scatteredScan{OverlapMode::SameIteration};
  BoxScan m_laterScan{OverlapMode::SameIteration};
  ListedBoxes m_listedCopyIns, m_listedGathers, m_listedTargets, m_listedCopyOuts;
  std::vector<const RegionBox*> m_parts;
  std::vector<const TileRegion*> m_outs;
  std::unordered_set<TensorId> m_writtenHere;  // tensors the subgraph writes
};

// Subgraphs that GraphPartition gave one program (equal tile ops) can still
// differ in their copies: a subgraph whose result nobody reads stores
// nothing, while one whose equal op writes an output stores it. Sharing a
// program would lower both from the first and drop the other's store, so a
// class is split by its copy structure: which of the subgraph's tensors (in
// the order its tile ops first name them) each copy moves, and the shape.
// Offsets stay per task (Task::reads/writes), so they do not split a class.
void splitProgramsByCopies(Compilation& compilation) {
  const TensorGraph& graph = compilation.tiles.graph;
  BlockGraph& blocks = compilation.blocks;
  std::map<std::pair<int, std::string>, int> programs;
  // Per subgraph: the slot of each storage tensor in order of first naming,
  // valid where its stamp is the subgraph's. Indexed by tensor id, so a
  // subgraph costs no hash table, and the key's text is kept between
  // subgraphs (one of each per subgraph was most of this function).
  const std::size_t tensorCount = graph.tensors().size();
  std::vector<std::uint32_t> slotStamp(tensorCount, 0);
  std::vector<std::size_t> slotOf(tensorCount, 0);
  std::uint32_t stamp = 0;
  std::pair<int, std::string> key;
  std::string& copies = key.second;
  for (Subgraph& subgraph : blocks.subgraphs) {
    ++stamp;
    std::size_t slots = 0;
    auto name = [&](TensorId tensor) {
      auto t = static_cast<std::size_t>(graph.storageOf(tensor));
      if (slotStamp[t] == stamp) return;
      slotStamp[t] = stamp;
      slotOf[t] = slots++;
    };
    for (TileOpId id : subgraph.ops) {
      const TileOp& op = compilation.tiles.tileOp(id);
      for (const TileRegion& region : op.inputs) name(region.tensor);
      for (const TileRegion& region : op.outputs) name(region.tensor);
    }
    copies.clear();
    auto number = [&copies](std::int64_t value) {
      char digits[24];
      copies.append(digits, static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, value).ptr - digits));
    };
    auto describe = [&](char direction, const TileRegion& region) {
      auto t = static_cast<std::size_t>(region.tensor);
      copies += direction;
      if (slotStamp[t] != stamp) copies += '?';
      else number(static_cast<std::int64_t>(slotOf[t]));
      copies += '[';
      for (std::int64_t dim : region.shape) {
        number(dim);
        copies += ',';
      }
      copies += ']';
      if (!region.valid.empty()) {
        copies += 'v';
        copies += shapeString(region.valid);
      }
    };
    for (const TileRegion& region : subgraph.copyIns) describe('i', region);
    for (const TileRegion& region : subgraph.copyOuts) describe('o', region);
    for (const TileRegion& region : subgraph.gatherSources) describe('g', region);
    for (const TileRegion& region : subgraph.scatterTargets) describe('s', region);
    key.first = subgraph.programId;
    auto it = programs.find(key);
    if (it == programs.end()) it = programs.emplace(key, static_cast<int>(programs.size())).first;
    subgraph.programId = it->second;
  }
  // Renumber in subgraph order, as GraphPartition numbers them.
  std::map<int, int> order;
  for (Subgraph& subgraph : blocks.subgraphs) {
    auto [it, inserted] = order.try_emplace(subgraph.programId, static_cast<int>(order.size()));
    subgraph.programId = it->second;
  }
  blocks.programCount = static_cast<int>(order.size());
}

} // namespace

bool generateMoveOp(Compilation& compilation, DiagnosticEngine& diags) {
  for (Subgraph& subgraph : compilation.blocks.subgraphs) {
    subgraph.copyIns.clear();
    subgraph.copyOuts.clear();
    subgraph.gatherSources.clear();
    subgraph.scatterTargets.clear();
  }
  if (!MoveGenerator(compilation, diags).run()) return false;
  splitProgramsByCopies(compilation);
  return true;
}

} // namespace pto
