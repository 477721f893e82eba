// `pto runs PROJECT` and `pto compare PROJECT A B`: the runs recorded in the
// project's run ledger (analysis/ledger/RunLedger.h) and what changed from one run
// to another (analysis/ledger/RunComparison.h).
#include "app/pto/Command.h"
#include "app/pto/CommandOutput.h"

#include "analysis/ledger/RunComparison.h"
#include "analysis/ledger/RunLedger.h"
#include "analysis/ledger/RunRecordTrace.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"
#include "runtime/trace/ChromeTraceWriter.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

namespace pto::cli {
namespace {

using Json = nlohmann::ordered_json;

// The ledger is read, no kernel traced: the trace limits go unused.
struct RunsOptions : ProjectCommandOptions {
  int limit = 20;
  std::vector<std::string> swimlane;  // {ID, FILE}: write that run's swimlane instead of listing
};

const ProjectCommandSpec kRunsCommand{
    .name = "runs",
    .description = "List the project's recorded runs, newest first",
    .jsonOutput = "the list as JSON",
    .tracesKernel = false};

struct CompareOptions : ProjectCommandOptions {
  std::string runA, runB;
};

const ProjectCommandSpec kCompareCommand{
    .name = "compare",
    .description = "Compare two recorded runs of the project (B minus A)",
    .jsonOutput = "the comparison as JSON",
    .tracesKernel = false};

// The project's folder, from the folder or its pto-project.json.
std::optional<std::filesystem::path> projectFolder(const std::string& path, DiagnosticEngine& diags) {
  auto file = findProjectFile(path, diags);
  if (!file) return std::nullopt;
  return file->parent_path();
}

// A value as the text shows it: compact JSON, long ones cut.
std::string shortValue(const std::optional<Json>& value, std::size_t width = 32) {
  if (!value) return "(none)";
  std::string text = value->dump();
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  return text;
}

std::string changeText(const SettingDifference& difference) {
  return difference.pointer + " " + shortValue(difference.a) + " -> " + shortValue(difference.b);
}

Json differencesJson(const std::vector<SettingDifference>& differences) {
  Json list = Json::array();
  for (const SettingDifference& difference : differences) {
    Json entry = {{"pointer", difference.pointer}};
    if (difference.a) entry["a"] = *difference.a;
    if (difference.b) entry["b"] = *difference.b;
    list.push_back(std::move(entry));
  }
  return list;
}

// What differs from `before` to `row`, in a few words: the kernel, the
// mode, then the settings (the first three, and how many more).
std::string changesInShort(const RunRow& row, const RunRow& before, const std::vector<SettingDifference>& settings) {
  std::vector<std::string> parts;
  if (row.kernelHash != before.kernelHash) parts.push_back("kernel changed");
  if (row.mode != before.mode) parts.push_back("mode " + before.mode + " -> " + row.mode);
  for (std::size_t i = 0; i < settings.size() && i < 3; ++i) parts.push_back(changeText(settings[i]));
  if (settings.size() > 3) parts.push_back("+" + std::to_string(settings.size() - 3) + " more");
  if (parts.empty()) return "same settings";
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : "; ") + part;
  return text;
}

// `pto runs PROJECT --swimlane ID FILE`: run ID's swimlane, rebuilt from its
// task table (RunRecordTrace.h), as a Chrome/Perfetto trace.
int writeRecordedSwimlane(const std::filesystem::path& folder, const std::string& idText, const std::string& target) {
  DiagnosticEngine diags;
  const std::filesystem::path file = RunLedger::fileIn(folder);
  const SourceLocation at{file.string()};
  std::int64_t id = 0;
  auto [end, ec] = std::from_chars(idText.data(), idText.data() + idText.size(), id);
  std::optional<RunLedger> ledger;
  std::optional<RunRecord> run;
  std::error_code exists;
  if (ec != std::errc() || end != idText.data() + idText.size() || id <= 0)
    diags.error(at) << "--swimlane: '" << idText << "' is not a run id (pto runs lists them)";
  else if (!std::filesystem::exists(file, exists))
    diags.error(at) << "no runs are recorded yet (pto run records each run)";
  else if ((ledger = RunLedger::open(folder, diags)))
    run = ledger->load(id, diags);
  if (run && !run->traceKept)
    diags.error(at) << "run " << id << "'s task table was pruned from the ledger (only the newest runs keep theirs)";
  if (!run || !run->traceKept) {
    printDiagnostics(diags);
    return kExitUserError;
  }
  const trace::Trace swimlane = runRecordTrace(*run);
  std::string error;
  if (!trace::writeChromeTraceFile(swimlane, target, error)) {
    std::fprintf(stderr, "error: cannot write %s: %s\n", target.c_str(), error.c_str());
    return kExitUserError;
  }
  std::printf("run %lld: %zu tasks on %zu lanes, %.3f us, written to %s\n", static_cast<long long>(id),
              swimlane.tasks().size(), swimlane.lanes().size(), run->makespanUs, target.c_str());
  return kExitOk;
}

int runRuns(const RunsOptions& options) {
  DiagnosticEngine diags;
  auto folder = projectFolder(options.projectPath, diags);
  if (!folder) return failCommand("runs", options.jsonTarget, diags);
  if (options.swimlane.size() == 2) return writeRecordedSwimlane(*folder, options.swimlane[0], options.swimlane[1]);
  const std::filesystem::path file = RunLedger::fileIn(*folder);
  std::vector<RunRow> rows;
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {  // listing creates no ledger
    auto ledger = RunLedger::open(*folder, diags);
    // One more than shown: the last row shown is compared with the run before it.
    auto listed = ledger ? ledger->list(diags, options.limit > 0 ? options.limit + 1 : 0) : std::nullopt;
    if (!listed) return failCommand("runs", options.jsonTarget, diags);
    rows = std::move(*listed);
  }
  printDiagnostics(diags);
  const std::size_t shown =
      options.limit > 0 ? std::min(rows.size(), static_cast<std::size_t>(options.limit)) : rows.size();

  Json runs = Json::array();
  std::vector<std::string> changes;
  for (std::size_t i = 0; i < shown; ++i) {
    const RunRow& row = rows[i];
    Json entry = {{"id", row.id},
                  {"time", row.timeUtc},
                  {"project", row.project},
                  {"mode", row.mode},
                  {"machine", row.machine},
                  {"makespan_cycles", row.makespanCycles},
                  {"makespan_us", row.makespanUs},
                  {"tasks", row.tasks},
                  {"trace_kept", row.traceBytes > 0},
                  {"trace_bytes", row.traceBytes},
                  {"kernel_hash", row.kernelHash},
                  {"settings", row.settings}};
    if (i + 1 < rows.size()) {
      const RunRow& before = rows[i + 1];
      const auto differences = settingsDifferences(before.settings, row.settings);
      entry["previous"] = before.id;
      entry["kernel_changed"] = row.kernelHash != before.kernelHash;
      entry["changes"] = differencesJson(differences);
      changes.push_back(changesInShort(row, before, differences));
    } else {
      entry["previous"] = nullptr;
      changes.push_back("(first run)");
    }
    runs.push_back(std::move(entry));
  }

  if (options.jsonTarget != "-") {
    if (rows.empty()) {
      std::printf("no runs recorded in %s (pto run and pto report record each run)\n", file.string().c_str());
    } else {
      std::printf("%s: %zu run%s shown, newest first (%s)\n", rows.front().project.c_str(), shown, shown == 1 ? "" : "s",
                  file.string().c_str());
      std::printf("%5s  %-20s  %-10s  %-8s  %14s  %7s  %-6s  %s\n", "id", "time (UTC)", "mode", "machine", "makespan",
                  "tasks", "trace", "changed from the run before");
      for (std::size_t i = 0; i < shown; ++i) {
        const RunRow& row = rows[i];
        char makespan[32];
        std::snprintf(makespan, sizeof makespan, "%.3f us", row.makespanUs);
        std::printf("%5lld  %-20s  %-10s  %-8s  %14s  %7d  %-6s  %s\n", static_cast<long long>(row.id),
                    row.timeUtc.c_str(), row.mode.c_str(), row.machine.c_str(), makespan, row.tasks,
                    row.traceBytes > 0 ? "kept" : "pruned", changes[i].c_str());
      }
    }
  }
  return finishCommand("runs", options.jsonTarget, diags, [&](nlohmann::ordered_json& report) {
    report["ledger"] = file.string();
    report["runs"] = std::move(runs);
  });
}

// A run named on the command line: an id, `latest`, `previous` (the run
// before the latest) or `-N` (N runs before the latest). `rows` are newest first.
std::optional<std::int64_t> resolveRun(const std::string& spec, const std::vector<RunRow>& rows,
                                       const std::filesystem::path& file, DiagnosticEngine& diags) {
  const SourceLocation at{file.string()};
  if (rows.empty()) return diags.error(at) << "no runs are recorded yet (pto run records each run)";
  std::int64_t back = -1;
  if (spec == "latest") back = 0;
  else if (spec == "previous") back = 1;
  else if (spec.size() > 1 && spec[0] == '-') {
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(spec.data() + 1, spec.data() + spec.size(), n);
    if (ec == std::errc() && end == spec.data() + spec.size()) back = n;
  } else {
    std::int64_t id = 0;
    auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), id);
    if (ec == std::errc() && end == spec.data() + spec.size()) {
      if (std::none_of(rows.begin(), rows.end(), [&](const RunRow& row) { return row.id == id; }))
        return diags.error(at) << "there is no run " << id << "; the runs are " << rows.back().id << " to "
                               << rows.front().id << " (pto runs lists them)";
      return id;
    }
    return diags.error(at) << "'" << spec << "' names no run: give a run id, latest, previous or -N (N runs before "
                           << "the latest)";
  }
  if (back < 0)
    return diags.error(at) << "'" << spec << "' names no run: give a run id, latest, previous or -N";
  if (back >= static_cast<std::int64_t>(rows.size()))
    return diags.error(at) << "'" << spec << "': only " << rows.size() << " run" << (rows.size() == 1 ? " is" : "s are")
                           << " recorded";
  return rows[static_cast<std::size_t>(back)].id;
}

