// A scheduler record written by hand, for tests that work out a report's figures from the records alone.
#pragma once

#include "runtime/Schedule.h"

#include <cstdint>
#include <vector>

namespace pto::testing {

struct HandCycles {
  std::int64_t ready = 0, dispatch = 0, start = 0, end = 0, coreFreed = 0, resolved = 0;
};

// Its pipe intervals go into `schedule`'s array (Schedule::setPipes).
inline TaskRecord handTaskRecord(Schedule& schedule, TaskId task, CoreId core, const HandCycles& cycles,
                                 const std::vector<PipeInterval>& pipes) {
  TaskRecord r;
  r.task = task;
  r.core = core;
  r.readyCycle = cycles.ready;
  r.dispatchCycle = cycles.dispatch;
  r.startCycle = cycles.start;
  r.endCycle = cycles.end;
  r.coreFreedCycle = cycles.coreFreed;
  r.resolvedCycle = cycles.resolved;
  schedule.setPipes(r, pipes);
  return r;
}

} // namespace pto::testing
