// The command-line pieces every `pto` subcommand shares (Command.h).
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"

namespace pto::cli {

ProjectTraceOptions ProjectCommandOptions::traceOptions() const {
  ProjectTraceOptions options;
  options.timeoutSeconds = timeoutSeconds;
  options.maxElements = maxElements;
  return options;
}

void addTraceOptions(CLI::App& command, double& timeoutSeconds, std::int64_t& maxElements) {
  command.add_option("--timeout", timeoutSeconds, "Stop the kernel's Python code after SECONDS")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.add_option("--max-elements", maxElements, "Largest tensor, in elements, a kernel may create")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  addTrustOption(command);
}

void addProjectOptions(CLI::App& command, ProjectCommandOptions& options, const ProjectCommandSpec& spec) {
  command.add_option("PROJECT", options.projectPath, spec.projectHelp)->required(spec.projectRequired);
  command.add_option("--json", options.jsonTarget, "Also write " + spec.jsonOutput + " to FILE ('-' for stdout)")
      ->type_name("FILE");
  if (spec.tracesKernel) addTraceOptions(command, options.timeoutSeconds, options.maxElements);
}

} // namespace pto::cli
