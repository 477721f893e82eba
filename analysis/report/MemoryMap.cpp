// Implementation of MemoryMap.
#include "analysis/report/MemoryMap.h"

#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace pto {
namespace {

bool isOnChip(MemoryKind memory) { return memory != MemoryKind::GM; }

// The memories a core of `type` has, in the order a map lists them.
std::vector<MemoryKind> memoriesOf(CoreType type) {
  if (type == CoreType::AIV) return {MemoryKind::UB};
  return {MemoryKind::L1, MemoryKind::L0A, MemoryKind::L0B, MemoryKind::L0C};
}

// Per buffer (index into Subgraph::buffers), its [first, last] instruction.
struct InstructionSpan {
  int first = -1;
  int last = -1;
  void add(int instruction) {
    if (first < 0 || instruction < first) first = instruction;
    last = std::max(last, instruction);
  }
};

// Which instructions touch which buffers: an on-chip operand of an instruction
// for the op at position p touches buffer b when b's memory and bytes overlap
// the operand's and p is in b's op lifetime (bytes are reused over time, so
// the position tells which buffer holds them).
std::vector<InstructionSpan> instructionSpans(const Compilation& compilation, const Subgraph& subgraph,
                                              const PtoProgram& program) {
  const std::vector<BufferAllocation>& buffers = subgraph.buffers;
  std::vector<InstructionSpan> spans(buffers.size());
  // The program was lowered from the first subgraph of its class: its tile ops
  // name positions through that subgraph's op list (an isomorphic subgraph has
  // the same positions and the same placement).
  const Subgraph& lowered = compilation.blocks.subgraph(program.subgraph);
  std::unordered_map<TileOpId, int> positionOf;
  for (std::size_t p = 0; p < lowered.ops.size(); ++p) positionOf.emplace(lowered.ops[p], static_cast<int>(p));
  const std::size_t positions = subgraph.ops.size();
  std::vector<std::vector<int>> liveAt(positions);
  for (std::size_t b = 0; b < buffers.size(); ++b)
    for (int p = std::max(0, buffers[b].firstUse); p <= buffers[b].lastUse && static_cast<std::size_t>(p) < positions; ++p)
      liveAt[static_cast<std::size_t>(p)].push_back(static_cast<int>(b));
  std::vector<InstructionSpan> opSpans(positions);
  // Two buffers live at one op share bytes only when a result is written in
  // place over an input that dies there: the write is both's; a read before
  // it is the input's, after it the result's (the buffer written last).
  std::vector<int> writtenAt(buffers.size(), -1);
  std::vector<int> candidates;
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const PtoInstruction& instruction = program.instructions[i];
    if (instruction.tileOp == kNoId) continue;
    auto found = positionOf.find(instruction.tileOp);
    if (found == positionOf.end() || static_cast<std::size_t>(found->second) >= positions) continue;
    const auto position = static_cast<std::size_t>(found->second);
    opSpans[position].add(static_cast<int>(i));
    auto touch = [&](const PtoOperand& operand, bool writes) {
      if (!isOnChip(operand.memory)) return;
      candidates.clear();
      for (int b : liveAt[position]) {
        const BufferAllocation& buffer = buffers[static_cast<std::size_t>(b)];
        if (buffer.memory == operand.memory && operand.offsetBytes < buffer.offsetBytes + buffer.bytes &&
            buffer.offsetBytes < operand.offsetBytes + std::max<std::int64_t>(operand.bytes, 1))
          candidates.push_back(b);
      }
      if (!writes && candidates.size() > 1) {
        // Written last; of two written by one instruction, the one made later.
        const int latest = *std::max_element(candidates.begin(), candidates.end(), [&](int x, int y) {
          return std::pair(writtenAt[static_cast<std::size_t>(x)], buffers[static_cast<std::size_t>(x)].firstUse) <
                 std::pair(writtenAt[static_cast<std::size_t>(y)], buffers[static_cast<std::size_t>(y)].firstUse);
        });
        const BufferAllocation& kept = buffers[static_cast<std::size_t>(latest)];
        if (writtenAt[static_cast<std::size_t>(latest)] >= 0)
          std::erase_if(candidates, [&](int b) {
            const BufferAllocation& other = buffers[static_cast<std::size_t>(b)];
            return b != latest && other.offsetBytes < kept.offsetBytes + kept.bytes &&
                   kept.offsetBytes < other.offsetBytes + other.bytes;
          });
      }
      for (int b : candidates) {
        spans[static_cast<std::size_t>(b)].add(static_cast<int>(i));
        if (writes) writtenAt[static_cast<std::size_t>(b)] = static_cast<int>(i);
      }
    };
    for (const PtoOperand& operand : instruction.dst) touch(operand, true);
    for (const PtoOperand& operand : instruction.srcs) touch(operand, false);
  }
  // A buffer no operand named: the instructions of the ops that use it.
  for (std::size_t b = 0; b < buffers.size(); ++b) {
    if (spans[b].first >= 0) continue;
    for (int p = std::max(0, buffers[b].firstUse); p <= buffers[b].lastUse && static_cast<std::size_t>(p) < positions; ++p)
      if (opSpans[static_cast<std::size_t>(p)].first >= 0) {
        spans[b].add(opSpans[static_cast<std::size_t>(p)].first);
        spans[b].add(opSpans[static_cast<std::size_t>(p)].last);
      }
    if (spans[b].first < 0) spans[b] = {0, 0};
  }
  return spans;
}

