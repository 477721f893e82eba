// The trace model: building, finalizing and querying swimlanes.
#include "runtime/trace/Trace.h"

#include "core/EnumNames.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <stdexcept>

namespace pto::trace {

constexpr auto kLaneKindNames = enumNames<LaneKind>({
    {LaneKind::Aic, "AIC"}, {LaneKind::Aiv, "AIV"}, {LaneKind::Aicpu, "AICPU"}, {LaneKind::Other, "Other"}});

std::string_view name(LaneKind kind) { return kLaneKindNames.name(kind); }

LaneKind laneKindFromName(std::string_view laneName) {
  if (laneName.starts_with("AICPU")) return LaneKind::Aicpu;
  if (laneName.starts_with("AIC")) return LaneKind::Aic;
  if (laneName.starts_with("AIV")) return LaneKind::Aiv;
  return LaneKind::Other;
}

LaneIndex Trace::addLane(std::string_view laneName, std::int32_t sortIndex) {
  Lane lane;
  lane.name = intern(laneName);
  lane.kind = laneKindFromName(laneName);
  lane.sortIndex = sortIndex;
  m_lanes.push_back(std::move(lane));
  return static_cast<LaneIndex>(m_lanes.size() - 1);
}

void Trace::renameLane(LaneIndex lane, std::string_view laneName) {
  m_lanes[lane].name = intern(laneName);
  m_lanes[lane].kind = laneKindFromName(laneName);
}

std::optional<LaneIndex> Trace::findLane(std::string_view laneName) const {
  for (std::size_t i = 0; i < m_lanes.size(); ++i)
    if (str(m_lanes[i].name) == laneName) return static_cast<LaneIndex>(i);
  return std::nullopt;
}

TaskIndex Trace::addTask(Task task, std::span<const PipeInterval> pipes, std::span<const TaskArg> args) {
  if (task.lane >= m_lanes.size()) throw std::out_of_range("Trace::addTask: lane index out of range");
  if (pipes.size() > std::numeric_limits<std::uint16_t>::max() || args.size() > std::numeric_limits<std::uint16_t>::max())
    throw std::length_error("Trace::addTask: more than 65535 pipe intervals or args on one task");
  if (taskCount() >= kNoTask) throw std::length_error("Trace::addTask: more than 4 294 967 294 tasks");
  m_id.push_back(task.id);
  m_start.push_back(task.startNs);
  m_dur.push_back(task.endNs - task.startNs);
  m_dispatchLead.push_back(task.startNs - task.dispatchNs);
  m_seq.push_back(task.seq);
  m_subgraph.push_back(task.subgraph);
  m_name.push_back(task.name);
  m_label.push_back(task.label);
  m_sourceFile.push_back(task.sourceFile);
  m_sourceLine.push_back(task.sourceLine);
  m_inputs.push_back(task.inputs);
  m_outputs.push_back(task.outputs);
  m_lane.push_back(task.lane);
  m_firstPipe.push_back(static_cast<std::int64_t>(m_pipes.size()));
  m_firstArg.push_back(static_cast<std::int64_t>(m_args.size()));
  m_pipes.insert(m_pipes.end(), pipes.begin(), pipes.end());
  m_args.insert(m_args.end(), args.begin(), args.end());
  m_lanesSorted = false;
  return static_cast<TaskIndex>(taskCount() - 1);
}

Task Trace::task(TaskIndex t) const {
  Task task;
  task.id = m_id[t];
  task.startNs = m_start[t];
  task.endNs = task.startNs + m_dur[t];
  task.dispatchNs = task.startNs - m_dispatchLead[t];
  task.seq = static_cast<std::int32_t>(m_seq[t]);
  task.subgraph = static_cast<std::int32_t>(m_subgraph[t]);
  task.name = static_cast<StringId>(m_name[t]);
  task.label = static_cast<StringId>(m_label[t]);
  task.sourceFile = static_cast<StringId>(m_sourceFile[t]);
  task.sourceLine = static_cast<std::int32_t>(m_sourceLine[t]);
  task.inputs = static_cast<StringId>(m_inputs[t]);
  task.outputs = static_cast<StringId>(m_outputs[t]);
  task.lane = static_cast<LaneIndex>(m_lane[t]);
  auto preds = predecessors(t);
  task.firstPred = static_cast<std::uint32_t>(preds.data() - m_preds.data());
  task.predCount = static_cast<std::uint32_t>(preds.size());
  auto taskPipes = pipes(t);
  task.firstPipe = static_cast<std::uint32_t>(taskPipes.data() - m_pipes.data());
  task.pipeCount = static_cast<std::uint16_t>(taskPipes.size());
  auto taskArgs = args(t);
  task.firstArg = static_cast<std::uint32_t>(taskArgs.data() - m_args.data());
  task.argCount = static_cast<std::uint16_t>(taskArgs.size());
  return task;
}

void Trace::addCounterSample(std::string_view counter, std::int64_t tsNs, double value) {
  StringId id = intern(counter);
  auto found = std::find_if(m_counters.begin(), m_counters.end(), [&](const Counter& c) { return c.name == id; });
  if (found == m_counters.end()) {
    m_counters.push_back(Counter{id, {}});
    found = m_counters.end() - 1;
  }
  found->samples.push_back(CounterSample{tsNs, value});
}

void Trace::reserveTasks(std::size_t /*tasks: columns grow by blocks*/, std::size_t edges) { m_pendingEdges.reserve(edges); }

void Trace::finalize() {
  const std::size_t count = taskCount();
  if (!m_pendingEdges.empty() || m_predOffsets.size() != count + 1) {
    // Merge with edges from an earlier finalize(), then rebuild the ranges.
    for (std::size_t t = 0; t < count; ++t)
      for (TaskIndex producer : predecessors(static_cast<TaskIndex>(t)))
        m_pendingEdges.emplace_back(static_cast<TaskIndex>(t), producer);
    std::sort(m_pendingEdges.begin(), m_pendingEdges.end());
    m_pendingEdges.erase(std::unique(m_pendingEdges.begin(), m_pendingEdges.end()), m_pendingEdges.end());
    m_preds.clear();
    m_preds.reserve(m_pendingEdges.size());
    m_predOffsets.clear();
    std::size_t next = 0;
    for (std::size_t t = 0; t < count; ++t) {
      m_predOffsets.push_back(static_cast<std::int64_t>(m_preds.size()));
      while (next < m_pendingEdges.size() && m_pendingEdges[next].first == t)
        m_preds.push_back(m_pendingEdges[next++].second);
    }
    m_predOffsets.push_back(static_cast<std::int64_t>(m_preds.size()));
    std::vector<std::pair<TaskIndex, TaskIndex>>().swap(m_pendingEdges);
    m_preds.shrink_to_fit();
  }
  // Builders grow these by doubling; a finished trace keeps only what it uses.
  for (PackedColumn* column : {&m_id, &m_start, &m_dur, &m_dispatchLead, &m_seq, &m_subgraph, &m_name, &m_label,
                               &m_sourceFile, &m_sourceLine, &m_inputs, &m_outputs, &m_lane, &m_firstPipe,
                               &m_firstArg, &m_predOffsets})
    column->shrink_to_fit();
  m_pipes.shrink_to_fit();
  m_args.shrink_to_fit();
  if (!m_lanesSorted) {
    for (Lane& lane : m_lanes) lane.tasksByStart.clear();
    std::vector<std::size_t> perLane(m_lanes.size(), 0);
    for (std::size_t t = 0; t < count; ++t) ++perLane[taskLane(static_cast<TaskIndex>(t))];
    for (std::size_t l = 0; l < m_lanes.size(); ++l) m_lanes[l].tasksByStart.reserve(perLane[l]);
    for (std::size_t t = 0; t < count; ++t) m_lanes[taskLane(static_cast<TaskIndex>(t))].tasksByStart.push_back(static_cast<TaskIndex>(t));
    // Sort each lane on unpacked (start, end) keys: the comparisons would
    // otherwise decode two packed fields each, many times per task.
    struct Key {
      std::int64_t startNs;
      std::int64_t endNs;
      TaskIndex task;
    };
    std::vector<Key> keys;
    for (Lane& lane : m_lanes) {
      keys.clear();
      keys.reserve(lane.tasksByStart.size());
      for (TaskIndex t : lane.tasksByStart) keys.push_back({taskStartNs(t), taskEndNs(t), t});
      // Longer first among equal starts, so an enclosing task precedes what it encloses.
      std::stable_sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
        return x.startNs != y.startNs ? x.startNs < y.startNs : x.endNs > y.endNs;
      });
      for (std::size_t i = 0; i < keys.size(); ++i) lane.tasksByStart[i] = keys[i].task;
      lane.tasksByStart.shrink_to_fit();
    }
    m_lanesSorted = true;
  }
}

