// summarizeRun: the run report's numbers as a RunSummary.
#include "analysis/run/RunSummary.h"

#include "analysis/report/HealthReport.h"
#include "analysis/run/ProjectRun.h"

#include <algorithm>

namespace pto {

RunSummary summarizeRun(const ProjectRunResult& run, const std::string& projectName) {
  RunSummary summary;
  summary.project = projectName;
  summary.outputsFrom = run.executor;
  summary.precisionSkipped = run.precisionSkipped;
  // The same fields addSimulationReport writes into `pto run --json`.
  if (run.simulation) {
    const Simulation& simulation = *run.simulation;
    const SimulationStats& stats = simulation.stats;
    summary.simulated = true;
    summary.makespanUs = stats.makespanUs;
    summary.makespanCycles = stats.makespanCycles;
    summary.machine = simulation.machine;
    summary.mode = std::string(name(simulation.mode));
    summary.clockGHz = simulation.clockGHz;
    summary.tasks = static_cast<std::int64_t>(simulation.schedule.tasks.size());
    summary.coreTypes = {{"AIC", simulation.aicCores, stats.tasksByCoreType[0], stats.utilizationByCoreType[0]},
                         {"AIV", simulation.aivCores, stats.tasksByCoreType[1], stats.utilizationByCoreType[1]}};
  }
  if (run.compiled) {
    const Compilation& compilation = run.compiled->compilation;
    summary.subgraphs = static_cast<std::int64_t>(compilation.blocks.subgraphs.size());
    summary.programs = static_cast<std::int64_t>(compilation.programs.size());
    summary.dependencies = static_cast<std::int64_t>(compilation.tasks.edgeCount);
  }
  for (const OutputResult& output : run.outputs) {
    const OutputComparison& comparison = output.comparison;
    OutputSummary entry;
    entry.name = output.name;
    entry.dtype = std::string(name(output.actual.dtype()));
    entry.shape = output.actual.shape().dims();
    entry.pass = comparison.pass();
    entry.maxAbsError = comparison.maxAbsError;
    entry.maxRelError = comparison.maxRelError;
    entry.mismatches = comparison.mismatches;
    entry.elements = comparison.elements;
    entry.rtol = comparison.tolerance.rtol;
    entry.atol = comparison.tolerance.atol;
    entry.goldenSource = output.goldenSource;
    entry.judgement = judgementText(comparison);
    summary.outputs.push_back(std::move(entry));
  }
  summary.hostTimes = {run.traceMs, run.goldenMs, run.compileMs, run.simulateMs, run.executeMs};
  return summary;
}

RunSummary summarizeRun(const ProjectRunResult& run, const std::string& projectName, const RunSummary& previous) {
  RunSummary summary = summarizeRun(run, projectName);
  if (previous.simulated && summary.simulated) summary.previousMakespanUs = previous.makespanUs;
  return summary;
}

void addHealth(RunSummary& summary, const HealthReport& health) {
  const double cyclesPerUs = health.clockGHz > 0 ? health.clockGHz * 1000.0 : 1000.0;
  const CriticalPathHealth& path = health.criticalPath;
  summary.bound = health.bound.kind;
  summary.pathRunningUs = static_cast<double>(path.busyCycles) / cyclesPerUs;
  summary.pathWaitsUs.clear();
  for (const auto& [cause, cycles] : path.waitCyclesByCause)
    summary.pathWaitsUs.emplace_back(cause, static_cast<double>(cycles) / cyclesPerUs);
  std::stable_sort(summary.pathWaitsUs.begin(), summary.pathWaitsUs.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
}

} // namespace pto
