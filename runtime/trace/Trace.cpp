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
  task.firstPred = 0;
  task.predCount = 0;
  task.firstPipe = static_cast<std::uint32_t>(m_pipes.size());
  task.pipeCount = static_cast<std::uint16_t>(pipes.size());
  task.firstArg = static_cast<std::uint32_t>(m_args.size());
  task.argCount = static_cast<std::uint16_t>(args.size());
  m_pipes.insert(m_pipes.end(), pipes.begin(), pipes.end());
  m_args.insert(m_args.end(), args.begin(), args.end());
  m_tasks.push_back(task);
  m_lanesSorted = false;
  return static_cast<TaskIndex>(m_tasks.size() - 1);
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

void Trace::reserveTasks(std::size_t tasks, std::size_t edges) {
  m_tasks.reserve(tasks);
  m_pendingEdges.reserve(edges);
}

void Trace::finalize() {
  if (!m_pendingEdges.empty()) {
    // Merge with edges from an earlier finalize(), then rebuild the ranges.
    for (std::size_t t = 0; t < m_tasks.size(); ++t)
      for (TaskIndex producer : predecessors(static_cast<TaskIndex>(t)))
        m_pendingEdges.emplace_back(static_cast<TaskIndex>(t), producer);
    std::sort(m_pendingEdges.begin(), m_pendingEdges.end());
    m_pendingEdges.erase(std::unique(m_pendingEdges.begin(), m_pendingEdges.end()), m_pendingEdges.end());
    m_preds.clear();
    m_preds.reserve(m_pendingEdges.size());
    for (Task& task : m_tasks) task.predCount = 0;
    std::size_t next = 0;
    for (std::size_t t = 0; t < m_tasks.size(); ++t) {
      m_tasks[t].firstPred = static_cast<std::uint32_t>(m_preds.size());
      while (next < m_pendingEdges.size() && m_pendingEdges[next].first == t)
        m_preds.push_back(m_pendingEdges[next++].second);
      m_tasks[t].predCount = static_cast<std::uint32_t>(m_preds.size() - m_tasks[t].firstPred);
    }
    std::vector<std::pair<TaskIndex, TaskIndex>>().swap(m_pendingEdges);
    m_preds.shrink_to_fit();
  }
  // Builders grow these by doubling; a finished trace keeps only what it uses.
  m_tasks.shrink_to_fit();
  m_pipes.shrink_to_fit();
  m_args.shrink_to_fit();
  if (!m_lanesSorted) {
    for (Lane& lane : m_lanes) lane.tasksByStart.clear();
    for (std::size_t t = 0; t < m_tasks.size(); ++t) m_lanes[m_tasks[t].lane].tasksByStart.push_back(static_cast<TaskIndex>(t));
    for (Lane& lane : m_lanes) {
      // Longer first among equal starts, so an enclosing task precedes what it encloses.
      std::stable_sort(lane.tasksByStart.begin(), lane.tasksByStart.end(), [&](TaskIndex a, TaskIndex b) {
        const Task& x = m_tasks[a];
        const Task& y = m_tasks[b];
        return x.startNs != y.startNs ? x.startNs < y.startNs : x.endNs > y.endNs;
      });
      lane.tasksByStart.shrink_to_fit();
    }
    m_lanesSorted = true;
  }
}

TaskIndex Trace::enclosingTask(LaneIndex lane, std::int64_t tsNs) const {
  const std::vector<TaskIndex>& order = m_lanes[lane].tasksByStart;
  auto after = std::upper_bound(order.begin(), order.end(), tsNs,
                                [&](std::int64_t ts, TaskIndex t) { return ts < m_tasks[t].startNs; });
  // Slices nest or are disjoint, so the innermost open slice is the latest
  // started one that still contains ts; a few steps back suffice.
  constexpr int kMaxNestingDepth = 64;
  int steps = 0;
  for (auto it = after; it != order.begin() && steps < kMaxNestingDepth; ++steps) {
    --it;
    const Task& task = m_tasks[*it];
    if (tsNs < task.endNs || (task.startNs == tsNs && task.endNs == tsNs)) return *it;
  }
  return kNoTask;
}

TaskIndex Trace::nextTaskStartingAt(LaneIndex lane, std::int64_t tsNs) const {
  const std::vector<TaskIndex>& order = m_lanes[lane].tasksByStart;
  auto found = std::lower_bound(order.begin(), order.end(), tsNs,
                                [&](TaskIndex t, std::int64_t ts) { return m_tasks[t].startNs < ts; });
  return found == order.end() ? kNoTask : *found;
}

std::pair<std::size_t, std::size_t> Trace::tasksStartingIn(LaneIndex lane, std::int64_t fromNs, std::int64_t toNs) const {
  const std::vector<TaskIndex>& order = m_lanes[lane].tasksByStart;
  auto byStart = [&](TaskIndex t, std::int64_t ts) { return m_tasks[t].startNs < ts; };
  auto first = std::lower_bound(order.begin(), order.end(), fromNs, byStart);
  auto last = std::lower_bound(first, order.end(), toNs, byStart);
  return {static_cast<std::size_t>(first - order.begin()), static_cast<std::size_t>(last - order.begin())};
}

std::size_t Trace::memoryBytes() const {
  std::size_t bytes = sizeof(Trace) + m_strings.memoryBytes();
  bytes += m_lanes.capacity() * sizeof(Lane);
  for (const Lane& lane : m_lanes) bytes += lane.tasksByStart.capacity() * sizeof(TaskIndex);
  bytes += m_tasks.capacity() * sizeof(Task);
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
