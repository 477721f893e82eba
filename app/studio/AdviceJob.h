// The IDE's Advise and Tune: the advisor and the tuner (analysis/advisor/Advisor.h,
// analysis/tuner/Tuner.h) on a snapshot of the open project, off the GUI thread.
// Plain C++ (no QObject): JobRunner calls these on a worker thread with the
// job's cancel flag, as it calls runProjectForViews.
#pragma once

#include "analysis/advisor/Advisor.h"
#include "analysis/tuner/Tuner.h"
#include "app/studio/ProjectRunJob.h"
#include "core/Diagnostics.h"

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto::studio {

struct AdviceOutcome {
  std::optional<Advice> advice;  // nullopt: it failed (diagnostics say why) or was cancelled
  std::vector<Diagnostic> diagnostics;
  std::string problems;  // the diagnostics, formatted as the CLI prints them
  double hostMs = 0.0;   // trace + advise, wall
};

struct TuneOutcome {
  std::optional<TuneResult> result;
  // The project the sweep ran on, as pto-project.json would hold it with the
  // IDE's unsaved settings: tunePatch() diffs a point against it.
  std::optional<OperatorProject> project;
  std::vector<Diagnostic> diagnostics;
  std::string problems;
  double hostMs = 0.0;
};

// Called on a worker thread as each variant the advisor simulates starts,
// with the count so far (the tuner reports through TuneOptions::progress).
using VariantProgress = std::function<void(int started)>;

// Traces the request's kernel once, then advises. The advisor's patches and
// the tuner's points are diffs of the project's document, so the snapshot's
// unsaved settings are written into its document first (as saving would).
AdviceOutcome adviseForViews(const ProjectRunRequest& request, const std::atomic<bool>& cancelled,
                             const VariantProgress& progress = {});

// Traces once, then tunes with `options` (its `cancelled` is replaced by the
// job's flag; its `progress` is called as results arrive), on this machine or,
// given a Dask scheduler's address in `cluster`, on that cluster's workers.
TuneOutcome tuneForViews(const ProjectRunRequest& request, TuneOptions options, const std::atomic<bool>& cancelled,
                         const std::string& cluster = {});

} // namespace pto::studio
