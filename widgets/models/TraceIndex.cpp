// Derived indexes over a finalized trace.
#include "widgets/models/TraceIndex.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <deque>
#include <unordered_map>
#include <limits>
#include <unordered_set>

namespace pto::widgets {
namespace {

int kindRank(trace::LaneKind kind) {
  switch (kind) {
  case trace::LaneKind::Aic: return 0;
  case trace::LaneKind::Aiv: return 1;
  case trace::LaneKind::Aicpu: return 2;
  case trace::LaneKind::Other: return 3;
  }
  return 3;
}

// The number after the last '_' of a lane name (AIV_12 → 12), or -1.
long laneNumber(std::string_view name) {
  std::size_t underscore = name.rfind('_');
  if (underscore == std::string_view::npos) return -1;
  long number = -1;
  auto [ptr, ec] = std::from_chars(name.data() + underscore + 1, name.data() + name.size(), number);
  return ec == std::errc() && ptr == name.data() + name.size() ? number : -1;
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

} // namespace

TraceIndex::TraceIndex(std::shared_ptr<const trace::Trace> tracePtr, std::string sourceName, std::vector<ErrorClass> errors,
                       const std::atomic<bool>* cancelled)
    : m_trace(std::move(tracePtr)), m_sourceName(std::move(sourceName)) {
  const trace::Trace& tr = *m_trace;
  std::size_t taskCount = tr.taskCount();
  auto checkCancelled = [cancelled] {
    if (cancelled && cancelled->load()) throw TraceIndexCancelled{};
  };

  // Successors: a counting sort of the predecessor lists by producer.
  {
    std::vector<std::uint32_t> fill(taskCount + 1, 0);
    for (TaskIndex t = 0; t < taskCount; ++t)
      for (TaskIndex p : tr.predecessors(t)) ++fill[p + 1];
    for (std::size_t i = 0; i < taskCount; ++i) fill[i + 1] += fill[i];
    for (std::uint32_t offset : fill) m_firstSucc.push_back(offset);
    m_firstSucc.shrink_to_fit();
    m_succs.resize(tr.edgeCount());
    for (TaskIndex t = 0; t < taskCount; ++t)
      for (TaskIndex p : tr.predecessors(t)) m_succs[fill[p]++] = t;
  }

  checkCancelled();
  m_laneMaxDurNs.assign(tr.lanes().size(), 0);
  m_startNs = taskCount ? std::numeric_limits<std::int64_t>::max() : 0;
  m_endNs = taskCount ? std::numeric_limits<std::int64_t>::min() : 0;
  TaskIndex lastEnding = trace::kNoTask;
  for (TaskIndex t = 0; t < taskCount; ++t) {
    LaneIndex lane = tr.taskLane(t);
    std::int64_t startNs = tr.taskStartNs(t);
    std::int64_t durNs = tr.taskDurNs(t);
    m_laneMaxDurNs[lane] = std::max(m_laneMaxDurNs[lane], durNs);
    m_startNs = std::min(m_startNs, startNs);
    if (startNs + durNs > m_endNs) {
      m_endNs = startNs + durNs;
      lastEnding = t;
    }
    CoreKindSummary& kind = m_summary[static_cast<std::size_t>(tr.lanes()[lane].kind)];
    ++kind.tasks;
    kind.busyNs += durNs;
  }
  for (const trace::Lane& lane : tr.lanes()) ++m_summary[static_cast<std::size_t>(lane.kind)].lanes;

  m_laneOrder.resize(tr.lanes().size());
  for (LaneIndex l = 0; l < m_laneOrder.size(); ++l) m_laneOrder[l] = l;
  std::stable_sort(m_laneOrder.begin(), m_laneOrder.end(), [&](LaneIndex a, LaneIndex b) {
    const trace::Lane& la = tr.lanes()[a];
    const trace::Lane& lb = tr.lanes()[b];
    if (la.sortIndex != lb.sortIndex) return la.sortIndex < lb.sortIndex;
    if (la.kind != lb.kind) return kindRank(la.kind) < kindRank(lb.kind);
    return laneNumber(tr.str(la.name)) < laneNumber(tr.str(lb.name));
  });

  // Critical path: walk back from the last end through whatever the task's
  // start waited for last: a producer's end, or the end of the previous task
  // on its own core (a busy core gates a task as surely as data does).
  // Predecessor links can form a cycle in a malformed file; the visited set
  // stops the walk there.
  if (lastEnding != trace::kNoTask) {
    m_onCriticalPath.assign(taskCount, false);
    for (TaskIndex t = lastEnding; t != trace::kNoTask && !m_onCriticalPath[t];) {
      m_onCriticalPath[t] = true;
      m_criticalPath.push_back(t);
      TaskIndex gate = previousOnLane(t);
      if (gate != trace::kNoTask && tr.taskEndNs(gate) > tr.taskStartNs(t)) gate = trace::kNoTask;  // overlapping: not a gate
      for (TaskIndex p : tr.predecessors(t))
        if (gate == trace::kNoTask || tr.taskEndNs(p) > tr.taskEndNs(gate)) gate = p;
      t = gate;
    }
    std::reverse(m_criticalPath.begin(), m_criticalPath.end());
  }

  checkCancelled();
  m_bound.resize(taskCount);
  for (TaskIndex t = 0; t < taskCount; ++t) m_bound[t] = static_cast<std::uint8_t>(boundClassOf(tr, t));
  if (!errors.empty()) {
    m_error.assign(taskCount, static_cast<std::uint8_t>(ErrorClass::Unpaired));
    for (TaskIndex t = 0; t < taskCount && t < errors.size(); ++t) m_error[t] = static_cast<std::uint8_t>(errors[t]);
  }

  std::vector<bool> isLabel(tr.strings().size(), false);
  for (TaskIndex t = 0; t < taskCount; ++t) isLabel[tr.taskLabel(t)] = true;
  std::vector<std::string> labels;
  for (trace::StringId id = 1; id < isLabel.size(); ++id)
    if (isLabel[id]) labels.emplace_back(tr.str(id));
  m_labelColors = LabelColors(std::move(labels));

  std::array<std::vector<std::uint32_t>, kColorModeCount> keys;
  for (int mode = 0; mode < kColorModeCount; ++mode) {
    auto& modeKeys = keys[static_cast<std::size_t>(mode)];
    modeKeys.resize(taskCount);
    for (TaskIndex t = 0; t < taskCount; ++t) modeKeys[t] = colorKey(t, static_cast<SwimlaneColorMode>(mode));
  }
  checkCancelled();
  m_laneSummary = LaneSummary(tr, keys);
  checkCancelled();

  for (int mode = 0; mode < kColorModeCount; ++mode) {
    std::unordered_map<std::uint32_t, std::int64_t> busy;
    std::unordered_map<std::uint32_t, std::unordered_map<trace::StringId, std::int64_t>> labelTime;
    bool bySubgraph = static_cast<SwimlaneColorMode>(mode) == SwimlaneColorMode::Subgraph;
    for (TaskIndex t = 0; t < taskCount; ++t) {
      std::uint32_t key = keys[static_cast<std::size_t>(mode)][t];
      busy[key] += tr.taskDurNs(t);
      if (bySubgraph) labelTime[key][tr.taskLabel(t)] += tr.taskDurNs(t);
    }
    auto& totals = m_keyTotals[static_cast<std::size_t>(mode)];
    for (const auto& [key, ns] : busy) {
      ColorKeyTotal total{key, ns, trace::kEmptyString};
      if (bySubgraph) {
        std::int64_t best = -1;
        for (const auto& [label, labelNs] : labelTime[key])
          if (labelNs > best || (labelNs == best && label < total.topLabel)) {
            best = labelNs;
            total.topLabel = label;
          }
      }
      totals.push_back(total);
    }
    std::sort(totals.begin(), totals.end(), [](const ColorKeyTotal& a, const ColorKeyTotal& b) {
      return a.busyNs != b.busyNs ? a.busyNs > b.busyNs : a.key < b.key;
    });
  }
}

std::uint32_t TraceIndex::colorKey(TaskIndex task, SwimlaneColorMode mode) const {
  switch (mode) {
  case SwimlaneColorMode::Label: return m_trace->taskLabel(task);
  case SwimlaneColorMode::Subgraph: {
    std::int32_t subgraph = m_trace->taskSubgraph(task);
    return subgraph < 0 ? 0 : static_cast<std::uint32_t>(subgraph) + 1;
  }
  case SwimlaneColorMode::Bound: return m_bound[task];
  case SwimlaneColorMode::Error: return static_cast<std::uint32_t>(errorClass(task));
  }
  return 0;
}

TaskIndex TraceIndex::previousOnLane(TaskIndex task) const {
  const trace::Trace& tr = *m_trace;
  const auto& order = tr.lanes()[tr.taskLane(task)].tasksByStart;
  auto it = std::lower_bound(order.begin(), order.end(), tr.taskStartNs(task),
                             [&](TaskIndex other, std::int64_t start) { return tr.taskStartNs(other) < start; });
  while (it != order.end() && *it != task) ++it;  // equal starts: find this task among them
  if (it == order.end() || it == order.begin()) return trace::kNoTask;
  return *(it - 1);
}

std::vector<DependencyEdge> TraceIndex::dependencyEdges(TaskIndex task, int depth, std::size_t maxEdges) const {
  std::vector<DependencyEdge> edges;
  if (task >= m_trace->taskCount()) return edges;
  int maxDepth = depth <= 0 ? std::numeric_limits<int>::max() : depth;
  for (bool upstream : {true, false}) {
    std::unordered_set<TaskIndex> seen{task};
    std::deque<std::pair<TaskIndex, int>> queue{{task, 0}};
    while (!queue.empty() && edges.size() < maxEdges) {
      auto [current, level] = queue.front();
      queue.pop_front();
      if (level >= maxDepth) continue;
      auto next = upstream ? m_trace->predecessors(current) : successors(current);
      for (TaskIndex other : next) {
        if (edges.size() >= maxEdges) break;
        edges.push_back(upstream ? DependencyEdge{other, current, level + 1, true}
                                 : DependencyEdge{current, other, level + 1, false});
        if (seen.insert(other).second) queue.emplace_back(other, level + 1);
      }
    }
  }
  return edges;
}

std::vector<TaskIndex> TraceIndex::find(std::string_view query) const {
  std::vector<TaskIndex> found;
  const trace::Trace& tr = *m_trace;
  const auto& tasks = tr.tasks();
  while (!query.empty() && std::isspace(static_cast<unsigned char>(query.front()))) query.remove_prefix(1);
  while (!query.empty() && std::isspace(static_cast<unsigned char>(query.back()))) query.remove_suffix(1);
  if (query.empty()) return found;

  bool byIndex = query.front() == '#';
  std::string_view digits = byIndex ? query.substr(1) : query;
  std::int64_t number = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (ec == std::errc() && ptr == digits.data() + digits.size()) {
    if (byIndex) {
      if (number >= 0 && static_cast<std::uint64_t>(number) < tasks.size()) found.push_back(static_cast<TaskIndex>(number));
      return found;
    }
    for (TaskIndex t = 0; t < tasks.size(); ++t)
      if (tr.taskId(t) == number) found.push_back(t);
    return found;
  }

  // Labels are interned: find the matching string ids once, then compare ids.
  std::vector<bool> matchingLabel(tr.strings().size(), false);
  bool anyLabel = false;
  for (trace::StringId id = 1; id < tr.strings().size(); ++id)
    if (equalsIgnoreCase(tr.str(id), query)) matchingLabel[id] = anyLabel = true;
  if (anyLabel) {
    for (TaskIndex t = 0; t < tasks.size(); ++t)
      if (matchingLabel[tr.taskLabel(t)]) found.push_back(t);
    if (!found.empty()) return found;
  }
  std::vector<bool> matchingName(tr.strings().size(), false);
  for (trace::StringId id = 1; id < tr.strings().size(); ++id)
    matchingName[id] = tr.str(id).find(query) != std::string_view::npos;
  for (TaskIndex t = 0; t < tasks.size(); ++t)
    if (matchingName[tr.taskName(t)]) found.push_back(t);
  return found;
}

std::vector<TaskIndex> TraceIndex::tasksAtLine(std::string_view fileName, int line) const {
  std::vector<TaskIndex> found;
  const trace::Trace& tr = *m_trace;
  std::string_view wanted = fileNameOf(fileName);
  // Per string id, -1 while unknown. A file: whether it is the one wanted. A
  // kTaskLinesArg value: bit 0 whether it names `line` of the task's own
  // file, bit 1 whether it names it of the wanted file by name.
  std::vector<signed char> fileKnown(tr.strings().size(), -1), linesKnown(tr.strings().size(), -1);
  auto fileMatches = [&](trace::StringId file) {
    if (fileKnown[file] < 0) fileKnown[file] = fileNameOf(tr.str(file)) == wanted ? 1 : 0;
    return fileKnown[file] == 1;
  };
  const auto& tasks = tr.tasks();
  for (TaskIndex t = 0; t < tasks.size(); ++t) {
    const trace::Task& task = tasks[t];
    if (task.sourceFile == trace::kEmptyString) continue;
    bool match = task.sourceLine == line && fileMatches(task.sourceFile);
    // A fused task also names the other lines it runs (ScheduleTrace.h).
    for (const trace::TaskArg& arg : tr.args(t)) {
      if (match || tr.str(arg.key) != trace::kTaskLinesArg) continue;
      signed char& names = linesKnown[arg.value];
      if (names < 0)
        names = static_cast<signed char>((trace::taskLinesName(tr.str(arg.value), line, true, {}) ? 1 : 0) |
                                         (trace::taskLinesName(tr.str(arg.value), line, false, wanted) ? 2 : 0));
      match = ((names & 1) && fileMatches(task.sourceFile)) || (names & 2);
    }
    if (match) found.push_back(t);
  }
  return found;
}

std::size_t TraceIndex::memoryBytes() const {
  return m_trace->memoryBytes() + sizeof(*this) + m_firstSucc.memoryBytes() - sizeof(m_firstSucc) +
         m_succs.capacity() * sizeof(TaskIndex) + m_laneMaxDurNs.capacity() * sizeof(std::int64_t) +
         m_laneOrder.capacity() * sizeof(LaneIndex) + m_criticalPath.capacity() * sizeof(TaskIndex) +
         m_onCriticalPath.capacity() / 8 + m_sourceName.capacity() + m_bound.capacity() + m_error.capacity() +
         m_laneSummary.memoryBytes();
}

} // namespace pto::widgets
