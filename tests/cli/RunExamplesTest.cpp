// `pto run` on the bundled examples in both simulation modes: every output within tolerance, the report's
// keys (docs/cli.md), identical timelines from timing and functional mode (the trace files are compared byte
// for byte), one Perfetto flow pair per dependency edge, --machine, and bad --mode / --machine values.
#include "CliRunner.h"
#include "tests/support/ChromeTraceChecks.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sys/wait.h>
#include <vector>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

class RunExamples : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("pto-run-test-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  // Runs the example in `mode`; returns the report, and the trace file's text in `trace`.
  nlohmann::json run(const std::string& mode, std::string& trace, const std::string& extra = "") {
    const fs::path report = m_dir / (mode + ".json"), traceFile = m_dir / (mode + "-trace.json");
    Result result = runPto("run " + example(GetParam()) + " --mode " + mode + " --json " + report.string() +
                           " --trace " + traceFile.string() + " " + extra);
    EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
    trace = slurp(traceFile);
    return nlohmann::json::parse(slurp(report), nullptr, false);
  }
  fs::path m_dir;
};

TEST_P(RunExamples, BothModesPassWithTheSameTimeline) {
  std::string timingTrace, functionalTrace;
  const nlohmann::json timing = run("timing", timingTrace);
  const nlohmann::json functional = run("functional", functionalTrace);
  ASSERT_FALSE(timing.is_discarded());
  ASSERT_FALSE(functional.is_discarded());
  for (const nlohmann::json* report : {&timing, &functional}) {
    for (const char* key : {"makespan_us", "tasks", "tasks_by_core_type", "subgraphs", "machine", "mode",
                            "utilization", "outputs"})
      EXPECT_TRUE(report->contains(key)) << key;
    EXPECT_EQ((*report)["pass"], true);
    EXPECT_GT((*report)["makespan_us"].get<double>(), 0.0);
    const nlohmann::json& byType = (*report)["tasks_by_core_type"];
    EXPECT_EQ(byType["AIC"].get<int>() + byType["AIV"].get<int>(), (*report)["tasks"].get<int>());
    for (const nlohmann::json& output : (*report)["outputs"]) {
      EXPECT_EQ(output["pass"], true) << output.dump();
      for (const char* key : {"name", "max_abs_err", "max_rel_err", "mismatch_ratio"})
        EXPECT_TRUE(output.contains(key)) << key;
    }
    for (const char* type : {"AIC", "AIV"}) {
      const double utilization = (*report)["utilization"][type].get<double>();
      EXPECT_GE(utilization, 0.0);
      EXPECT_LE(utilization, 1.0);
    }
  }
  EXPECT_EQ(timing["mode"], "timing");
  EXPECT_EQ(functional["mode"], "functional");
  EXPECT_EQ(timing["outputs_from"], "tiles");
  EXPECT_EQ(functional["outputs_from"], "functional");
  EXPECT_EQ(timing["makespan_cycles"], functional["makespan_cycles"]);
  EXPECT_FALSE(timingTrace.empty());
  EXPECT_TRUE(timingTrace == functionalTrace) << "the two modes' swimlanes differ";
}

// The trace-format page: every dependency edge is one s/f pair with its own id and "bp":"e" on the f.
TEST_P(RunExamples, ThePerfettoTraceHasOneFlowPairPerDependencyEdge) {
  std::string text;
  const nlohmann::json report = run("timing", text);
  const nlohmann::json trace = nlohmann::json::parse(text, nullptr, false);
  ASSERT_FALSE(trace.is_discarded());
  EXPECT_TRUE(pto::testing::hasOneFlowPairPerEdge(trace, report["tasks"].get<std::int64_t>(),
                                                  report["dependencies"].get<std::int64_t>()));
}

INSTANTIATE_TEST_SUITE_P(Examples, RunExamples, ::testing::Values("softmax", "matmul", "muls_add_matmul_rowsum"));

