// `pto`: the headless PTO Studio command line (everything the IDE shows, as
// text and JSON, for scripts, CI and agents).
#include "app/pto/Command.h"

#include "core/Logging.h"
#include "core/ProcessMemory.h"
#include "core/Version.h"

#include <iostream>

int main(int argc, char** argv) {
  pto::useHeapHugePages(argv);
  pto::keepFreedMemoryForReuse();
  using namespace pto::cli;
  CLI::App app{"pto: check, compile, simulate and inspect PyPTO operator projects.\n"
               "Exit codes: 0 ok, 1 the input was wrong or a check failed, 2 usage error.",
               "pto"};
  app.set_version_flag("--version", std::string("pto ") + pto::kVersion);
  std::optional<std::string> logLevel;
  app.add_option("--log-level", logLevel,
                 "Log verbosity: " + std::string(pto::logLevelNames()) + " (default warn; or set PTO_LOG)")
      ->type_name("LEVEL");
  app.require_subcommand(1);
  app.fallthrough();

  CommandRegistry registry;
  registerCheckCommand(app, registry);
  registerGraphCommand(app, registry);
  registerCompileCommand(app, registry);
  registerPassesCommand(app, registry);
  registerRunCommand(app, registry);
  registerReportCommand(app, registry);
  registerRunsCommands(app, registry);
  registerAdviseCommands(app, registry);
  registerTuneCommand(app, registry);
  registerCalibrateCommand(app, registry);
  registerInspectCommand(app, registry);
  registerNewCommand(app, registry);
  registerTrustCommand(app, registry);
  registerConfigCommands(app, registry);
  registerSettingsCommand(app, registry);
  registerValidateCommand(app, registry);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app.help("", CLI::AppFormatMode::All);
    return kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "pto: " << e.what() << "\nRun 'pto --help' for usage.\n";
    return kExitUsage;
  }

  std::string logError;
  if (!pto::initLogging(logLevel, logError)) {
    std::cerr << "pto: " << logError << "\n";
    return kExitUsage;
  }
  if (!registry.selected) {
    std::cerr << "pto: no command given\nRun 'pto --help' for usage.\n";
    return kExitUsage;
  }
  try {
    return registry.selected();
  } catch (const std::exception& e) {
    // A bug, not the user's fault: say so and how to report it.
    std::cerr << "pto: internal error: " << e.what()
              << "\nThis is a bug in pto; please report it with the command line and project.\n";
    return 3;
  }
}
