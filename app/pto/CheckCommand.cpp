// `pto check PROJECT`: validate an operator project and print what it holds.
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "compiler/frontend/ProjectTrace.h"
#include "compiler/passes/ApplyPartitionOverrides.h"
#include "core/Version.h"
#include "core/project/ProjectFile.h"

#include <iostream>
#include <memory>
#include <sstream>

namespace pto::cli {
namespace {

struct CheckOptions : ProjectCommandOptions {};

// Settings that name parts of the kernel can only be checked against it:
// partition_overrides' labels, lines and tensor ops. The kernel is traced
// for them (only when the project has some, so a plain check stays fast).
bool checkKernelNames(const OperatorProject& project, const CheckOptions& options, DiagnosticEngine& diags) {
  const auto& overrides = project.partitionOverrides;
  if (!overrides.is_array() || overrides.empty()) return true;
  auto graph = traceProject(project, diags, options.traceOptions());
  if (!graph) return false;
  return checkPartitionOverrides(*graph, overrides, project.partitionOverrideLocations, project.file.string(), diags);
}

std::string shapeText(const OperatorProject& project, const KernelArgument& arg) {
  std::string text = "[";
  for (std::size_t i = 0; i < arg.shape.size(); ++i) {
    if (i) text += ", ";
    const ProjectDim& dim = arg.shape[i];
    text += dim.symbol.empty() ? std::to_string(dim.value)
                               : dim.symbol + "=" + std::to_string(project.bindings.at(dim.symbol));
  }
  return text + "]";
}

std::string initText(const InitSpec& init) {
  std::ostringstream out;
  std::visit(
      [&](const auto& spec) {
        using T = std::decay_t<decltype(spec)>;
        if constexpr (std::is_same_v<T, UniformInit>)
          out << "uniform in [" << spec.low << ", " << spec.high << "), seed " << spec.seed;
        else if constexpr (std::is_same_v<T, NormalInit>)
          out << "normal, mean " << spec.mean << ", std " << spec.std << ", seed " << spec.seed;
        else if constexpr (std::is_same_v<T, NpyInit>)
          out << "from " << spec.path;
        else if constexpr (std::is_same_v<T, ValuesInit>)
          out << spec.values.size() << " values given";
        else
          out << initKindName(init);
      },
      init);
  return out.str();
}

nlohmann::ordered_json summaryJson(const OperatorProject& project) {
  nlohmann::ordered_json summary;
  summary["name"] = project.name;
  summary["source"] = project.source;
  summary["entry"] = project.entry;
  summary["machine"] = project.machine;
  summary["args"] = nlohmann::ordered_json::array();
  for (const KernelArgument& arg : project.args) {
    nlohmann::ordered_json entry;
    entry["name"] = arg.name;
    entry["shape"] = *project.concreteShape(arg);
    entry["dtype"] = std::string(name(arg.dtype));
    entry["init"] = std::string(initKindName(arg.init));
    summary["args"].push_back(std::move(entry));
  }
  return summary;
}

void printSummary(const OperatorProject& project) {
  std::size_t nameWidth = 0;
  for (const KernelArgument& arg : project.args) nameWidth = std::max(nameWidth, arg.name.size());
  std::cout << "project   " << project.name << "  (" << project.file.string() << ")\n"
            << "kernel    " << project.source << ", entry " << project.entry << "\n"
            << "machine   " << project.machine << "\n";
  const char* label = "args      ";
  for (const KernelArgument& arg : project.args) {
    std::cout << label << arg.name << std::string(nameWidth - arg.name.size() + 2, ' ') << name(arg.dtype) << " "
              << shapeText(project, arg) << "  " << initText(arg.init) << "\n";
    label = "          ";
  }
}

int runCheck(const CheckOptions& options) {
  DiagnosticEngine diags;
  std::optional<OperatorProject> project = loadTrustedProject(options.projectPath, diags);
  const bool valid = project && checkKernelNames(*project, options, diags);
  printDiagnostics(diags);

  bool toStdout = options.jsonTarget == "-";
  if (!toStdout) {
    if (valid) printSummary(*project);
    std::cout << (valid ? "valid" : "invalid") << " (" << countSummary(diags) << ")\n";
  }
  const int written = finishCommand("check", options.jsonTarget, diags, [&](nlohmann::ordered_json& report) {
    report["project"] = options.projectPath;
    report["valid"] = valid;
    report["errors"] = diags.errorCount();
    report["warnings"] = diags.warningCount();
    if (valid) report["summary"] = summaryJson(*project);
  });
  return valid ? written : kExitUserError;
}

} // namespace

void registerCheckCommand(CLI::App& app, CommandRegistry& registry) {
  addProjectCommand(app, registry, {.name = "check", .description = "Validate an operator project and print its contents"},
                    std::make_shared<CheckOptions>(), runCheck);
}

} // namespace pto::cli
