// `pto compile` and `pto run` on a copy of the muls_add_matmul_rowsum example with partition_overrides: a
// merge of the two rowsum subgraphs compiles, changes the partition and still matches the golden; a merge
// of the matmul with a rowsum subgraph (cube and vector on a2) exits 1 with the error at the entry's line;
// `pto check` finds a misspelt label without compiling, at the entry's line with a suggestion.
// The IDE's drop of one unrolled step's matmul into the step before's subgraph compiles as it is (the steps
// named by tensor op); naming the op by label, line and tile alone matches every step's, and the error says so.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

namespace {

namespace fs = std::filesystem;
using pto::test::Result;
using pto::test::runPto;
using pto::test::slurp;

class ExampleWithOverride : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("pto-override-cli-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
    fs::path example = fs::path(PTO_SOURCE_DIR) / "resources/examples/muls_add_matmul_rowsum";
    fs::copy(example / "kernel.py", m_dir / "kernel.py");
    m_project = nlohmann::ordered_json::parse(slurp(example / "pto-project.json"));
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Writes the project with `entry` as its only override; returns the line the entry starts on.
  int writeWithOverride(const nlohmann::ordered_json& entry) {
    m_project["partition_overrides"] = nlohmann::ordered_json::array({entry});
    std::string text = m_project.dump(2) + "\n";
    std::ofstream(m_dir / "pto-project.json") << text;
    std::size_t key = text.find("\"partition_overrides\"");
    return static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(key), '\n')) + 2;
  }

  nlohmann::ordered_json m_project;
  fs::path m_dir;
};

TEST_F(ExampleWithOverride, AMergeCompilesAndStillMatchesTheGolden) {
  writeWithOverride(nlohmann::ordered_json::parse(
      R"({"merge": [{"label": "rowsum", "tile": 0}, {"label": "rowsum", "tile": 1}], "note": "one rowsum task"})"));
  Result compiled = runPto("compile " + m_dir.string() + " --json -");
  ASSERT_EQ(compiled.exitCode, 0) << compiled.err;
  auto report = nlohmann::json::parse(compiled.out);
  bool found = false;
  for (const auto& pass : report["passes"])
    if (pass["name"] == "ApplyPartitionOverrides") {
      found = true;
      EXPECT_TRUE(pass["changed"].get<bool>());
    }
  EXPECT_TRUE(found) << compiled.out;

  Result run = runPto("run " + m_dir.string());
  EXPECT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("pass"), std::string::npos) << run.out;
}

TEST_F(ExampleWithOverride, CubeAndVectorInOneSubgraphExitsOneAtTheEntry) {
  int line = writeWithOverride(
      nlohmann::ordered_json::parse(R"({"merge": [{"label": "matmul", "tile": 0}, {"label": "rowsum", "tile": 0}]})"));
  Result result = runPto("compile " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  std::string expected = (m_dir / "pto-project.json").string() + ":" + std::to_string(line) +
                         ":5: error: partition_overrides[0] (merge): would put cube op matmul 'matmul' tile 0 "
                         "(kernel.py:22) and vector op sum 'rowsum' tile 0 (kernel.py:26) in one subgraph, but a2 has "
                         "no L0C -> UB path, so cube and vector ops cannot share a subgraph; keep them apart";
  EXPECT_EQ(result.err.substr(0, result.err.find('\n')), expected) << result.err;
}

TEST_F(ExampleWithOverride, CheckReportsAMisspeltLabelAtTheEntryWithASuggestion) {
  int line = writeWithOverride(nlohmann::ordered_json::parse(R"({"move": {"label": "rowsun"}, "to": "new"})"));
  Result result = runPto("check " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  std::string expected = (m_dir / "pto-project.json").string() + ":" + std::to_string(line) +
                         ":5: error: partition_overrides[0] (move): no tensor op has the semantic label 'rowsun' "
                         "(did you mean 'rowsum'?)";
  EXPECT_EQ(result.err.substr(0, result.err.find('\n')), expected) << result.err;
  EXPECT_NE(result.out.find("invalid (1 error)"), std::string::npos) << result.out;

  Result json = runPto("check " + m_dir.string() + " --json -");
  EXPECT_EQ(json.exitCode, 1);
  auto report = nlohmann::json::parse(json.out);
  EXPECT_EQ(report["valid"], false);
  ASSERT_EQ(report["diagnostics"].size(), 1u);
  EXPECT_EQ(report["diagnostics"][0]["line"], line);
  EXPECT_FALSE(report.contains("summary"));
}

TEST_F(ExampleWithOverride, CheckAcceptsAnOverrideWhoseNamesExist) {
  writeWithOverride(nlohmann::ordered_json::parse(R"({"move": {"label": "rowsum", "tile": 1}, "to": "new"})"));
  Result result = runPto("check " + m_dir.string());
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("valid (no problems)"), std::string::npos) << result.out;
}

// lightning_indexer_tuning/per_block: the kv_block loop unrolled 32 steps at a time, each step's qk matmul its
// own cube subgraph. Steps 0 and 1 (tensor ops 13 and 29 on line 67, in one loop body) can share one; by label,
// line and tile alone "qk line 67 tile 0" is every step's matmul, in 63 subgraphs.
TEST(UnrolledLoopOverride, OneStepsMatmulMergesIntoTheStepBeforesByTensorOp) {
  const fs::path dir = fs::temp_directory_path() / ("pto-override-unrolled-" + std::to_string(std::random_device{}()));
  fs::copy(fs::path(PTO_SOURCE_DIR) / "resources/examples/lightning_indexer_tuning", dir, fs::copy_options::recursive);
  const fs::path projectFile = dir / "per_block" / "pto-project.json";
  nlohmann::ordered_json project = nlohmann::ordered_json::parse(slurp(projectFile));
  auto compileMerging = [&](const char* first) {
    project["partition_overrides"] = nlohmann::ordered_json::parse(std::string(R"([{"merge": [)") + first +
                                                                   R"(, {"label": "qk", "line": 67, "tensor_op": 29, "tile": 0}]}])");
    std::ofstream(projectFile) << project.dump(2) << "\n";
    return runPto("compile " + (dir / "per_block").string() + " --json -");
  };
  Result merged = compileMerging(R"({"label": "qk", "line": 67, "tensor_op": 13, "tile": 0})");
  ASSERT_EQ(merged.exitCode, 0) << merged.err;
  bool applied = false;
  const auto report = nlohmann::json::parse(merged.out);
  for (const auto& pass : report["passes"])
    if (pass["name"] == "ApplyPartitionOverrides") applied = pass["changed"].get<bool>();
  EXPECT_TRUE(applied) << merged.out;

  Result ambiguous = compileMerging(R"({"label": "qk", "line": 67, "tile": 0})");
  EXPECT_EQ(ambiguous.exitCode, 1);
  EXPECT_NE(ambiguous.err.find("must name one subgraph, but its tile ops lie in 63"), std::string::npos) << ambiguous.err;
  EXPECT_NE(ambiguous.err.find("add \"tensor_op\""), std::string::npos) << ambiguous.err;
  fs::remove_all(dir);
}

} // namespace
