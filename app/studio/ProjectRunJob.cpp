#include "app/studio/ProjectRunJob.h"

#include "analysis/ledger/RunLedger.h"
#include "analysis/simulation/Simulation.h"

#include <cstdio>

#include <chrono>
#include <exception>

namespace pto::studio {

ProjectRunOutcome runProjectForViews(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                                     const ProjectRunProgress& progress) {
  ProjectRunOutcome outcome;
  outcome.projectName = request.project.name;
  auto start = std::chrono::steady_clock::now();
  DiagnosticEngine diags;
  try {
    ProjectRunOptions options;
    options.trace.sourceText = request.sourceText;
    options.trace.cancelled = [&cancelled] { return cancelled.load(); };
    options.mode = SimulationMode::Timing;
    options.onStage = progress.onStage;
    options.onTraced = [&outcome](const TensorGraph& graph) { outcome.graph = std::make_shared<TensorGraph>(graph); };
    options.onSimulated = [&](const CompileResult& compiled, const Simulation& simulation) {
      auto swimlane = std::make_shared<trace::Trace>(simulationTrace(compiled.compilation, simulation));
      outcome.trace = std::make_shared<widgets::TraceIndex>(std::move(swimlane), request.project.name + " (run)");
      outcome.machine = simulation.machine;
      outcome.makespanUs = simulation.stats.makespanUs;
      // All the outcome holds so far: the graph, the swimlane and their names.
      if (progress.onSwimlane) progress.onSwimlane(ProjectRunOutcome(outcome));
    };
    std::optional<ProjectRunResult> run = runProject(request.project, diags, options);
    if (!run) outcome.trace = nullptr;  // failed after simulating (e.g. the golden): not a completed run
    if (run && run->simulation && run->compiled) {
      outcome.pass = run->pass();
      outcome.precisionChecked = run->precisionSkipped.empty();
      for (const OutputResult& output : run->outputs) outcome.failedOutputs += output.comparison.pass() ? 0 : 1;
      outcome.result = std::make_shared<const ProjectRunResult>(std::move(*run));
      // The health report and the ledger entry cost a fraction of the run
      // (0.2 s on the DIA's 8 753 tasks) and stay off the GUI thread. A
      // ledger that cannot be written is said once on stderr, not in the
      // Problems panel: the run itself is fine.
      DiagnosticEngine quiet;
      outcome.health = std::make_shared<const HealthReport>(healthReport(
          outcome.result->compiled->compilation, outcome.result->simulation->schedule, *outcome.result->machine));
      if (auto id = recordRun(request.project, *outcome.result, outcome.health.get(), quiet)) outcome.ledgerRunId = *id;
      else
        for (const Diagnostic& diagnostic : quiet.diagnostics())
          if (diagnostic.severity == Severity::Warning) std::fprintf(stderr, "pto-studio: %s\n", diagnostic.message.c_str());
    }
  } catch (const std::exception& error) {
    diags.error(SourceLocation{request.project.file.string()}) << "internal error while running: " << error.what();
  }
  outcome.diagnostics = diags.diagnostics();
  for (const Diagnostic& diagnostic : diags.diagnostics()) outcome.problems += diags.format(diagnostic) + "\n";
  outcome.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

} // namespace pto::studio
