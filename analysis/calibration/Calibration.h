// Calibrating a machine file from swimlanes measured on the user's chip:
// match each measured task to the simulated task of the same identity, then
// fit global factors on named machine figures (CalibrationParameters.h) so
// that re-simulations of the project, compiled once, reproduce the measured
// task durations and makespan. Traces held out of the fit report the error
// the calibrated machine makes on data it did not see.
//
// Matching. A simulated task's identity is its subgraph, its semantic label,
// its loop indices and its place in program order (device task, task id).
// Tasks are grouped by a key, tried finest first: subgraph and label, then
// label alone (PyPTO numbers subgraphs its own way), then subgraph alone (a
// trace without labels); the first key that pairs every task wins, else the
// one that pairs the most. Within a group, tasks pair by loop indices where
// both sides have them, else in program order.
//
// Objective (lower is better), averaged over the fitted traces:
//   mean over tasks of phi(log(measured dur / simulated dur), 5 %)
//   + phi(log(measured makespan / simulated makespan), 2 %)
// with phi(x, d) = sqrt(1 + (x/d)^2) - 1 (pseudo-Huber: quadratic near 0,
// linear for outliers, so one disturbed task cannot drag the fit). Within a
// semantic label the k-th shortest measured task is compared with the k-th
// shortest simulated one: which of a label's tasks happens to share HBM with
// which others changes with every parameter (a task's own duration jumps as
// the schedule reorders), the distribution of the label's durations moves
// smoothly. The errors reported after the fit pair tasks by identity.
// Start times are not compared: they add every earlier task's error and
// made the objective too ragged to search. The makespan carries the
// scheduler's costs, which durations do not see.
//
// Search over log factors within each parameter's bounds, one simulation per
// point, cached: Levenberg-Marquardt on the per-task terms with a
// forward-difference Jacobian (RobustLeastSquares.h), then a pattern search
// with small steps (PatternSearch.h) to polish where integer cycles make the
// slopes ragged. No derivative of the simulator is needed.
#pragma once

#include "analysis/calibration/CalibrationParameters.h"
#include "analysis/calibration/MeasuredTrace.h"
#include "analysis/simulation/Simulation.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/TimingRun.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// What identifies a simulated task, by task id.
struct SimulatedTaskIdentity {
  int subgraph = -1;
  std::string label;
  std::string loop;  // "i=3, j=0"
  int seq = 0;       // device task
};

struct TaskMatch {
  std::string key;  // "subgraph+label", "label" or "subgraph"
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (measured index, simulated task id)
  struct Group {
    std::string label;
    int subgraph = -1;
    std::size_t measured = 0, simulated = 0;
  };
  std::vector<Group> mismatched;  // groups whose task counts differ
  std::size_t unpairedMeasured = 0, unpairedSimulated = 0;
};
TaskMatch matchTasks(const MeasuredTrace& measured, const std::vector<SimulatedTaskIdentity>& simulated);

// The identity of every task of a simulated run, by task id.
std::vector<SimulatedTaskIdentity> simulatedTaskIdentities(const Compilation& compilation, const Simulation& simulation);

// One paired task's durations on the chip and in the simulation.
struct TaskMismatch {
  std::size_t measured = 0;   // index into MeasuredTrace::tasks
  std::size_t simulated = 0;  // task id
  double measuredUs = 0.0, simulatedUs = 0.0;
  double error = 0.0;  // measured / simulated - 1
};
// Every pair of `match`, the largest mismatch (by |log(measured / simulated)|) first.
std::vector<TaskMismatch> taskMismatches(const MeasuredTrace& measured, const TaskMatch& match, const Simulation& simulation);

struct CalibrationInput {
  std::string projectName;
  const Compilation* compilation = nullptr;  // compiled once, on the base machine
  const MachineDescription* machine = nullptr;  // the base machine (its file is read for the figures)
  TimingRunOptions runtime;
  std::vector<MeasuredTrace> traces;
  std::vector<bool> heldOut;  // parallel to traces
};

struct CalibrationOptions {
  std::vector<std::string> parameters;  // keys; empty: the default set
  int budget = 400;                     // simulations at most
  // Fit on the tasks that pair when a trace misses tasks or has extra ones
  // (otherwise that is an error); the makespan term is then left out.
  bool partial = false;
  std::function<void(int simulations, double objective)> onProgress;
};

// Which traces to hold out when the user names none: with two or more, the
// last; with one, none (the report says so).
std::vector<bool> defaultHoldOut(std::size_t traceCount);

struct TraceError {
  double medianTaskError = 0.0;  // median over tasks of |measured / simulated - 1|
  double p90TaskError = 0.0;
  double makespanError = 0.0;    // simulated / measured - 1
  double measuredMakespanUs = 0.0;
  double simulatedMakespanUs = 0.0;
};

// A measured trace against one simulated run, for the IDE's view of both
// swimlanes: every task's error and the pairs, largest mismatch first.
struct MeasuredRunComparison {
  MeasuredTrace measured;
  TaskMatch match;
  std::vector<TaskMismatch> mismatches;  // every pair, the largest mismatch first
  std::vector<double> errorOfTask;       // by measured task: measured / simulated - 1, NaN when unpaired
  std::vector<std::size_t> simulatedOf;  // by measured task: the task id, kNoPair when unpaired
  TraceError error;
  static constexpr std::size_t kNoPair = ~std::size_t{0};
};
// nullopt with the calibration's message when the trace cannot be read or
// is another kernel's; missing or extra tasks are left unpaired, not refused.
std::optional<MeasuredRunComparison> compareWithMeasured(const std::filesystem::path& file,
                                                         const MeasuredTraceOptions& options,
                                                         const Compilation& compilation, const Simulation& simulation,
                                                         const std::string& projectName, DiagnosticEngine& diags);

struct TraceFit {
  std::filesystem::path file;
  std::string format;
  bool heldOut = false;
  std::string matchKey;
  std::size_t tasks = 0;  // pairs
  TraceError before, after;
  std::vector<std::string> notes;
  // The ten largest mismatches on the calibrated machine, largest first, and their measured tasks.
  std::vector<TaskMismatch> largestMismatches;
  std::vector<MeasuredTask> largestMismatchTasks;
};

struct ParameterFit {
  const CalibrationParameter* parameter = nullptr;
  double from = 0.0, to = 0.0, factor = 1.0;
  // "moved", "unchanged", "at bound" (the chip wants more than the bounds
  // allow: a modelling gap), "not constrained" (the traces do not depend on it).
  std::string status;
};

struct CalibrationResult {
  std::vector<ParameterFit> parameters;
  std::vector<TraceFit> traces;
  int simulations = 0;
  double seconds = 0.0;
  double objectiveBefore = 0.0, objectiveAfter = 0.0;
  bool converged = false;
  nlohmann::ordered_json machineFile;  // the calibrated machine file, with its "calibration" provenance
};

// nullopt with diagnostics naming the trace file when a trace does not fit
// the project (another kernel, missing or extra tasks, other time units).
std::optional<CalibrationResult> calibrate(const CalibrationInput& input, const CalibrationOptions& options,
                                           DiagnosticEngine& diags);

// `pto calibrate --json`: {parameters[], traces[] (each with largest_mismatches[]), residual,
// simulations, seconds, simulations_per_second, objective_before, objective_after, converged}.
nlohmann::ordered_json calibrationResultJson(const CalibrationResult& result);

// "a2" -> "a2-calibrated", "a2-calibrated" -> "a2-calibrated".
std::string calibratedMachineName(const std::string& baseName);

} // namespace pto
