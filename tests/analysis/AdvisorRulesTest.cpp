// The advisor's tile, subgraph and loop-barrier rules (analysis/advisor/rules/), each on a small kernel that shows its
// symptom (tests/data/advisor/<rule>): the rule fires with evidence from the run; its patch, applied to the
// project file, traced, compiled and simulated again from scratch (runProject, not the advisor's traced-once
// shortcut), gives the predicted makespan within 5 % and beats the baseline; and the rule stays silent on
// kernels without the symptom (the matmul example, the other rules' kernels).
#include "analysis/advisor/Advisor.h"
#include "core/project/ProjectFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;

const fs::path kData = fs::path(PTO_SOURCE_DIR) / "tests/data/advisor";
const fs::path kMatmulExample = fs::path(PTO_SOURCE_DIR) / "resources/examples/matmul";

// The project traced once and advised once per test process (both are deterministic).
struct Advised {
  TracedProject traced;
  Advice advice;
};

const Advised& advised(const fs::path& folder) {
  static std::map<fs::path, std::unique_ptr<Advised>> cache;
  auto& entry = cache[folder];
  if (!entry) {
    DiagnosticEngine diags;
    auto project = loadProject(folder, diags);
    EXPECT_TRUE(project) << diags.printed();
    if (!project) return *(entry = std::make_unique<Advised>());
    auto traced = traceForVariants(*project, diags);
    EXPECT_TRUE(traced) << diags.printed();
    if (!traced) return *(entry = std::make_unique<Advised>());
    auto advice = advise(*traced, diags);
    EXPECT_TRUE(advice) << diags.printed();
    entry = std::make_unique<Advised>(Advised{std::move(*traced), advice ? std::move(*advice) : Advice{}});
  }
  return *entry;
}

const Suggestion* suggestionOf(const Advice& advice, const std::string& rule) {
  for (const Suggestion& suggestion : advice.suggestions)
    if (suggestion.rule == rule) return &suggestion;
  return nullptr;
}

std::string listed(const Advice& advice) {
  std::string text;
  for (const Suggestion& suggestion : advice.suggestions)
    text += suggestion.id + " (" + std::to_string(suggestion.predictedUs) + " us): " + suggestion.evidence + "\n";
  return text.empty() ? "no suggestions\n" : text;
}

// The makespan of `folder`'s project with `patch` applied, saved to a fresh copy and run from scratch.
double makespanWithPatch(const fs::path& folder, const nlohmann::json& patch) {
  const fs::path copy = fs::temp_directory_path() / ("pto-advisor-rules-" + std::to_string(::getpid())) /
                        folder.filename();
  fs::remove_all(copy);
  fs::create_directories(copy.parent_path());
  fs::copy(folder, copy, fs::copy_options::recursive);
  DiagnosticEngine diags;
  auto project = loadProject(copy, diags);
  EXPECT_TRUE(project) << diags.printed();
  if (!project) return 0.0;
  auto patched = patchedProject(*project, patch, diags);
  EXPECT_TRUE(patched) << diags.printed();
  if (!patched || !saveProject(*patched, diags)) return 0.0;
  auto reloaded = loadProject(copy, diags);
  EXPECT_TRUE(reloaded) << diags.printed();
  if (!reloaded) return 0.0;
  ProjectRunOptions options;
  options.check = PrecisionCheck::Never;
  auto run = runProject(*reloaded, diags, options);
  EXPECT_TRUE(run && run->simulation) << diags.printed();
  return run && run->simulation ? run->simulation->stats.makespanUs : 0.0;
}

// The rule's suggestion on its own kernel (tests/data/advisor/<rule>, or the folder named); checks it pays
// as predicted.
const Suggestion* expectFiresAndPays(const std::string& rule, const std::string& folderName = {}) {
  const fs::path folder = kData / (folderName.empty() ? rule : folderName);
  const Advised& project = advised(folder);
  const Suggestion* suggestion = suggestionOf(project.advice, rule);
  EXPECT_NE(suggestion, nullptr) << listed(project.advice);
  if (!suggestion) return nullptr;
  EXPECT_EQ(suggestion->id.substr(0, rule.size() + 1), rule + ":");
  EXPECT_FALSE(suggestion->tried.empty());
  EXPECT_LT(suggestion->predictedUs, (1.0 - AdviceOptions{}.minimumGain) * project.advice.baselineUs);
  const double obtained = makespanWithPatch(folder, suggestion->patch);
  // Predicted and obtained come from the same simulator on the same settings; 5 % covers a change in how
  // the advisor's traced-once kernel and a fresh trace could differ.
  EXPECT_NEAR(obtained, suggestion->predictedUs, 0.05 * suggestion->predictedUs) << suggestion->patch.dump();
  EXPECT_LT(obtained, project.advice.baselineUs);
  return suggestion;
}

