// RunHistory: a project's recorded runs (RunLedger.h) as the IDE's Runs
// panel lists them: newest first, each with what changed from the run before
// it and from the current run, so a trend of makespans reads as a story of
// settings. Plain data, made off the GUI thread (readRunHistory opens the
// SQLite ledger).
#pragma once

#include "analysis/ledger/RunComparison.h"
#include "analysis/ledger/RunLedger.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

namespace pto {

struct RunHistoryEntry {
  RunRow run;
  bool current = false;  // the run whose swimlane the IDE shows (RunHistory::currentId)
  // From the run recorded before this one (none for the first): the
  // makespan change (this minus that), whether the kernel changed and the
  // settings that differ (a: that run's value, b: this one's).
  std::optional<double> deltaUsFromPrevious;
  bool kernelChangedFromPrevious = false;
  std::vector<SettingDifference> sincePrevious;
  // Against the current run (a: the current run's value, b: this one's, as
  // compareRuns(current, this) has them); empty for the current run itself
  // and when no run is current.
  std::vector<SettingDifference> againstCurrent;
};

struct RunHistory {
  std::vector<RunHistoryEntry> runs;  // newest first
  std::int64_t currentId = 0;         // 0: none of the listed runs is current
  std::filesystem::path ledgerFile;

  const RunHistoryEntry* find(std::int64_t id) const;
};

// `rows` newest first, as RunLedger::list gives them. `currentId` marks the
// current run (0 or an id not listed: none).
RunHistory runHistory(std::vector<RunRow> rows, std::int64_t currentId);

// The history of the project in `projectFolder`: at most `limit` runs
// (0: all). A project without a ledger file has an empty history (reading
// creates no ledger); nullopt with an error when the ledger cannot be read.
std::optional<RunHistory> readRunHistory(const std::filesystem::path& projectFolder, std::int64_t currentId,
                                         DiagnosticEngine& diags, int limit = 0);

} // namespace pto