TaskIndex Trace::enclosingTask(LaneIndex lane, std::int64_t tsNs) const {
  const std::vector<TaskIndex>& order = m_lanes[lane].tasksByStart;
  auto after = std::upper_bound(order.begin(), order.end(), tsNs,
                                [&](std::int64_t ts, TaskIndex t) { return ts < taskStartNs(t); });
  // Slices nest or are disjoint, so the innermost open slice is the latest
  // started one that still contains ts; a few steps back suffice.
  constexpr int kMaxNestingDepth = 64;
  int steps = 0;
  for (auto it = after; it != order.begin() && steps < kMaxNestingDepth; ++steps) {
    --it;
    std::int64_t startNs = taskStartNs(*it);
    std::int64_t endNs = taskEndNs(*it);
    if (tsNs < endNs || (startNs == tsNs && endNs == tsNs)) return *it;
  }
  return kNoTask;
}

TaskIndex Trace::nextTaskStartingAt(LaneIndex lane, std::int64_t tsNs) const {
  const std::vector<TaskIndex>& order = m_lanes[lane].tasksByStart;
  auto found = std::lower_bound(order.begin(), order.end(), tsNs,
                                [&](TaskIndex t, std::int64_t ts) { return taskStartNs(t) < ts; });
  return found == order.end() ? kNoTask : *found;
}

