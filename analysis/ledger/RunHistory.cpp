// A project's recorded runs with what changed between them.
#include "analysis/ledger/RunHistory.h"

#include <algorithm>
#include <system_error>

namespace pto {

const RunHistoryEntry* RunHistory::find(std::int64_t id) const {
  auto found = std::find_if(runs.begin(), runs.end(), [id](const RunHistoryEntry& entry) { return entry.run.id == id; });
  return found == runs.end() ? nullptr : &*found;
}

RunHistory runHistory(std::vector<RunRow> rows, std::int64_t currentId) {
  RunHistory history;
  const auto current = std::find_if(rows.begin(), rows.end(), [currentId](const RunRow& row) { return row.id == currentId; });
  history.currentId = current == rows.end() ? 0 : currentId;
  history.runs.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    RunHistoryEntry entry;
    entry.run = rows[i];
    entry.current = history.currentId != 0 && rows[i].id == history.currentId;
    if (i + 1 < rows.size()) {
      const RunRow& before = rows[i + 1];
      entry.deltaUsFromPrevious = rows[i].makespanUs - before.makespanUs;
      entry.kernelChangedFromPrevious = rows[i].kernelHash != before.kernelHash;
      entry.sincePrevious = settingsDifferences(before.settings, rows[i].settings);
    }
    if (current != rows.end() && !entry.current) entry.againstCurrent = settingsDifferences(current->settings, rows[i].settings);
    history.runs.push_back(std::move(entry));
  }
  return history;
}

std::optional<RunHistory> readRunHistory(const std::filesystem::path& projectFolder, std::int64_t currentId,
                                         DiagnosticEngine& diags, int limit) {
  const std::filesystem::path file = RunLedger::fileIn(projectFolder);
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    RunHistory empty;
    empty.ledgerFile = file;
    return empty;
  }
  auto ledger = RunLedger::open(projectFolder, diags);
  if (!ledger) return std::nullopt;
  auto rows = ledger->list(diags, limit);
  if (!rows) return std::nullopt;
  RunHistory history = runHistory(std::move(*rows), currentId);
  history.ledgerFile = file;
  return history;
}

} // namespace pto
