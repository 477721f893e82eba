// The IDE's reads of the run ledger: the Runs panel's list and an A/B
// comparison of the current run with a recorded one. Plain C++ (no QObject):
// the ledger is an SQLite file, so JobRunner calls these on a worker thread.
#pragma once

#include "analysis/ledger/RunComparison.h"
#include "analysis/ledger/RunHistory.h"
#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pto::studio {

struct RunHistoryOutcome {
  std::optional<RunHistory> history;  // nullopt when the ledger could not be read
  std::string error;                  // then: why, as the CLI prints it
};

// The runs of the project in `projectFolder` (at most `limit`), `currentId`
// marked current.
RunHistoryOutcome loadRunHistory(const std::filesystem::path& projectFolder, std::int64_t currentId, int limit);

struct RunComparisonOutcome {
  std::int64_t idA = 0, idB = 0;
  std::optional<RunComparison> comparison;  // nullopt on error
  // B's swimlane, rebuilt from its task table (runRecordTrace); null when the
  // ledger pruned that table.
  std::shared_ptr<const widgets::TraceIndex> traceB;
  int tasksB = 0;
  // The same task in the other run (matched by identity, RunRecord.h): per
  // task of the current run's swimlane (its trace indices are task ids) the
  // task index in B's swimlane, and per B task the one in A's; kNoTask where
  // a task has no match.
  std::vector<trace::TaskIndex> inBOfA, inAOfB;
  std::string error;
};

// Loads runs `idA` (the current run) and `idB` and compares them (B minus A).
// `cancelled` is checked between the steps.
RunComparisonOutcome loadRunComparison(const std::filesystem::path& projectFolder, std::int64_t idA, std::int64_t idB,
                                       const std::atomic<bool>& cancelled);

} // namespace pto::studio