void expectSilent(const fs::path& folder, const std::string& rule) {
  const Advised& project = advised(folder);
  EXPECT_EQ(suggestionOf(project.advice, rule), nullptr) << folder << "\n" << listed(project.advice);
}

TEST(AdvisorRules, SmallMMatmulGetsTallerCubeTiles) {
  const Suggestion* suggestion = expectFiresAndPays("small-m-matmul");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "small-m-matmul:gemm");
  EXPECT_NE(suggestion->evidence.find("output blocks of 16 rows of their 256"), std::string::npos)
      << suggestion->evidence;
  EXPECT_EQ(suggestion->patch[0]["path"], "/tile_settings");
  const auto& shape = suggestion->patch[0]["value"]["cube"]["gemm"];
  EXPECT_GT(shape["m"][0].get<int>(), 16) << shape.dump();
  EXPECT_EQ(shape["n"], nlohmann::json::array({128, 256})) << "only m changes";
}

// 64 cube tasks of 128 output rows on 24 cube cores: 3 waves where 2.67 would do. The wave arithmetic, from
// the figures in the evidence: the partial wave costs a third of a wave of the mean task; the proposed tile
// makes fewer waves of its tasks than the 3 of today.
TEST(AdvisorRules, APartialLastWaveThePathWaitedBehindGetsATileThatFillsTheWaves) {
  const Suggestion* suggestion = expectFiresAndPays("uneven-waves");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "uneven-waves:tall");
  EXPECT_NE(suggestion->evidence.find("64 'tall' cube tasks on 24 cube cores: 2.67 waves, the last with 16 of 24 "
                                      "cores busy; the critical path waited"),
            std::string::npos)
      << suggestion->evidence;
  EXPECT_NE(suggestion->evidence.find("(3 waves of"), std::string::npos) << suggestion->evidence;
  const auto& shape = suggestion->patch[0]["value"]["cube"]["tall"];
  const std::int64_t m = shape["m"][0].get<std::int64_t>(), n = shape["n"][0].get<std::int64_t>();
  const std::int64_t tasks = (8192 + m - 1) / m * ((128 + n - 1) / n);
  EXPECT_LT((tasks + 23) / 24, 3) << shape.dump();
  ASSERT_TRUE(suggestion->estimatedUs.has_value());
  EXPECT_LT(*suggestion->estimatedUs, advised(kData / "uneven-waves").advice.baselineUs);
  EXPECT_EQ(advised(kData / "uneven-waves").advice.bound, "occupancy");
}

// A kernel with no semantic label (PyPTO's GLM attention names none): 192 cube tasks that each load the same
// 64 x 512 rows of A get L1 reuse through cube_l1_reuse_setting's DEFAULT key.
TEST(AdvisorRules, UnlabelledCubeTasksLoadingOneOperandGetL1ReuseThroughTheDefaultKey) {
  const Suggestion* suggestion = expectFiresAndPays("l1-reuse", "l1-reuse-unlabelled");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "l1-reuse:DEFAULT");
  EXPECT_NE(suggestion->evidence.find("192 unlabelled cube tasks; one global-memory region is loaded by 192"),
            std::string::npos)
      << suggestion->evidence;
  EXPECT_TRUE(suggestion->patch[0]["value"]["cube_l1_reuse_setting"].contains("DEFAULT")) << suggestion->patch.dump();
}

TEST(AdvisorRules, UnevenWavesIsSilentWithinOneWave) {
  expectSilent(kMatmulExample, "uneven-waves");  // 16 tasks on 24 cube cores
}

TEST(AdvisorRules, SmallMMatmulIsSilentWithoutSmallM) {
  expectSilent(kMatmulExample, "small-m-matmul");
  expectSilent(kData / "consumer-finer-than-producer", "small-m-matmul");
}

TEST(AdvisorRules, AConsumerReadingItsProducersTilesInPiecesGetsTheirGranularity) {
  const Suggestion* suggestion = expectFiresAndPays("consumer-finer-than-producer");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "consumer-finer-than-producer:bias_relu");
  // 128x128 matmul blocks read 16x128 at a time: 8 reads of each block, 64 vector tasks.
  EXPECT_NE(suggestion->evidence.find("reads the 128x128 tiles 'gemm'"), std::string::npos) << suggestion->evidence;
  EXPECT_NE(suggestion->evidence.find("16x128 at a time: each produced tile is loaded by 8 vector tasks, 64 in all"),
            std::string::npos)
      << suggestion->evidence;
  const auto& tile = suggestion->patch[0]["value"]["vec"]["bias_relu"];
  EXPECT_GT(tile[0].get<int>(), 16) << tile.dump();
  EXPECT_LE(tile[0].get<int>(), 128) << "never coarser than the producer";
}

