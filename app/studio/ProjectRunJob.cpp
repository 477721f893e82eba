#include "app/studio/ProjectRunJob.h"

#include "analysis/ProjectRun.h"
#include "analysis/Simulation.h"
#include "core/project/ProjectFile.h"

#include <chrono>
#include <exception>

namespace pto::studio {

ProjectRunOutcome runProjectForViews(const std::string& projectFile, const std::atomic<bool>& cancelled) {
  ProjectRunOutcome outcome;
  auto start = std::chrono::steady_clock::now();
  DiagnosticEngine diags;
  try {
    std::optional<OperatorProject> project = loadProject(projectFile, diags);
    if (project) {
      outcome.projectName = project->name;
      ProjectRunOptions options;
      options.trace.cancelled = [&cancelled] { return cancelled.load(); };
      options.mode = SimulationMode::Timing;
      std::optional<ProjectRunResult> run = runProject(*project, diags, options);
      if (run && run->simulation && run->compiled) {
        auto swimlane = std::make_shared<trace::Trace>(simulationTrace(run->compiled->compilation, *run->simulation));
        outcome.trace = std::make_shared<widgets::TraceIndex>(std::move(swimlane), project->name + " (run)");
        outcome.machine = run->simulation->machine;
        outcome.makespanUs = run->simulation->stats.makespanUs;
        outcome.pass = run->pass();
        for (const OutputResult& output : run->outputs) outcome.failedOutputs += output.comparison.pass() ? 0 : 1;
      }
    }
  } catch (const std::exception& error) {
    diags.error(SourceLocation{projectFile}) << "internal error while running: " << error.what();
  }
  for (const Diagnostic& diagnostic : diags.diagnostics()) outcome.problems += diags.format(diagnostic) + "\n";
  outcome.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

} // namespace pto::studio
