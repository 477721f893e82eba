// Trace: the swimlane record of one run — one lane per core, tasks with
// start/end times and dependencies, per-pipe busy intervals, and counters.
//
// Units and guarantees:
// - All times are int64 nanoseconds from the start of the run (`…Ns`).
// - Tasks are addressed by their index in `tasks()` (a TaskIndex); `Task::id`
//   is the runtime's own task id and need not be dense or unique.
// - Dependencies are stored as a flat predecessor array: task t's producers
//   are `predecessors(t)`; ranges are valid after `finalize()`.
// - After `finalize()`, each lane lists its tasks sorted by start time, so the
//   timeline queries slices by binary search.
// - Fields a reader did not understand are kept as interned key/value args.
//
// Memory: a task costs sizeof(Task) + 4 bytes in its lane's index + 4 bytes
// per predecessor + sizeof(PipeInterval) per interval + sizeof(TaskArg) per
// extra arg; strings are interned once (see memoryBytes()).
#pragma once

#include "runtime/trace/StringTable.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace pto::trace {

using TaskIndex = std::uint32_t;
using LaneIndex = std::uint32_t;
inline constexpr TaskIndex kNoTask = ~TaskIndex{0};

enum class LaneKind : std::uint8_t { Aic, Aiv, Aicpu, Other };
std::string_view name(LaneKind kind);
// AIC_<n> → Aic, AIV_<n> → Aiv, AICPU… → Aicpu, anything else → Other.
LaneKind laneKindFromName(std::string_view laneName);

struct Lane {
  StringId name = kEmptyString;
  LaneKind kind = LaneKind::Other;
  std::int32_t sortIndex = 0;
  // Task indices on this lane sorted by (start, longer first); filled by finalize().
  std::vector<TaskIndex> tasksByStart;
};

// A busy interval of one pipe (MTE2, V, M, …) inside a task.
struct PipeInterval {
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  StringId pipe = kEmptyString;
};

// A field kept verbatim: `raw` values are JSON text (numbers, objects),
// others are plain strings.
struct TaskArg {
  StringId key = kEmptyString;
  StringId value = kEmptyString;
  bool raw = false;
};

// The arg a task of a fused subgraph lists all its kernel lines in:
// "14, 15, 16" (lines of the task's own sourceFile), a line of another file
// as "helpers.py:3". taskLinesName says whether such a value names 1-based
// `line` of the task's own file (`ownFile`: the task's file is the one asked
// about) or of a file named `fileName` (compared by the last path component).
inline constexpr std::string_view kTaskLinesArg = "lines";
bool taskLinesName(std::string_view lines, int line, bool ownFile, std::string_view fileName);

// The last component of a path ("a/b/kernel.py" -> "kernel.py"): how trace
// files are compared, since traces hold paths relative to the project.
std::string_view fileNameOf(std::string_view path);

struct Task {
  std::int64_t id = 0;          // runtime task id (PyPTO "taskId")
  std::int64_t dispatchNs = 0;  // when the scheduler handed it to the core
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::int32_t seq = 0;         // PyPTO "seqNo"
  std::int32_t subgraph = -1;   // program / subgraph id, -1 when unknown
  StringId name = kEmptyString;        // display name, e.g. "3-softmax-exp-0-1(softmax)"
  StringId label = kEmptyString;       // semantic label, e.g. "softmax"
  StringId sourceFile = kEmptyString;
  std::int32_t sourceLine = 0;
  StringId inputs = kEmptyString;      // input tensors, as text
  StringId outputs = kEmptyString;     // output tensors, as text
  LaneIndex lane = 0;
  std::uint32_t firstPred = 0;
  std::uint32_t predCount = 0;
  std::uint32_t firstPipe = 0;
  std::uint32_t firstArg = 0;
  std::uint16_t pipeCount = 0;
  std::uint16_t argCount = 0;

  std::int64_t durNs() const { return endNs - startNs; }
};

struct CounterSample {
  std::int64_t tsNs = 0;
  double value = 0;
  friend bool operator==(const CounterSample&, const CounterSample&) = default;
};

struct Counter {
  StringId name = kEmptyString;
  std::vector<CounterSample> samples;  // in the order recorded
};

class Trace {
public:
  StringId intern(std::string_view text) { return m_strings.intern(text); }
  std::string_view str(StringId id) const { return m_strings.str(id); }
  const StringTable& strings() const { return m_strings; }

  // Lanes: the name decides the kind.
  LaneIndex addLane(std::string_view name, std::int32_t sortIndex);
  void renameLane(LaneIndex lane, std::string_view name);
  void setLaneSortIndex(LaneIndex lane, std::int32_t sortIndex) { m_lanes[lane].sortIndex = sortIndex; }
  std::optional<LaneIndex> findLane(std::string_view name) const;

  // Adds a task; the pred/pipe/arg ranges of `task` are ignored and set here.
  TaskIndex addTask(Task task, std::span<const PipeInterval> pipes = {}, std::span<const TaskArg> args = {});
  // Records producer → consumer; becomes visible in predecessors() after finalize().
  void addDependency(TaskIndex producer, TaskIndex consumer) { m_pendingEdges.emplace_back(consumer, producer); }
  void addCounterSample(std::string_view counter, std::int64_t tsNs, double value);
  void reserveTasks(std::size_t tasks, std::size_t edges);

  // Builds the predecessor ranges (duplicate edges dropped) and the per-lane
  // start-time order. Call after the last add; calling again is harmless.
  void finalize();

  const std::vector<Lane>& lanes() const { return m_lanes; }
  const std::vector<Task>& tasks() const { return m_tasks; }
  const std::vector<Counter>& counters() const { return m_counters; }
  std::span<const TaskIndex> predecessors(TaskIndex task) const {
    return {m_preds.data() + m_tasks[task].firstPred, m_tasks[task].predCount};
  }
  std::span<const PipeInterval> pipes(TaskIndex task) const {
    return {m_pipes.data() + m_tasks[task].firstPipe, m_tasks[task].pipeCount};
  }
  std::span<const TaskArg> args(TaskIndex task) const {
    return {m_args.data() + m_tasks[task].firstArg, m_tasks[task].argCount};
  }
  std::size_t edgeCount() const { return m_preds.size(); }

  // Timeline queries on a finalized trace (Perfetto's binding rules):
  // the innermost task open on `lane` at `tsNs` (start <= ts < end, or a
  // zero-length task at ts) …
  TaskIndex enclosingTask(LaneIndex lane, std::int64_t tsNs) const;
  // … and the first task on `lane` starting at or after `tsNs`.
  TaskIndex nextTaskStartingAt(LaneIndex lane, std::int64_t tsNs) const;
  // Positions [first, last) in tasksByStart of the tasks starting in [fromNs, toNs).
  std::pair<std::size_t, std::size_t> tasksStartingIn(LaneIndex lane, std::int64_t fromNs, std::int64_t toNs) const;

  // Heap and object bytes held, from sizes and capacities (not RSS).
  std::size_t memoryBytes() const;

private:
  StringTable m_strings;
  std::vector<Lane> m_lanes;
  std::vector<Task> m_tasks;
  std::vector<TaskIndex> m_preds;
  std::vector<PipeInterval> m_pipes;
  std::vector<TaskArg> m_args;
  std::vector<Counter> m_counters;
  std::vector<std::pair<TaskIndex, TaskIndex>> m_pendingEdges;  // (consumer, producer)
  bool m_lanesSorted = false;
};

} // namespace pto::trace
