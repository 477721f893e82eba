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

std::optional<TracedProject> traceProjectForVariants(const ProjectCommandOptions& options, DiagnosticEngine& diags) {
  auto project = loadTrustedProject(options.projectPath, diags);
  if (!project) return std::nullopt;
  return traceForVariants(*project, diags, options.traceOptions());
}

ProjectRunOptions ProjectCommandOptions::runOptions(const std::string& machine) const {
  ProjectRunOptions options;
  options.trace = traceOptions();
  options.machineOverride = machine;
  return options;
}

void addTraceOptions(CLI::App& command, double& timeoutSeconds, std::int64_t& maxElements) {
  command.add_option("--timeout", timeoutSeconds, "Stop the kernel's Python code after SECONDS")
      ->type_name("SECONDS")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  addCountOption(command, "--max-elements", maxElements, "Largest tensor, in elements, a kernel may create");
  addTrustOption(command);
}

void addProjectOptions(CLI::App& command, ProjectCommandOptions& options, const ProjectCommandSpec& spec) {
  command.add_option("PROJECT", options.projectPath, spec.projectHelp)->required(spec.projectRequired);
  command.add_option("--json", options.jsonTarget, "Also write " + spec.jsonOutput + " to FILE ('-' for stdout)")
      ->type_name("FILE");
  if (spec.tracesKernel) addTraceOptions(command, options.timeoutSeconds, options.maxElements);
}

} // namespace pto::cli
