#include "app/studio/ProjectRunJob.h"

#include "analysis/ledger/RunLedger.h"
#include "analysis/simulation/Simulation.h"

#include <cstdio>

#include <algorithm>
#include <chrono>
#include <exception>
#include <filesystem>

namespace pto::studio {
namespace {

// As many runs as the Runs panel lists: a run it repeats further back would
// not be shown as current anyway.
constexpr int kSearchedRuns = 500;

// Whether two runs (RunRow or RunRecord) are one: the simulator is
// deterministic, so the same kernel, settings, machine and mode make the
// same schedule; the makespan and task count guard against a ledger
// written by another version of the simulator.
template <class RunA, class RunB>
bool sameRun(const RunA& a, const RunB& b) {
  return a.kernelHash == b.kernelHash && a.settings == b.settings && a.mode == b.mode && a.machine == b.machine &&
         a.makespanCycles == b.makespanCycles && a.tasks == b.tasks;
}

// The newest recorded run of `project` that `run` repeats; 0 when none does.
// Reading creates no ledger, and a ledger that cannot be read has no such run.
std::int64_t recordedRunRepeated(const OperatorProject& project, const RunRecord& run) {
  if (!std::filesystem::exists(RunLedger::fileIn(project.directory()))) return 0;
  DiagnosticEngine quiet;
  std::optional<RunLedger> ledger = RunLedger::open(project.directory(), quiet);
  std::optional<std::vector<RunRow>> rows = ledger ? ledger->list(quiet, kSearchedRuns) : std::nullopt;
  if (!rows) return 0;
  auto repeated = std::find_if(rows->begin(), rows->end(), [&run](const RunRow& row) { return sameRun(row, run); });
  return repeated != rows->end() ? repeated->id : 0;
}

// Records `run` in the project's ledger, after the opening run the request
// carries unless `run` repeats it. A ledger that cannot be written is said
// on stderr, not in the Problems panel: the run itself is fine. Its id, or 0.
std::int64_t recordInLedger(const ProjectRunRequest& request, const RunRecord& run) {
  DiagnosticEngine quiet;
  std::optional<RunLedger> ledger = RunLedger::open(request.project.directory(), quiet);
  std::optional<std::int64_t> id;
  if (ledger) {
    const std::shared_ptr<UnrecordedRun>& opening = request.recordBefore;
    if (opening && !opening->taken.exchange(true) && !sameRun(opening->record, run)) ledger->record(opening->record, quiet);
    id = ledger->record(run, quiet);
  }
  for (const Diagnostic& diagnostic : quiet.diagnostics())
    std::fprintf(stderr, "pto-studio: the run ledger: %s\n", diagnostic.message.c_str());
  return id.value_or(0);
}

} // namespace

ProjectRunOutcome runProjectForViews(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                                     const ProjectRunProgress& progress) {
  ProjectRunOutcome outcome;
  outcome.request = std::make_shared<const ProjectRunRequest>(request);
  outcome.projectName = request.project.name;
  auto start = std::chrono::steady_clock::now();
  DiagnosticEngine diags;
  try {
    ProjectRunOptions options;
    options.trace.sourceText = request.sourceText;
    options.trace.cancelled = [&cancelled] { return cancelled.load(); };
    options.mode = SimulationMode::Timing;
    options.compile.reuse = request.passStages.get();
    options.onStage = progress.onStage;
    options.onTraced = [&outcome](const TensorGraph& graph) { outcome.graph = std::make_shared<TensorGraph>(graph); };
    options.onSimulated = [&](const CompileResult& compiled, const Simulation& simulation) {
      outcome.passesRan = passesRanSummary(compiled.passes);
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
      // The health report, the cost per line and the ledger entry cost a fraction of the run
      // (0.2 s on the DIA's 8 753 tasks) and stay off the GUI thread.
      outcome.health = std::make_shared<const HealthReport>(healthReport(
          outcome.result->compiled->compilation, outcome.result->simulation->schedule, *outcome.result->machine));
      outcome.lineCost = std::make_shared<const LineCostReport>(lineCostReport(
          outcome.result->compiled->compilation, outcome.result->simulation->schedule, *outcome.result->machine));
      const ProjectRunResult& completed = *outcome.result;
      const RunRecord record =
          recordOf(request.project, completed.compiled->compilation, *completed.simulation, outcome.health.get(),
                   outcome.precisionChecked ? std::optional<bool>(outcome.pass) : std::nullopt);
      if (!request.recordInLedger || request.recordInLedger->load()) {
        outcome.ledgerRunId = recordInLedger(request, record);
        outcome.recorded = outcome.ledgerRunId != 0;
      } else {
        // A record's kernel hash is of the file on disk: only a run of the
        // saved kernel can repeat a recorded one.
        if (!request.sourceText) outcome.ledgerRunId = recordedRunRepeated(request.project, record);
        if (outcome.ledgerRunId == 0) outcome.unrecorded = std::make_shared<UnrecordedRun>(record);
      }
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
