// StepRecorder: when each step of chosen tasks ran, as the timing model
// (NpuExecutor) ran it, for the view inside one task (analysis/report/TaskInside.h).
//
// NpuExecutor records the tasks a recorder asks for and nothing else: with
// no recorder (the default) it pays one null test per task start. A run is
// deterministic, so re-simulating it with a recorder gives the same
// schedule, and the recorded task ran exactly as in the run without one,
// sharing the GM bandwidth with the same other tasks.
//
// Times are the simulator's own fractional cycles (the schedule rounds a
// task's end up to a whole cycle; the swimlane's pipe intervals round each
// busy stretch outwards). Per step (ProgramTiming.h):
//   Compute     [startCycle, endCycle): the pipe was busy with it;
//   GmTransfer  [startCycle, dataCycle): its start-up latency (shortened by
//               L2 hits, hidden behind the previous transfer of the pipe when
//               issued back to back), [dataCycle, endCycle): its bytes moving
//               at its share of the chip's bandwidth; aloneDataCycles is what
//               that data phase takes at its path's peak, with no sharing;
//   WaitFlag    [startCycle, endCycle): the pipe reached it and waited until
//               the flag was raised (empty when it was raised already);
//   Barrier     the same, until every pipe had reached the barrier;
//   SetFlag     startCycle == endCycle: when the flag was raised.
// A step the task never reached keeps startCycle -1 (only when the
// scheduler retired the task early, which it does not).
#pragma once

#include "npusim/ProgramTiming.h"
#include "runtime/Executor.h"

#include <array>
#include <vector>

namespace pto {

struct StepTiming {
  int instruction = -1;  // index in the program's issue order
  StepKind kind = StepKind::Compute;
  double startCycle = -1.0;
  double dataCycle = -1.0;  // GmTransfer only
  double endCycle = -1.0;
  double aloneDataCycles = 0.0;  // GmTransfer only
};

struct TaskSteps {
  TaskId task = kNoId;
  CoreId core;
  int programId = -1;
  double startCycle = 0.0;
  std::int64_t endCycle = 0;  // as the scheduler retired it
  // Per pipe, the program's steps on that pipe in issue order (TimedProgram::steps).
  std::array<std::vector<StepTiming>, kPipeCount> pipes;
};

class StepRecorder {
public:
  explicit StepRecorder(std::vector<TaskId> tasks) : m_tasks(std::move(tasks)) {}

  bool wants(TaskId task) const;
  // The recorded steps of `task`; null when it was not asked for or did not run.
  const TaskSteps* steps(TaskId task) const;

  // Filled by NpuExecutor, in the order the tasks started.
  std::vector<TaskSteps> recorded;

private:
  std::vector<TaskId> m_tasks;
};

} // namespace pto
