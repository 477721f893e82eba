// `pto compile PROJECT [--dump-passes DIR]`: run the pass pipeline, report
// each pass, and dump the IR after every pass.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/run/ProjectRun.h"
#include "compiler/ir/PtoProgramText.h"
#include "core/AtomicFile.h"
#include "core/Npy.h"
#include "core/Version.h"
#include "core/project/ArgumentData.h"
#include "core/project/ProjectFile.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace pto::cli {
namespace {

struct CompileCommandOptions : ProjectCommandOptions {
  std::string dumpDir;
};

const ProjectCommandSpec kCompileCommand{
    .name = "compile",
    .description = "Compile a project's kernel and report each pass"};

int runCompile(const CompileCommandOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("compile", options.jsonTarget, diags);
  auto graph = traceProject(*project, diags, options.traceOptions());
  if (!graph) return failCommand("compile", options.jsonTarget, diags);
  CompileOptions compileOptions;
  compileOptions.keepSnapshots = !options.dumpDir.empty();
  auto settings = compileSettingsFor(*project, *graph, argumentShapes(*project, *graph, diags), diags);
  auto compiled = settings ? compileKernel(*graph, std::move(*settings), diags, compileOptions) : std::nullopt;
  if (!compiled) return failCommand("compile", options.jsonTarget, diags);
  printDiagnostics(diags);

  if (!options.dumpDir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.dumpDir, ec);
    int index = 0;
    for (const PassRecord& pass : compiled->passes) {
      ++index;
      if (pass.skipped) continue;
      char prefix[16];
      std::snprintf(prefix, sizeof prefix, "%02d-", index);
      std::filesystem::path file = std::filesystem::path(options.dumpDir) / (prefix + pass.name + ".json");
      std::string reason;
      if (!writeFileAtomically(file, pass.snapshotJson, reason)) {
        std::cerr << file.string() << ": error: cannot write the dump: " << reason << "\n";
        return kExitUserError;
      }
    }
    // The final PTO programs as an assembly-like listing, one per isomorphic subgraph class.
    std::filesystem::path listing = std::filesystem::path(options.dumpDir) / "programs.pto";
    std::string reason;
    if (!writeFileAtomically(listing, ptoProgramsToText(compiled->compilation), reason)) {
      std::cerr << listing.string() << ": error: cannot write the dump: " << reason << "\n";
      return kExitUserError;
    }
  }
  if (options.jsonTarget != "-") {
    std::printf("%s: %zu tensor ops -> %zu tile ops\n", project->name.c_str(), graph->ops().size(),
                compiled->compilation.tiles.tileOps().size());
    std::printf("%-4s %-24s %10s  %s\n", "#", "pass", "time (ms)", "changed");
    int index = 0;
    for (const PassRecord& pass : compiled->passes)
      std::printf("%-4d %-24s %10.3f  %s\n", ++index, pass.name.c_str(), pass.milliseconds,
                  pass.skipped ? "disabled" : (pass.changed ? "yes" : "no"));
    if (!options.dumpDir.empty()) std::printf("dumps written to %s\n", options.dumpDir.c_str());
  }
  return finishCommand("compile", options.jsonTarget, diags, [&](nlohmann::ordered_json& report) {
    report["project"] = project->name;
    report["tensor_ops"] = graph->ops().size();
    report["tile_ops"] = compiled->compilation.tiles.tileOps().size();
    report["passes"] = nlohmann::ordered_json::array();
    for (const PassRecord& pass : compiled->passes)
      report["passes"].push_back(
          {{"name", pass.name}, {"milliseconds", pass.milliseconds}, {"changed", pass.changed}, {"skipped", pass.skipped}});
  });
}

} // namespace

void registerCompileCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kCompileCommand, runCompile);
  command->add_option("--dump-passes", options->dumpDir, "Write the IR after each pass to DIR/NN-<pass>.json and the PTO programs to DIR/programs.pto")
      ->type_name("DIR");
}

} // namespace pto::cli
