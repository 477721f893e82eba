// The result of one scheduler run: where and when every task ran, how long
// the ready queues were, and the makespan. Plain data: views and traces read it.
//
// Units: cycles of the core clock, from 0 = the host starts submitting.
// Per task: readyCycle <= dispatchCycle <= startCycle <= endCycle, where
//   ready    its last producer's completion was resolved and its device task
//            had arrived: it joined the ready queue of its core type;
//   dispatch an AICPU took it from the queue and reserved its core;
//   start    the dispatch (dispatchCycles later) landed and the core began;
//   end      the executor reported the core done;
// and end <= coreFreedCycle <= resolvedCycle: a scheduler thread noticed the
// end (the core is idle again), then decremented the consumers' counters.
#pragma once

#include "runtime/Executor.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace pto {

struct TaskRecord {
  TaskId task = kNoId;
  CoreId core;
  int deviceTask = 0;          // the stitched batch the task was submitted in
  std::int64_t readyCycle = 0;
  std::int64_t dispatchCycle = 0;
  std::int64_t startCycle = 0;
  std::int64_t endCycle = 0;
  std::int64_t coreFreedCycle = 0; // its core was idle again (its completion was handled)
  std::int64_t resolvedCycle = 0;  // its consumers' counters were decremented
  int dispatchAicpu = -1;          // the scheduler thread that dispatched it
  int completionAicpu = -1;        // the one that handled its completion
  // Its pipe intervals, as the executor reported them: Schedule::pipes(record)
  // reads them (entries [firstPipe, firstPipe + pipeCount) of the schedule's
  // one array; a list per task was a third of a million-task run).
  std::uint32_t firstPipe = 0;
  std::uint32_t pipeCount = 0;
};

// The number of tasks waiting in one ready queue (ready, not yet dispatched),
// from `cycle` until the next sample. The first sample is at cycle 0; a sample
// is taken only where the count changes (several changes in one cycle give
// one sample, the count after all of them).
struct ReadySample {
  std::int64_t cycle = 0;
  int count = 0;

  friend bool operator==(const ReadySample&, const ReadySample&) = default;
};

struct Schedule {
  std::vector<TaskRecord> tasks;  // indexed by task id
  // Indexed by static_cast<size_t>(CoreType): AIC, AIV.
  std::array<std::vector<ReadySample>, 2> readySamples;
  std::int64_t makespanCycles = 0;  // the latest task end (0 for no tasks)
  int deviceTaskCount = 0;
  std::vector<std::int64_t> aicpuBusyCycles;  // per scheduler thread
  std::vector<PipeInterval> pipeIntervals;    // every task's, in the order they finished
  // Set by the scheduler: every core it chose is the one the affinity rule
  // toggled (device_sched_mode 0 <-> 1, 2 <-> 3) would have chosen at that
  // moment, so by induction that policy schedules the graph the same, record
  // for record (a sweep then simulates one of the two). False when unknown.
  bool affinityChangedNothing = false;

  const std::vector<ReadySample>& ready(CoreType type) const { return readySamples[static_cast<std::size_t>(type)]; }
  // What each of the record's core's pipes did for its task.
  std::span<const PipeInterval> pipes(const TaskRecord& record) const {
    return {pipeIntervals.data() + record.firstPipe, record.pipeCount};
  }
  // Appends `intervals` as `record`'s (records made by hand; the scheduler
  // has the executor append them in place).
  void setPipes(TaskRecord& record, std::span<const PipeInterval> intervals) {
    record.firstPipe = static_cast<std::uint32_t>(pipeIntervals.size());
    record.pipeCount = static_cast<std::uint32_t>(intervals.size());
    pipeIntervals.insert(pipeIntervals.end(), intervals.begin(), intervals.end());
  }
};

} // namespace pto