// The DeepSeek-V3.2 Lightning Indexer at its full default shape (B = 4, 2 tokens each, KV lengths 65536,
// 49152, 65536, 30000) in timing mode: one cube task per KV block read, ceil(L / 128) summed over the
// requests (the functional check at a reduced shape is tests/python/test_example_lightning_indexer.py). And
// the tuning story's configurations (resources/examples/lightning_indexer_tuning): L1 reuse 32 makes each
// unrolled group of 32 blocks one cube task (4 x 512 / 32 = 64); then the vector n-buffer of 16 makes each
// group's 32 vector steps 2 tasks (2 048 -> 128, possible because the cube merges run
// first and no cube subgraph separates the steps any more); then whole-head tiles. Each step is faster.
TEST(RunOptions, LightningIndexerRunsAtItsFullShape) {
  const fs::path report = fs::temp_directory_path() / ("pto-li-" + std::to_string(std::random_device{}()) + ".json");
  auto run = [&](const std::string& project) {
    Result result = runPto("run " + example(project) + " --mode timing --json " + report.string());
    EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
    nlohmann::json json = nlohmann::json::parse(slurp(report), nullptr, false);
    fs::remove(report);
    return json;
  };
  const nlohmann::json example = run("lightning_indexer");
  ASSERT_FALSE(example.is_discarded());
  EXPECT_EQ(example["tasks_by_core_type"]["AIC"], 512 + 384 + 512 + 235);
  const nlohmann::json perBlock = run("lightning_indexer_tuning/per_block");
  const nlohmann::json reuse = run("lightning_indexer_tuning/l1_reuse");
  const nlohmann::json nbuffer = run("lightning_indexer_tuning/vec_nbuffer");
  const nlohmann::json wholeHeads = run("lightning_indexer_tuning/whole_head_tiles");
  for (const nlohmann::json* step : {&perBlock, &reuse, &nbuffer, &wholeHeads}) ASSERT_FALSE(step->is_discarded());
  EXPECT_EQ(perBlock["tasks_by_core_type"]["AIC"], 2048);
  EXPECT_EQ(reuse["tasks_by_core_type"]["AIC"], 64);
  // 2 048 weigh steps + head weights (4), positions (1), masks (4) and top-k (8).
  EXPECT_EQ(reuse["tasks_by_core_type"]["AIV"], 2048 + 17);
  EXPECT_EQ(nbuffer["tasks_by_core_type"]["AIV"], 2048 / 16 + 17);
  EXPECT_LT(reuse["makespan_us"].get<double>(), perBlock["makespan_us"].get<double>());
  EXPECT_LT(nbuffer["makespan_us"].get<double>(), reuse["makespan_us"].get<double>());
  EXPECT_LT(wholeHeads["makespan_us"].get<double>(), nbuffer["makespan_us"].get<double>());
}

// The other DeepSeek-V3.2 examples at their full default shapes in timing mode (the numpy goldens run at
// reduced shapes in tests/python/test_example_*.py): each traces, compiles and simulates. Sparse flash
// attention's task counts follow from its structure: 8 tokens x 32 steps of 64 slots, each step one qk and
// two pv cube tasks (768) and a gather and a softmax vector task (512), plus 8 update tasks (16-head row
// groups) for each of the 31 steps after the first (1 984). The prologs only stream their weights once, so
// neither can beat the time a2's global memory (1.6 TB/s at 0.8 efficiency) takes to read them: MLA's
// 61.3 M fp16 weights (7168x1536, 1536x24576, 7168x576, 128x128x512) take 95.8 us, the indexer's 13.97 M
// (1536x8192, 7168x128, 7168x64, 128x128) 21.8 us.
// `pto run EXAMPLE --mode timing --no-check --json`'s report (discarded when the run wrote none).
nlohmann::json runTiming(const std::string& name) {
  const fs::path report = fs::temp_directory_path() / ("pto-ds-" + std::to_string(std::random_device{}()) + ".json");
  Result result = runPto("run " + example(name) + " --mode timing --no-check --json " + report.string());
  EXPECT_EQ(result.exitCode, 0) << name << ": " << result.out << result.err;
  nlohmann::json json = nlohmann::json::parse(slurp(report), nullptr, false);
  fs::remove(report);
  return json;
}

