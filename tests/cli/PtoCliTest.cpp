// End-to-end tests of the `pto` executable: exit codes, output streams, JSON.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

const std::string kSoftmaxExample = std::string(PTO_SOURCE_DIR) + "/resources/examples/softmax";

class BrokenCopy : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("pto-cli-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
    fs::copy(kSoftmaxExample, m_dir, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  void replaceInProject(const std::string& from, const std::string& to) {
    fs::path file = m_dir / "pto-project.json";
    std::string text = slurp(file);
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
    std::ofstream(file, std::ios::binary) << text;
  }
  fs::path m_dir;
};

TEST(PtoCli, VersionAndHelp) {
  Result version = runPto("--version");
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_EQ(version.out, "pto 0.1.0\n");
  Result help = runPto("--help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("check"), std::string::npos);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
}

TEST(PtoCli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(runPto("").exitCode, 2);
  EXPECT_EQ(runPto("frobnicate").exitCode, 2);
  Result missing = runPto("check");
  EXPECT_EQ(missing.exitCode, 2);
  EXPECT_NE(missing.err.find("PROJECT is required"), std::string::npos) << missing.err;
  Result level = runPto("--log-level loud check " + kSoftmaxExample);
  EXPECT_EQ(level.exitCode, 2);
  EXPECT_EQ(level.err, "pto: --log-level: unknown log level 'loud'; use one of trace, debug, info, warn, error, off\n");
}

TEST(PtoCli, LogLevelFromEnvironmentIsValidated) {
  Result result = runPto("check " + kSoftmaxExample + " 2>&1 >/dev/null; PTO_LOG=nonsense '" + std::string(PTO_CLI) +
                         "' check " + kSoftmaxExample);
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("PTO_LOG: unknown log level 'nonsense'"), std::string::npos) << result.err;
}

// A pto copied away from its install finds no pypto package: a clear error
// saying where it looked and what to do, not an internal error.
TEST(PtoCli, APyptoPackageItCannotFindIsExplainedNotCalledABug) {
  ScratchFolder empty("pto-no-pypto");
  Result result = runShell("env PTO_PYTHON_PATH='" + empty.dir().string() + "' '" + std::string(PTO_CLI) +
                           "' compile " + kSoftmaxExample);
  EXPECT_EQ(result.exitCode, 1) << result.err;
  EXPECT_NE(result.err.find("cannot load the pypto package from PTO_PYTHON_PATH, which names " + empty.dir().string()), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("set PTO_PYTHON_PATH to the folder that holds pypto/"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("bug in pto"), std::string::npos) << result.err;
}

TEST(PtoCli, CheckAcceptsTheExample) {
  Result result = runPto("check " + kSoftmaxExample);
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("project   softmax"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("x  float32 [B=32, 32, 1, 256]  uniform in [-4, 4), seed 1"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("valid (no problems)"), std::string::npos);
}

TEST(PtoCli, CheckJsonReportOnStdout) {
  Result result = runPto("check " + kSoftmaxExample + " --json -");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  nlohmann::json report = nlohmann::json::parse(result.out);  // stdout holds only the JSON
  EXPECT_EQ(report["command"], "check");
  EXPECT_EQ(report["valid"], true);
  EXPECT_EQ(report["errors"], 0);
  EXPECT_EQ(report["summary"]["entry"], "softmax");
  EXPECT_EQ(report["summary"]["args"][0]["shape"], nlohmann::json({32, 32, 1, 256}));
  EXPECT_EQ(report["summary"]["args"][1]["dtype"], "float32");
  EXPECT_TRUE(report["diagnostics"].is_array());
}

TEST_F(BrokenCopy, CheckRejectsWithLineColumn) {
  replaceInProject("\"dtype\": \"float32\"", "\"dtype\": \"float23\"");
  std::string project = (m_dir / "pto-project.json").string();
  Result result = runPto("check " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err.substr(0, result.err.find('\n')),
            project + ":10:16: error: args[0].dtype: unknown dtype \"float23\"; expected one of float32, float16, "
                      "bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool");
  EXPECT_NE(result.out.find("invalid (1 error)"), std::string::npos) << result.out;
}

TEST_F(BrokenCopy, JsonReportCarriesTheDiagnostics) {
  replaceInProject("\"entry\": \"softmax\"", "\"entry\": 7");
  fs::path report = m_dir / "report.json";
  Result result = runPto("check " + m_dir.string() + " --json " + report.string());
  EXPECT_EQ(result.exitCode, 1);
  nlohmann::json parsed = nlohmann::json::parse(slurp(report));
  EXPECT_EQ(parsed["valid"], false);
  EXPECT_EQ(parsed["errors"], 1);
  ASSERT_EQ(parsed["diagnostics"].size(), 1u);
  EXPECT_EQ(parsed["diagnostics"][0]["line"], 5);
  EXPECT_EQ(parsed["diagnostics"][0]["column"], 12);
  EXPECT_EQ(parsed["diagnostics"][0]["message"], "entry: expected a string, got 7");
  EXPECT_FALSE(parsed.contains("summary"));
}

TEST_F(BrokenCopy, MissingKernelFile) {
  fs::remove(m_dir / "kernel.py");
  Result result = runPto("check " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find(":4:13: error: source: kernel file 'kernel.py' not found"), std::string::npos) << result.err;
}

TEST_F(BrokenCopy, ACommandThatStopsEarlyStillWritesJsonWhenAsked) {
  // The kernel does not trace: run, compile, report, advise and tune have
  // no result, and each still writes its failure as JSON for the script.
  replaceInProject("\"entry\": \"softmax\"", "\"entry\": \"no_such_kernel\"");
  for (const char* command : {"run", "compile", "report", "advise", "tune", "passes", "settings"}) {
    Result result = runPto(std::string(command) + " " + m_dir.string() + " --json -");
    EXPECT_EQ(result.exitCode, 1) << command;
    nlohmann::json parsed = nlohmann::json::parse(result.out, nullptr, false);
    ASSERT_TRUE(parsed.is_object()) << command << ": " << result.out;
    EXPECT_EQ(parsed["command"], command);
    EXPECT_EQ(parsed["ok"], false);
    ASSERT_FALSE(parsed["diagnostics"].empty()) << command;
    EXPECT_EQ(parsed["diagnostics"][0]["severity"], "error");
    EXPECT_NE(result.err.find("error:"), std::string::npos) << command << ": " << result.err;  // and on stderr
  }
  // Not asked for JSON: nothing on stdout.
  Result plain = runPto("run " + m_dir.string());
  EXPECT_EQ(plain.exitCode, 1);
  EXPECT_EQ(plain.out, "");
}

TEST(PtoCli, MissingProjectPath) {
  Result result = runPto("check /nonexistent/project");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err, "/nonexistent/project: error: no such project file or folder\n");
}

} // namespace
} // namespace pto::test
