// Implementation of the shared output conventions.
#include "app/pto/CommandOutput.h"

#include "app/pto/Command.h"
#include "core/AtomicFile.h"
#include "core/Version.h"
#include "core/json/JsonPrinter.h"

#include <cstdio>
#include <iostream>
#include <unistd.h>

namespace pto::cli {
namespace {

nlohmann::ordered_json diagnosticToJson(const Diagnostic& diagnostic) {
  nlohmann::ordered_json entry;
  entry["severity"] = std::string(name(diagnostic.severity));
  entry["file"] = diagnostic.location.file;
  entry["line"] = diagnostic.location.line;
  entry["column"] = diagnostic.location.column;
  entry["message"] = diagnostic.message;
  if (!diagnostic.notes.empty()) {
    entry["notes"] = nlohmann::ordered_json::array();
    for (const Diagnostic& note : diagnostic.notes) entry["notes"].push_back(diagnosticToJson(note));
  }
  return entry;
}

std::string plural(std::size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

} // namespace

nlohmann::ordered_json diagnosticsToJson(const DiagnosticEngine& diags) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const Diagnostic& diagnostic : diags.diagnostics()) list.push_back(diagnosticToJson(diagnostic));
  return list;
}

nlohmann::ordered_json jsonReportFor(const char* command) {
  nlohmann::ordered_json report;
  report["command"] = command;
  report["pto_version"] = kVersion;
  return report;
}

bool writeJsonReport(const std::string& target, nlohmann::ordered_json report, const DiagnosticEngine& diags) {
  report["diagnostics"] = diagnosticsToJson(diags);
  return writeJsonReport(target, report);
}

bool writeJsonReport(const std::string& target, const nlohmann::ordered_json& report) {
  std::string text = printJson(report);
  if (target == "-") {
    std::cout << text << std::flush;
    return true;
  }
  std::string reason;
  if (!writeFileAtomically(target, text, reason)) {
    std::cerr << target << ": error: cannot write the JSON report: " << reason << "\n";
    return false;
  }
  return true;
}

void printDiagnostics(const DiagnosticEngine& diags) {
  diags.print(std::cerr, ::isatty(STDERR_FILENO) != 0 && std::getenv("NO_COLOR") == nullptr);
}

std::string signedPercent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.1f%%", 100.0 * fraction);
  return buffer;
}

std::string countSummary(const DiagnosticEngine& diags) {
  if (diags.errorCount() == 0 && diags.warningCount() == 0) return "no problems";
  if (diags.warningCount() == 0) return plural(diags.errorCount(), "error");
  if (diags.errorCount() == 0) return plural(diags.warningCount(), "warning");
  return plural(diags.errorCount(), "error") + " and " + plural(diags.warningCount(), "warning");
}

int failCommand(const DiagnosticEngine& diags) {
  printDiagnostics(diags);
  return kExitUserError;
}

int failCommand(const char* command, const std::string& jsonTarget, const DiagnosticEngine& diags) {
  printDiagnostics(diags);
  if (!jsonTarget.empty()) {
    nlohmann::ordered_json report = jsonReportFor(command);
    report["ok"] = false;
    writeJsonReport(jsonTarget, report, diags);
  }
  return kExitUserError;
}

int finishCommand(const char* command, const std::string& jsonTarget, const DiagnosticEngine& diags,
                  const std::function<void(nlohmann::ordered_json& report)>& fill) {
  if (jsonTarget.empty()) return kExitOk;
  nlohmann::ordered_json report = jsonReportFor(command);
  fill(report);
  return writeJsonReport(jsonTarget, report, diags) ? kExitOk : kExitUserError;
}

} // namespace pto::cli
