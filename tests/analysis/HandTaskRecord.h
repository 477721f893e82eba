// A scheduler record written by hand, for tests that work out a report's figures from the records alone.
#pragma once

#include "runtime/Schedule.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace pto::testing {

struct HandCycles {
  std::int64_t ready = 0, dispatch = 0, start = 0, end = 0, coreFreed = 0, resolved = 0;
};

inline TaskRecord handTaskRecord(TaskId task, CoreId core, const HandCycles& cycles, std::vector<PipeInterval> pipes) {
  TaskRecord r;
  r.task = task;
  r.core = core;
  r.readyCycle = cycles.ready;
  r.dispatchCycle = cycles.dispatch;
  r.startCycle = cycles.start;
  r.endCycle = cycles.end;
  r.coreFreedCycle = cycles.coreFreed;
  r.resolvedCycle = cycles.resolved;
  r.pipes = std::move(pipes);
  return r;
}

} // namespace pto::testing