// The member of each op position (merged subgraphs), or empty.
std::vector<int> memberOfPositions(const Subgraph& subgraph) {
  std::vector<int> member;
  if (subgraph.memberStarts.size() < 2) return member;
  member.assign(subgraph.ops.size(), 0);
  for (std::size_t k = 0; k < subgraph.memberStarts.size(); ++k) {
    const int end = k + 1 < subgraph.memberStarts.size() ? subgraph.memberStarts[k + 1] : static_cast<int>(member.size());
    for (int p = std::max(0, subgraph.memberStarts[k]); p < end && static_cast<std::size_t>(p) < member.size(); ++p)
      member[static_cast<std::size_t>(p)] = static_cast<int>(k);
  }
  return member;
}

bool bytesOverlap(const MemoryMapBuffer& a, const MemoryMapBuffer& b) {
  return a.offsetBytes < b.offsetBytes + b.bytes && b.offsetBytes < a.offsetBytes + a.bytes;
}

// Halves of the buffers of one role, in order of first use (see the header).
void alternateHalves(std::vector<MemoryMapBuffer*>& role) {
  std::sort(role.begin(), role.end(), [](const MemoryMapBuffer* a, const MemoryMapBuffer* b) {
    return std::tie(a->firstOp, a->index) < std::tie(b->firstOp, b->index);
  });
  for (std::size_t j = 1; j < role.size(); ++j) {
    MemoryMapBuffer& previous = *role[j - 1];
    MemoryMapBuffer& current = *role[j];
    if (previous.lastOp >= current.firstOp || bytesOverlap(previous, current)) continue;
    if (previous.pingPongHalf < 0) previous.pingPongHalf = 0;
    current.pingPongHalf = 1 - previous.pingPongHalf;
  }
}

void assignHalves(const Subgraph& subgraph, std::vector<MemoryMapBuffer>& buffers,
                  const std::vector<TensorId>& tensorOf) {
  const std::vector<int> member = memberOfPositions(subgraph);
  if (!member.empty()) {
    for (MemoryMapBuffer& buffer : buffers) {
      buffer.member = member.at(static_cast<std::size_t>(buffer.firstOp));
      buffer.pingPongHalf = buffer.member % 2;
    }
    return;
  }
  std::map<std::tuple<MemoryKind, TensorId, std::vector<std::int64_t>>, std::vector<MemoryMapBuffer*>> roles;
  for (std::size_t b = 0; b < buffers.size(); ++b) roles[{buffers[b].memory, tensorOf[b], buffers[b].shape}].push_back(&buffers[b]);
  for (auto& [role, list] : roles) alternateHalves(list);
}