TEST(AdvisorRules, ConsumerFinerThanProducerIsSilentWhereTilesAgree) {
  expectSilent(kMatmulExample, "consumer-finer-than-producer");
  expectSilent(kData / "small-m-matmul", "consumer-finer-than-producer");
  expectSilent(kData / "tile-near-capacity", "consumer-finer-than-producer");
}

TEST(AdvisorRules, SubgraphsThatOnlyMoveDataAreMergedIntoTheirNeighbours) {
  const Suggestion* suggestion = expectFiresAndPays("empty-subgraph");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "empty-subgraph:copy_out");
  // 768x512 in 32x128 tiles: 96 copy tasks, each reading what one 'plus_one' task reads.
  EXPECT_NE(suggestion->evidence.find("96 tasks of 96 subgraphs ('copy_out' first) only move data"), std::string::npos)
      << suggestion->evidence;
  ASSERT_EQ(suggestion->patch[0]["path"], "/partition_overrides");
  EXPECT_EQ(suggestion->patch[0]["value"].size(), 96u);
  EXPECT_TRUE(suggestion->patch[0]["value"][0].contains("merge"));
}

TEST(AdvisorRules, EmptySubgraphIsSilentWhenEverySubgraphComputes) {
  expectSilent(kMatmulExample, "empty-subgraph");
  expectSilent(kData / "consumer-finer-than-producer", "empty-subgraph");
}

TEST(AdvisorRules, ATileFillingTheBufferGetsOneThatLeavesRoomToDoubleBuffer) {
  const Suggestion* suggestion = expectFiresAndPays("tile-near-capacity");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "tile-near-capacity:scale_shift");
  EXPECT_NE(suggestion->evidence.find("of the 192 KiB UB"), std::string::npos) << suggestion->evidence;
  const auto& tile = suggestion->patch[0]["value"]["vec"]["scale_shift"];
  ASSERT_TRUE(tile.is_array()) << suggestion->patch.dump();
  EXPECT_LT(tile[0].get<int>() * tile[1].get<int>(), 16 * 1024) << "a smaller tile";
}

TEST(AdvisorRules, TileNearCapacityIsSilentWithRoomToSpare) {
  expectSilent(kMatmulExample, "tile-near-capacity");
  expectSilent(kData / "consumer-finer-than-producer", "tile-near-capacity");
}

TEST(AdvisorRules, TasksWhosePipesRunOneAfterTheOtherGetSeveralTilesPerTask) {
  const Suggestion* suggestion = expectFiresAndPays("low-double-buffer-overlap");
  ASSERT_NE(suggestion, nullptr);
  EXPECT_EQ(suggestion->id, "low-double-buffer-overlap:row_scale");
  EXPECT_NE(suggestion->evidence.find("barely overlap"), std::string::npos) << suggestion->evidence;
}

TEST(AdvisorRules, LowDoubleBufferOverlapIsSilentWherePipesOverlap) {
  expectSilent(kMatmulExample, "low-double-buffer-overlap");
  expectSilent(kData / "small-m-matmul", "low-double-buffer-overlap");
}

// The makespan of `folder`'s project with `edit` made to a fresh copy of its kernel, run from scratch.
double makespanWithKernelEdit(const fs::path& folder, const KernelEdit& edit) {
  const fs::path copy = fs::temp_directory_path() / ("pto-advisor-rules-" + std::to_string(::getpid())) /
                        folder.filename();
  fs::remove_all(copy);
  fs::create_directories(copy.parent_path());
  fs::copy(folder, copy, fs::copy_options::recursive);
  const fs::path kernel = copy / fs::path(edit.file).filename();
  std::ifstream in(kernel);
  std::stringstream text;
  text << in.rdbuf();
  const std::optional<std::string> edited = applyKernelEdit(text.str(), edit);
  EXPECT_TRUE(edited) << kernel;
  if (!edited) return 0.0;
  std::ofstream(kernel, std::ios::trunc) << *edited;
  DiagnosticEngine diags;
  auto project = loadProject(copy, diags);
  EXPECT_TRUE(project) << diags.printed();
  if (!project) return 0.0;
  ProjectRunOptions options;
  options.check = PrecisionCheck::Always;  // the edit must not change the results
  auto run = runProject(*project, diags, options);
  EXPECT_TRUE(run && run->simulation && run->pass()) << diags.printed();
  return run && run->simulation ? run->simulation->stats.makespanUs : 0.0;
}

