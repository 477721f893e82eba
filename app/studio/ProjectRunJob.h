// The IDE's Run: a project compiled and simulated off the GUI thread, its
// swimlane indexed for the views. Plain C++ (no QObject): JobRunner calls it
// on a worker thread with the job's cancel flag.
#pragma once

#include "analysis/report/HealthReport.h"
#include "analysis/run/ProjectRun.h"
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

// What a run works on: a snapshot taken on the GUI thread when Run was
// asked for, so edits made while it runs do not reach it half-way.
struct ProjectRunRequest {
  OperatorProject project;                // with the panel's unsaved settings applied
  std::optional<std::string> sourceText;  // the editor's unsaved kernel text, if modified
};

struct ProjectRunOutcome {
  std::shared_ptr<const widgets::TraceIndex> trace;  // null when the run failed
  // The traced kernel, kept even when compiling failed (the tuning panel
  // lists its tile sites); null when tracing itself failed.
  std::shared_ptr<const TensorGraph> graph;
  // The whole result (outputs, compile and simulation) when the run completed.
  std::shared_ptr<const ProjectRunResult> result;
  // Its health report (the Health tab), made on the worker thread; null
  // when the run did not complete.
  std::shared_ptr<const HealthReport> health;
  // Its id in the project's run ledger; 0 when it was not recorded.
  std::int64_t ledgerRunId = 0;
  std::string projectName;
  std::string machine;
  double makespanUs = 0.0;
  bool pass = false;
  int failedOutputs = 0;
  bool precisionChecked = true;  // false: a large timing run, not compared (see the summary)
  double hostMs = 0.0;  // trace + compile + simulate + check, wall
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