// Peak, fragmentation and holes of one memory's buffers (lifetimes set).
void measure(MemorySpaceMap& space) {
  // Live bytes per instruction by a sweep: +bytes at the first instruction,
  // -bytes after the last. An in-place result starts counting after its
  // input ends, since they share bytes at that instruction.
  std::unordered_map<int, const MemoryMapBuffer*> byIndex;
  for (const MemoryMapBuffer& buffer : space.buffers) byIndex.emplace(buffer.index, &buffer);
  std::vector<std::pair<int, std::int64_t>> events;
  for (const MemoryMapBuffer& buffer : space.buffers) {
    int from = buffer.firstInstruction;
    if (auto input = byIndex.find(buffer.inPlaceOf); input != byIndex.end())
      from = std::max(from, input->second->lastInstruction + 1);
    if (from > buffer.lastInstruction) continue;
    events.emplace_back(from, buffer.bytes);
    events.emplace_back(buffer.lastInstruction + 1, -buffer.bytes);
  }
  std::sort(events.begin(), events.end());  // at one instruction, ends (negative) first
  std::int64_t live = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    live += events[e].second;
    const bool lastAtInstruction = e + 1 == events.size() || events[e + 1].first != events[e].first;
    if (lastAtInstruction && live > space.peakLiveBytes) {
      space.peakLiveBytes = live;
      space.peakInstruction = events[e].first;
    }
  }
  for (const MemoryMapBuffer& buffer : space.buffers)
    space.footprintBytes = std::max(space.footprintBytes, buffer.offsetBytes + buffer.bytes);
  space.utilization = space.capacityBytes > 0 ? static_cast<double>(space.peakLiveBytes) / space.capacityBytes : 0.0;
  if (space.peakInstruction < 0) {
    space.largestFreeBytesAtPeak = space.capacityBytes;
    return;
  }
  // Free blocks of [0, capacity) at the peak: the gaps between the live buffers' ranges.
  std::vector<std::pair<std::int64_t, std::int64_t>> taken;
  for (const MemoryMapBuffer& buffer : space.buffers)
    if (buffer.firstInstruction <= space.peakInstruction && space.peakInstruction <= buffer.lastInstruction)
      taken.emplace_back(buffer.offsetBytes, buffer.offsetBytes + buffer.bytes);
  std::sort(taken.begin(), taken.end());
  std::int64_t cursor = 0, totalFree = 0, largest = 0, holes = 0;
  auto freeBlock = [&](std::int64_t begin, std::int64_t end) {
    if (end <= begin) return;
    totalFree += end - begin;
    largest = std::max(largest, end - begin);
    holes += std::max<std::int64_t>(0, std::min(end, space.footprintBytes) - begin);
  };
  for (const auto& [begin, end] : taken) {
    freeBlock(cursor, std::min(begin, space.capacityBytes));
    cursor = std::max(cursor, end);
  }
  freeBlock(cursor, space.capacityBytes);
  space.largestFreeBytesAtPeak = largest;
  space.holeBytesAtPeak = holes;
  space.fragmentation = totalFree > 0 ? 1.0 - static_cast<double>(largest) / static_cast<double>(totalFree) : 0.0;
}

} // namespace

std::string MemoryMapBuffer::name() const {
  std::string text = (loaded ? std::string("load") : op) + " " + tensor + "[";
  for (std::size_t d = 0; d < shape.size(); ++d) text += (d ? "x" : "") + std::to_string(shape[d]);
  return text + "]";
}

std::string MemoryMapBuffer::source() const {
  if (sourceFile.empty()) return {};
  return std::filesystem::path(sourceFile).filename().string() + ":" + std::to_string(sourceLine);
}

