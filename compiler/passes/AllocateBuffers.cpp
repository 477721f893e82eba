// Implementation of AllocateBuffers.
#include "compiler/passes/AllocateBuffers.h"

#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace pto {
namespace {

// Boxes overlap unless some dim's intervals are provably disjoint.
bool mayOverlap(const TileRegion& a, const TileRegion& b) {
  if (a.tensor != b.tensor) return false;
  for (std::size_t d = 0; d < a.offsets.size() && d < b.offsets.size(); ++d) {
    auto delta = simplify(b.offsets[d] - a.offsets[d]).constantValue();
    if (!delta) continue;
    if (*delta >= a.shape[d] || -*delta >= b.shape[d]) return false;
  }
  return true;
}

struct Planned {
  BufferAllocation buffer;
  OpId tensorOp = kNoId;  // whose kernel line a too-big tile is blamed on
};

class Allocator {
public:
  Allocator(const TileGraph& tiles, const TargetInfo& target, Subgraph& subgraph)
      : m_tiles(tiles), m_target(target), m_subgraph(subgraph) {}

  void plan() {
    if (m_subgraph.coreType == CoreType::AIC) planCube();
    else planVector();
  }

  // First fit per memory, in order of first use. Only buffers still live are
  // compared with, so the cost follows how many tiles are live at once.
  void place() {
    std::sort(m_planned.begin(), m_planned.end(),
              [](const Planned& a, const Planned& b) { return a.buffer.firstUse < b.buffer.firstUse; });
    std::map<MemoryKind, std::vector<const BufferAllocation*>> live;
    for (Planned& entry : m_planned) {
      BufferAllocation& buffer = entry.buffer;
      auto& others = live[buffer.memory];
      std::erase_if(others, [&](const BufferAllocation* other) { return other->lastUse < buffer.firstUse; });
      std::sort(others.begin(), others.end(),
                [](const BufferAllocation* a, const BufferAllocation* b) { return a->offsetBytes < b->offsetBytes; });
      // Lowest gap between live buffers that fits.
      std::int64_t offset = 0;
      for (const BufferAllocation* other : others) {
        if (other->offsetBytes >= offset + buffer.bytes) break;
        offset = std::max(offset, other->offsetBytes + other->bytes);
      }
      buffer.offsetBytes = offset;
      others.push_back(&buffer);
      std::size_t memory = static_cast<std::size_t>(buffer.memory);
      m_subgraph.peakBytes[memory] = std::max(m_subgraph.peakBytes[memory], buffer.offsetBytes + buffer.bytes);
    }
  }

  // The first memory whose peak exceeds the machine, with the tile to blame.
  bool check(DiagnosticEngine& diags) const {
    for (std::size_t m = 0; m < kMemoryKindCount; ++m) {
      auto memory = static_cast<MemoryKind>(m);
      if (memory == MemoryKind::GM || m_subgraph.peakBytes[m] <= m_target.capacity(memory)) continue;
      const Planned* largest = nullptr;
      for (const Planned& entry : m_planned)
        if (entry.buffer.memory == memory && (!largest || entry.buffer.bytes > largest->buffer.bytes)) largest = &entry;
      const TensorOp& op = m_tiles.graph.op(largest->tensorOp);
      const TensorValue& tensor = m_tiles.graph.tensor(largest->buffer.region.tensor);
      std::string shape = "[";
      for (std::size_t d = 0; d < largest->buffer.region.shape.size(); ++d)
        shape += (d ? ", " : "") + std::to_string(largest->buffer.region.shape[d]);
      shape += "]";
      return diags.error(op.location)
             << "subgraph " << m_subgraph.id << " (" << name(m_subgraph.coreType)
             << (m_subgraph.label.empty() ? "" : ", label '" + m_subgraph.label + "'") << ") needs "
             << m_subgraph.peakBytes[m] << " bytes of " << title(memory) << " but " << m_target.name << " has "
             << m_target.capacity(memory) << " per core; the largest tile is " << name(op.kind) << "'s " << shape
             << " " << name(tensor.dtype) << " (" << largest->buffer.bytes << " bytes) here — "
             << (largest->buffer.bytes * 4 > m_target.capacity(memory)
                     ? std::string(memory == MemoryKind::UB ? "use smaller vec tile shapes (pypto.set_vec_tile_shapes)"
                                                            : "use smaller cube tile shapes (pypto.set_cube_tile_shapes)")
                     : "too many tiles are live at once; split the work (pass option mg_copyin_upper_bound, "
                       "sg_set_scope) or use smaller tiles");
    }
    return true;
  }

  std::vector<BufferAllocation> buffers() const {
    std::vector<BufferAllocation> result;
    for (const Planned& entry : m_planned) result.push_back(entry.buffer);
    return result;
  }

private:
  std::int64_t bytesOf(const TileRegion& region) const {
    return tileBytes(region.shape, m_tiles.graph.tensor(region.tensor).dtype, m_target.allocationGranularityBytes);
  }

