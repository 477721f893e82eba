// `pto advise` and `pto apply` end to end: each rule fires on a bundled kernel that shows its symptom, its patch
// applied to a copy of the project makes the simulated kernel faster by what was predicted (within 5 %; the
// simulator is deterministic, so in fact exactly), and the advisor stays silent on a kernel without a symptom.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace pto::test {
namespace {

namespace fs = std::filesystem;
const fs::path kExamples = fs::path(PTO_SOURCE_DIR) / "resources/examples";

// A fresh copy of a bundled example folder (tuning stories share ../kernel.py, so whole folders are copied).
fs::path copyOf(const std::string& example) {
  const fs::path target = fs::temp_directory_path() / ("pto-advise-" + std::to_string(::getpid())) / example;
  fs::remove_all(target);
  fs::create_directories(target.parent_path());
  fs::copy(kExamples / example, target, fs::copy_options::recursive);
  return target;
}

nlohmann::json suggestionOf(const nlohmann::json& advice, const std::string& id) {
  for (const auto& suggestion : advice["suggestions"])
    if (suggestion["id"] == id) return suggestion;
  return nullptr;
}

// Applies `suggestion` to `project` (by its id, or by its patch written to a file, which spares a second
// advise) and checks predicted against obtained, and obtained against a plain `pto run`.
void applyAndCheck(const fs::path& project, const nlohmann::json& suggestion, double baseline, bool byPatch = false) {
  const double predicted = suggestion["predicted_us"];
  std::string how = " --suggestion " + suggestion["id"].get<std::string>();
  if (byPatch) {
    const fs::path patch = project.parent_path() / "suggestion.json";
    std::ofstream(patch) << suggestion["patch"].dump();
    how = " --patch '" + patch.string() + "'";
  }
  const nlohmann::json applied = runPtoJson("apply '" + project.string() + "'" + how);
  ASSERT_TRUE(applied.is_object());
  EXPECT_EQ(applied["applied"], true);
  EXPECT_NEAR(applied["before_us"].get<double>(), baseline, 1e-6);
  EXPECT_NEAR(applied["obtained_us"].get<double>(), predicted, 0.05 * predicted);
  EXPECT_LT(applied["obtained_us"].get<double>(), baseline);
  const nlohmann::json run = runPtoJson("run '" + project.string() + "' --no-check --no-record");
  EXPECT_NEAR(run["makespan_us"].get<double>(), applied["obtained_us"].get<double>(), 1e-6);
}

TEST(AdviseCommand, ManySmallVectorTasksGetVectorMergingThatPaysAsPredicted) {
  const fs::path project = copyOf("softmax");
  const nlohmann::json advice = runPtoJson("advise '" + project.string() + "'");
  EXPECT_EQ(advice["command"], "advise");
  const nlohmann::json suggestion = suggestionOf(advice, "scheduling-bound-vector:softmax");
  ASSERT_FALSE(suggestion.is_null()) << advice.dump(2);
  EXPECT_EQ(suggestion["patch"][0]["path"], "/pass_options");
  EXPECT_NE(suggestion["evidence"].get<std::string>().find("idle"), std::string::npos);
  EXPECT_LT(suggestion["predicted_us"].get<double>(), 0.9 * advice["baseline_us"].get<double>());
  applyAndCheck(project, suggestion, advice["baseline_us"]);
  const nlohmann::json saved = nlohmann::json::parse(slurp(project / "pto-project.json"));
  EXPECT_TRUE(saved["pass_options"]["vec_nbuffer_setting"].contains("softmax")) << saved.dump(2);
}

// A kernel that names no semantic label (PyPTO's own GLM attention names none): the same symptom gets the
// merge through vec_nbuffer_setting's DEFAULT key, which pays as predicted.
TEST(AdviseCommand, UnlabelledSmallVectorTasksGetTheDefaultMerge) {
  const fs::path project = copyOf("softmax");
  std::string kernel = slurp(project / "kernel.py");
  const std::string labelLine = "    pypto.set_semantic_label(\"softmax\")\n";
  ASSERT_NE(kernel.find(labelLine), std::string::npos);
  kernel.erase(kernel.find(labelLine), labelLine.size());
  std::ofstream(project / "kernel.py") << kernel;
  const nlohmann::json advice = runPtoJson("advise '" + project.string() + "'");
  const nlohmann::json suggestion = suggestionOf(advice, "scheduling-bound-vector:DEFAULT");
  ASSERT_FALSE(suggestion.is_null()) << advice.dump(2);
  EXPECT_NE(suggestion["evidence"].get<std::string>().find("unlabelled vector tasks"), std::string::npos)
      << suggestion["evidence"];
  applyAndCheck(project, suggestion, advice["baseline_us"]);
  const nlohmann::json saved = nlohmann::json::parse(slurp(project / "pto-project.json"));
  EXPECT_TRUE(saved["pass_options"]["vec_nbuffer_setting"].contains("DEFAULT")) << saved.dump(2);
}

TEST(AdviseCommand, CubeTasksLoadingOneOperandGetL1ReuseThenTheirVectorStepsGetMerged) {
  const fs::path story = copyOf("lightning_indexer_tuning");
  const fs::path project = story / "per_block";
  const nlohmann::json first = runPtoJson("advise '" + project.string() + "'");
  const nlohmann::json reuse = suggestionOf(first, "l1-reuse:qk");
  ASSERT_FALSE(reuse.is_null()) << first.dump(2);
  // The query tile of a request is read by each of its 512 blocks' matmuls.
  EXPECT_NE(reuse["evidence"].get<std::string>().find("loaded by 512"), std::string::npos) << reuse["evidence"];
  applyAndCheck(project, reuse, first["baseline_us"], /*byPatch=*/true);
  // With the matmuls merged, the vector steps are the many small tasks.
  const nlohmann::json second = runPtoJson("advise '" + project.string() + "'");
  const nlohmann::json merge = suggestionOf(second, "scheduling-bound-vector:weigh");
  ASSERT_FALSE(merge.is_null()) << second.dump(2);
  EXPECT_LT(merge["predicted_us"].get<double>(), 0.9 * second["baseline_us"].get<double>());
}

TEST(AdviseCommand, ARaggedLastWaveOnTheCriticalPathGetsAnotherMergeCount) {
  const fs::path project = copyOf("lightning_indexer_tuning") / "l1_reuse";
  const nlohmann::json advice = runPtoJson("advise '" + project.string() + "'");
  const nlohmann::json tail = suggestionOf(advice, "wave-tail:qk");
  ASSERT_FALSE(tail.is_null()) << advice.dump(2);
  EXPECT_NE(tail["evidence"].get<std::string>().find("64 'qk' tasks on 24 cube cores: 2.67 waves, the last with 16 of 24"),
            std::string::npos)
      << tail["evidence"];
  EXPECT_LT(tail["predicted_us"].get<double>(), advice["baseline_us"].get<double>());
}

// Issue 32 item 7's reproduction: 64 cube tasks on 24 cube cores, 2.67 waves. The advice is a cube tile that
// fills the waves, estimated by the wave arithmetic and simulated; applied, it pays what was simulated.
TEST(AdviseCommand, APartialLastWaveOfCubeTasksGetsATileThatFillsTheWaves) {
  const fs::path project = fs::temp_directory_path() / ("pto-advise-" + std::to_string(::getpid())) / "uneven-waves";
  fs::remove_all(project);
  fs::create_directories(project.parent_path());
  fs::copy(fs::path(PTO_SOURCE_DIR) / "tests/data/advisor/uneven-waves", project, fs::copy_options::recursive);
  const nlohmann::json advice = runPtoJson("advise '" + project.string() + "'");
  EXPECT_EQ(advice["bound"], "occupancy");
  const nlohmann::json suggestion = suggestionOf(advice, "uneven-waves:tall");
  ASSERT_TRUE(suggestion.is_object()) << advice.dump(2);
  EXPECT_EQ(suggestion["patch"][0]["path"], "/tile_settings");
  EXPECT_TRUE(suggestion.contains("estimated_us"));
  EXPECT_LT(suggestion["estimated_us"].get<double>(), advice["baseline_us"].get<double>());
  applyAndCheck(project, suggestion, advice["baseline_us"]);
  // Applied: the waves are full but for a task or so, and the rule has nothing more to say.
  const nlohmann::json again = runPtoJson("advise '" + project.string() + "'");
  EXPECT_TRUE(suggestionOf(again, "uneven-waves:tall").is_null()) << again.dump(2);
}

TEST(AdviseCommand, AKernelWithoutASymptomGetsNoSuggestion) {
  const nlohmann::json advice = runPtoJson("advise '" + (kExamples / "matmul").string() + "'");
  EXPECT_TRUE(advice["suggestions"].empty()) << advice.dump(2);
  Result text = runPto("advise '" + (kExamples / "matmul").string() + "'");
  EXPECT_NE(text.out.find("no rule found a change that makes this kernel faster"), std::string::npos) << text.out;
}

TEST(AdviseCommand, ApplyingWhatIsNotThereIsAnErrorAndLeavesTheProjectAlone) {
  const fs::path project = copyOf("matmul");
  const std::string before = slurp(project / "pto-project.json");
  Result unknown = runPto("apply '" + project.string() + "' --suggestion l1-reuse:gemm");
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("no suggestion 'l1-reuse:gemm'"), std::string::npos) << unknown.err;
  const fs::path patch = project / "bad-patch.json";
  std::ofstream(patch) << R"({"op": "add"})";
  Result bad = runPto("apply '" + project.string() + "' --patch '" + patch.string() + "'");
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("bad-patch.json"), std::string::npos) << bad.err;
  std::ofstream(patch) << R"([{"op": "replace", "path": "/no_such_key", "value": 1}])";
  Result missing = runPto("apply '" + project.string() + "' --patch '" + patch.string() + "'");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("the patch does not apply"), std::string::npos) << missing.err;
  Result neither = runPto("apply '" + project.string() + "'");
  EXPECT_EQ(neither.exitCode, 2);
  EXPECT_EQ(slurp(project / "pto-project.json"), before);
}

