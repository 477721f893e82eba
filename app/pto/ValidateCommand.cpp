// `pto validate`: the timing validation table (simulated vs published
// measurements and first-principles bounds).
#include "app/pto/Command.h"
#include "app/pto/TrustCommand.h"
#include "app/pto/CommandOutput.h"

#include "analysis/Validation.h"
#include "core/Version.h"

#include <cstdio>
#include <memory>

namespace pto::cli {
namespace {

struct ValidateOptions {
  std::string machine;
  std::string jsonTarget;
  std::string suiteFolder;
  std::vector<std::string> only;
  bool list = false;
};

std::string microseconds(double us) {
  char buffer[32];
  if (us >= 1000.0) std::snprintf(buffer, sizeof buffer, "%.3f ms", us / 1000.0);
  else std::snprintf(buffer, sizeof buffer, "%.2f us", us);
  return buffer;
}

void printTable(const std::vector<ValidationResult>& results) {
  std::printf("%-36s %-7s %-9s %-11s %-11s %-8s %-20s %s\n", "case", "machine", "kind", "reference", "simulated",
              "error", "criterion", "result");
  int passed = 0, failed = 0, pending = 0;
  for (const ValidationResult& result : results) {
    std::string reference = result.referenceUs > 0.0 ? microseconds(result.referenceUs) : "-";
    if (!result.ran) {
      const bool isPending = result.kind == "pending";
      std::printf("%-36s %-7s %-9s %-11s %-11s %-8s %-20s %s%s\n", result.name.c_str(), result.machine.c_str(),
                  result.kind.c_str(), reference.c_str(), "-", "-", "-", isPending ? "pending: " : "NOT RUN: ",
                  result.failure.c_str());
      (isPending ? pending : failed) += 1;
      continue;
    }
    char error[32];
    std::snprintf(error, sizeof error, "%+.1f%%", result.error * 100.0);
    std::printf("%-36s %-7s %-9s %-11s %-11s %-8s %-20s %s\n", result.name.c_str(), result.machine.c_str(),
                result.kind.c_str(), reference.c_str(), microseconds(result.simulatedUs).c_str(), error,
                result.criterion.c_str(), result.pass ? "pass" : "FAIL");
    (result.pass ? passed : failed) += 1;
  }
  std::printf("\n%d passed, %d failed, %d pending of %zu cases\n", passed, failed, pending, results.size());
  std::printf("\nsources:\n");
  for (const ValidationResult& result : results) {
    std::printf("  %s: %s\n", result.name.c_str(), result.source.c_str());
    if (!result.toleranceReason.empty()) std::printf("    tolerance: %s\n", result.toleranceReason.c_str());
  }
}

int runValidate(const ValidateOptions& options) {
  DiagnosticEngine diags;
  const std::filesystem::path folder =
      options.suiteFolder.empty() ? validationSuiteFolder() : std::filesystem::path(options.suiteFolder);
  std::optional<ValidationSuite> suite = loadValidationSuite(folder, diags);
  if (!suite) return failCommand("validate", options.jsonTarget, diags);
  // The bundled suite ships with the program; another folder's kernels run only when trusted.
  if (!options.list && !options.suiteFolder.empty() && !requireTrustedFolder(folder, folder / "validation.json", diags)) {
    return failCommand("validate", options.jsonTarget, diags);
  }
  if (options.list) {
    for (const ValidationCase& validation : suite->cases)
      std::printf("%-36s %-7s %-9s %s\n", validation.name.c_str(), validation.machine.c_str(), validation.kind.c_str(),
                  validation.source.c_str());
    return kExitOk;
  }
  for (const std::string& name : options.only) {
    bool known = false;
    for (const ValidationCase& validation : suite->cases) known = known || validation.name == name;
    if (!known) diags.error(SourceLocation{(folder / "validation.json").string()}) << "no validation case '" << name << "' (pto validate --list lists them)";
  }
  if (diags.hasErrors()) return failCommand("validate", options.jsonTarget, diags);
  ValidationOptions validationOptions;
  validationOptions.machineOverride = options.machine;
  validationOptions.only = options.only;
  validationOptions.onCase = [](const ValidationCase& validation) {
    std::fprintf(stderr, "pto validate: %s\n", validation.name.c_str());
  };
  std::vector<ValidationResult> results = runValidation(*suite, validationOptions, diags);
  printDiagnostics(diags);
  bool allPass = true;
  for (const ValidationResult& result : results) allPass = allPass && (result.pass || result.kind == "pending");
  if (options.jsonTarget != "-") printTable(results);
  if (!options.jsonTarget.empty()) {
    nlohmann::ordered_json report;
    report["command"] = "validate";
    report["pto_version"] = kVersion;
    report["suite"] = (folder / "validation.json").string();
    report["pass"] = allPass;
    report["cases"] = nlohmann::ordered_json::array();
    for (const ValidationResult& result : results) report["cases"].push_back(validationResultJson(result));
    report["diagnostics"] = diagnosticsToJson(diags);
    if (!writeJsonReport(options.jsonTarget, report)) return kExitUserError;
  }
  return allPass ? kExitOk : kExitUserError;
}

} // namespace

void registerValidateCommand(CLI::App& app, CommandRegistry& registry) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* command = app.add_subcommand(
      "validate", "Compare simulated times with published chip measurements and first-principles bounds");
  command->add_option("--machine", options->machine, "Run every case on MACHINE instead of its own")
      ->type_name("MACHINE");
  command->add_option("--json", options->jsonTarget, "Also write a JSON report to FILE ('-' for stdout)")
      ->type_name("FILE");
  command->add_option("--case", options->only, "Run only this case (repeatable)")->type_name("NAME");
  command->add_option("--suite", options->suiteFolder, "Read the suite from FOLDER/validation.json")
      ->type_name("FOLDER");
  command->add_flag("--list", options->list, "List the cases and their sources without running them");
  addTrustOption(*command);
  command->callback([&registry, options] { registry.selected = [options] { return runValidate(*options); }; });
}

} // namespace pto::cli
