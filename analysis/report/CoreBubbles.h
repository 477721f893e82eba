// CoreBubbles: each core's bubbles (the gaps between its tasks) and its pipes'
// use, the figures PyPTO's swimlane script writes (bubble_analysis.log and
// pipe_usage.csv), from a run's schedule. For `pto report --bubbles`.
//
// Per core, in cycles, over the tasks it ran in start order (as PyPTO counts
// them: the first task's gap runs from the earliest task start on the chip):
//   gap before a task      its start - the previous task's end on the core;
//   data ready             the latest end of its producers (the earliest
//                          start on the chip when it has none);
//   schedule wait          start - max(previous end, data ready): the core
//                          was free and the data there, the task was not
//                          yet dispatched (PyPTO's "wait schedule");
//   predecessor wait       gap - schedule wait: the core waited for data
//                          (PyPTO's "wait predecessor": no task was ready).
//   work time              the core's last task end - the earliest start.
// Pipe use per core: each pipe's busy cycles (the tasks' pipe intervals)
// over the core's span (its last end - its first start). Per core type and
// pipe: the mean busy cycles over the type's cores that ran a task, and its
// share of the run's span (the last end - the earliest start).
#pragma once

#include "compiler/ir/ExecuteGraph.h"
#include "runtime/Schedule.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace pto {

struct TaskWait {
  TaskId task = kNoId;
  std::int64_t cycles = 0;
};

struct CoreBubbles {
  std::string core;      // "AIV 3"
  std::string coreType;  // "AIV"
  int index = 0;
  int tasks = 0;
  std::int64_t firstStartCycle = 0, lastEndCycle = 0;
  std::int64_t workCycles = 0;   // last end - the chip's earliest start
  std::int64_t busyCycles = 0;   // its tasks' durations
  int gaps = 0;                  // gaps longer than zero cycles
  std::int64_t gapCycles = 0;    // all gaps (PyPTO's "total wait")
  std::int64_t maxGapCycles = 0;
  TaskId maxGapBefore = kNoId;   // the task after the longest gap
  std::int64_t scheduleWaitCycles = 0;
  std::int64_t predecessorWaitCycles = 0;
  std::vector<TaskWait> topScheduleWaits;          // its three longest, longest first
  std::map<std::string, std::int64_t> pipeBusyCycles;  // "MTE2" -> cycles
  std::map<std::string, double> pipeUsage;             // busy / (last end - first start)
};

struct PipeUsageSummary {
  std::string coreType;
  std::string pipe;
  int cores = 0;                 // of the type that ran a task
  double meanBusyCycles = 0.0;
  double usage = 0.0;            // meanBusyCycles / spanCycles
};

struct BubbleReport {
  std::int64_t firstStartCycle = 0;
  std::int64_t spanCycles = 0;             // the last end - the earliest start
  std::vector<CoreBubbles> cores;          // AIC by index, then AIV; cores that ran a task
  std::vector<PipeUsageSummary> pipes;     // by core type, then pipe order
  std::vector<TaskWait> topScheduleWaits;  // the run's ten longest, longest first
};

BubbleReport bubbleReport(const ExecuteGraph& graph, const Schedule& schedule);

nlohmann::ordered_json bubbleReportJson(const BubbleReport& report);

} // namespace pto