// The second of two loops that share no data sits behind PyPTO's loop barrier: the rule proposes the kernel
// edit that drops it; the edited kernel, traced afresh, runs in the predicted time with the same outputs.
TEST(AdvisorRules, ABarrierBetweenLoopsThatShareNoDataIsDroppedByAKernelEdit) {
  const fs::path folder = kData / "loop-barrier";
  const Advised& project = advised(folder);
  const Suggestion* suggestion = suggestionOf(project.advice, "loop-barrier");
  ASSERT_NE(suggestion, nullptr) << listed(project.advice);
  EXPECT_EQ(suggestion->id, "loop-barrier:SCALE");
  EXPECT_TRUE(suggestion->patch.empty());
  ASSERT_TRUE(suggestion->kernelEdit);
  EXPECT_EQ(suggestion->kernelEdit->line, 21);  // the keyword's line, below the loop's
  EXPECT_EQ(suggestion->kernelEdit->before, "submit_before_loop=True");
  EXPECT_EQ(suggestion->kernelEdit->after, "submit_before_loop=False");
  EXPECT_NE(suggestion->evidence.find("loop 'SCALE' (kernel.py:20) is entered behind a loop barrier once (first "
                                      "before task 32 of 64)"),
            std::string::npos)
      << suggestion->evidence;
  // Two loops of 32 tasks on 48 vector cores: without the barrier they run side by side.
  EXPECT_LT(suggestion->predictedUs, 0.8 * project.advice.baselineUs);
  const double obtained = makespanWithKernelEdit(folder, *suggestion->kernelEdit);
  EXPECT_NEAR(obtained, suggestion->predictedUs, 0.05 * suggestion->predictedUs);
  EXPECT_LT(obtained, project.advice.baselineUs);
}

TEST(AdvisorRules, TheBarrierEditIsFoundInTheUnsavedTextThatWasTraced) {
  // The IDE traces its editor's unsaved text: two lines typed above the
  // kernel move the keyword to line 23 there, while the file still has it on
  // line 21. The edit must point into the text that ran.
  DiagnosticEngine diags;
  auto project = loadProject(kData / "loop-barrier", diags);
  ASSERT_TRUE(project) << diags.printed();
  std::ifstream file(project->sourcePath());
  std::stringstream onDisk;
  onDisk << file.rdbuf();
  ProjectTraceOptions options;
  options.sourceText = "# typed\n# not saved\n" + onDisk.str();
  auto traced = traceForVariants(*project, diags, options);
  ASSERT_TRUE(traced) << diags.printed();
  auto advice = advise(*traced, diags);
  ASSERT_TRUE(advice) << diags.printed();
  const Suggestion* suggestion = suggestionOf(*advice, "loop-barrier");
  ASSERT_NE(suggestion, nullptr) << listed(*advice);
  ASSERT_TRUE(suggestion->kernelEdit);
  EXPECT_EQ(suggestion->kernelEdit->line, 23);
  EXPECT_EQ(suggestion->kernelEdit->before, "submit_before_loop=True");
}

TEST(AdvisorRules, ABarrierThatOrdersDataIsLeftAlone) {
  // The second loop reads the first one's output: the barrier is what PyPTO's loop guide asks for.
  expectSilent(kData / "loop-barrier-needed", "loop-barrier");
  expectSilent(kMatmulExample, "loop-barrier");
  expectSilent(kData / "small-m-matmul", "loop-barrier");
}

TEST(AdvisorRules, AKernelEditAppliesOnlyWhereItsLineStillSaysWhatItReplaces) {
  const std::string source = "for j in loop(0, 4,\n    submit_before_loop=True):\n  pass\n";
  const KernelEdit edit{"kernel.py", 2, "submit_before_loop=True", "submit_before_loop=False"};
  EXPECT_EQ(applyKernelEdit(source, edit), "for j in loop(0, 4,\n    submit_before_loop=False):\n  pass\n");
  EXPECT_FALSE(applyKernelEdit(source, KernelEdit{"kernel.py", 1, edit.before, edit.after}));  // not on line 1
  EXPECT_FALSE(applyKernelEdit(source, KernelEdit{"kernel.py", 9, edit.before, edit.after}));  // no line 9
  EXPECT_FALSE(applyKernelEdit("submit_before_loop=False", edit));
}

} // namespace
} // namespace pto
