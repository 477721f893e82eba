// `pto graph PROJECT --stage tensor --format json|dot`: print an IR level.
#include "app/pto/Command.h"
#include "app/pto/CommandOutput.h"

#include "compiler/frontend/ProjectTrace.h"
#include "analysis/ProjectRun.h"
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
};

int runGraph(const GraphOptions& options) {
  DiagnosticEngine diags;
  auto project = loadProject(options.projectPath, diags);
  if (!project) {
    printDiagnostics(diags);
    return kExitUserError;
  }
  ProjectTraceOptions traceOptions;
  traceOptions.timeoutSeconds = options.timeoutSeconds;
  traceOptions.maxElements = options.maxElements;
  auto graph = traceProject(*project, diags, traceOptions);
  printDiagnostics(diags);
  if (!graph) return kExitUserError;
  std::string text;
  if (options.stage == "tensor") {
    text = options.format == "dot" ? tensorGraphToDot(*graph) : printTensorGraphJson(*graph);
  } else {
    auto settings = compileSettingsFor(*project, *graph, argumentShapes(*project), diags);
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
  addTraceOptions(*command, options->timeoutSeconds, options->maxElements);
  command->callback([&registry, options] { registry.selected = [options] { return runGraph(*options); }; });
}

} // namespace pto::cli
