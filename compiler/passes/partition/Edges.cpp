// GraphPartition, the regions a scope's tile ops read and write, and the
// ordering edges between them (data, write-after-read, write-after-write).
#include "compiler/passes/partition/Partitioner.h"

#include "compiler/ir/ExecuteGraph.h"
#include "compiler/ir/TensorGraphJson.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <array>
#include <climits>
#include <deque>
#include <functional>
#include <queue>
#include <span>

namespace pto::partition {

// ---- edges ----
std::int32_t Partitioner::internRegion(const RegionBox& box) {
  // Region ids are positions in m_regionBytes, which gatheredRegion also
  // appends to: the interned boxes' own ids are mapped to them. The ids
  // point at the boxes in m_readBoxes, which stays as it is meanwhile.
  auto [id, inserted] = m_regionIds.intern(&box);
  if (inserted) {
    std::int64_t bytes = static_cast<std::int64_t>(sizeOf(m_graph.tensor(box.tensor).dtype));
    for (std::size_t d = 0; d < box.rank; ++d) bytes *= std::max<std::int64_t>(box.hi[d] - box.lo[d], 0);
    m_regionOfBox.push_back(static_cast<std::int32_t>(m_regionBytes.size()));
    m_regionBytes.push_back(bytes);
  }
  return m_regionOfBox[static_cast<std::size_t>(id)];
}

// The rows an MGATHER picks (readsInPlace) are its own copy-in: as many
// bytes as its result, whatever region they come from, so that gathers
// count against the copy-in bound like the loads they replace.
std::int32_t Partitioner::gatheredRegion(const TileOp& op) {
  const TileRegion& result = op.outputs.at(0);
  std::int64_t bytes = static_cast<std::int64_t>(sizeOf(m_graph.tensor(result.tensor).dtype));
  for (std::int64_t extent : result.shape) bytes *= extent;
  m_regionBytes.push_back(bytes);
  return static_cast<std::int32_t>(m_regionBytes.size() - 1);
}

// A region's box on its storage tensor (RemoveRedundantOp may have been disabled).
RegionBox Partitioner::boxOf(const TileRegion& region) {
  return m_graph.tensor(region.tensor).role == TensorRole::View ? m_boxes.box(resolveViews(m_graph, region))
                                                                : m_boxes.box(region);
}

// Boxes of every tile op's reads (inputs, then the accumulated output)
// and writes, by tile op id. View tile ops move no data: they have none.
void Partitioner::collectBoxes() {
  std::size_t readCount = 0, writeCount = 0;
  for (const TileOp& op : m_tiles.tileOps()) {
    if (op.kind == TensorOpKind::View) continue;
    readCount += op.inputs.size() + (op.accumulate != TileAccumulate::None ? op.outputs.size() : 0);
    writeCount += op.outputs.size();
  }
  m_readBoxes.reserve(readCount);
  m_writeBoxes.reserve(writeCount);
  m_readBoxStart.assign(1, 0);
  m_writeBoxStart.assign(1, 0);
  for (const TileOp& op : m_tiles.tileOps()) {
    if (op.kind != TensorOpKind::View) {
      for (const TileRegion& region : op.inputs) m_readBoxes.push_back(boxOf(region));
      for (const TileRegion& region : op.outputs) m_writeBoxes.push_back(boxOf(region));
      if (op.accumulate != TileAccumulate::None)
        for (std::size_t w = m_writeBoxStart.back(); w < m_writeBoxes.size(); ++w) m_readBoxes.push_back(m_writeBoxes[w]);
    }
    m_readBoxStart.push_back(m_readBoxes.size());
    m_writeBoxStart.push_back(m_writeBoxes.size());
  }
}

// The ordering edges of the scope's tile ops (m_preds), the region ids of
// their reads, and for each view tile op the first op reading its view.
void Partitioner::buildEdges() {
  std::size_t count = m_ops.size();
  std::unordered_map<TensorId, std::int32_t> pendingViews;  // view tensor -> its view op
  m_viewConsumer.assign(count, -1);
  for (std::size_t i = 0; i < count; ++i) {
    const TileOp& op = m_tiles.tileOp(m_ops[i]);
    for (const TileRegion& region : op.inputs)
      if (auto found = pendingViews.find(region.tensor); found != pendingViews.end()) {
        m_viewConsumer[static_cast<std::size_t>(found->second)] = static_cast<std::int32_t>(i);
        pendingViews.erase(found);
      }
    if (op.kind == TensorOpKind::View)
      for (const TileRegion& region : op.outputs) pendingViews.emplace(region.tensor, static_cast<std::int32_t>(i));
  }
  auto reads = [&](std::size_t i) {
    auto id = static_cast<std::size_t>(m_ops[i]);
    return std::span<const RegionBox>(m_readBoxes.data() + m_readBoxStart[id], m_readBoxStart[id + 1] - m_readBoxStart[id]);
  };
  auto writes = [&](std::size_t i) {
    auto id = static_cast<std::size_t>(m_ops[i]);
    return std::span<const RegionBox>(m_writeBoxes.data() + m_writeBoxStart[id],
                                      m_writeBoxStart[id + 1] - m_writeBoxStart[id]);
  };
  // Grid cells the size of the smallest tile on each tensor; the last op
  // writing each tensor (reads after it never meet a later write). By
  // tensor id, in place: a hash lookup and an extent vector per box were a
  // tenth of this walk.
  const std::size_t tensorCount = m_graph.tensors().size();
  std::vector<std::array<std::int64_t, kMaxBoxRank>> cells(tensorCount);
  std::vector<std::int8_t> cellRank(tensorCount, -1);  // -1: no box on the tensor yet
  constexpr std::size_t kNoWrite = SIZE_MAX;
  std::vector<std::size_t> lastWrite(tensorCount, kNoWrite);
  auto note = [&](const RegionBox& box) {
    auto t = static_cast<std::size_t>(box.tensor);
    if (cellRank[t] < 0) {
      cellRank[t] = static_cast<std::int8_t>(box.rank);
      for (std::size_t d = 0; d < box.rank; ++d) cells[t][d] = box.hi[d] - box.lo[d];
    } else if (cellRank[t] == box.rank) {
      for (std::size_t d = 0; d < box.rank; ++d) cells[t][d] = std::min(cells[t][d], box.hi[d] - box.lo[d]);
    }
  };
  auto writtenAfter = [&](TensorId tensor, std::size_t i) {
    const std::size_t last = lastWrite[static_cast<std::size_t>(tensor)];
    return last != kNoWrite && last > i;
  };
  for (std::size_t i = 0; i < count; ++i) {
    for (const RegionBox& box : reads(i)) note(box);
    for (const RegionBox& box : writes(i)) {
      note(box);
      lastWrite[static_cast<std::size_t>(box.tensor)] = i;
    }
  }
  RegionIndex writeIndex(OverlapMode::SameIteration), readIndex(OverlapMode::SameIteration);
  std::size_t readCount = 0, writeCount = 0;
  for (std::size_t i = 0; i < count; ++i) {
    readCount += reads(i).size();
    writeCount += writes(i).size();
  }
  writeIndex.reserve(writeCount);
  for (std::size_t t = 0; t < tensorCount; ++t) {
    if (cellRank[t] < 0) continue;
    const std::vector<std::int64_t> cell(cells[t].begin(), cells[t].begin() + cellRank[t]);
    writeIndex.setCellSize(static_cast<TensorId>(t), cell);
    readIndex.setCellSize(static_cast<TensorId>(t), cell);
  }

  m_predStart.assign(1, 0);
  m_preds.clear();
  m_readStart.assign(1, 0);
  m_readRegions.clear();
  m_regionIds.clear();
  m_regionIds.reserve(readCount);
  m_regionOfBox.clear();
  m_regionBytes.clear();
  std::vector<Pred> found;
  for (std::size_t i = 0; i < count; ++i) {
    found.clear();
    auto opReads = reads(i);
    auto opWrites = writes(i);
    for (std::size_t k = 0; k < opReads.size(); ++k) {
      const TileOp& reader = m_tiles.tileOp(m_ops[i]);
      m_readRegions.push_back(readsInPlace(reader, k) ? gatheredRegion(reader) : internRegion(opReads[k]));
      const bool operandOfMatmul = reader.kind == TensorOpKind::Matmul && k < reader.inputs.size();
      writeIndex.visitOverlapping(opReads[k], [&](std::int32_t from, const RegionBox&) {
        // A matmul result is held in L0C, and no modelled machine moves L0C into L1: a matmul reading
        // another's result as its A or B operand reads it from GM (as the Qwen3-Next inverse's chained
        // products do), an ordering edge. Its own accumulator (split k) stays on chip.
        const bool viaGm = operandOfMatmul && coreOf(from) == CoreType::AIC && !gathersIntoL1(tileOf(from));
        found.push_back(Pred{from, viaGm ? -1 : static_cast<std::int32_t>(k)});
        return RegionIndex::Visit::Keep;
      });
      // A folded reshape's bytes were written under the source's name and
      // reach the reader through global memory only (GenerateMoveOp
      // writes them out): the reader follows those writes, an ordering
      // edge rather than data that could stay on chip.
      if (std::optional<RegionBox> bytes = bytesUnder(opReads[k])) {
        writeIndex.visitOverlapping(*bytes, [&](std::int32_t from, const RegionBox&) {
          found.push_back(Pred{from, -1});
          return RegionIndex::Visit::Keep;
        });
        if (writtenAfter(bytes->tensor, i)) readIndex.insert(*bytes, static_cast<std::int32_t>(i));
      }
    }
    for (const RegionBox& box : opWrites) {
      auto supersede = [&](std::int32_t from, const RegionBox& earlier) {
        found.push_back(Pred{from, -1});
        return containsBox(box, earlier) ? RegionIndex::Visit::Drop : RegionIndex::Visit::Keep;
      };
      writeIndex.visitOverlapping(box, supersede);
      readIndex.visitOverlapping(box, supersede);
    }
    // The boxes stay in m_readBoxes and m_writeBoxes while the indexes live.
    auto self = static_cast<std::int32_t>(i);
    for (const RegionBox& box : opReads)
      if (writtenAfter(box.tensor, i)) readIndex.insertKept(box, self);
    for (const RegionBox& box : opWrites) writeIndex.insertKept(box, self);
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    m_preds.insert(m_preds.end(), found.begin(), found.end());
    m_predStart.push_back(static_cast<std::int32_t>(m_preds.size()));
    m_readStart.push_back(static_cast<std::int32_t>(m_readRegions.size()));
  }
}

// The box of the bytes a read of a folded reshape's result names
// (TensorValue::reshapeOf), on the tensor that holds them: exact for a
// constant box, else the whole tensor. Nothing for other reads.
std::optional<RegionBox> Partitioner::bytesUnder(const RegionBox& read) const {
  const TensorValue& value = m_graph.tensor(read.tensor);
  if (value.reshapeOf == kNoId || read.empty()) return std::nullopt;
  const std::vector<std::int64_t>& aliasShape = m_tiles.shapeOf(read.tensor);
  const std::vector<std::int64_t>& storageShape = m_tiles.shapeOf(value.reshapeOf);
  RegionBox box;
  box.tensor = value.reshapeOf;
  box.truncated = storageShape.size() > kMaxBoxRank;
  box.rank = static_cast<std::uint8_t>(std::min(storageShape.size(), kMaxBoxRank));
  for (std::size_t d = 0; d < box.rank; ++d) box.lo[d] = 0, box.hi[d] = storageShape[d];
  bool constant = !read.truncated && !box.truncated && read.rank == aliasShape.size();
  for (std::size_t d = 0; constant && d < read.rank; ++d) constant = read.symbol[d] == 0;
  if (!constant) return box;
  const ByteAlias alias{read.tensor, value.reshapeOf, aliasShape, storageShape,
                        static_cast<std::int64_t>(sizeOf(value.dtype)),
                        static_cast<std::int64_t>(sizeOf(m_graph.tensor(value.reshapeOf).dtype))};
  std::array<std::int64_t, kMaxBoxRank> sizes{};
  for (std::size_t d = 0; d < read.rank; ++d) sizes[d] = read.hi[d] - read.lo[d];
  alias.storageBox(read.lo.data(), sizes.data(), box.lo.data(), box.hi.data());
  return box;
}

// View tile ops (left when RemoveRedundantOp is disabled) move no data;
// each joins the group of the first op reading its view when that keeps
// the ordering rule, else the group of the op before it.
void Partitioner::placeViews() {
  for (std::size_t v = m_ops.size(); v-- > 0;) {
    if (tileOf(static_cast<std::int32_t>(v)).kind != TensorOpKind::View) continue;
    auto view = static_cast<std::int32_t>(v);
    std::int32_t consumer = m_viewConsumer[v];
    std::int32_t home = -1;
    if (consumer >= 0) {
      std::int32_t g = groupOfOp(consumer);
      if (group(g).segment == segmentOf(view) && (group(g).first <= view || group(g).maxInFirst < view)) home = g;
    }
    if (home < 0 && v > 0 && m_groupOf[v - 1] >= 0 && group(groupOfOp(view - 1)).segment == segmentOf(view))
      home = groupOfOp(view - 1);
    if (home < 0) home = newGroup(-1, view);
    group(home).first = std::min(group(home).first, view);
    group(home).size += 1;
    group(home).members.push_back(view);
    group(home).operandBytes += m_operandBytes[v];
    group(home).vector = true;
    m_groupOf[v] = home;
  }
}

} // namespace pto::partition
