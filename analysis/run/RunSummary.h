// RunSummary: one run at a glance, as plain numbers the IDE's summary panel
// shows (makespan, tasks and utilisation per core type, precision per output,
// host times, the change against the previous run). The numbers are the ones
// `pto run --json` reports, taken from the same fields, so the CLI and the
// IDE agree. Plain C++ with no engine types, so a view can hold it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pto {

struct ProjectRunResult;
struct HealthReport;

// One core type of the simulated machine ("AIC", "AIV").
struct CoreTypeSummary {
  std::string name;          // "AIC" or "AIV", as in the JSON report's keys
  int cores = 0;
  int tasks = 0;             // tasks_by_core_type
  double utilization = 0.0;  // busy core time / (cores x makespan), 0..1
};

// One output compared with its golden (the run report's outputs[]).
struct OutputSummary {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  bool pass = false;
  double maxAbsError = 0.0;
  double maxRelError = 0.0;
  std::int64_t mismatches = 0;
  std::int64_t elements = 0;
  double rtol = 0.0;
  double atol = 0.0;
  std::string goldenSource;  // "reference", "reference, staged" or the .npy path
  std::string judgement;     // judgementText: the rule and what it accepted
};

// Host (wall-clock) milliseconds of each stage of the run (timings_ms).
struct HostTimes {
  double traceMs = 0.0;
  double goldenMs = 0.0;
  double compileMs = 0.0;
  double simulateMs = 0.0;
  double executeMs = 0.0;
  double totalMs() const { return traceMs + goldenMs + compileMs + simulateMs + executeMs; }
};

struct RunSummary {
  std::string project;
  // True when the numbers come from a simulated run; false when the panel
  // shows only a trace file (then makespanUs is the trace's span).
  bool simulated = false;
  double makespanUs = 0.0;           // makespan_us: first submission to the last task's end
  std::int64_t makespanCycles = 0;   // makespan_cycles
  std::string machine;
  std::string mode;                  // "timing" or "functional"
  double clockGHz = 0.0;
  std::string outputsFrom;           // "tiles" or "functional"
  std::string precisionSkipped;      // why the outputs were not checked; empty when they were
  std::int64_t tasks = 0;
  std::int64_t subgraphs = 0;
  std::int64_t programs = 0;
  std::int64_t dependencies = 0;
  std::vector<CoreTypeSummary> coreTypes;  // AIC, then AIV
  std::vector<OutputSummary> outputs;
  HostTimes hostTimes;
  // The previous run's makespan, when there was one to compare with.
  std::optional<double> previousMakespanUs;
  // From the run's health report (empty without one): the run's bound class,
  // and its critical path's running and waits by cause, largest first.
  std::string bound;
  double pathRunningUs = 0.0;
  std::vector<std::pair<std::string, double>> pathWaitsUs;

  // Every output within tolerance (true with no outputs).
  bool pass() const {
    for (const OutputSummary& output : outputs)
      if (!output.pass) return false;
    return true;
  }
  // makespan - previous (negative: faster), and the same in percent of the
  // previous makespan; nullopt without a previous run (or a zero previous for
  // percent). Inline, so views need not link the engine.
  std::optional<double> deltaUs() const {
    if (!previousMakespanUs) return std::nullopt;
    return makespanUs - *previousMakespanUs;
  }
  std::optional<double> deltaPercent() const {
    if (!previousMakespanUs || *previousMakespanUs <= 0.0) return std::nullopt;
    return 100.0 * (makespanUs - *previousMakespanUs) / *previousMakespanUs;
  }
};

// The summary of a finished run; `projectName` names it. Fields the run did
// not produce (no simulation after a failed compile) stay at their defaults.
RunSummary summarizeRun(const ProjectRunResult& run, const std::string& projectName);
// The same with the delta against `previous` (a simulated earlier run).
RunSummary summarizeRun(const ProjectRunResult& run, const std::string& projectName, const RunSummary& previous);
// Adds the bound and the critical path's split from `health`, the run's health report.
void addHealth(RunSummary& summary, const HealthReport& health);

} // namespace pto
