// The IDE's Run: a project compiled and simulated off the GUI thread, its
// swimlane indexed for the views. Plain C++ (no QObject): JobRunner calls it
// on a worker thread with the job's cancel flag.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <memory>
#include <string>

namespace pto::studio {

struct ProjectRunOutcome {
  std::shared_ptr<const widgets::TraceIndex> trace;  // null when the run failed
  std::string projectName;
  std::string machine;
  double makespanUs = 0.0;
  bool pass = false;
  int failedOutputs = 0;
  double hostMs = 0.0;   // trace + compile + simulate + check, wall
  std::string problems;  // diagnostics, formatted as the CLI prints them
};

// Loads `projectFile` afresh (the saved file is the snapshot the run uses),
// runs it in timing mode and builds its swimlane. Never throws.
ProjectRunOutcome runProjectForViews(const std::string& projectFile, const std::atomic<bool>& cancelled);

} // namespace pto::studio
