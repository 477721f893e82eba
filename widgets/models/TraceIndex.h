// TraceIndex: what the views need beyond a finalized pto::trace::Trace,
// computed once (off the GUI thread) and then read-only: successors, the
// longest task per lane (the visible-range bound), the lane display order,
// per-core-type totals, the critical path, dependency neighbourhoods,
// search, each task's bound class, and the per-lane summaries the swimlane
// draws dense lanes from (LaneSummary). Shared between threads as std::shared_ptr<const TraceIndex>.
#pragma once

#include "runtime/trace/Trace.h"
#include "widgets/models/BoundClass.h"
#include "widgets/models/ErrorClass.h"
#include "widgets/models/LabelPalette.h"
#include "widgets/models/LaneSummary.h"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pto::widgets {

using trace::LaneIndex;
using trace::TaskIndex;

struct CoreKindSummary {
  int lanes = 0;
  std::size_t tasks = 0;
  std::int64_t busyNs = 0;  // sum of task durations on lanes of this kind
};

struct DependencyEdge {
  TaskIndex producer = trace::kNoTask;
  TaskIndex consumer = trace::kNoTask;
  int depth = 1;  // 1 for an edge touching the selected task, 2 one step further…
  bool upstream = false;  // found walking producers (leads into the task)
  friend bool operator==(const DependencyEdge&, const DependencyEdge&) = default;
};

// The busy time of the tasks sharing one colour key (a legend entry).
struct ColorKeyTotal {
  std::uint32_t key = 0;
  std::int64_t busyNs = 0;
  trace::StringId topLabel = trace::kEmptyString;  // subgraph mode: the label with most time in it
};

// Thrown by the TraceIndex constructor when its `cancelled` flag was raised.
struct TraceIndexCancelled {};

class TraceIndex {
public:
  // `trace` must be finalized. O(tasks + edges). `errors` (by task, or
  // empty) are the Error colour mode's classes: a run beside a measured
  // trace. `cancelled` (may be null) is checked between the stages of the
  // build (each well under a second at 10M tasks); when raised, the
  // constructor throws TraceIndexCancelled.
  explicit TraceIndex(std::shared_ptr<const trace::Trace> trace, std::string sourceName = {},
                      std::vector<ErrorClass> errors = {}, const std::atomic<bool>* cancelled = nullptr);

  const trace::Trace& trace() const { return *m_trace; }
  const std::shared_ptr<const trace::Trace>& sharedTrace() const { return m_trace; }
  // Where the trace came from (a file path), for titles and messages.
  const std::string& sourceName() const { return m_sourceName; }

  std::span<const TaskIndex> successors(TaskIndex task) const {
    auto first = static_cast<std::size_t>(m_firstSucc[task]);
    return {m_succs.data() + first, static_cast<std::size_t>(m_firstSucc[task + 1]) - first};
  }
  std::int64_t laneMaxDurNs(LaneIndex lane) const { return m_laneMaxDurNs[lane]; }
  // Lanes top to bottom: by sort index, then core kind (AIC, AIV, AICPU,
  // other), then the number in the name (AIV_2 before AIV_10).
  const std::vector<LaneIndex>& laneOrder() const { return m_laneOrder; }

  // Earliest start and latest end over all tasks (0, 0 for no tasks).
  std::int64_t startNs() const { return m_startNs; }
  std::int64_t endNs() const { return m_endNs; }
  std::int64_t makespanNs() const { return m_endNs - m_startNs; }
  const CoreKindSummary& summary(trace::LaneKind kind) const { return m_summary[static_cast<std::size_t>(kind)]; }

  // The chain that decided the makespan, first task first: from the task
  // that ends last, repeatedly what its start waited for last — the
  // latest-ending producer or the previous task on the same core, whichever
  // ended later. Empty for no tasks.
  const std::vector<TaskIndex>& criticalPath() const { return m_criticalPath; }
  bool onCriticalPath(TaskIndex task) const { return !m_onCriticalPath.empty() && m_onCriticalPath[task]; }

  // Edges within `depth` steps of `task`, upstream and downstream (depth <= 0:
  // all), breadth first, at most `maxEdges` of them.
  std::vector<DependencyEdge> dependencyEdges(TaskIndex task, int depth, std::size_t maxEdges = 20000) const;

  // Tasks matching `query`, in index order: an integer matches a task id (or
  // a TaskIndex written "#123"); other text matches labels exactly (ignoring
  // case) or, failing that, task names containing it.
  std::vector<TaskIndex> find(std::string_view query) const;
  // Tasks whose source is `line` of a file named `fileName` (compared by the
  // last path component, since traces hold paths relative to the project):
  // by their sourceLine or, for a fused task, its kTaskLinesArg.
  std::vector<TaskIndex> tasksAtLine(std::string_view fileName, int line) const;

  // The task before `task` on its lane in start order (kNoTask if first).
  TaskIndex previousOnLane(TaskIndex task) const;

  // The pipe class that dominated the task (see BoundClass.h).
  BoundClass boundClass(TaskIndex task) const { return static_cast<BoundClass>(m_bound[task]); }
  // The error class the index was given for `task` (Unpaired when none).
  ErrorClass errorClass(TaskIndex task) const {
    return m_error.empty() ? ErrorClass::Unpaired : static_cast<ErrorClass>(m_error[task]);
  }
  bool hasErrors() const { return !m_error.empty(); }
  // The colour key of `task` in `mode`: its label StringId, its subgraph + 1
  // (0 when unknown), its BoundClass or its ErrorClass. The renderer maps keys to colours.
  std::uint32_t colorKey(TaskIndex task, SwimlaneColorMode mode) const;
  // Number of tasks on `lane`.
  std::size_t laneTaskCount(LaneIndex lane) const { return m_trace->lanes()[lane].tasksByStart.size(); }
  const LaneSummary& laneSummary() const { return m_laneSummary; }
  // Each colour key of `mode` with its tasks' total duration, busiest first
  // (ties by key), for legends.
  const std::vector<ColorKeyTotal>& colorKeyTotals(SwimlaneColorMode mode) const {
    return m_keyTotals[static_cast<std::size_t>(mode)];
  }
  // Distinct colours for this trace's labels (see LabelColors); the editor
  // gutter should colour lines with the same object.
  const LabelColors& labelColors() const { return m_labelColors; }

  // Heap bytes of the trace plus this index.
  std::size_t memoryBytes() const;

private:
  std::shared_ptr<const trace::Trace> m_trace;
  std::string m_sourceName;
  trace::PackedColumn m_firstSucc;  // tasks + 1 offsets into m_succs
  std::vector<TaskIndex> m_succs;
  std::vector<std::int64_t> m_laneMaxDurNs;
  std::vector<LaneIndex> m_laneOrder;
  std::int64_t m_startNs = 0;
  std::int64_t m_endNs = 0;
  CoreKindSummary m_summary[4];
  std::vector<TaskIndex> m_criticalPath;
  std::vector<bool> m_onCriticalPath;
  std::vector<std::uint8_t> m_bound;            // BoundClass per task
  std::vector<std::uint8_t> m_error;            // ErrorClass per task, empty when not compared
  LaneSummary m_laneSummary;
  LabelColors m_labelColors;
  std::array<std::vector<ColorKeyTotal>, kColorModeCount> m_keyTotals;
};

using trace::fileNameOf;

} // namespace pto::widgets
