// Output conventions shared by `pto` subcommands: human text on stdout,
// diagnostics on stderr, machine-readable JSON to a file or stdout.
#pragma once

#include "core/Diagnostics.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <iosfwd>
#include <string>

namespace pto::cli {

// The "diagnostics" array of every JSON report:
// [{"severity", "file", "line", "column", "message", "notes": [...]}].
nlohmann::ordered_json diagnosticsToJson(const DiagnosticEngine& diags);

// A new JSON report, starting with the fields every report has:
// {"command", "pto_version"}.
nlohmann::ordered_json jsonReportFor(const char* command);

// Writes `report` to `target`: "-" for stdout, else a file (atomically).
// Returns false and prints why on stderr when the file cannot be written.
bool writeJsonReport(const std::string& target, const nlohmann::ordered_json& report);
// The same, with the diagnostics added as the report's last field.
bool writeJsonReport(const std::string& target, nlohmann::ordered_json report, const DiagnosticEngine& diags);

// Prints the diagnostics compiler-style on stderr, in colour on a terminal.
void printDiagnostics(const DiagnosticEngine& diags);

// A command that failed before it had a result (a project that does not
// load, a kernel that does not compile): prints the diagnostics and, when
// JSON was asked for (`jsonTarget` not empty), writes {"command",
// "pto_version", "ok": false, "diagnostics"} there, so that a script asking
// for JSON always gets JSON. Returns the exit code, 1.
int failCommand(const char* command, const std::string& jsonTarget, const DiagnosticEngine& diags);
// The same for a command without --json: prints the diagnostics, returns 1.
int failCommand(const DiagnosticEngine& diags);

// A command that has its result: when JSON was asked for, writes the report
// that starts with jsonReportFor(command), is completed by `fill` and ends
// with the diagnostics. Returns the exit code: 0, or 1 when the report could
// not be written. `fill` runs only when JSON was asked for.
int finishCommand(const char* command, const std::string& jsonTarget, const DiagnosticEngine& diags,
                  const std::function<void(nlohmann::ordered_json& report)>& fill);

// A fraction as a signed percentage: "+12.5%", "-3.0%".
std::string signedPercent(double fraction);

// "2 errors and 1 warning" / "1 error" / "no problems".
std::string countSummary(const DiagnosticEngine& diags);

} // namespace pto::cli
