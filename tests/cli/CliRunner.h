// Runs the `pto` executable for end-to-end tests, capturing its streams; the scratch folders and project
// files the tests run it on.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <sys/wait.h>

namespace pto::test {

struct Result {
  int exitCode = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs a shell command; stdout and stderr captured separately.
inline Result runShell(const std::string& command) {
  std::filesystem::path errFile = std::filesystem::temp_directory_path() / ("pto-cli-err-" + std::to_string(std::random_device{}()));
  Result result;
  FILE* pipe = ::popen((command + " 2>'" + errFile.string() + "'").c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, got);
  int status = ::pclose(pipe);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = slurp(errFile);
  std::filesystem::remove(errFile);
  return result;
}

// Runs `pto ARGS` through the shell; stdout and stderr captured separately.
inline Result runPto(const std::string& args) { return runShell(std::string("'") + PTO_CLI + "' " + args); }

// Runs `pto ARGS --json -` and returns what it printed, failing the test (and returning null) unless it
// exited 0.
inline nlohmann::json runPtoJson(const std::string& args) {
  Result result = runPto(args + " --json -");
  EXPECT_EQ(result.exitCode, 0) << args << "\n" << result.err;
  return result.exitCode == 0 ? nlohmann::json::parse(result.out) : nlohmann::json();
}

// A new folder in the temporary directory (`prefix`-<random number>), removed with all it holds when the
// object goes: each test's own place for projects and outputs (ctest runs tests in parallel).
class ScratchFolder {
public:
  explicit ScratchFolder(const std::string& prefix)
      : m_dir(std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(m_dir);
  }
  ~ScratchFolder() { std::filesystem::remove_all(m_dir); }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& dir() const { return m_dir; }

private:
  std::filesystem::path m_dir;
};

// A scratch folder holding a kernel.py and a pto-project.json.
class ScratchProject : public ScratchFolder {
public:
  ScratchProject(const std::string& prefix, const std::string& kernel, const std::string& project)
      : ScratchFolder(prefix) {
    std::ofstream(dir() / "kernel.py") << kernel;
    std::ofstream(dir() / "pto-project.json") << project;
  }
};

// The pto-project.json `name` of a kernel `entry` in kernel.py that takes x and y, both float32 [rows, cols]:
// x filled with 0, 1, 2, ... (arange), y its output.
inline std::string xyProject(const std::string& name, const std::string& entry, int rows, int cols) {
  const nlohmann::ordered_json shape = {rows, cols};
  const nlohmann::ordered_json project = {
      {"name", name},
      {"source", "kernel.py"},
      {"entry", entry},
      {"args",
       {{{"name", "x"}, {"shape", shape}, {"dtype", "float32"}, {"init", {{"kind", "arange"}}}},
        {{"name", "y"}, {"shape", shape}, {"dtype", "float32"}}}}};
  return project.dump(2) + "\n";
}

// A bundled example project's folder in the source tree.
inline std::string example(const std::string& name) {
  return std::string(PTO_SOURCE_DIR) + "/resources/examples/" + name;
}

} // namespace pto::test
