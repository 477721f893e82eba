// How `pto` subcommands plug into the command line: each registers its CLI11
// subcommand and, when chosen, the action that runs it.
#pragma once

#include "analysis/run/ProjectRun.h"
#include "compiler/frontend/ProjectTrace.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace pto::cli {

// Exit codes shared by every subcommand (documented in docs/cli.md).
enum ExitCode : int {
  kExitOk = 0,
  kExitUserError = 1,  // the input was wrong or a check failed
  kExitUsage = 2,      // the command line was wrong
};

struct CommandRegistry {
  // Set by the chosen subcommand's parse callback; run after parsing.
  std::function<int()> selected;
};

void registerCheckCommand(CLI::App& app, CommandRegistry& registry);
void registerGraphCommand(CLI::App& app, CommandRegistry& registry);
void registerRunCommand(CLI::App& app, CommandRegistry& registry);
void registerCompileCommand(CLI::App& app, CommandRegistry& registry);
void registerNewCommand(CLI::App& app, CommandRegistry& registry);
void registerConfigCommands(CLI::App& app, CommandRegistry& registry);
void registerSettingsCommand(CLI::App& app, CommandRegistry& registry);
void registerValidateCommand(CLI::App& app, CommandRegistry& registry);
void registerPassesCommand(CLI::App& app, CommandRegistry& registry);
void registerReportCommand(CLI::App& app, CommandRegistry& registry);
void registerRunsCommands(CLI::App& app, CommandRegistry& registry);  // runs, compare
void registerAdviseCommands(CLI::App& app, CommandRegistry& registry);
void registerTuneCommand(CLI::App& app, CommandRegistry& registry);
void registerCalibrateCommand(CLI::App& app, CommandRegistry& registry);
void registerTrustCommand(CLI::App& app, CommandRegistry& registry);
void registerInspectCommand(CLI::App& app, CommandRegistry& registry);  // PyPTO artifacts

// An option that takes a count N (at least `least`, 0 or 1), its default shown in --help.
template <class Number>
CLI::Option* addCountOption(CLI::App& command, const std::string& name, Number& value, const std::string& help,
                            int least = 1) {
  return command.add_option(name, value, help)
      ->type_name("N")
      ->check(least > 0 ? CLI::Validator(CLI::PositiveNumber) : CLI::Validator(CLI::NonNegativeNumber))
      ->capture_default_str();
}

// --timeout, --max-elements and --trust, shared by the commands that trace kernels.
void addTraceOptions(CLI::App& command, double& timeoutSeconds, std::int64_t& maxElements);

// Makes `run(*options)` the action when `command` is the one chosen. The
// options live in a shared_ptr because CLI11 writes them while parsing and
// the action reads them after.
template <class Options>
void runWhenChosen(CLI::App& command, CommandRegistry& registry, std::shared_ptr<Options> options,
                   int (*run)(const Options&)) {
  command.callback([&registry, options, run] { registry.selected = [options, run] { return run(*options); }; });
}

// What every command that opens a project takes: PROJECT, --json FILE and
// the limits on tracing its kernel. A command's own options derive from it.
struct ProjectCommandOptions {
  std::string projectPath;
  std::string jsonTarget;
  double timeoutSeconds = 60.0;
  std::int64_t maxElements = std::int64_t{1} << 31;

  // The trace limits as the frontend takes them.
  ProjectTraceOptions traceOptions() const;
  // What a command that runs the project starts from: those limits, and
  // `machine` (a --machine value) in place of the project's when not empty.
  ProjectRunOptions runOptions(const std::string& machine = {}) const;
};

// The project at options.projectPath (trust asked for as --trust says),
// traced once for the variants the advisor, the tuner and calibration
// simulate; nullopt with the reasons in `diags`.
std::optional<TracedProject> traceProjectForVariants(const ProjectCommandOptions& options, DiagnosticEngine& diags);

// How a project command presents itself in --help.
struct ProjectCommandSpec {
  const char* name = "";
  std::string description{};
  std::string projectHelp = "Project folder or its pto-project.json";
  bool projectRequired = true;
  // What --json writes, completing "Also write ... to FILE".
  std::string jsonOutput = "a JSON report";
  // Whether the command traces the kernel: adds --timeout, --max-elements, --trust.
  bool tracesKernel = true;
};

// Adds PROJECT, --json and (when the spec says so) the trace options.
void addProjectOptions(CLI::App& command, ProjectCommandOptions& options, const ProjectCommandSpec& spec);

// Adds the subcommand `spec.name` with the project options and `run` as its
// action; returns it so that the command can add its own options.
template <class Options>
CLI::App* addProjectCommand(CLI::App& app, CommandRegistry& registry, const ProjectCommandSpec& spec,
                            std::shared_ptr<Options> options, int (*run)(const Options&)) {
  static_assert(std::is_base_of_v<ProjectCommandOptions, Options>);
  CLI::App* command = app.add_subcommand(spec.name, spec.description);
  addProjectOptions(*command, *options, spec);
  runWhenChosen(*command, registry, std::move(options), run);
  return command;
}

// The same with options made here: returns the subcommand and its options,
// `auto [command, options] = addProjectCommand(app, registry, {...}, runThing);`.
template <class Options>
std::pair<CLI::App*, std::shared_ptr<Options>> addProjectCommand(CLI::App& app, CommandRegistry& registry,
                                                                 const ProjectCommandSpec& spec,
                                                                 int (*run)(const Options&)) {
  auto options = std::make_shared<Options>();
  return {addProjectCommand(app, registry, spec, options, run), options};
}

} // namespace pto::cli
