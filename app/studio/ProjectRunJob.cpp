#include "app/studio/ProjectRunJob.h"

#include "analysis/Simulation.h"

#include <chrono>
#include <exception>

namespace pto::studio {

ProjectRunOutcome runProjectForViews(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                                     const std::function<void(std::string_view stage)>& onStage) {
  ProjectRunOutcome outcome;
  outcome.projectName = request.project.name;
  auto start = std::chrono::steady_clock::now();
  DiagnosticEngine diags;
  try {
    ProjectRunOptions options;
    options.trace.sourceText = request.sourceText;
    options.trace.cancelled = [&cancelled] { return cancelled.load(); };
    options.mode = SimulationMode::Timing;
    options.onStage = onStage;
    options.onTraced = [&outcome](const TensorGraph& graph) { outcome.graph = std::make_shared<TensorGraph>(graph); };
    std::optional<ProjectRunResult> run = runProject(request.project, diags, options);
    if (run && run->simulation && run->compiled) {
      if (onStage) onStage("drawing");
      auto swimlane = std::make_shared<trace::Trace>(simulationTrace(run->compiled->compilation, *run->simulation));
      outcome.trace = std::make_shared<widgets::TraceIndex>(std::move(swimlane), request.project.name + " (run)");
      outcome.machine = run->simulation->machine;
      outcome.makespanUs = run->simulation->stats.makespanUs;
      outcome.pass = run->pass();
      for (const OutputResult& output : run->outputs) outcome.failedOutputs += output.comparison.pass() ? 0 : 1;
      outcome.result = std::make_shared<const ProjectRunResult>(std::move(*run));
    }
  } catch (const std::exception& error) {
    diags.error(SourceLocation{request.project.file.string()}) << "internal error while running: " << error.what();
  }
  outcome.cancelled = cancelled.load();
  outcome.diagnostics = diags.diagnostics();
  for (const Diagnostic& diagnostic : diags.diagnostics()) outcome.problems += diags.format(diagnostic) + "\n";
  outcome.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

} // namespace pto::studio
