// `pto passes PROJECT [--diff A B]`: the pass pipeline with what each pass
// changed (nodes added, removed, changed per IR level), and the node-by-node
// difference between the IR after two passes.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/PassDiff.h"
#include "analysis/ProjectRun.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <cstdio>
#include <memory>

namespace pto::cli {
namespace {

struct PassesOptions {
  std::string projectPath;
  std::string jsonTarget;
  std::vector<std::string> diff;  // two passes: names or 1-based numbers
  double timeoutSeconds = 60.0;
  std::int64_t maxElements = std::int64_t{1} << 31;
};

// "6 (+6)", "7 (+1 -2 ~3)", "-" for a level that does not exist yet.
std::string countsText(const LevelCounts& counts) {
  if (counts.count == 0 && counts.removed == 0) return "-";
  std::string text = std::to_string(counts.count);
  std::string parts;
  if (counts.added) parts += "+" + std::to_string(counts.added);
  if (counts.removed) parts += std::string(parts.empty() ? "" : " ") + "-" + std::to_string(counts.removed);
  if (counts.changed) parts += std::string(parts.empty() ? "" : " ") + "~" + std::to_string(counts.changed);
  return parts.empty() ? text : text + " (" + parts + ")";
}

// The pass a --diff argument names: its 1-based number or its name; -1 when none.
int passIndex(const std::vector<PassRecord>& passes, const std::string& given) {
  for (std::size_t i = 0; i < passes.size(); ++i)
    if (passes[i].name == given || std::to_string(i + 1) == given) return static_cast<int>(i);
  return -1;
}

int runPasses(const PassesOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("passes", options.jsonTarget, diags);
  ProjectTraceOptions traceOptions;
  traceOptions.timeoutSeconds = options.timeoutSeconds;
  traceOptions.maxElements = options.maxElements;
  auto graph = traceProject(*project, diags, traceOptions);
  CompileOptions compileOptions;
  compileOptions.keepSnapshots = true;
  auto settings = graph ? compileSettingsFor(*project, *graph, argumentShapes(*project, *graph, diags), diags) : std::nullopt;
  auto compiled = settings ? compileKernel(*graph, std::move(*settings), diags, compileOptions) : std::nullopt;
  if (!compiled) return failCommand("passes", options.jsonTarget, diags);
  const std::vector<PassRecord>& passes = compiled->passes;
  int from = -1, to = -1;
  if (!options.diff.empty()) {
    from = passIndex(passes, options.diff[0]);
    to = passIndex(passes, options.diff[1]);
    std::string known;
    for (std::size_t i = 0; i < passes.size(); ++i) known += (i ? ", " : "") + passes[i].name;
    for (int k : {0, 1})
      if ((k ? to : from) < 0)
        diags.error(SourceLocation{project->file.string()})
            << "--diff: there is no pass '" << options.diff[static_cast<std::size_t>(k)] << "' (1 to " << passes.size()
            << ", or one of " << known << ")";
    if (diags.hasErrors()) return failCommand("passes", options.jsonTarget, diags);
  }
  printDiagnostics(diags);

  // Each pass against the one before (the first against nothing); a
  // disabled pass leaves the IR as it was.
  std::vector<std::vector<IrNode>> nodes;
  std::vector<IrNode> previous;
  nlohmann::ordered_json report;
  report["command"] = "passes";
  report["pto_version"] = kVersion;
  report["project"] = project->name;
  report["passes"] = nlohmann::ordered_json::array();
  if (options.jsonTarget != "-")
    std::printf("%-3s %-24s %9s  %-8s %-18s %-18s %-18s %s\n", "#", "pass", "ms", "changed", "tile ops", "subgraphs",
                "programs", "tasks");
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const PassRecord& pass = passes[i];
    std::vector<IrNode> after =
        pass.snapshotJson.empty() ? previous : irNodes(nlohmann::json::parse(pass.snapshotJson, nullptr, false));
    const std::array<LevelCounts, kIrLevelCount> counts = countChanges(after, diffNodes(previous, after));
    nlohmann::ordered_json entry{{"index", i + 1},
                                 {"name", pass.name},
                                 {"milliseconds", pass.milliseconds},
                                 {"changed", pass.changed},
                                 {"skipped", pass.skipped}};
    for (std::size_t level = 0; level < kIrLevelCount; ++level)
      entry["nodes"][std::string(name(static_cast<IrLevel>(level)))] = {{"count", counts[level].count},
                                                                       {"added", counts[level].added},
                                                                       {"removed", counts[level].removed},
                                                                       {"changed", counts[level].changed}};
    report["passes"].push_back(std::move(entry));
    if (options.jsonTarget != "-")
      std::printf("%-3zu %-24s %9.3f  %-8s %-18s %-18s %-18s %s\n", i + 1, pass.name.c_str(), pass.milliseconds,
                  pass.skipped ? "disabled" : (pass.changed ? "yes" : "no"), countsText(counts[0]).c_str(),
                  countsText(counts[1]).c_str(), countsText(counts[2]).c_str(), countsText(counts[3]).c_str());
    previous = after;
    nodes.push_back(std::move(after));
  }
  if (from >= 0) {
    const std::vector<NodeChange> changes =
        diffNodes(nodes[static_cast<std::size_t>(from)], nodes[static_cast<std::size_t>(to)]);
    nlohmann::ordered_json diff{{"from", passes[static_cast<std::size_t>(from)].name},
                                {"to", passes[static_cast<std::size_t>(to)].name},
                                {"changes", nlohmann::ordered_json::array()}};
    if (options.jsonTarget != "-")
      std::printf("\nafter %s -> after %s: %zu node%s differ\n", passes[static_cast<std::size_t>(from)].name.c_str(),
                  passes[static_cast<std::size_t>(to)].name.c_str(), changes.size(), changes.size() == 1 ? "" : "s");
    for (const NodeChange& change : changes) {
      const std::string level(name(change.level));
      diff["changes"].push_back({{"level", level}, {"kind", std::string(1, change.kind)}, {"node", change.label}});
      if (options.jsonTarget != "-") std::printf("  %c %-10s %s\n", change.kind, level.c_str(), change.label.c_str());
    }
    report["diff"] = std::move(diff);
  }
  if (!options.jsonTarget.empty()) {
    report["diagnostics"] = diagnosticsToJson(diags);
    if (!writeJsonReport(options.jsonTarget, report)) return kExitUserError;
  }
  return kExitOk;
}

} // namespace

void registerPassesCommand(CLI::App& app, CommandRegistry& registry) {
  auto options = std::make_shared<PassesOptions>();
  CLI::App* command =
      app.add_subcommand("passes", "List the compiler passes with what each changed, and diff the IR between two");
  command->add_option("PROJECT", options->projectPath, "Project folder or its pto-project.json")->required();
  command->add_option("--diff", options->diff, "Nodes added, removed and changed from after pass A to after pass B")
      ->expected(2)
      ->type_name("A B");
  command->add_option("--json", options->jsonTarget, "Also write a JSON report to FILE ('-' for stdout)")
      ->type_name("FILE");
  addTraceOptions(*command, options->timeoutSeconds, options->maxElements);
  command->callback([&registry, options] { registry.selected = [options] { return runPasses(*options); }; });
}

} // namespace pto::cli