MemoryMap memoryMap(const Compilation& compilation, SubgraphId id) {
  const Subgraph& subgraph = compilation.blocks.subgraph(id);
  const TileGraph& tiles = compilation.tiles;
  MemoryMap map;
  map.subgraph = id;
  map.programId = subgraph.programId;
  map.coreType = std::string(name(subgraph.coreType));
  map.label = subgraph.label;
  map.overlap = std::string(name(subgraph.overlap));
  map.members = std::max<int>(1, static_cast<int>(subgraph.memberStarts.size()));
  const PtoProgram* program = subgraph.programId >= 0 && static_cast<std::size_t>(subgraph.programId) < compilation.programs.size()
                                  ? &compilation.programs[static_cast<std::size_t>(subgraph.programId)]
                                  : nullptr;
  map.instructionCount = program ? static_cast<int>(program->instructions.size()) : 0;
  const std::vector<InstructionSpan> spans =
      program ? instructionSpans(compilation, subgraph, *program) : std::vector<InstructionSpan>(subgraph.buffers.size());

  std::vector<MemoryMapBuffer> buffers;
  std::vector<TensorId> tensorOf;
  for (std::size_t b = 0; b < subgraph.buffers.size(); ++b) {
    const BufferAllocation& allocation = subgraph.buffers[b];
    if (!isOnChip(allocation.memory)) continue;
    MemoryMapBuffer buffer;
    buffer.index = static_cast<int>(b);
    buffer.memory = allocation.memory;
    buffer.offsetBytes = allocation.offsetBytes;
    buffer.bytes = allocation.bytes;
    buffer.firstOp = allocation.firstUse;
    buffer.lastOp = allocation.lastUse;
    buffer.firstInstruction = program ? spans[b].first : allocation.firstUse;
    buffer.lastInstruction = program ? spans[b].last : allocation.lastUse;
    const TensorValue& tensor = tiles.graph.tensor(allocation.region.tensor);
    buffer.tensor = tensor.name;
    buffer.dtype = std::string(name(tensor.dtype));
    buffer.shape = allocation.region.shape;
    for (const SymbolicScalar& offset : allocation.region.offsets) buffer.offsets.push_back(simplify(offset).str());
    buffer.loaded = allocation.producer == kNoId;
    // A made tile is named by its op; a loaded one by the op that first reads it.
    TileOpId op = allocation.producer;
    if (op == kNoId && allocation.firstUse >= 0 && static_cast<std::size_t>(allocation.firstUse) < subgraph.ops.size())
      op = subgraph.ops[static_cast<std::size_t>(allocation.firstUse)];
    if (op != kNoId) {
      const TensorOp& tensorOp = tiles.graph.op(tiles.tileOp(op).tensorOp);
      buffer.op = std::string(name(tensorOp.kind));
      if (tensorOp.location.known()) {
        buffer.sourceFile = tensorOp.location.file;
        buffer.sourceLine = tensorOp.location.line;
      }
    }
    buffers.push_back(std::move(buffer));
    tensorOf.push_back(allocation.region.tensor);
  }
  // In place: a result at the offset of a same-memory input whose last op is the result's first.
  for (MemoryMapBuffer& result : buffers) {
    if (result.loaded) continue;
    for (const MemoryMapBuffer& input : buffers)
      if (&input != &result && input.memory == result.memory && input.offsetBytes == result.offsetBytes &&
          input.lastOp == result.firstOp && input.firstOp < result.firstOp) {
        result.inPlaceOf = input.index;
        break;
      }
  }
  assignHalves(subgraph, buffers, tensorOf);

  std::vector<MemoryKind> memories = memoriesOf(subgraph.coreType);
  for (const BufferAllocation& allocation : subgraph.buffers)
    if (isOnChip(allocation.memory) && std::find(memories.begin(), memories.end(), allocation.memory) == memories.end())
      memories.push_back(allocation.memory);
  std::sort(memories.begin(), memories.end());
  for (MemoryKind memory : memories) {
    MemorySpaceMap space;
    space.memory = memory;
    space.capacityBytes = compilation.settings.target.capacity(memory);
    for (const MemoryMapBuffer& buffer : buffers)
      if (buffer.memory == memory) space.buffers.push_back(buffer);
    std::sort(space.buffers.begin(), space.buffers.end(), [](const MemoryMapBuffer& a, const MemoryMapBuffer& b) {
      return std::tie(a.firstInstruction, a.offsetBytes, a.index) < std::tie(b.firstInstruction, b.offsetBytes, b.index);
    });
    measure(space);
    map.spaces.push_back(std::move(space));
  }
  return map;
}