  // Regions are keyed by their simplified text, so finding the buffer that
  // already holds a tile is a hash lookup, not a scan.
  static std::string keyOf(MemoryKind memory, const TileRegion& region) {
    std::string key = std::to_string(static_cast<int>(memory)) + "|" + std::to_string(region.tensor);
    for (std::size_t d = 0; d < region.shape.size(); ++d)
      key += "|" + simplify(region.offsets[d]).str() + "+" + std::to_string(region.shape[d]);
    return key;
  }

  // Adds a buffer for `region` used at `position`, or extends the live range
  // of the one already holding it.
  void use(MemoryKind memory, const TileRegion& region, int position, TileOpId producer, OpId tensorOp) {
    std::string key = keyOf(memory, region);
    if (auto found = m_byKey.find(key); found != m_byKey.end()) {
      BufferAllocation& buffer = m_planned[found->second].buffer;
      buffer.lastUse = std::max(buffer.lastUse, position);
      return;
    }
    m_byKey.emplace(std::move(key), m_planned.size());
    if (producer != kNoId) m_producedOn[region.tensor].push_back(m_planned.size());
    Planned entry;
    entry.buffer.memory = memory;
    entry.buffer.region = region;
    entry.buffer.bytes = bytesOf(region);
    entry.buffer.producer = producer;
    entry.buffer.firstUse = position;
    entry.buffer.lastUse = position;
    entry.tensorOp = tensorOp;
    m_planned.push_back(std::move(entry));
  }

  void planVector() {
    int position = 0;
    for (TileOpId id : m_subgraph.ops) {
      const TileOp& op = m_tiles.tileOp(id);
      for (const TileRegion& input : op.inputs) {
        // A tile produced earlier in this subgraph is read from its buffer
        // (the same region: a hash hit; part of one: a scan of that tensor's
        // produced tiles); anything else is loaded from global memory.
        if (auto exact = m_byKey.find(keyOf(MemoryKind::UB, input));
            exact != m_byKey.end() && m_planned[exact->second].buffer.producer != kNoId) {
          BufferAllocation& buffer = m_planned[exact->second].buffer;
          buffer.lastUse = std::max(buffer.lastUse, position);
          continue;
        }
        bool found = false;
        for (std::size_t index : m_producedOn[input.tensor]) {
          BufferAllocation& buffer = m_planned[index].buffer;
          if (buffer.memory == MemoryKind::UB && mayOverlap(buffer.region, input)) {
            buffer.lastUse = std::max(buffer.lastUse, position);
            found = true;
          }
        }
        if (!found) use(MemoryKind::UB, input, position, kNoId, op.tensorOp);
      }
      for (const TileRegion& output : op.outputs) use(MemoryKind::UB, output, position, id, op.tensorOp);
      ++position;
    }
  }

  void planCube() {
    int position = 0;
    for (TileOpId id : m_subgraph.ops) {
      const TileOp& op = m_tiles.tileOp(id);
      if (op.kind == TensorOpKind::Matmul) {
        use(MemoryKind::L1, op.inputs[0], position, kNoId, op.tensorOp);
        use(MemoryKind::L1, op.inputs[1], position, kNoId, op.tensorOp);
        use(MemoryKind::L0A, op.inputs[0], position, kNoId, op.tensorOp);
        use(MemoryKind::L0B, op.inputs[1], position, kNoId, op.tensorOp);
        use(MemoryKind::L0C, op.outputs[0], position, id, op.tensorOp);
      } else {
        // The fixpipe converts an L0C tile on its way to global memory.
        for (const TileRegion& input : op.inputs) use(MemoryKind::L0C, input, position, kNoId, op.tensorOp);
      }
      ++position;
    }
  }

  const TileGraph& m_tiles;
  const TargetInfo& m_target;
  Subgraph& m_subgraph;
  std::vector<Planned> m_planned;
  std::unordered_map<std::string, std::size_t> m_byKey;                 // region key -> m_planned index
  std::unordered_map<TensorId, std::vector<std::size_t>> m_producedOn;  // tensor -> produced buffers
};

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

std::array<std::int64_t, kMemoryKindCount> plannedPeakBytes(const TileGraph& tiles, const TargetInfo& target,
                                                             const Subgraph& subgraph) {
  Subgraph trial;
  trial.id = subgraph.id;
  trial.coreType = subgraph.coreType;
  trial.ops = subgraph.ops;
  Allocator allocator(tiles, target, trial);
  allocator.plan();
  allocator.place();
  return trial.peakBytes;
}

bool allocateBuffers(Compilation& compilation, DiagnosticEngine& diags) {
  for (Subgraph& subgraph : compilation.blocks.subgraphs) {
    Allocator allocator(compilation.tiles, compilation.settings.target, subgraph);
    subgraph.peakBytes.fill(0);
    allocator.plan();
    allocator.place();
    subgraph.buffers = allocator.buffers();
    if (!allocator.check(diags)) return false;
  }
  return true;
}

} // namespace pto
