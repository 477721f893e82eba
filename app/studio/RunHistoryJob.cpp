#include "app/studio/RunHistoryJob.h"

#include "analysis/ledger/RunRecordTrace.h"

#include <unordered_map>

namespace pto::studio {
namespace {

std::string joinedMessages(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics()) text += (text.empty() ? "" : "\n") + diags.format(diagnostic);
  return text;
}

} // namespace

RunHistoryOutcome loadRunHistory(const std::filesystem::path& projectFolder, std::int64_t currentId, int limit) {
  RunHistoryOutcome outcome;
  DiagnosticEngine diags;
  outcome.history = readRunHistory(projectFolder, currentId, diags, limit);
  if (!outcome.history) outcome.error = joinedMessages(diags);
  return outcome;
}

RunComparisonOutcome loadRunComparison(const std::filesystem::path& projectFolder, std::int64_t idA, std::int64_t idB,
                                       const std::atomic<bool>& cancelled) {
  RunComparisonOutcome outcome;
  outcome.idA = idA;
  outcome.idB = idB;
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(projectFolder, diags);
  std::optional<RunRecord> a = ledger ? ledger->load(idA, diags) : std::nullopt;
  std::optional<RunRecord> b = a && !cancelled ? ledger->load(idB, diags) : std::nullopt;
  if (!a || !b) {
    outcome.error = cancelled ? std::string("cancelled") : joinedMessages(diags);
    return outcome;
  }
  outcome.comparison = compareRuns(*a, *b);
  outcome.tasksB = b->tasks;
  if (b->traceKept && !cancelled) {
    auto swimlane = std::make_shared<const trace::Trace>(runRecordTrace(*b));
    outcome.traceB = std::make_shared<const widgets::TraceIndex>(swimlane, "run #" + std::to_string(idB));
    // B's trace task ids are its table's indices; A's trace indices are A's task ids.
    std::unordered_map<std::string, trace::TaskIndex> bByKey;
    outcome.inAOfB.assign(swimlane->tasks().size(), trace::kNoTask);
    for (trace::TaskIndex t = 0; t < swimlane->tasks().size(); ++t)
      bByKey.emplace(b->taskTable[static_cast<std::size_t>(swimlane->tasks()[t].id)].key, t);
    outcome.inBOfA.assign(a->taskTable.size(), trace::kNoTask);
    for (std::size_t id = 0; id < a->taskTable.size(); ++id) {
      auto match = bByKey.find(a->taskTable[id].key);
      if (match == bByKey.end()) continue;
      outcome.inBOfA[id] = match->second;
      outcome.inAOfB[match->second] = static_cast<trace::TaskIndex>(id);
    }
  }
  return outcome;
}

} // namespace pto::studio