std::pair<std::size_t, std::size_t> Trace::tasksStartingIn(LaneIndex lane, std::int64_t fromNs, std::int64_t toNs) const {
  const std::vector<TaskIndex>& order = m_lanes[lane].tasksByStart;
  auto byStart = [&](TaskIndex t, std::int64_t ts) { return taskStartNs(t) < ts; };
  auto first = std::lower_bound(order.begin(), order.end(), fromNs, byStart);
  auto last = std::lower_bound(first, order.end(), toNs, byStart);
  return {static_cast<std::size_t>(first - order.begin()), static_cast<std::size_t>(last - order.begin())};
}

std::size_t Trace::memoryBytes() const {
  std::size_t bytes = sizeof(Trace) + m_strings.memoryBytes();
  bytes += m_lanes.capacity() * sizeof(Lane);
  for (const Lane& lane : m_lanes) bytes += lane.tasksByStart.capacity() * sizeof(TaskIndex);
  for (const PackedColumn* column : {&m_id, &m_start, &m_dur, &m_dispatchLead, &m_seq, &m_subgraph, &m_name, &m_label,
                                     &m_sourceFile, &m_sourceLine, &m_inputs, &m_outputs, &m_lane, &m_firstPipe,
                                     &m_firstArg, &m_predOffsets})
    bytes += column->memoryBytes() - sizeof(PackedColumn);  // the object is inside sizeof(Trace)
  bytes += m_preds.capacity() * sizeof(TaskIndex);
  bytes += m_pipes.capacity() * sizeof(PipeInterval);
  bytes += m_args.capacity() * sizeof(TaskArg);
  bytes += m_counters.capacity() * sizeof(Counter);
  for (const Counter& counter : m_counters) bytes += counter.samples.capacity() * sizeof(CounterSample);
  bytes += m_pendingEdges.capacity() * sizeof(m_pendingEdges[0]);
  return bytes;
}

std::string_view fileNameOf(std::string_view path) {
  std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool taskLinesName(std::string_view lines, int line, bool ownFile, std::string_view fileName) {
  while (!lines.empty()) {
    std::size_t comma = lines.find(',');
    std::string_view entry = lines.substr(0, comma);
    lines = comma == std::string_view::npos ? std::string_view() : lines.substr(comma + 1);
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    std::size_t colon = entry.rfind(':');
    std::string_view number = colon == std::string_view::npos ? entry : entry.substr(colon + 1);
    int value = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error != std::errc() || end != number.data() + number.size() || value != line) continue;
    if (colon == std::string_view::npos ? ownFile : fileNameOf(entry.substr(0, colon)) == fileNameOf(fileName))
      return true;
  }
  return false;
}

} // namespace pto::trace