MemoryMap memoryMapOfTask(const Compilation& compilation, const Schedule* schedule, TaskId task) {
  const auto& tasks = compilation.tasks.tasks;
  if (task < 0 || static_cast<std::size_t>(task) >= tasks.size())
    throw std::out_of_range("task " + std::to_string(task) + " is not in the execute graph");
  MemoryMap map = memoryMap(compilation, tasks[static_cast<std::size_t>(task)].subgraph);
  MemoryMapTask window;
  window.task = task;
  if (schedule && static_cast<std::size_t>(task) < schedule->tasks.size()) {
    const TaskRecord& record = schedule->tasks[static_cast<std::size_t>(task)];
    window.core = std::string(name(record.core.type)) + " " + std::to_string(record.core.index);
    window.startCycle = record.startCycle;
    window.endCycle = record.endCycle;
  }
  map.task = window;
  return map;
}

SubgraphId fullestSubgraph(const Compilation& compilation) {
  SubgraphId fullest = kNoId;
  double most = 0.0;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs)
    for (std::size_t m = 0; m < kMemoryKindCount; ++m) {
      const auto memory = static_cast<MemoryKind>(m);
      const std::int64_t capacity = compilation.settings.target.capacity(memory);
      if (!isOnChip(memory) || capacity <= 0 || subgraph.peakBytes[m] <= 0) continue;
      const double fill = static_cast<double>(subgraph.peakBytes[m]) / static_cast<double>(capacity);
      if (fill > most) {
        most = fill;
        fullest = subgraph.id;
      }
    }
  return fullest;
}

nlohmann::ordered_json memoryMapJson(const MemoryMap& map) {
  using json = nlohmann::ordered_json;
  json out;
  out["subgraph"] = map.subgraph;
  out["program"] = map.programId;
  out["core_type"] = map.coreType;
  out["label"] = map.label;
  out["overlap"] = map.overlap;
  out["members"] = map.members;
  out["instructions"] = map.instructionCount;
  out["time_axis"] = "instruction";
  if (map.task)
    out["task"] = {{"id", map.task->task},
                   {"core", map.task->core},
                   {"start_cycle", map.task->startCycle},
                   {"end_cycle", map.task->endCycle}};
  out["spaces"] = json::array();
  for (const MemorySpaceMap& space : map.spaces) {
    json buffers = json::array();
    for (const MemoryMapBuffer& buffer : space.buffers) {
      json entry{{"index", buffer.index},
                 {"name", buffer.name()},
                 {"offset_bytes", buffer.offsetBytes},
                 {"bytes", buffer.bytes},
                 {"first_instruction", buffer.firstInstruction},
                 {"last_instruction", buffer.lastInstruction},
                 {"first_op", buffer.firstOp},
                 {"last_op", buffer.lastOp},
                 {"tensor", buffer.tensor},
                 {"offsets", buffer.offsets},
                 {"shape", buffer.shape},
                 {"dtype", buffer.dtype},
                 {"loaded", buffer.loaded},
                 {"op", buffer.op},
                 {"source", buffer.source()}};
      if (buffer.member >= 0) entry["member"] = buffer.member;
      if (buffer.pingPongHalf >= 0) entry["ping_pong_half"] = buffer.pingPongHalf;
      if (buffer.inPlaceOf >= 0) entry["in_place_of"] = buffer.inPlaceOf;
      buffers.push_back(std::move(entry));
    }
    out["spaces"].push_back({{"memory", std::string(name(space.memory))},
                             {"capacity_bytes", space.capacityBytes},
                             {"peak_live_bytes", space.peakLiveBytes},
                             {"peak_instruction", space.peakInstruction},
                             {"footprint_bytes", space.footprintBytes},
                             {"utilization", space.utilization},
                             {"fragmentation", space.fragmentation},
                             {"largest_free_bytes_at_peak", space.largestFreeBytesAtPeak},
                             {"hole_bytes_at_peak", space.holeBytesAtPeak},
                             {"buffers", std::move(buffers)}});
  }
  return out;
}

} // namespace pto
