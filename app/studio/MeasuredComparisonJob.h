// The IDE's comparison of a measured trace with the current run: both
// swimlanes with every task's error as its colour class, the pairs as
// selection matches, and the ten largest mismatches. Plain C++ (no QObject):
// JobRunner calls it on a worker thread.
#pragma once

#include "analysis/run/ProjectRun.h"
#include "widgets/models/MismatchListModel.h"
#include "widgets/models/TraceIndex.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace pto::studio {

struct MeasuredComparisonOutcome {
  std::filesystem::path file;
  bool ok = false;
  std::string error;  // when !ok: the diagnostics, as the CLI prints them
  // The run's swimlane again, with error classes (A), and the measured one
  // shifted so that its first paired task starts with the run's (B).
  std::shared_ptr<const widgets::TraceIndex> traceA, traceB;
  std::vector<trace::TaskIndex> inBOfA, inAOfB;
  std::vector<widgets::MismatchRow> largest;  // at most ten, largest first
  std::string summary;  // one line: what was paired, the errors
  double measuredMakespanUs = 0.0, simulatedMakespanUs = 0.0;
};

// `runTrace` is the run's swimlane (its trace indices are task ids).
MeasuredComparisonOutcome compareRunWithMeasured(const std::filesystem::path& file, const ProjectRunResult& run,
                                                 const std::shared_ptr<const widgets::TraceIndex>& runTrace,
                                                 const std::string& projectName);

} // namespace pto::studio
