// The IDE's Run: a project compiled and simulated off the GUI thread, its
// swimlane indexed for the views. Plain C++ (no QObject): JobRunner calls it
// on a worker thread with the job's cancel flag.
#pragma once

#include "analysis/ledger/RunRecord.h"
#include "analysis/report/HealthReport.h"
#include "analysis/report/LineCost.h"
#include "analysis/run/ProjectRun.h"
#include "compiler/passes/PassResultCache.h"
#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"
#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pto::studio {

// The run opening a project made, not recorded in its ledger, while nothing
// recorded yet repeats it. The next recorded run records it first unless it
// repeats it, so that the run an edit is compared with is in the ledger;
// `taken` says a recorded run has dealt with it (it is the first one's).
struct UnrecordedRun {
  explicit UnrecordedRun(RunRecord run) : record(std::move(run)) {}
  const RunRecord record;
  std::atomic<bool> taken{false};
};

// What a run works on: a snapshot taken on the GUI thread when Run was
// asked for, so edits made while it runs do not reach it half-way.
struct ProjectRunRequest {
  OperatorProject project;                // with the panel's unsaved settings applied
  std::optional<std::string> sourceText;  // the editor's unsaved kernel text, if modified
  // Whether the completed run is recorded in the project's run ledger; read
  // when the run completes, so that a run in flight can still be asked to
  // record. Null: it is.
  std::shared_ptr<const std::atomic<bool>> recordInLedger;
  // When recorded: the project's opening run to record before it (see UnrecordedRun).
  std::shared_ptr<UnrecordedRun> recordBefore;
  // The compile stages of earlier runs (kept by the RunController across
  // runs): an edit reruns only the passes it invalidates. Null: all run.
  std::shared_ptr<PassResultCache> passStages;
};

struct ProjectRunOutcome {
  // What was run: the graph views reuse the run's compilation when their
  // inputs are still these (GraphsController::useRun).
  std::shared_ptr<const ProjectRunRequest> request;
  std::shared_ptr<const widgets::TraceIndex> trace;  // null when the run failed
  // The traced kernel, kept even when compiling failed (the tuning panel
  // lists its tile sites); null when tracing itself failed.
  std::shared_ptr<const TensorGraph> graph;
  // The whole result (outputs, compile and simulation) when the run completed.
  std::shared_ptr<const ProjectRunResult> result;
  // Its health report (the Health tab), made on the worker thread; null
  // when the run did not complete.
  std::shared_ptr<const HealthReport> health;
  // Its busy time per kernel line (the editor's heatmap), likewise.
  std::shared_ptr<const LineCostReport> lineCost;
  // Its id in the project's run ledger: the row it added or, for a run not
  // recorded, the newest recorded run it repeats (the same kernel, settings,
  // machine, mode, makespan and tasks: the simulator is deterministic, so
  // that row describes this run); 0 when neither.
  std::int64_t ledgerRunId = 0;
  bool recorded = false;  // it added the row ledgerRunId
  // This run's record when it was neither recorded nor repeats a recorded run.
  std::shared_ptr<UnrecordedRun> unrecorded;
  std::string projectName;
  std::string machine;
  double makespanUs = 0.0;
  bool pass = false;
  int failedOutputs = 0;
  bool precisionChecked = true;  // false: a large timing run, not compared (see the summary)
  double hostMs = 0.0;  // trace + compile + simulate + check, wall
  // Which passes ran and which were reused from an earlier run
  // (passesRanSummary); empty when it did not compile.
  std::string passesRan;
  std::vector<Diagnostic> diagnostics;
  std::string problems;  // the diagnostics, formatted as the CLI prints them
};

// Called on the worker thread while a run goes on.
struct ProjectRunProgress {
  // As each stage begins ("tracing", "compiling", ...).
  std::function<void(std::string_view stage)> onStage;
  // As soon as the swimlane exists, before the precision check: an outcome
  // with trace, machine and makespan set, pass not yet known.
  std::function<void(ProjectRunOutcome early)> onSwimlane;
};

// Runs the snapshot in timing mode and builds its swimlane. Never throws.
ProjectRunOutcome runProjectForViews(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                                     const ProjectRunProgress& progress = {});

} // namespace pto::studio
