// `pto calibrate PROJECT MEASURED...`: fits the project's machine file to
// swimlanes measured on the user's chip (analysis/calibration/Calibration.h) and writes
// the calibrated machine beside the project, with the fit's provenance.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/calibration/Calibration.h"
#include "analysis/run/ProjectRun.h"
#include "core/AtomicFile.h"
#include "core/Version.h"

#include <cstdio>
#include <memory>

namespace pto::cli {
namespace {

namespace fs = std::filesystem;

struct CalibrateOptions : ProjectCommandOptions {
  std::vector<std::string> measured;
  std::vector<std::string> holdOut;
  bool noHoldOut = false;
  std::vector<std::string> parameters;
  int budget = 400;
  bool partial = false;
  double timeScale = 1.0;
  double counterMHz = 0.0;  // 0: PyPTO's rate for the machine
  std::string machine;
  std::string output;
};

const ProjectCommandSpec kCalibrateCommand{
    .name = "calibrate",
    .description = "Fit the project's machine file to swimlanes measured on a chip (merged_swimlane.json, "
                   "tilefwk_L1_prof_data*.json) and write machines/<name>-calibrated.json beside the project"};

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", 100.0 * fraction);
  return buffer;
}

void printResult(const CalibrationResult& result, const std::string& machine, const std::string& project,
                 const fs::path& written) {
  std::printf("calibrated %s on project '%s': %d simulations in %.1f s (%.0f per second)%s\n\n", machine.c_str(),
              project.c_str(), result.simulations, result.seconds,
              result.seconds > 0 ? result.simulations / result.seconds : 0.0,
              result.converged ? "" : ", stopped by --budget before converging");
  std::printf("%-36s %-10s %12s %12s %8s  %s\n", "parameter", "bounds", "from", "to", "factor", "status");
  for (const ParameterFit& fit : result.parameters) {
    char bounds[32];
    std::snprintf(bounds, sizeof bounds, "%g..%g", fit.parameter->minFactor, fit.parameter->maxFactor);
    if (fit.status == "absent") {
      std::printf("%-36s %-10s %12s %12s %8s  %s\n", std::string(fit.parameter->key).c_str(), bounds, "-", "-", "-",
                  "absent from the machine file");
      continue;
    }
    const nlohmann::ordered_json* to = machineFigure(result.machineFile, fit.parameter->key);
    std::printf("%-36s %-10s %12.6g %12.6g %8.3f  %s\n", std::string(fit.parameter->key).c_str(), bounds, fit.from,
                to ? to->get<double>() : fit.from, fit.factor, fit.status.c_str());
  }
  std::printf("\n%-40s %-9s %6s %-15s %-26s %s\n", "trace", "role", "tasks", "matched by",
              "task error median/p90", "makespan error");
  bool anyHeldOut = false;
  for (const TraceFit& trace : result.traces) {
    anyHeldOut = anyHeldOut || trace.heldOut;
    const std::string taskError = percent(trace.before.medianTaskError) + "/" + percent(trace.before.p90TaskError) +
                                  " -> " + percent(trace.after.medianTaskError) + "/" + percent(trace.after.p90TaskError);
    const std::string makespan = signedPercent(trace.before.makespanError) + " -> " + signedPercent(trace.after.makespanError);
    std::printf("%-40s %-9s %6zu %-15s %-26s %s\n", trace.file.filename().string().c_str(),
                trace.heldOut ? "held out" : "fit", trace.tasks, trace.matchKey.c_str(), taskError.c_str(), makespan.c_str());
    for (const std::string& note : trace.notes) std::printf("    %s\n", note.c_str());
  }
  std::printf("(errors before -> after calibration)\n");
  if (!anyHeldOut)
    std::printf("no trace held out: give two or more traces (or --hold-out FILE) to measure the error on a trace the fit "
                "did not see\n");
  if (!written.empty())
    std::printf("\nwrote %s\nuse it with: pto run PROJECT --machine %s (or \"machine\": \"machines/%s\" in "
                "pto-project.json)\n",
                written.string().c_str(), written.string().c_str(), written.filename().string().c_str());
}

int runCalibrate(const CalibrateOptions& options) {
  DiagnosticEngine diags;
  auto traced = traceProjectForVariants(options, diags);
  if (!traced) return failCommand("calibrate", options.jsonTarget, diags);
  const OperatorProject& project = traced->project;
  // Compiled once: the parameters calibration moves change timings, not code.
  OperatorProject variant = traced->project;
  if (!options.machine.empty()) {
    // A path is taken from where pto runs, a name from the machine search path.
    const bool isFile = options.machine.size() > 5 && options.machine.ends_with(".json");
    variant.machine = isFile ? fs::absolute(options.machine).string() : options.machine;
  }
  auto base = simulateVariant(*traced, variant, diags);
  if (!base) return failCommand("calibrate", options.jsonTarget, diags);

  MeasuredTraceOptions readOptions;
  readOptions.timeScale = options.timeScale;
  readOptions.counterMHz = options.counterMHz > 0.0 ? options.counterMHz : pyptoCounterMHzFor(base->machine.name);
  CalibrationInput input;
  input.projectName = project.name;
  input.compilation = &base->compiled.compilation;
  input.machine = &base->machine;
  input.runtime = base->runtime;
  std::vector<std::string> files = options.measured;
  for (const std::string& file : options.holdOut)
    if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
  for (const std::string& file : files)
    if (auto measured = readMeasuredTrace(file, readOptions, diags)) input.traces.push_back(std::move(*measured));
  if (diags.hasErrors()) return failCommand("calibrate", options.jsonTarget, diags);
  if (!options.holdOut.empty()) {
    for (const std::string& file : files)
      input.heldOut.push_back(std::find(options.holdOut.begin(), options.holdOut.end(), file) != options.holdOut.end());
  } else {
    input.heldOut = options.noHoldOut ? std::vector<bool>(files.size(), false) : defaultHoldOut(files.size());
  }

  CalibrationOptions calibration;
  calibration.parameters = options.parameters;
  calibration.budget = options.budget;
  calibration.partial = options.partial;
  calibration.onProgress = [](int simulations, double) {
    if (simulations % 50 == 0) std::fprintf(stderr, "pto calibrate: %d simulations\n", simulations);
  };
  auto result = calibrate(input, calibration, diags);
  if (!result) return failCommand("calibrate", options.jsonTarget, diags);
  for (const ParameterFit& fit : result->parameters)
    if (fit.status == "at bound")
      diags.warning(SourceLocation{base->machine.file.string()})
          << fit.parameter->key << " stopped at its bound (x" << fit.factor
          << "): the chip differs from the model by more than this parameter may explain; the other factors may "
             "compensate for it, so read them with care";

  const fs::path written = !options.output.empty()
                               ? fs::path(options.output)
                               : project.directory() / "machines" / (calibratedMachineName(base->machine.name) + ".json");
  std::error_code error;
  if (written.has_parent_path()) fs::create_directories(written.parent_path(), error);
  std::string writeError;
  if (!writeFileAtomically(written, result->machineFile.dump(2) + "\n", writeError)) {
    diags.error(SourceLocation{written.string()}) << "cannot write the calibrated machine: " << writeError;
    return failCommand("calibrate", options.jsonTarget, diags);
  }
  printDiagnostics(diags);
  if (options.jsonTarget != "-") printResult(*result, base->machine.name, project.name, written);
  return finishCommand("calibrate", options.jsonTarget, diags, [&](nlohmann::ordered_json& report) {
    report["project"] = project.name;
    report["base_machine"] = base->machine.file.string();
    report["machine_file"] = written.string();
    report.update(calibrationResultJson(*result));
  });
}

} // namespace