Json runSummaryJson(const RunRecord& run) {
  return {{"id", run.id},           {"time", run.timeUtc},         {"mode", run.mode},
          {"machine", run.machine}, {"makespan_cycles", run.makespanCycles}, {"makespan_us", run.makespanUs},
          {"tasks", run.tasks},     {"trace_kept", run.traceKept}, {"kernel_hash", run.kernelHash}};
}

std::string signedCycles(std::int64_t cycles) {
  return (cycles > 0 ? "+" : "") + std::to_string(cycles);
}

void printComparison(const RunRecord& a, const RunRecord& b, const RunComparison& c) {
  std::printf("A: run %lld, %s, %s on %s\n", static_cast<long long>(a.id), a.timeUtc.c_str(), a.mode.c_str(),
              a.machine.c_str());
  std::printf("B: run %lld, %s, %s on %s\n", static_cast<long long>(b.id), b.timeUtc.c_str(), b.mode.c_str(),
              b.machine.c_str());
  std::printf("makespan %.3f us -> %.3f us: %+.3f us (%+.1f %%), %s cycles\n", c.makespanUsA, c.makespanUsB, c.deltaUs,
              c.deltaPercent, signedCycles(c.deltaCycles).c_str());
  std::printf("kernel %s\n", c.kernelChanged ? "changed" : "unchanged");
  if (c.settings.empty()) std::printf("settings: the same\n");
  else std::printf("settings that differ (%zu):\n", c.settings.size());
  for (const SettingDifference& difference : c.settings)
    std::printf("  %-40s %s -> %s\n", difference.pointer.c_str(), shortValue(difference.a, 60).c_str(),
                shortValue(difference.b, 60).c_str());

  std::printf("\nlabels (largest change in busy time first)\n");
  std::printf("  %-24s %15s %29s %25s\n", "label", "tasks", "busy cycles", "last end");
  for (const LabelDelta& label : c.labels) {
    const std::string tasks = std::to_string(label.tasksA) + " -> " + std::to_string(label.tasksB);
    const std::string busy = std::to_string(label.busyCyclesA) + " -> " + std::to_string(label.busyCyclesB);
    const std::string end = std::to_string(label.lastEndA) + " -> " + std::to_string(label.lastEndB);
    std::printf("  %-24s %15s %29s %25s\n", label.label.empty() ? "(no label)" : label.label.c_str(), tasks.c_str(),
                busy.c_str(), end.c_str());
  }
  if (!c.subgraphGroups.empty()) {
    std::printf("\nsubgraphs by label and core type (largest change in task time first)\n");
    for (const SubgraphGroupDelta& group : c.subgraphGroups)
      std::printf("  %-24s %s  subgraphs %d -> %d, tasks %d -> %d, task cycles %.0f -> %.0f, bound %s -> %s\n",
                  group.label.empty() ? "(no label)" : group.label.c_str(), group.coreType.c_str(), group.subgraphsA,
                  group.subgraphsB, group.tasksA, group.tasksB, group.taskCyclesA, group.taskCyclesB,
                  group.boundA.empty() ? "-" : group.boundA.c_str(), group.boundB.empty() ? "-" : group.boundB.c_str());
  }
  const TaskMatching& tasks = c.tasks;
  if (!tasks.compared) {
    std::printf("\ntasks not matched: a run's task table was pruned\n");
    return;
  }
  std::printf("\ntasks matched by identity: %d matched, %d only in A, %d only in B\n", tasks.matched, tasks.onlyInA,
              tasks.onlyInB);
  if (!tasks.largestStartShifts.empty()) std::printf("largest start shifts (cycles)\n");
  for (const TaskShift& shift : tasks.largestStartShifts)
    std::printf("  %-48s %lld -> %lld (%s)\n", shift.key.c_str(), static_cast<long long>(shift.startA),
                static_cast<long long>(shift.startB), signedCycles(shift.startB - shift.startA).c_str());
  if (!tasks.largestEndShifts.empty()) std::printf("largest end shifts (cycles)\n");
  for (const TaskShift& shift : tasks.largestEndShifts)
    std::printf("  %-48s %lld -> %lld (%s)\n", shift.key.c_str(), static_cast<long long>(shift.endA),
                static_cast<long long>(shift.endB), signedCycles(shift.endB - shift.endA).c_str());
}

