#include "runtime/ScheduleTrace.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <set>
#include <string_view>

namespace pto {

std::string concreteRegionString(const TensorGraph& graph, const ConcreteRegion& region) {
  std::string text = region.tensor >= 0 ? graph.tensor(region.tensor).name : std::string("?");
  text += '[';
  for (std::size_t axis = 0; axis < region.shape.size(); ++axis) {
    if (axis) text += ", ";
    std::int64_t begin = axis < region.offsets.size() ? region.offsets[axis] : 0;
    text += std::to_string(begin) + ':' + std::to_string(begin + region.shape[axis]);
  }
  return text + ']';
}

TileOpId representativeTileOp(const TileGraph& tiles, const Subgraph& subgraph) {
  for (TileOpId id : subgraph.ops)
    if (category(tiles.tileOp(id).kind) != OpCategory::Memory) return id;
  return subgraph.ops.empty() ? kNoId : subgraph.ops.front();
}

namespace {

std::string regionList(const TensorGraph& graph, const std::vector<ConcreteRegion>& regions) {
  std::string text;
  for (const ConcreteRegion& region : regions) {
    if (!text.empty()) text += "; ";
    text += concreteRegionString(graph, region);
  }
  return text;
}

// What every task of one subgraph shares: computed once per subgraph.
struct SubgraphFacts {
  trace::StringId label = trace::kEmptyString;
  trace::StringId name = trace::kEmptyString;
  trace::StringId file = trace::kEmptyString;
  std::int32_t line = 0;
  trace::StringId lines = trace::kEmptyString;  // kTaskLinesArg's value; empty for a single line
};

// The kTaskLinesArg value of a subgraph shown at `shownFile`: every line of
// its tile ops, its own file's first as bare numbers; empty when the ops
// come from one line only.
std::string subgraphLines(const TileGraph& tiles, const Subgraph& subgraph, const std::string& shownFile) {
  std::set<std::pair<bool, std::pair<std::string, int>>> lines;  // (other file, (file, line))
  for (TileOpId id : subgraph.ops) {
    const TileOp& op = tiles.tileOp(id);
    if (op.tensorOp == kNoId) continue;
    const SourceLocation& location = tiles.graph.op(op.tensorOp).location;
    if (location.known() && location.line > 0)
      lines.insert({location.file != shownFile, {location.file, location.line}});
  }
  if (lines.size() < 2) return {};
  std::string text;
  for (const auto& [other, where] : lines)
    text += (text.empty() ? "" : ", ") + (other ? where.first + ":" : std::string()) + std::to_string(where.second);
  return text;
}

} // namespace

std::string loopIndicesText(const std::vector<std::pair<std::string, std::int64_t>>& loopIndices) {
  std::string text;
  for (const auto& [symbol, value] : loopIndices) text += (text.empty() ? "" : ", ") + symbol + "=" + std::to_string(value);
  return text;
}

trace::Trace traceFromSchedule(const ScheduleTraceInput& input) {
  trace::Trace trace;
  const double nsPerCycle = 1.0 / input.clockGHz;
  auto toNs = [&](std::int64_t cycles) { return static_cast<std::int64_t>(std::llround(cycles * nsPerCycle)); };

  // Lanes: all cube cores first, then all vector cores, as PyPTO orders them.
  std::vector<trace::LaneIndex> aicLanes, aivLanes;
  for (int core = 0; core < input.aicCores; ++core)
    aicLanes.push_back(trace.addLane("AIC_" + std::to_string(core), core));
  for (int core = 0; core < input.aivCores; ++core)
    aivLanes.push_back(trace.addLane("AIV_" + std::to_string(core), input.aicCores + core));

  const TensorGraph& graph = input.tiles.graph;
  std::vector<SubgraphFacts> facts(input.blocks.subgraphs.size());
  for (const Subgraph& subgraph : input.blocks.subgraphs) {
    SubgraphFacts& fact = facts[static_cast<std::size_t>(subgraph.id)];
    TileOpId shown = representativeTileOp(input.tiles, subgraph);
    std::string label = subgraph.label;
    std::string opName = "subgraph";
    if (shown != kNoId) {
      const TensorOp& op = graph.op(input.tiles.tileOp(shown).tensorOp);
      if (label.empty()) label = op.label;
      opName = std::string(name(op.kind));
      fact.file = trace.intern(op.location.file);
      fact.line = op.location.line;
      fact.lines = trace.intern(subgraphLines(input.tiles, subgraph, op.location.file));
    }
    if (label.empty()) label = opName;
    fact.label = trace.intern(label);
    // "softmax: exp (sg 3)": the label first, as the swimlane shows it.
    fact.name = trace.intern(label + ": " + opName + " (sg " + std::to_string(subgraph.id) + ")");
  }

  std::size_t edges = 0;
  for (const Task& task : input.tasks.tasks) edges += task.predecessors.size();
  trace.reserveTasks(input.tasks.tasks.size(), edges);

  std::vector<trace::PipeInterval> pipes;
  std::vector<trace::TaskArg> args;
  const trace::StringId loopKey = trace.intern("loop");
  const trace::StringId linesKey = trace.intern(trace::kTaskLinesArg);
  for (const TaskRecord& record : input.schedule.tasks) {
    const Task& task = input.tasks.tasks.at(static_cast<std::size_t>(record.task));
    const SubgraphFacts& fact = facts.at(static_cast<std::size_t>(task.subgraph));
    trace::Task entry;
    entry.id = record.task;
    entry.dispatchNs = toNs(record.dispatchCycle);
    entry.startNs = toNs(record.startCycle);
    entry.endNs = toNs(record.endCycle);
    entry.seq = record.deviceTask;
    entry.subgraph = task.subgraph;
    entry.name = fact.name;
    entry.label = fact.label;
    entry.sourceFile = fact.file;
    entry.sourceLine = fact.line;
    entry.inputs = trace.intern(regionList(graph, task.reads));
    entry.outputs = trace.intern(regionList(graph, task.writes));
    const auto& lanes = record.core.type == CoreType::AIC ? aicLanes : aivLanes;
    entry.lane = lanes.at(static_cast<std::size_t>(record.core.index));
    pipes.clear();
    for (const PipeInterval& interval : input.schedule.pipes(record))
      pipes.push_back({toNs(interval.startCycle), toNs(interval.endCycle), trace.intern(interval.pipe())});
    // The loop iteration is part of a task's identity: `pto calibrate` pairs
    // a measured task with a simulated one by subgraph, label and loop.
    args.clear();
    if (!task.loopIndices.empty()) args.push_back({loopKey, trace.intern(loopIndicesText(task.loopIndices)), false});
    if (fact.lines != trace::kEmptyString) args.push_back({linesKey, fact.lines, false});
    trace.addTask(entry, pipes, args);
  }
  // Trace indices equal task ids: the schedule lists every task by id.
  for (const Task& task : input.tasks.tasks)
    for (TaskId producer : task.predecessors)
      trace.addDependency(static_cast<trace::TaskIndex>(producer), static_cast<trace::TaskIndex>(task.id));

  // Ready queue lengths, per core type and in total (the sum at every change).
  const std::vector<ReadySample>& aic = input.schedule.ready(CoreType::AIC);
  const std::vector<ReadySample>& aiv = input.schedule.ready(CoreType::AIV);
  for (const ReadySample& sample : aic) trace.addCounterSample("ReadyCount_AIC", toNs(sample.cycle), sample.count);
  for (const ReadySample& sample : aiv) trace.addCounterSample("ReadyCount_AIV", toNs(sample.cycle), sample.count);
  std::size_t i = 0, j = 0;
  int aicCount = 0, aivCount = 0;
  while (i < aic.size() || j < aiv.size()) {
    std::int64_t cycle = std::min(i < aic.size() ? aic[i].cycle : INT64_MAX, j < aiv.size() ? aiv[j].cycle : INT64_MAX);
    while (i < aic.size() && aic[i].cycle == cycle) aicCount = aic[i++].count;
    while (j < aiv.size() && aiv[j].cycle == cycle) aivCount = aiv[j++].count;
    trace.addCounterSample("ReadyCount_Total", toNs(cycle), aicCount + aivCount);
  }
  trace.finalize();
  return trace;
}

} // namespace pto
