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
// Memory: tasks are stored column by column in PackedColumns (a field costs
// the bytes its values need, typically 0-2), plus 4 bytes in its lane's
// index, 4 bytes per predecessor, sizeof(PipeInterval) per interval and
// sizeof(TaskArg) per extra arg; strings are interned once (see
// memoryBytes()). A 10 000 000-task trace takes about 25 bytes per task.
// `tasks()[t]` assembles a Task value from the columns; loops over millions
// of tasks read the one field they need (taskStartNs(t), taskLane(t), …).
#pragma once

#include "runtime/trace/PackedColumn.h"
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
  // Where the task's ranges start in the trace's flat arrays (filled when a
  // Task is read from a Trace; ignored by addTask).
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

class Trace;

// The tasks of a trace as a read-only sequence of Task values (each
// assembled from the trace's columns on access; bind it to `const Task&`
// or copy it, never keep a pointer into it).
class TaskTable {
public:
  class Iterator {
  public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = Task;
    using difference_type = std::ptrdiff_t;
    using reference = Task;
    using pointer = void;
    Iterator() = default;
    Iterator(const Trace* trace, std::size_t index) : m_trace(trace), m_index(index) {}
    Task operator*() const;
    Task operator[](difference_type n) const { return *(*this + n); }
    Iterator& operator++() { ++m_index; return *this; }
    Iterator operator++(int) { Iterator old = *this; ++m_index; return old; }
    Iterator& operator--() { --m_index; return *this; }
    Iterator operator--(int) { Iterator old = *this; --m_index; return old; }
    Iterator& operator+=(difference_type n) { m_index = static_cast<std::size_t>(static_cast<difference_type>(m_index) + n); return *this; }
    Iterator& operator-=(difference_type n) { return *this += -n; }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return static_cast<difference_type>(a.m_index) - static_cast<difference_type>(b.m_index);
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.m_index == b.m_index; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.m_index <=> b.m_index; }

  private:
    const Trace* m_trace = nullptr;
    std::size_t m_index = 0;
  };

  explicit TaskTable(const Trace& trace) : m_trace(&trace) {}
  std::size_t size() const;
  bool empty() const { return size() == 0; }
  Task operator[](std::size_t index) const;
  Task front() const { return (*this)[0]; }
  Task back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return Iterator(m_trace, 0); }
  Iterator end() const { return Iterator(m_trace, size()); }

private:
  const Trace* m_trace;
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
  TaskTable tasks() const { return TaskTable(*this); }
  std::size_t taskCount() const { return m_start.size(); }
  Task task(TaskIndex task) const;
  // One field of a task, for loops over many tasks.
  std::int64_t taskStartNs(TaskIndex task) const { return m_start[task]; }
  std::int64_t taskEndNs(TaskIndex task) const { return m_start[task] + m_dur[task]; }
  std::int64_t taskDurNs(TaskIndex task) const { return m_dur[task]; }
  LaneIndex taskLane(TaskIndex task) const { return static_cast<LaneIndex>(m_lane[task]); }
  StringId taskLabel(TaskIndex task) const { return static_cast<StringId>(m_label[task]); }
  StringId taskName(TaskIndex task) const { return static_cast<StringId>(m_name[task]); }
  std::int32_t taskSubgraph(TaskIndex task) const { return static_cast<std::int32_t>(m_subgraph[task]); }
  std::int64_t taskId(TaskIndex task) const { return m_id[task]; }
  const std::vector<Counter>& counters() const { return m_counters; }
  std::span<const TaskIndex> predecessors(TaskIndex task) const {
    if (static_cast<std::size_t>(task) + 1 >= m_predOffsets.size()) return {};  // added after finalize()
    auto first = static_cast<std::size_t>(m_predOffsets[task]);
    return {m_preds.data() + first, static_cast<std::size_t>(m_predOffsets[task + 1]) - first};
  }
  std::span<const PipeInterval> pipes(TaskIndex task) const {
    auto first = static_cast<std::size_t>(m_firstPipe[task]);
    return {m_pipes.data() + first, rangeEnd(m_firstPipe, task, m_pipes.size()) - first};
  }
  std::span<const TaskArg> args(TaskIndex task) const {
    auto first = static_cast<std::size_t>(m_firstArg[task]);
    return {m_args.data() + first, rangeEnd(m_firstArg, task, m_args.size()) - first};
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
  // The end of task t's range in a flat array whose starts are `first`.
  static std::size_t rangeEnd(const PackedColumn& first, TaskIndex task, std::size_t total) {
    return static_cast<std::size_t>(task) + 1 < first.size() ? static_cast<std::size_t>(first[task + 1]) : total;
  }

  StringTable m_strings;
  std::vector<Lane> m_lanes;
  // Task fields, one column each, indexed by TaskIndex.
  PackedColumn m_id, m_start, m_dur, m_dispatchLead /* start - dispatch */, m_seq, m_subgraph, m_name, m_label,
      m_sourceFile, m_sourceLine, m_inputs, m_outputs, m_lane, m_firstPipe, m_firstArg;
  PackedColumn m_predOffsets;  // taskCount + 1 offsets into m_preds, built by finalize()
  std::vector<TaskIndex> m_preds;
  std::vector<PipeInterval> m_pipes;
  std::vector<TaskArg> m_args;
  std::vector<Counter> m_counters;
  std::vector<std::pair<TaskIndex, TaskIndex>> m_pendingEdges;  // (consumer, producer)
  bool m_lanesSorted = false;
};

inline std::size_t TaskTable::size() const { return m_trace->taskCount(); }
inline Task TaskTable::operator[](std::size_t index) const { return m_trace->task(static_cast<TaskIndex>(index)); }
inline Task TaskTable::Iterator::operator*() const { return m_trace->task(static_cast<TaskIndex>(m_index)); }

} // namespace pto::trace