TEST(RunOptions, DeepSeekExamplesRunAtTheirFullShapes) {
  const auto run = runTiming;
  const nlohmann::json attention = run("sparse_flash_attention");
  ASSERT_FALSE(attention.is_discarded());
  EXPECT_EQ(attention["tasks_by_core_type"]["AIC"], 8 * 32 * 3);
  EXPECT_EQ(attention["tasks_by_core_type"]["AIV"], 8 * 32 * 2 + 8 * 31 * 8);
  const double bytesPerUs = 1.6e12 * 0.8 / 1e6;
  for (const auto& [name, weightElements] :
       std::map<std::string, double>{{"mla_prolog", 7168.0 * 1536 + 1536.0 * 24576 + 7168.0 * 576 + 128.0 * 128 * 512},
                                     {"indexer_prolog", 1536.0 * 8192 + 7168.0 * 128 + 7168.0 * 64 + 128.0 * 128}}) {
    const nlohmann::json json = run(name);
    ASSERT_FALSE(json.is_discarded()) << name;
    EXPECT_GE(json["makespan_us"].get<double>(), 2 * weightElements / bytesPerUs) << name;
  }
}

// DIA tuning story (b) (resources/examples/sparse_attention_gather_tuning) at the sparse attention example's
// full shape: the same attention, each step's 64 selected KV rows gathered by tensor index. Through the GM
// workspace a step has one qk and two pv cube tasks, as in the example; gathered straight into L1, the pv
// gather's rows serve both pv tiles, so each step has one qk and one pv cube task (8 x 32 x 2), and the run is
// faster. And the fused DIA at 64K keys per request: it traces, compiles and simulates.
TEST(RunOptions, GatherTuningStoryAndFusedAttentionRunAtTheirFullShapes) {
  const auto run = runTiming;
  const nlohmann::json workspace = run("sparse_attention_gather_tuning/workspace");
  const nlohmann::json intoL1 = run("sparse_attention_gather_tuning/gather_in_l1");
  ASSERT_FALSE(workspace.is_discarded());
  ASSERT_FALSE(intoL1.is_discarded());
  EXPECT_EQ(workspace["tasks_by_core_type"]["AIC"], 8 * 32 * 3);
  EXPECT_EQ(intoL1["tasks_by_core_type"]["AIC"], 8 * 32 * 2);
  EXPECT_LT(intoL1["makespan_us"].get<double>(), workspace["makespan_us"].get<double>());
  const nlohmann::json fused = run("deepseek_indexer_attention");
  ASSERT_FALSE(fused.is_discarded());
  EXPECT_GT(fused["tasks"].get<int>(), 0);
}

