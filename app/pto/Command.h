// How `pto` subcommands plug into the command line: each registers its CLI11
// subcommand and, when chosen, the action that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

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

// --timeout, --max-elements and --trust, shared by the commands that trace kernels.
void addTraceOptions(CLI::App& command, double& timeoutSeconds, std::int64_t& maxElements);

} // namespace pto::cli