// A loop barrier between loops that share no data: the suggestion is a kernel edit; `pto apply` makes it in
// the kernel file (the project file stays as it was), obtains the prediction, and a dry run leaves both alone.
TEST(AdviseCommand, ABarrierBetweenIndependentLoopsIsDroppedInTheKernel) {
  const fs::path project = fs::temp_directory_path() / ("pto-advise-" + std::to_string(::getpid())) / "loop-barrier";
  fs::remove_all(project);
  fs::create_directories(project.parent_path());
  fs::copy(fs::path(PTO_SOURCE_DIR) / "tests/data/advisor/loop-barrier", project, fs::copy_options::recursive);
  const std::string kernel = slurp(project / "kernel.py"), settings = slurp(project / "pto-project.json");
  const nlohmann::json advice = runPtoJson("advise '" + project.string() + "'");
  const nlohmann::json suggestion = suggestionOf(advice, "loop-barrier:SCALE");
  ASSERT_TRUE(suggestion.is_object()) << advice.dump(2);
  EXPECT_TRUE(suggestion["patch"].empty());
  EXPECT_EQ(suggestion["kernel_edit"]["line"], 21);
  EXPECT_EQ(suggestion["kernel_edit"]["after"], "submit_before_loop=False");

  const nlohmann::json dry = runPtoJson("apply '" + project.string() + "' --suggestion loop-barrier:SCALE --dry-run");
  EXPECT_EQ(dry["applied"], false);
  EXPECT_NEAR(dry["obtained_us"].get<double>(), suggestion["predicted_us"].get<double>(), 1e-9);
  EXPECT_EQ(slurp(project / "kernel.py"), kernel);

  applyAndCheck(project, suggestion, advice["baseline_us"]);
  const std::string edited = slurp(project / "kernel.py");
  EXPECT_EQ(edited.find("submit_before_loop=True"), std::string::npos);
  EXPECT_NE(edited.find("submit_before_loop=False"), std::string::npos);
  EXPECT_EQ(slurp(project / "pto-project.json"), settings);
  // Applied: the advisor has nothing more to say about it, and the old id names nothing.
  Result again = runPto("apply '" + project.string() + "' --suggestion loop-barrier:SCALE");
  EXPECT_EQ(again.exitCode, 1);
  EXPECT_NE(again.err.find("no suggestion 'loop-barrier:SCALE'"), std::string::npos) << again.err;
}

} // namespace
} // namespace pto::test
