// `pto run PROJECT`: trace, execute, compare with the golden, report.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/simulation/CostModelOutput.h"
#include "analysis/run/ProjectRun.h"
#include "analysis/ledger/RunLedger.h"
#include "runtime/trace/ChromeTraceWriter.h"
#include "core/AtomicFile.h"
#include "core/Npy.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

namespace pto::cli {
namespace {

struct RunOptions : ProjectCommandOptions {
  std::string saveOutputsDir;
  std::string traceFile;
  bool simOutput = false;
  std::string machine;
  std::string mode = "timing";
  bool check = false;
  bool noCheck = false;
  bool noRecord = false;
};

const ProjectCommandSpec kRunCommand{
    .name = "run",
    .description = "Run a project and check its outputs against the golden"};

std::string formatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

nlohmann::ordered_json reportJson(const OperatorProject& project, const ProjectRunResult& run) {
  nlohmann::ordered_json report = jsonReportFor("run");
  report["project"] = project.name;
  report["pass"] = run.pass();
  if (run.simulation && run.compiled) addSimulationReport(report, run.compiled->compilation, *run.simulation);
  report["outputs_from"] = run.executor;
  report["precision_checked"] = run.precisionSkipped.empty();
  if (!run.precisionSkipped.empty()) report["precision_skipped"] = run.precisionSkipped;
  report["multiply_adds"] = run.multiplyAdds;
  report["ops"] = run.graph.ops().size();
  report["tile_ops"] = run.compiled ? run.compiled->compilation.tiles.tileOps().size() : 0;
  report["timings_ms"] = {{"trace", run.traceMs},       {"golden", run.goldenMs},
                          {"compile", run.compileMs},   {"simulate", run.simulateMs},
                          {"execute", run.executeMs}};
  if (run.precisionSkipped.empty()) {
    report["golden_staged"] = run.stagedGolden;
    report["golden_handed_over"] = run.handedOver;
    report["golden_not_staged"] = run.stagedNote;
  }
  report["outputs"] = nlohmann::ordered_json::array();
  for (const OutputResult& output : run.outputs)
    report["outputs"].push_back(outputReportJson(output.name, output.actual, output.goldenSource, output.comparison));
  return report;
}

void printReport(const OperatorProject& project, const ProjectRunResult& run) {
  std::printf("%s: %zu ops traced in %.1f ms, compiled to %zu tile ops in %.1f ms, simulated in %.1f ms\n",
              project.name.c_str(), run.graph.ops().size(), run.traceMs,
              run.compiled ? run.compiled->compilation.tiles.tileOps().size() : 0, run.compileMs, run.simulateMs);
  if (run.simulation && run.compiled) {
    const Simulation& sim = *run.simulation;
    const SimulationStats& stats = sim.stats;
    std::printf("machine %s, %s mode: makespan %.3f us (%lld cycles at %.2f GHz); %zu tasks (AIC %d, AIV %d) "
                "from %zu subgraphs; utilization AIC %.1f%%, AIV %.1f%%\n",
                sim.machine.c_str(), std::string(name(sim.mode)).c_str(), stats.makespanUs,
                static_cast<long long>(stats.makespanCycles), sim.clockGHz, sim.schedule.tasks.size(),
                stats.tasksByCoreType[0], stats.tasksByCoreType[1], run.compiled->compilation.blocks.subgraphs.size(),
                100.0 * stats.utilizationByCoreType[0], 100.0 * stats.utilizationByCoreType[1]);
  }
  if (!run.precisionSkipped.empty()) {
    std::printf("precision not checked: %s; --check checks it (the tile graph on the CPU), --mode functional "
                "executes the PTO programs on the data\n",
                run.precisionSkipped.c_str());
    return;
  }
  std::printf("outputs from %s\n", run.executor == "tiles" ? "the tile graph on the CPU (timing mode; --mode functional "
                                                             "executes the PTO programs)"
                                                           : "the simulated PTO programs");
  // The name column fits the longest output name (kv_cache, selected_cache, ...).
  int nameWidth = 12;
  for (const OutputResult& output : run.outputs) nameWidth = std::max(nameWidth, static_cast<int>(output.name.size()));
  std::printf("%-*s %-9s %-20s %-12s %-12s %-16s %s\n", nameWidth, "output", "dtype", "shape", "max abs err", "max rel err",
              "mismatches", "result");
  for (const OutputResult& output : run.outputs) {
    const OutputComparison& c = output.comparison;
    std::string mismatches = std::to_string(c.mismatches) + "/" + std::to_string(c.elements);
    std::printf("%-*s %-9s %-20s %-12s %-12s %-16s %s (%s; golden: %s)\n", nameWidth, output.name.c_str(),
                std::string(name(output.actual.dtype())).c_str(), output.actual.shape().str().c_str(),
                formatNumber(c.maxAbsError).c_str(), formatNumber(c.maxRelError).c_str(), mismatches.c_str(),
                c.pass() ? "pass" : "FAIL", judgementText(c).c_str(), output.goldenSource.c_str());
  }
  if (run.stagedGolden)
    std::printf("golden staged: later stages judged on the kernel's own %s (docs/cli.md, how outputs are judged)\n",
                joined(run.handedOver).c_str());
  else if (!run.stagedNote.empty())
    std::printf("golden not staged (%s): later stages are judged on the reference's own intermediates\n",
                run.stagedNote.c_str());
  if (run.outputs.empty()) std::printf("(the kernel writes no outputs)\n");
}

bool saveOutputs(const ProjectRunResult& run, const std::string& directory, DiagnosticEngine& diags) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) return diags.error(SourceLocation{directory}) << "cannot create the output folder: " << ec.message();
  for (const OutputResult& output : run.outputs)
    if (!writeNpy(std::filesystem::path(directory) / (output.name + ".npy"), output.actual, diags)) return false;
  return true;
}