void registerCalibrateCommand(CLI::App& app, CommandRegistry& registry) {
  auto [command, options] = addProjectCommand(app, registry, kCalibrateCommand, runCalibrate);
  command->add_option("MEASURED", options->measured, "Measured traces of the project as it is configured")
      ->required()
      ->expected(1, -1);
  command->add_option("--hold-out", options->holdOut,
                      "Leave this trace out of the fit and report the error on it (repeatable; default: the last of "
                      "two or more)")
      ->type_name("FILE");
  command->add_flag("--no-hold-out", options->noHoldOut, "Fit on every trace, hold none out");
  command->add_option("--parameters", options->parameters,
                      "Fit these machine figures instead of the default set (comma-separated keys)")
      ->type_name("KEYS")
      ->delimiter(',');
  addCountOption(*command, "--budget", options->budget, "Simulations at most");
  command->add_flag("--partial", options->partial,
                    "Fit on the tasks that pair when a trace misses tasks or has extra ones (no makespan term)");
  command->add_option("--time-scale", options->timeScale, "Multiply every time read by F (a trace not in microseconds)")
      ->type_name("F")
      ->check(CLI::PositiveNumber);
  command->add_option("--counter-mhz", options->counterMHz,
                      "Ticks per microsecond of a tilefwk_L1_prof_data file (default: PyPTO's, 50 on A2/A3, 1000 on 950)")
      ->type_name("F")
      ->check(CLI::PositiveNumber);
  command->add_option("--machine", options->machine, "Start from MACHINE (a name or a .json file) instead of the project's")
      ->type_name("MACHINE");
  command->add_option("--output", options->output, "Write the calibrated machine to FILE instead")->type_name("FILE");
}

} // namespace pto::cli
