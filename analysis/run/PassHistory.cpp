// A project's compilation kept pass by pass (see PassHistory.h).
#include "analysis/run/PassHistory.h"

#include "analysis/run/ProjectRun.h"
#include "compiler/frontend/ProjectTrace.h"
#include "compiler/ir/TensorGraphJson.h"

#include <chrono>
#include <exception>
#include <future>

namespace pto {


PassHistory compilePassHistory(const OperatorProject& project, const std::optional<std::string>& sourceText,
                               const std::function<bool()>& cancelled, PassHistoryDepth depth,
                               std::shared_ptr<const TensorGraph> traced) {
  auto start = std::chrono::steady_clock::now();
  PassHistory history;
  DiagnosticEngine diags;
  std::vector<PassRecord> records;
  std::shared_ptr<IrJson> finalIr;
  try {
    ProjectRunOptions options;
    options.trace.sourceText = sourceText;
    options.trace.cancelled = cancelled;
    const bool verify = project.passOptions.is_object() && project.passOptions.value("enable_pass_verify", false);
    history.finalOnly = depth == PassHistoryDepth::FinalIr && !verify;
    options.compile.keepSnapshots = !history.finalOnly;
    options.compile.cancelled = cancelled;
    options.compile.onPassRecorded = [&records](const PassRecord& record) { records.push_back(record); };
    if (verify) {
      // Verify runs the kernel after each pass: the project's own run does it.
      options.mode = SimulationMode::Timing;
      options.check = PrecisionCheck::Never;
      options.onTraced = [&history](const TensorGraph& graph) {
        history.traced = std::make_shared<const TensorGraph>(graph);
        history.tensor = tensorGraphToJson(graph);
      };
      history.complete = runProject(project, diags, options).has_value();
    } else {
      if (!traced)
        if (auto graph = traceProject(project, diags, options.trace))
          traced = std::make_shared<const TensorGraph>(std::move(*graph));
      if (traced) {
        const TensorGraph* graph = traced.get();
        history.traced = traced;
        history.tensor = tensorGraphToJson(*graph);
        options.compile.disabledPasses =
            disabledPassesFrom(project.passOptions, project.locationOf("pass_options"), diags);
        auto settings = compileSettingsFor(project, *graph, argumentShapes(project, *graph, diags), diags);
        auto compiled = settings ? compileKernel(*graph, std::move(*settings), diags, options.compile) : std::nullopt;
        history.complete = compiled.has_value();
        if (compiled && history.finalOnly) finalIr = std::make_shared<IrJson>(irSnapshot(compiled->compilation));
      }
    }
    if (verify && !history.complete && !records.empty()) {
      for (const Diagnostic& diagnostic : diags.diagnostics())
        if (diagnostic.message.rfind("pass verify:", 0) == 0) {
          history.divergedAt = static_cast<int>(records.size()) - 1;
          history.divergence = diagnostic.message;
          history.divergenceLine = diagnostic.location.line;
        }
    }
  } catch (const std::exception& error) {
    diags.error(SourceLocation{project.file.string()}) << "internal error while compiling: " << error.what();
  }

  appendPassSteps(history, std::move(records));
  if (finalIr && !history.steps.empty()) {
    PassStep& last = history.steps.back();
    last.snapshot = std::move(finalIr);
    last.counts = countChanges(irNodes(*last.snapshot), {});
  }
  history.diagnostics = diags.diagnostics();
  for (const Diagnostic& diagnostic : diags.diagnostics()) history.problems += diags.format(diagnostic) + "\n";
  history.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return history;
}

PassHistory passHistoryOfRun(std::shared_ptr<const TensorGraph> traced, const CompileResult& compiled) {
  auto start = std::chrono::steady_clock::now();
  PassHistory history;
  history.finalOnly = true;
  history.complete = true;
  // The kernel's tensor graph on a second thread while this one writes the
  // final IR (a tenth of DIA's first picture each).
  std::future<IrJson> tensor = std::async(std::launch::async, [&traced] { return IrJson(tensorGraphToJson(*traced)); });
  std::vector<PassRecord> records = compiled.passes;
  for (PassRecord& record : records) record.snapshotJson.clear();
  appendPassSteps(history, std::move(records));
  if (!history.steps.empty()) {
    PassStep& last = history.steps.back();
    // No change counts: irNodes would take half a second on a big kernel;
    // the history of every pass that follows has them.
    last.snapshot = std::make_shared<IrJson>(irSnapshot(compiled.compilation));
  }
  history.tensor = tensor.get();
  history.traced = std::move(traced);
  history.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return history;
}


std::string partitionOverridesProblem(const OperatorProject& project, const TensorGraph& traced,
                                      const nlohmann::ordered_json& overrides) {
  OperatorProject edited = project;
  edited.partitionOverrides = overrides;
  edited.partitionOverrideLocations.clear();
  DiagnosticEngine diags;
  try {
    auto settings = compileSettingsFor(edited, traced, argumentShapes(edited, traced, diags), diags);
    if (settings) {
      CompileOptions options;
      options.afterPass = [](const PassInfo& pass, const Compilation&) { return pass.name != "ApplyPartitionOverrides"; };
      compileKernel(traced, std::move(*settings), diags, options);
    }
  } catch (const std::exception& error) {
    return std::string("internal error while checking: ") + error.what();
  }
  for (const Diagnostic& diagnostic : diags.diagnostics())
    if (diagnostic.severity == Severity::Error) return diagnostic.message;
  return {};
}

} // namespace pto