int runCompare(const CompareOptions& options) {
  DiagnosticEngine diags;
  auto folder = projectFolder(options.projectPath, diags);
  if (!folder) return failCommand("compare", options.jsonTarget, diags);
  const std::filesystem::path file = RunLedger::fileIn(*folder);
  std::error_code ec;
  std::optional<RunLedger> ledger;
  std::optional<std::vector<RunRow>> rows;
  if (!std::filesystem::exists(file, ec))
    diags.error(SourceLocation{file.string()}) << "no runs are recorded yet (pto run records each run)";
  else if ((ledger = RunLedger::open(*folder, diags)))
    rows = ledger->list(diags);
  std::optional<std::int64_t> idA, idB;
  if (rows) {
    idA = resolveRun(options.runA, *rows, file, diags);
    idB = resolveRun(options.runB, *rows, file, diags);
  }
  std::optional<RunRecord> a, b;
  if (idA && idB) {
    a = ledger->load(*idA, diags);
    b = ledger->load(*idB, diags);
  }
  if (!a || !b) return failCommand("compare", options.jsonTarget, diags);
  printDiagnostics(diags);

  const RunComparison comparison = compareRuns(*a, *b);
  if (options.jsonTarget != "-") printComparison(*a, *b, comparison);
  return finishCommand("compare", options.jsonTarget, diags, [&](nlohmann::ordered_json& report) {
    report["ledger"] = file.string();
    report["a"] = runSummaryJson(*a);
    report["b"] = runSummaryJson(*b);
    report.update(runComparisonJson(comparison));
  });
}

} // namespace

void registerRunsCommands(CLI::App& app, CommandRegistry& registry) {
  auto [list, runs] = addProjectCommand(app, registry, kRunsCommand, runRuns);
  addCountOption(*list, "--limit", runs->limit, "List the newest N runs (0: all)", 0);
  list->add_option("--swimlane", runs->swimlane,
                   "Write run ID's swimlane, rebuilt from its task table (lanes, times, labels), as a "
                   "Chrome/Perfetto trace to FILE instead of listing")
      ->expected(2)
      ->type_name("ID FILE");

  auto [command, compare] = addProjectCommand(app, registry, kCompareCommand, runCompare);
  command->add_option("A", compare->runA, "A run id, latest, previous or -N (N runs before the latest)")->required();
  command->add_option("B", compare->runB, "The run to compare with A, named the same ways")->required();
}

} // namespace pto::cli
