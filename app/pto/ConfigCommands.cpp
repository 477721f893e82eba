// `pto export-config PROJECT` and `pto import-config PROJECT FILE`: the
// project's tuned settings as a file of their own, and back (analysis/simulation/TunedConfig.h).
#include "app/pto/Command.h"
#include "app/pto/CommandOutput.h"

#include "analysis/run/ProjectRun.h"
#include "analysis/simulation/TunedConfig.h"
#include "core/AtomicFile.h"
#include "core/json/JsonPrinter.h"
#include "core/project/ProjectFile.h"

#include <iostream>
#include <memory>

namespace pto::cli {
namespace {

struct ExportOptions {
  std::string projectPath;
  std::string outputFile;  // empty: stdout
  bool run = false;
};

struct ImportOptions {
  std::string projectPath;
  std::string configFile;
};

int runExport(const ExportOptions& options) {
  DiagnosticEngine diags;
  auto project = loadProject(options.projectPath, diags);
  if (!project) return failCommand(diags);
  std::optional<TunedConfigMeasurement> measured;
  if (options.run) {
    auto run = runProject(*project, diags);
    if (!run || !run->simulation) return failCommand(diags);
    measured = TunedConfigMeasurement{run->simulation->stats.makespanUs, run->simulation->machine,
                                      std::string(name(run->simulation->mode))};
  }
  std::string text = printJson(tunedConfig(*project, measured));
  if (options.outputFile.empty() || options.outputFile == "-") {
    printDiagnostics(diags);
    std::cout << text;
    return kExitOk;
  }
  std::string reason;
  if (!writeFileAtomically(options.outputFile, text, reason))
    diags.error(SourceLocation{options.outputFile}) << "cannot write the tuned config: " << reason;
  printDiagnostics(diags);
  if (diags.hasErrors()) return kExitUserError;
  std::cout << "wrote the tuned config of " << project->name << " to " << options.outputFile << "\n";
  return kExitOk;
}

int runImport(const ImportOptions& options) {
  DiagnosticEngine diags;
  auto project = loadProject(options.projectPath, diags);
  bool ok = project && applyTunedConfigFile(options.configFile, *project, diags) && saveProject(*project, diags);
  printDiagnostics(diags);
  if (!ok) {
    if (project) std::cerr << "pto: " << project->file.string() << " was not changed\n";
    return kExitUserError;
  }
  std::cout << "applied " << options.configFile << " to " << project->file.string() << " (machine "
            << project->machine << ")\n";
  return kExitOk;
}

} // namespace

void registerConfigCommands(CLI::App& app, CommandRegistry& registry) {
  auto exportOptions = std::make_shared<ExportOptions>();
  CLI::App* exportCommand = app.add_subcommand(
      "export-config", "Write a project's tuned settings (tile shapes, pass, runtime options, overrides, machine) as JSON");
  exportCommand->add_option("PROJECT", exportOptions->projectPath, "Project folder or its pto-project.json")->required();
  exportCommand->add_option("-o,--output", exportOptions->outputFile, "Write to FILE instead of stdout")
      ->type_name("FILE");
  exportCommand->add_flag("--run", exportOptions->run, "Run the project first and note its makespan in \"measured\"");
  runWhenChosen(*exportCommand, registry, exportOptions, runExport);

  auto importOptions = std::make_shared<ImportOptions>();
  CLI::App* importCommand =
      app.add_subcommand("import-config", "Apply a tuned-config file to a project and save the project file");
  importCommand->add_option("PROJECT", importOptions->projectPath, "Project folder or its pto-project.json")->required();
  importCommand->add_option("FILE", importOptions->configFile, "A tuned config written by export-config")->required();
  runWhenChosen(*importCommand, registry, importOptions, runImport);
}

} // namespace pto::cli
