// One call that runs a compiled kernel on a machine in timing mode: the MPMD
// scheduler (runtime/Scheduler.h) driving the NPU timing model (NpuExecutor).
#pragma once

#include "compiler/ir/Compilation.h"
#include "core/Diagnostics.h"
#include "npusim/L2CacheModel.h"
#include "npusim/MachineDescription.h"
#include "runtime/Schedule.h"
#include "runtime/Scheduler.h"

#include <optional>
#include <vector>

namespace pto {

// The runtime options of a run (the project's `runtime_options`, PyPTO names).
struct TimingRunOptions {
  int deviceSchedMode = 0;       // device_sched_mode, 0..3
  // stitch_function_max_num, >= 1. PyPTO's default (its tile_fwk_config.json):
  // up to 128 loop iterations go to the device as one task, so a loop's
  // iterations are not held back by one launch each.
  int stitchFunctionMaxNum = 128;
  // Scheduler threads; unset: the machine's aicpu_count.
  std::optional<int> aicpuCount;
};

// The scheduler configuration for `machine`: its cores and AICPU costs, and
// the options' policy, stitching and thread count.
SchedulerConfig schedulerConfigFor(const MachineDescription& machine, const TimingRunOptions& options);

// Where each storage tensor of the compiled kernel lies in GM, for the L2
// model: its shape with the compilation's dim bindings, and its dtype's size
// (tensors whose shape cannot be evaluated get no layout).
std::vector<GmTensorLayout> gmLayoutsOf(const Compilation& compilation);

// Schedules every task of `compilation` on `machine` and times it. Errors
// (a program the machine cannot run, tasks that do not match their
// programs, a bad option or graph) are diagnostics; nullopt then.
std::optional<Schedule> simulateTiming(const Compilation& compilation, const MachineDescription& machine,
                                       const TimingRunOptions& options, DiagnosticEngine& diags);

} // namespace pto
