// `pto inspect PATH`: which PyPTO artifact a file or folder is, and what it holds.
#include "analysis/pypto/PyptoArtifacts.h"
#include "app/pto/Command.h"
#include "app/pto/CommandOutput.h"

#include <cstdio>

namespace pto::cli {
namespace {

struct InspectOptions {
  std::string path;
  std::string jsonTarget;
};

int runInspect(const InspectOptions& options) {
  DiagnosticEngine diags;
  std::optional<PyptoArtifact> artifact = readPyptoArtifact(options.path, diags);
  if (!artifact) return failCommand("inspect", options.jsonTarget, diags);
  if (options.jsonTarget != "-") std::fputs(pyptoArtifactSummary(*artifact).c_str(), stdout);
  printDiagnostics(diags);
  return finishCommand("inspect", options.jsonTarget, diags, [&](nlohmann::ordered_json& report) {
    report["ok"] = true;
    const nlohmann::ordered_json figures = pyptoArtifactJson(*artifact);  // items() of a temporary would dangle
    for (const auto& [key, value] : figures.items()) report[key] = value;
  });
}

} // namespace

void registerInspectCommand(CLI::App& app, CommandRegistry& registry) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* command = app.add_subcommand(
      "inspect", "Say which PyPTO artifact PATH is (pass dumps, graph dump, health report, swimlane, core trace) and "
                 "summarise it");
  command->add_option("PATH", options->path,
                      "A folder of Pass_NNN_* dumps, a Before_/After_*.json, a health report, merged_swimlane.json or "
                      "trace_core<N>.json")
      ->required();
  command->add_option("--json", options->jsonTarget, "Also write what it holds as JSON to FILE ('-': stdout)")
      ->type_name("FILE");
  runWhenChosen(*command, registry, options, runInspect);
}

} // namespace pto::cli
