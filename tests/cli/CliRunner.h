// Runs the `pto` executable for end-to-end tests, capturing its streams.
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

// A project folder in the temporary directory holding a kernel.py and a pto-project.json, removed when the
// object goes.
class ScratchProject {
public:
  ScratchProject(const std::string& prefix, const std::string& kernel, const std::string& project)
      : m_dir(std::filesystem::temp_directory_path() / (prefix + "-" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(m_dir);
    std::ofstream(m_dir / "kernel.py") << kernel;
    std::ofstream(m_dir / "pto-project.json") << project;
  }
  ~ScratchProject() { std::filesystem::remove_all(m_dir); }
  ScratchProject(const ScratchProject&) = delete;
  ScratchProject& operator=(const ScratchProject&) = delete;

  const std::filesystem::path& dir() const { return m_dir; }

private:
  std::filesystem::path m_dir;
};

// A bundled example project's folder in the source tree.
inline std::string example(const std::string& name) {
  return std::string(PTO_SOURCE_DIR) + "/resources/examples/" + name;
}

} // namespace pto::test
