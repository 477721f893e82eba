// RunRecordTrace: a recorded run's swimlane rebuilt from its ledger task
// table (RunRecord::taskTable), so that an earlier run can be shown beside
// the current one on the same time axis (the IDE's A/B comparison, `pto runs
// --swimlane`).
//
// What the table keeps, the trace has: each task's core (lane AIC_<n> /
// AIV_<n>), start and end (cycles / clock, rounded to whole nanoseconds as
// the simulation's own swimlane rounds them, so an unchanged task sits at
// the same nanosecond in both), its label and its subgraph id. What the
// table does not keep, the trace lacks: dependencies, pipe intervals, kernel
// lines and ready counters. A task is named by its identity across runs
// ("softmax|b=3|y@3,0,0,0 (sg 5)"), which is also kept as its `identity` arg.
//
// Lanes: every core of the machine the run simulated when its health metrics
// say how many (core_types[].cores), else up to the highest core a task ran
// on; cube cores first, as the simulation's swimlane orders them.
#pragma once

#include "analysis/ledger/RunRecord.h"
#include "runtime/trace/Trace.h"

namespace pto {

// A finalized trace of `run`'s task table (no tasks when it was pruned).
trace::Trace runRecordTrace(const RunRecord& run);

} // namespace pto