// The run's swimlane as Chrome/Perfetto trace JSON (docs/cli.md).
bool writeTrace(const ProjectRunResult& run, const std::string& file, DiagnosticEngine& diags) {
  trace::Trace swimlane = simulationTrace(run.compiled->compilation, *run.simulation);
  std::string reason;
  if (!trace::writeChromeTraceFile(swimlane, file, reason))
    return diags.error(SourceLocation{file}) << "cannot write the trace: " << reason;
  return true;
}

int runRun(const RunOptions& options) {
  DiagnosticEngine diags;
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return failCommand("run", options.jsonTarget, diags);
  ProjectRunOptions runOptions = options.runOptions(options.machine);
  runOptions.mode = *parseSimulationMode(options.mode);  // CLI11 checked the spelling
  runOptions.check = options.check ? PrecisionCheck::Always : options.noCheck ? PrecisionCheck::Never : PrecisionCheck::Auto;
  auto run = runProject(*project, diags, runOptions);
  if (run && !options.noRecord) recordRun(*project, *run, nullptr, diags);  // a warning at worst
  bool saved = !run || options.saveOutputsDir.empty() || saveOutputs(*run, options.saveOutputsDir, diags);
  if (run && saved && !options.traceFile.empty()) saved = writeTrace(*run, options.traceFile, diags);
  if (run && saved && options.simOutput) {
    std::string reason;
    auto folder = writeCostModelOutput(simulationTrace(run->compiled->compilation, *run->simulation),
                                       reportJson(*project, *run), reason);
    if (folder)
      std::fprintf(stderr, "pto: wrote %s/%s\n", folder->string().c_str(), kMergedSwimlaneName);
    else
      saved = static_cast<bool>(diags.error(SourceLocation{costModelBaseFolder().string()}) << reason);
  }
  if (!run || !saved) return failCommand("run", options.jsonTarget, diags);
  printDiagnostics(diags);
  if (options.jsonTarget != "-") printReport(*project, *run);
  if (!options.jsonTarget.empty()) {
    nlohmann::ordered_json report = reportJson(*project, *run);
    if (!writeJsonReport(options.jsonTarget, report, diags)) return kExitUserError;
  }
  return run->pass() ? kExitOk : kExitUserError;
}

} // namespace

void registerRunCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kRunCommand, runRun);
  command->add_option("--save-outputs", options->saveOutputsDir, "Write each output as DIR/<name>.npy")
      ->type_name("DIR");
  command->add_option("--machine", options->machine, "Simulate on MACHINE instead of the project's (a2, a3, 950, tiny, ...)")
      ->type_name("MACHINE");
  command->add_option("--mode", options->mode,
                      "timing: the timeline only (outputs from the tile graph on the CPU); functional: also execute "
                      "every PTO instruction on the data")
      ->check(CLI::IsMember({"timing", "functional"}))
      ->capture_default_str();
  CLI::Option* check =
      command->add_flag("--check", options->check,
                        "Always compare the outputs with the golden (default: always in functional mode; in timing "
                        "mode only when the kernel is at most 1e9 multiply-adds, since the CPU executes it)");
  command->add_flag("--no-check", options->noCheck, "Never compute the golden; report the timeline only")
      ->excludes(check);
  command->add_option("--trace", options->traceFile, "Write the swimlane as Chrome/Perfetto trace JSON to FILE")
      ->type_name("FILE");
  command->add_flag("--sim-output", options->simOutput,
                    "Also write PyPTO's simulator-mode folder: output/output_<time>_<pid>_<host>/"
                    "CostModelSimulationOutput/merged_swimlane.json (base folder: $TILE_FWK_OUTPUT_DIR, else "
                    "$ASCEND_WORK_PATH/pypto, else ./output)");
  command->add_flag("--no-record", options->noRecord,
                    "Do not record the run in the project's run ledger (.pto/ledger.sqlite; pto runs lists it)");
}

} // namespace pto::cli
