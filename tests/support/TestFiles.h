// Files and messages the tests of several suites need: a fresh directory per
// test under the suite's PTO_TEST_DATA_DIR, and diagnostics with their
// positions as one text.
#pragma once

#include "core/Diagnostics.h"

#include <filesystem>
#include <string>

namespace pto::testing {

// PTO_TEST_DATA_DIR/<area>/<name>, empty (ctest runs tests in parallel, each in its own directory).
inline std::filesystem::path freshTestDir(const std::string& area, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(PTO_TEST_DATA_DIR) / area / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// "line:col: severity: message" for each diagnostic, one per line.
inline std::string locatedMessages(const DiagnosticEngine& diags) {
  std::string out;
  for (const Diagnostic& d : diags.diagnostics())
    out += std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " +
           std::string(name(d.severity)) + ": " + d.message + "\n";
  return out;
}

} // namespace pto::testing
