// `pto passes PROJECT [--diff A B]`: the pass pipeline with what each pass
// changed (nodes added, removed, changed per IR level), and the node-by-node
// difference between the IR after two passes. `pto passes --list`: the
// pipeline without a project, each pass with the options it declares
// (compiler/settings/Options.h), and the runtime's options.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/irviews/PassDiff.h"
#include "analysis/run/ProjectRun.h"
#include "compiler/passes/Pipeline.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <cstdio>
#include <memory>

namespace pto::cli {
namespace {

struct PassesOptions : ProjectCommandOptions {
  std::vector<std::string> diff;  // two passes: names or 1-based numbers
  bool list = false;
};

const ProjectCommandSpec kPassesCommand{
    .name = "passes",
    .description = "List the compiler passes with what each changed, and diff the IR between two",
    .projectHelp = "Project folder or its pto-project.json (not with --list)",
    .projectRequired = false};

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

nlohmann::ordered_json optionJson(const OptionInfo& info) {
  nlohmann::ordered_json entry{{"name", info.name},
                               {"scope", std::string(name(info.scope))},
                               {"type", std::string(name(info.type))},
                               {"default", info.defaultValue},
                               {"default_text", info.defaultText},
                               {"summary", info.summary},
                               {"read_by", info.readBy}};
  if (info.type == OptionType::Int || info.type == OptionType::Enum) {
    entry["minimum"] = info.minimum;
    entry["maximum"] = info.maximum;
  }
  for (const OptionChoice& choice : info.choices)
    entry["choices"].push_back({{"value", choice.value}, {"meaning", choice.meaning}});
  if (!info.values.empty()) entry["values"] = info.values;
  return entry;
}

// "int 1..1099511627776", "enum 0 keep program order | 1 list scheduling", "list of: RemoveRedundantOp, ...".
std::string optionForm(const OptionInfo& info) {
  std::string form(name(info.type));
  if (info.type == OptionType::Int) form += " " + std::to_string(info.minimum) + ".." + std::to_string(info.maximum);
  for (std::size_t i = 0; i < info.choices.size(); ++i)
    form += (i ? " | " : " ") + std::to_string(info.choices[i].value) + " " + info.choices[i].meaning;
  return form;
}

void printOption(const OptionInfo& info) {
  std::printf("      %-24s %s; default %s\n      %-24s %s\n", info.name.c_str(), optionForm(info).c_str(),
              info.defaultText.c_str(), "", info.summary.c_str());
}

// The pipeline and every option, from the declarations; no project needed.
int listPipeline(const PassesOptions& options) {
  nlohmann::ordered_json report{{"command", "passes"}, {"pto_version", kVersion}};
  const bool text = options.jsonTarget != "-";
  if (text) std::printf("the pass runner (pass_options)\n");
  nlohmann::ordered_json runner = nlohmann::ordered_json::array();
  for (const OptionInfo& info : passRunnerOptions()) {
    runner.push_back(optionJson(info));
    if (text) printOption(info);
  }
  report["runner_options"] = std::move(runner);
  report["pipeline"] = nlohmann::ordered_json::array();
  int index = 0;
  for (const PassInfo& pass : tilePipeline()) {
    nlohmann::ordered_json entry{{"index", ++index},
                                 {"name", std::string(pass.name)},
                                 {"summary", std::string(pass.summary)},
                                 {"required", pass.required},
                                 {"options", nlohmann::ordered_json::array()}};
    if (text)
      std::printf("%-3d %-24s %s%s\n", index, std::string(pass.name).c_str(), std::string(pass.summary).c_str(),
                  pass.required ? "" : " (optional: disable_pass)");
    if (pass.options)
      for (const OptionInfo& info : pass.options()) {
        entry["options"].push_back(optionJson(info));
        if (text) printOption(info);
      }
    report["pipeline"].push_back(std::move(entry));
  }
  if (text) std::printf("the runtime scheduler (runtime_options)\n");
  report["runtime_options"] = nlohmann::ordered_json::array();
  for (const OptionInfo& info : runtimeOptionDeclarations()) {
    report["runtime_options"].push_back(optionJson(info));
    if (text) printOption(info);
  }
  if (!options.jsonTarget.empty() && !writeJsonReport(options.jsonTarget, report)) return kExitUserError;
  return kExitOk;
}

int runPasses(const PassesOptions& options) {
  if (options.list) return listPipeline(options);
  DiagnosticEngine diags;
  if (options.projectPath.empty()) {
    diags.error(SourceLocation{"pto passes"}) << "needs a PROJECT (or --list for the pipeline and its options)";
    return failCommand("passes", options.jsonTarget, diags);
  }
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("passes", options.jsonTarget, diags);
  auto graph = traceProject(*project, diags, options.traceOptions());
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
  nlohmann::ordered_json report = jsonReportFor("passes");
  report["project"] = project->name;
  report["passes"] = nlohmann::ordered_json::array();
  if (options.jsonTarget != "-")
    std::printf("%-3s %-24s %9s  %-8s %-18s %-18s %-18s %s\n", "#", "pass", "ms", "changed", "tile ops", "subgraphs",
                "programs", "tasks");
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const PassRecord& pass = passes[i];
    std::vector<IrNode> after =
        pass.snapshotJson.empty() ? previous : irNodes(IrJson::parse(pass.snapshotJson, nullptr, false));
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
    if (!writeJsonReport(options.jsonTarget, report, diags)) return kExitUserError;
  }
  return kExitOk;
}

} // namespace

void registerPassesCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kPassesCommand, runPasses);
  command->add_flag("--list", options->list,
                    "The pipeline and every pass and runtime option (type, default, range), without a project");
  command->add_option("--diff", options->diff, "Nodes added, removed and changed from after pass A to after pass B")
      ->expected(2)
      ->type_name("A B");
}

} // namespace pto::cli