// A kernel configured in its decorator, as PyPTO's are (@pypto.frontend.jit(pass_options={...})): pto run
// compiles with those options, and the project's own pass_options override them key by key. The softmax
// example's 256 vector tasks become 64 with vec_nbuffer_setting 4 from the decorator, and 128 when the
// project says 2.
TEST(RunOptions, KernelDecoratorOptionsApplyUnderTheProjects) {
  const fs::path dir = fs::temp_directory_path() / ("pto-decorator-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::string kernel = slurp(example("softmax") + "/kernel.py");
  const std::string plain = "@pypto.frontend.jit\ndef softmax(";
  ASSERT_NE(kernel.find(plain), std::string::npos);
  kernel.replace(kernel.find(plain), plain.size(),
                 "@pypto.frontend.jit(pass_options={\"vec_nbuffer_setting\": {-1: 4}})\ndef softmax(");
  std::ofstream(dir / "kernel.py") << kernel;
  nlohmann::json project = nlohmann::json::parse(slurp(example("softmax") + "/pto-project.json"));
  auto tasksWith = [&](const nlohmann::json& passOptions) {
    project["pass_options"] = passOptions;
    std::ofstream(dir / "pto-project.json") << project.dump(2);
    const fs::path report = dir / "report.json";
    Result result = runPto("run " + dir.string() + " --json " + report.string());
    EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
    return nlohmann::json::parse(slurp(report))["tasks"].get<int>();
  };
  EXPECT_EQ(tasksWith(nlohmann::json::object()), 64);
  EXPECT_EQ(tasksWith({{"vec_nbuffer_setting", {{"DEFAULT", 2}}}}), 128);
  fs::remove_all(dir);
}

TEST(RunOptions, MachineOverrideChangesTheChip) {
  const fs::path report = fs::temp_directory_path() / ("pto-run-tiny-" + std::to_string(std::random_device{}()) + ".json");
  Result result = runPto("run " + example("softmax") + " --machine tiny --json " + report.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json json = nlohmann::json::parse(slurp(report));
  fs::remove(report);
  EXPECT_EQ(json["machine"], "tiny");
  EXPECT_EQ(json["pass"], true);
}

// The softmax example's iterations share no data and arrive together (PyPTO's default stitching, 128 iterations
// per device task): 256 independent tasks for 48 vector cores, so every core gets work, as its docstring says.
TEST(RunOptions, SoftmaxSpreadsOverEveryVectorCore) {
  const fs::path trace = fs::temp_directory_path() / ("pto-softmax-lanes-" + std::to_string(std::random_device{}()) + ".json");
  Result result = runPto("run " + example("softmax") + " --trace " + trace.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json events = nlohmann::json::parse(slurp(trace))["traceEvents"];
  fs::remove(trace);
  std::set<int> lanes;
  std::size_t tasks = 0;
  for (const auto& event : events)
    if (event.value("ph", "") == "X") {
      lanes.insert(event["tid"].get<int>());
      ++tasks;
    }
  EXPECT_EQ(tasks, 256u);         // 32 rows x 8 slabs
  EXPECT_EQ(lanes.size(), 48u);   // a2: 48 AIV cores, all of them used
}

// --sim-output writes PyPTO's simulator-mode folder under $TILE_FWK_OUTPUT_DIR: the same swimlane as
// --trace (byte for byte) and the same report as --json; without the flag nothing is written there.
TEST(RunOptions, SimOutputWritesPyptosCostModelFolder) {
  const fs::path dir = fs::temp_directory_path() / ("pto-run-sim-output-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  // runPto quotes the executable, so the environment variable goes in front through the shell here.
  auto ptoWithOutputDir = [&](const std::string& args) {
    const std::string command = "TILE_FWK_OUTPUT_DIR='" + (dir / "out").string() + "' '" + PTO_CLI + "' " + args +
                                " >/dev/null 2>&1";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  const fs::path trace = dir / "trace.json";
  ASSERT_EQ(ptoWithOutputDir("run " + example("softmax") + " --trace " + trace.string()), 0);
  EXPECT_FALSE(fs::exists(dir / "out"));  // off by default for pto run
  ASSERT_EQ(ptoWithOutputDir("run " + example("softmax") + " --sim-output --json " + (dir / "report.json").string()), 0);
  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(dir / "out")) runs.push_back(entry.path());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].filename().string().rfind("output_", 0), 0u);
  const fs::path folder = runs[0] / "CostModelSimulationOutput";
  EXPECT_EQ(slurp(folder / "merged_swimlane.json"), slurp(trace));
  const nlohmann::json report = nlohmann::json::parse(slurp(folder / "pto_report.json"));
  const nlohmann::json direct = nlohmann::json::parse(slurp(dir / "report.json"));
  EXPECT_EQ(report["tasks"], direct["tasks"]);
  EXPECT_EQ(report["makespan_us"], direct["makespan_us"]);
  fs::remove_all(dir);
}

// A tile too big for its buffer: pto compile and pto run stop with the diagnostic that names the subgraph, the
// buffer, the bytes needed and available, and the kernel line of the op whose tile is too big.
TEST(RunOptions, ATileTooBigForItsBufferStopsCompileAndRunAtTheKernelLine) {
  const fs::path dir = fs::temp_directory_path() / ("pto-run-overflow-" + std::to_string(std::random_device{}()));
  fs::copy(example("matmul"), dir, fs::copy_options::recursive);
  const fs::path kernel = dir / "kernel.py";
  std::string text = slurp(kernel);
  const std::string from = "set_cube_tile_shapes([128, 128], [64, 256], [128, 256])";
  ASSERT_NE(text.find(from), std::string::npos);
  // An A tile of 256 x 256 fp16 is 128 KiB; a2's L0A holds 64 KiB.
  text.replace(text.find(from), from.size(), "set_cube_tile_shapes([256, 256], [256, 256], [256, 256])");
  std::ofstream(kernel, std::ios::binary) << text;
  for (const char* command : {"compile ", "run "}) {
    Result result = runPto(command + dir.string());
    EXPECT_EQ(result.exitCode, 1) << command << result.out << result.err;
    EXPECT_NE(result.err.find(kernel.string() + ":17:"), std::string::npos) << result.err;  // the matmul line
    EXPECT_NE(result.err.find("needs 131072 bytes of L0A buffer but a2 has 65536 per core; the largest tile is matmul's [256, 256] float16"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("use smaller cube tile shapes"), std::string::npos) << result.err;
  }
  fs::remove_all(dir);
}

TEST(RunOptions, BadModeIsAUsageError) {
  Result result = runPto("run " + example("softmax") + " --mode fast");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("--mode"), std::string::npos) << result.err;
}

TEST(RunOptions, UnknownMachineNamesTheAvailableOnes) {
  Result result = runPto("run " + example("softmax") + " --machine a9");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("a9"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("a2"), std::string::npos) << result.err;
}

} // namespace

// Timing mode executes the kernel on the CPU only to check precision, so a kernel past 1e9 multiply-adds is
// not checked unless asked (--check), and the report says so; a small kernel (the examples) still is.
TEST(RunOptions, TimingModeChecksALargeKernelOnlyWhenAsked) {
  const fs::path dir = fs::temp_directory_path() / ("pto-run-check-" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::ofstream(dir / "kernel.py") << "import pypto\n\n@pypto.frontend.jit\n"
                                      "def mm(a: pypto.Tensor([], pypto.DT_FP16), b: pypto.Tensor([], pypto.DT_FP16),"
                                      " c: pypto.Tensor([], pypto.DT_FP32)):\n"
                                      "    pypto.set_cube_tile_shapes([128, 128], [64, 256], [256, 256])\n"
                                      "    c[:] = pypto.matmul(a, b, pypto.DT_FP32)\n";
  // 1024^3 = 1.07e9 multiply-adds: just past the automatic limit.
  std::ofstream(dir / "pto-project.json")
      << R"({"name": "mm1024", "source": "kernel.py", "entry": "mm", "machine": "a3", "args": [)"
      << R"({"name": "a", "shape": [1024, 1024], "dtype": "float16", "init": {"kind": "uniform", "low": -1, "high": 1, "seed": 1}},)"
      << R"({"name": "b", "shape": [1024, 1024], "dtype": "float16", "init": {"kind": "uniform", "low": -1, "high": 1, "seed": 2}},)"
      << R"({"name": "c", "shape": [1024, 1024], "dtype": "float32"}], "tolerance": {"c": {"rtol": 0.01, "atol": 0.01}}})";
  Result skipped = runPto("run " + dir.string() + " --json -");
  ASSERT_EQ(skipped.exitCode, 0) << skipped.err;
  const nlohmann::json quick = nlohmann::json::parse(skipped.out);
  EXPECT_EQ(quick["precision_checked"], false);
  EXPECT_NE(quick["precision_skipped"].get<std::string>().find("multiply-adds"), std::string::npos);
  EXPECT_DOUBLE_EQ(quick["multiply_adds"].get<double>(), 1024.0 * 1024.0 * 1024.0);
  EXPECT_TRUE(quick["outputs"].empty());
  EXPECT_EQ(quick["outputs_from"], "none");
  Result text = runPto("run " + dir.string());
  EXPECT_NE(text.out.find("precision not checked"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("--check"), std::string::npos) << text.out;

  Result checked = runPto("run " + dir.string() + " --check --json -");
  ASSERT_EQ(checked.exitCode, 0) << checked.err;
  const nlohmann::json full = nlohmann::json::parse(checked.out);
  EXPECT_EQ(full["precision_checked"], true);
  ASSERT_EQ(full["outputs"].size(), 1u);
  EXPECT_EQ(full["outputs"][0]["pass"], true);
  EXPECT_EQ(full["makespan_us"], quick["makespan_us"]) << "the check does not change the timeline";
  Result both = runPto("run " + dir.string() + " --check --no-check");
  EXPECT_EQ(both.exitCode, 2);
  fs::remove_all(dir);
}

} // namespace pto::test
