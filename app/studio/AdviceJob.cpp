// The advisor and the tuner on a worker thread.
#include "app/studio/AdviceJob.h"

#include "analysis/tuner/DaskEvaluator.h"
#include "analysis/ledger/RunLedger.h"
#include "core/project/ProjectFile.h"

#include <chrono>
#include <exception>
#include <memory>

namespace pto::studio {
namespace {

// The snapshot as pto-project.json would hold it: the settings panel's
// unsaved edits live in the project's fields, while the advisor and the
// tuner patch (and diff against) its document.
OperatorProject asSaved(const OperatorProject& project) {
  OperatorProject saved = project;
  saved.document = nlohmann::ordered_json::parse(serializeProject(project));
  return saved;
}

std::optional<TracedProject> traced(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                                    DiagnosticEngine& diags) {
  ProjectTraceOptions trace;
  trace.sourceText = request.sourceText;
  trace.cancelled = [&cancelled] { return cancelled.load(); };
  return traceForVariants(asSaved(request.project), diags, trace);
}

// A cancellation predicate that also counts the variants started (the
// tuner calls it from its pool threads).
std::function<bool()> countingCancel(const std::atomic<bool>& cancelled, const VariantProgress& progress) {
  auto started = std::make_shared<std::atomic<int>>(0);
  return [&cancelled, progress, started] {
    const int count = ++*started;
    if (progress) progress(count);
    return cancelled.load();
  };
}

// Traces the request's kernel and runs `work(kernel, outcome, diags)` on it;
// whatever escapes becomes an internal error at the project file ("while
// <activity>"). The outcome gets the diagnostics, formatted too, and the wall
// time of it all.
template <typename Outcome, typename Work>
Outcome onTracedKernel(const ProjectRunRequest& request, const std::atomic<bool>& cancelled, const char* activity,
                       Work&& work) {
  Outcome outcome;
  const auto start = std::chrono::steady_clock::now();
  DiagnosticEngine diags;
  try {
    if (auto kernel = traced(request, cancelled, diags)) work(*kernel, outcome, diags);
  } catch (const std::exception& error) {
    diags.error(SourceLocation{request.project.file.string()}) << "internal error while " << activity << ": "
                                                               << error.what();
  }
  outcome.diagnostics = diags.diagnostics();
  for (const Diagnostic& diagnostic : diags.diagnostics()) outcome.problems += diags.format(diagnostic) + "\n";
  outcome.hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

} // namespace

AdviceOutcome adviseForViews(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                             const VariantProgress& progress) {
  return onTracedKernel<AdviceOutcome>(
      request, cancelled, "advising", [&](TracedProject& kernel, AdviceOutcome& outcome, DiagnosticEngine& diags) {
        AdviceOptions options;
        options.cancelled = countingCancel(cancelled, progress);
        outcome.advice = advise(kernel, diags, options);
        if (cancelled.load()) outcome.advice.reset();  // a cancelled advisor proposes from the variants it got to
      });
}

TuneOutcome tuneForViews(const ProjectRunRequest& request, TuneOptions options, const std::atomic<bool>& cancelled,
                         const std::string& cluster) {
  return onTracedKernel<TuneOutcome>(
      request, cancelled, "tuning", [&](TracedProject& kernel, TuneOutcome& outcome, DiagnosticEngine& diags) {
        options.cancelled = [&cancelled] { return cancelled.load(); };
        // A cluster's workers run `pto` on the project folder, given the
        // document and kernel text traced here: the snapshot's unsaved
        // settings and kernel edits reach them.
        std::unique_ptr<RemotePointEvaluator> remote;
        if (!cluster.empty()) {
          remote = connectDask(DaskConnection::forSweep(kernel, cluster), diags);
          if (!remote) return;
          options.remote = remote.get();
        }
        // The project's result cache, as `pto tune` uses it: a sweep run
        // again simulates only the points it has not seen.
        DiagnosticEngine ledgerDiags;
        std::optional<RunLedger> ledger = RunLedger::open(kernel.project.directory(), ledgerDiags);
        options.cache = ledger ? &*ledger : nullptr;
        outcome.result = tune(kernel, options, diags);
        outcome.project = std::move(kernel.project);
        if (cancelled.load()) outcome.result.reset();
      });
}

} // namespace pto::studio
