// Running a compiled kernel on the simulated chip: the MPMD scheduler
// (runtime/) driving the NPU timing model (npusim/NpuExecutor), and in
// functional mode also executing every task's PTO program on the data.
//
// The two modes share one timeline by construction: functional mode is the
// timing run with an observer that executes each task's instructions on the
// data when the task starts (all of its producers have finished by then), so
// the schedule cannot differ. Timing mode leaves the data alone; the outputs
// a timing run reports come from executing the tile graph on the CPU.
#pragma once

#include "compiler/ir/Compilation.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"
#include "npusim/MachineDescription.h"
#include "npusim/StepRecorder.h"
#include "npusim/TimingRun.h"
#include "runtime/Schedule.h"
#include "runtime/Scheduler.h"
#include "runtime/trace/Trace.h"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class SimulationMode { Timing, Functional };
std::string_view name(SimulationMode mode);  // "timing", "functional"
std::optional<SimulationMode> parseSimulationMode(std::string_view text);

// Reads `runtime_options` (an object; other keys are PyPTO's and ignored
// here): device_sched_mode, stitch_function_max_num, launch_sched_aicpu_num.
// A value of the wrong type or out of range is an error at `where`.
std::optional<TimingRunOptions> runtimeSettingsFrom(const nlohmann::ordered_json& runtimeOptions,
                                                   const SourceLocation& where, DiagnosticEngine& diags);

struct SimulationStats {
  std::int64_t makespanCycles = 0;
  double makespanUs = 0.0;
  std::array<int, 2> tasksByCoreType{};            // AIC, AIV
  std::array<double, 2> utilizationByCoreType{};   // busy cycles / (cores * makespan)
  std::int64_t instructions = 0;                   // non-sync PTO instructions simulated
  // Lines of global memory tasks touched (reads and writes) that were in the
  // L2 or not, and the bytes global-memory transfers moved.
  std::int64_t l2HitLines = 0;
  std::int64_t l2MissLines = 0;
};

struct Simulation {
  SimulationMode mode = SimulationMode::Timing;
  std::string machine;
  double clockGHz = 1.0;
  int aicCores = 0;
  int aivCores = 0;
  Schedule schedule;
  SimulationStats stats;
  double simulateMs = 0.0;
};

struct SimulationRequest {
  const MachineDescription* machine = nullptr;
  SimulationMode mode = SimulationMode::Timing;
  TimingRunOptions runtime;
  // Polled between tasks; true stops the run with a "cancelled" error.
  std::function<bool()> cancelled;
  // Whether each task record keeps its pipes' busy intervals (Schedule::pipes:
  // the swimlane's pipe rows, bound classes); a caller that needs only the
  // task times (the tuner's points) saves their allocation.
  bool keepPipeIntervals = true;
  // Records when each step of the tasks it asks for ran (npusim/StepRecorder.h:
  // the view inside a task); null records none.
  StepRecorder* stepRecorder = nullptr;
  // Timing mode without a step recorder: where to keep the run's state at its
  // first core choice the affinity rule toggled (device_sched_mode 0 <-> 1,
  // 2 <-> 3) would make otherwise (runtime/Scheduler.h, ScheduleFork), for
  // the toggled policy's run to resume from; left empty when the rule
  // changes no choice or the run cannot be copied. Null: none kept.
  std::optional<ScheduleFork>* keepFork = nullptr;
  // Resumes this fork (taken by a run of the same compilation, whose
  // graph it points into) instead of simulating from the start:
  // `runtime` must be the forked run's with the affinity rule toggled. The
  // fork is used up.
  ScheduleFork* resumeFrom = nullptr;
};

// The values of `graph`'s dynamic dims in the actual `arguments` (graph
// argument order), and of the elements it reads as scalars
// (bindElementReads), as CompileSettings::bindings wants them.
Bindings dynamicDimBindings(const TensorGraph& graph,
                                                       const std::vector<HostTensor>& arguments);

// Simulates `compilation` (all passes run). Functional mode reads the inputs
// from `arguments` (graph argument order) and writes the outputs there;
// timing mode does not touch them. nullopt with diagnostics on failure.
std::optional<Simulation> simulate(const Compilation& compilation, std::vector<HostTensor>& arguments,
                                   const SimulationRequest& request, DiagnosticEngine& diags);

// The run's swimlane: one lane per core, tasks with their kernel lines.
trace::Trace simulationTrace(const Compilation& compilation, const Simulation& simulation);

// The simulation's part of a run report: makespan_us, makespan_cycles,
// tasks, tasks_by_core_type, subgraphs, programs, machine, mode, clock_ghz,
// utilization, instructions (docs/cli.md).
void addSimulationReport(nlohmann::ordered_json& report, const Compilation& compilation, const Simulation& simulation);

} // namespace pto
