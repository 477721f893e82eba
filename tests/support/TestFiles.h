// Files, processes and messages the tests of several suites need: a fresh
// directory per test under the suite's PTO_TEST_DATA_DIR, a file's text, a
// run of the suite's Python, and diagnostics with their positions as one text.
#pragma once

#include "core/Diagnostics.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace pto::testing {

// PTO_TEST_DATA_DIR/<area>/<name>, empty (ctest runs tests in parallel, each in its own directory).
inline std::filesystem::path freshTestDir(const std::string& area, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(PTO_TEST_DATA_DIR) / area / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The whole of a text file ("" when it cannot be read).
inline std::string readWholeFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A run of the suite's Python (PTO_PYTHON_EXECUTABLE): its exit code (-1 when it did not exit) and its stdout
// and stderr together.
struct PythonRun {
  int exitCode = -1;
  std::string output;
};

// Runs Python with `arguments` (already quoted), its output captured in `dir`/python.log.
inline PythonRun runPython(const std::string& arguments, const std::filesystem::path& dir) {
  const std::filesystem::path log = dir / "python.log";
  const std::string command =
      std::string("'") + PTO_PYTHON_EXECUTABLE + "' " + arguments + " > '" + log.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  PythonRun run;
  run.exitCode = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.output = readWholeFile(log);
  return run;
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
