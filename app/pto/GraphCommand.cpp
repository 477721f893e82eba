// `pto graph PROJECT --stage tensor --format json|dot`: print an IR level.
// With --group (and --after PASS) it prints what the IDE's graph view shows:
// nodes collapsed into groups by subgraph, loop scope or label, after any pass.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "compiler/frontend/ProjectTrace.h"
#include "analysis/irviews/IrGraph.h"
#include "analysis/run/ProjectRun.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/ir/TensorGraphJson.h"
#include "compiler/ir/BlockGraphJson.h"
#include "compiler/ir/ExecuteGraphJson.h"
#include "compiler/ir/TileGraphJson.h"
#include "core/json/JsonPrinter.h"
#include "core/AtomicFile.h"
#include "core/project/ProjectFile.h"

#include <iostream>
#include <memory>

namespace pto::cli {
namespace {

struct GraphOptions {
  std::string projectPath;
  std::string stage = "tensor";
  std::string format = "json";
  std::string outputPath;
  double timeoutSeconds = 60.0;
  std::int64_t maxElements = std::int64_t{1} << 31;
  std::string group;  // empty: the compiler's own dump; else auto, none, subgraph, scope, label
  std::string afterPass;
  std::vector<std::string> expand;
};

// The IDE's picture of a level: IrGraph + visibleGraph, as DOT or JSON.
std::string viewText(const IrGraph& graph, const GraphOptions& options) {
  VisibleGraphOptions visibleOptions = defaultVisibleOptions(graph);
  if (options.group != "auto") visibleOptions.grouping = *graphGroupingNamed(options.group);
  visibleOptions.expanded = {options.expand.begin(), options.expand.end()};
  VisibleGraph visible = visibleGraph(graph, visibleOptions);
  if (options.format == "dot") return visibleGraphToDot(graph, visible);
  nlohmann::ordered_json root;
  root["stage"] = std::string(name(graph.level));
  root["kernel"] = graph.kernel;
  root["grouping"] = std::string(name(visibleOptions.grouping));
  root["node_count"] = graph.nodes.size();
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const VisibleItem& item : visible.items) {
    nlohmann::ordered_json entry{{"key", item.key}, {"title", item.title}, {"detail", item.detail}};
    if (item.group >= 0) entry["members"] = item.members.size();
    if (item.cluster >= 0) entry["subgraph"] = graph.clusters[static_cast<std::size_t>(item.cluster)].id;
    if (item.node >= 0) {
      const IrGraphNode& node = graph.nodes[static_cast<std::size_t>(item.node)];
      entry["kind"] = node.kind;
      entry["label"] = node.label;
      entry["line"] = node.line;
      if (!node.memory.empty()) entry["memory"] = node.memory;
      if (node.tileIndex >= 0) entry["tile"] = node.tileIndex;
    }
    items.push_back(std::move(entry));
  }
  root["items"] = std::move(items);
  nlohmann::ordered_json edges = nlohmann::ordered_json::array();
  for (const VisibleEdge& edge : visible.edges) edges.push_back({edge.from, edge.to, edge.count});
  root["edges"] = std::move(edges);
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const VisibleGroup& group : visible.groups)
    groups.push_back({{"key", group.key}, {"title", group.title}, {"members", group.members.size()}, {"expanded", group.expanded}});
  root["groups"] = std::move(groups);
  return printJson(root);
}

int runGraph(const GraphOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand(diags);
  ProjectTraceOptions traceOptions;
  traceOptions.timeoutSeconds = options.timeoutSeconds;
  traceOptions.maxElements = options.maxElements;
  auto graph = traceProject(*project, diags, traceOptions);
  printDiagnostics(diags);
  if (!graph) return kExitUserError;
  std::string text;
  if (!options.group.empty() || !options.afterPass.empty()) {
    // The IDE's view: the snapshot after the pass asked for (the last by default).
    IrJson tensorJson = tensorGraphToJson(*graph);
    IrJson snapshot = IrJson::object();
    if (options.stage != "tensor") {
      CompileOptions compileOptions;
      compileOptions.keepSnapshots = true;
      compileOptions.disabledPasses = disabledPassesFrom(project->passOptions, project->locationOf("pass_options"), diags);
      auto settings = compileSettingsFor(*project, *graph, argumentShapes(*project, *graph, diags), diags);
      auto compiled = settings ? compileKernel(*graph, std::move(*settings), diags, compileOptions) : std::nullopt;
      printDiagnostics(diags);
      if (!compiled) return kExitUserError;
      const PassRecord* chosen = nullptr;
      std::string known;
      for (std::size_t i = 0; i < compiled->passes.size(); ++i) {
        const PassRecord& record = compiled->passes[i];
        known += (i ? ", " : "") + record.name;
        if (!record.snapshotJson.empty() && (options.afterPass.empty() || record.name == options.afterPass ||
                                             std::to_string(i + 1) == options.afterPass))
          chosen = &record;
        if (chosen && !options.afterPass.empty()) break;
      }
      if (!chosen) {
        diags.error(SourceLocation{project->file.string()})
            << "--after: there is no pass '" << options.afterPass << "' (1 to " << compiled->passes.size()
            << ", or one of " << known << ")";
        printDiagnostics(diags);
        return kExitUserError;
      }
      snapshot = IrJson::parse(chosen->snapshotJson);
    }
    IrGraph irGraph = buildIrGraph(*graphLevelNamed(options.stage), tensorJson, snapshot);
    if (!irGraph.missing.empty()) {
      diags.error(SourceLocation{project->file.string()}) << "no " << options.stage << " graph after pass '"
                                                          << options.afterPass << "': " << irGraph.missing;
      printDiagnostics(diags);
      return kExitUserError;
    }
    text = viewText(irGraph, options);
  } else if (options.stage == "tensor") {
    text = options.format == "dot" ? tensorGraphToDot(*graph) : printTensorGraphJson(*graph);
  } else {
    auto settings = compileSettingsFor(*project, *graph, argumentShapes(*project, *graph, diags), diags);
    auto compiled = settings ? compileKernel(*graph, std::move(*settings), diags) : std::nullopt;
    printDiagnostics(diags);
    if (!compiled) return kExitUserError;
    const Compilation& compilation = compiled->compilation;
    bool dot = options.format == "dot";
    if (options.stage == "tile") text = dot ? tileGraphToDot(compilation.tiles) : printJson(tileGraphToJson(compilation.tiles));
    else if (options.stage == "block") text = dot ? blockGraphToDot(compilation) : printJson(blockGraphToJson(compilation));
    else text = dot ? executeGraphToDot(compilation) : printJson(executeGraphToJson(compilation));
  }
  if (options.outputPath.empty() || options.outputPath == "-") {
    std::cout << text;
    return kExitOk;
  }
  std::string reason;
  if (!writeFileAtomically(options.outputPath, text, reason)) {
    std::cerr << options.outputPath << ": error: cannot write the graph: " << reason << "\n";
    return kExitUserError;
  }
  return kExitOk;
}

} // namespace

void registerGraphCommand(CLI::App& app, CommandRegistry& registry) {
  auto options = std::make_shared<GraphOptions>();
  CLI::App* command = app.add_subcommand("graph", "Trace a project's kernel and print one of its IR levels");
  command->add_option("PROJECT", options->projectPath, "Project folder or its pto-project.json")->required();
  command->add_option("--stage", options->stage, "IR level to print: tensor, tile, block (subgraphs) or exec (tasks)")
      ->check(CLI::IsMember({"tensor", "tile", "block", "exec"}))
      ->capture_default_str();
  command->add_option("--format", options->format, "json or dot (Graphviz)")
      ->check(CLI::IsMember({"json", "dot"}))
      ->capture_default_str();
  command->add_option("-o,--output", options->outputPath, "Write to FILE instead of stdout")->type_name("FILE");
  command->add_option("--group", options->group,
                      "Print what the IDE's graph view shows: nodes grouped by subgraph, tensor op (op), loop scope, label, or "
                      "structure (label, then subgraph, then tensor op) (auto: as the IDE opens it, structure for big "
                      "graphs; none: every node)")
      ->check(CLI::IsMember({"auto", "none", "subgraph", "op", "scope", "label", "structure"}));
  command->add_option("--after", options->afterPass, "The IR after this pass (name or 1-based number); implies --group auto")
      ->type_name("PASS");
  command->add_option("--expand", options->expand, "With --group: show this group expanded (its key, as listed in groups[])")
      ->type_name("KEY");
  addTraceOptions(*command, options->timeoutSeconds, options->maxElements);
  command->callback([&registry, options] {
    if (!options->afterPass.empty() && options->group.empty()) options->group = "auto";
    registry.selected = [options] { return runGraph(*options); };
  });
}

} // namespace pto::cli
