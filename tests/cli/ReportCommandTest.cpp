// `pto report`: the health report of a real run, as text and JSON. The LI tuning story's L1-reuse step has a
// structure known from its kernel (4 requests x 512 blocks of keys, 32 blocks per cube task: 64 cube tasks on
// a2's 24 cube cores, a ragged third wave of 16), and the report must agree with `pto run --json` where both
// give a figure.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <unistd.h>

namespace pto::test {
namespace {

const std::string kStory = std::string(PTO_SOURCE_DIR) + "/resources/examples/lightning_indexer_tuning/l1_reuse";

TEST(ReportCommand, TheL1ReuseStepShowsItsRaggedCubeWaveAndAgreesWithRun) {
  Result report = runPto("report '" + kStory + "' --json -");
  ASSERT_EQ(report.exitCode, 0) << report.err;
  const auto health = nlohmann::json::parse(report.out);
  Result run = runPto("run '" + kStory + "' --no-check --json -");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto ran = nlohmann::json::parse(run.out);

  EXPECT_EQ(health["command"], "report");
  EXPECT_EQ(health["makespan_cycles"], ran["makespan_cycles"]);
  EXPECT_EQ(health["execute_graph"]["tasks"], ran["tasks"]);
  EXPECT_EQ(health["execute_graph"]["subgraphs"], ran["subgraphs"]);
  EXPECT_EQ(health["execute_graph"]["programs"], ran["programs"]);
  EXPECT_EQ(health["execute_graph"]["dependencies"], ran["dependencies"]);
  nlohmann::json qk;
  for (const auto& wave : health["waves"])
    if (wave["label"] == "qk") qk = wave;
  ASSERT_FALSE(qk.is_null()) << health["waves"].dump();
  EXPECT_EQ(qk["core_type"], "AIC");
  EXPECT_EQ(qk["tasks"], 64);
  EXPECT_EQ(qk["cores"], 24);
  EXPECT_NEAR(qk["waves"].get<double>(), 64.0 / 24.0, 1e-12);
  EXPECT_EQ(qk["last_wave_tasks"], 16);

  for (const auto& type : health["core_types"]) {
    const std::string name = type["core_type"];
    // The same utilisation as the run's (which the simulator sums), within rounding of the division.
    EXPECT_NEAR(type["utilization"].get<double>(), ran["utilization"][name].get<double>(), 1e-9) << name;
    // Busy, idle with tasks ready, idle with none ready and the dispatch landings between them cover the cores'
    // time once: at most all of it, and the landings (200 cycles per task) are a small part.
    const double covered = type["utilization"].get<double>() + type["idle_while_ready"].get<double>() +
                           type["idle_while_none_ready"].get<double>();
    EXPECT_LE(covered, 1.0 + 1e-9) << name;
    EXPECT_GE(covered, 0.9) << name;
  }
  const auto& path = health["critical_path"];
  EXPECT_EQ(path["length_cycles"], ran["makespan_cycles"]);
  EXPECT_EQ(path["busy_cycles"].get<std::int64_t>() + path["wait_cycles"].get<std::int64_t>(),
            path["length_cycles"].get<std::int64_t>());
  std::int64_t byClass = 0;
  for (const auto& [kind, cycles] : path["cycles_by_class"].items()) byClass += cycles.get<std::int64_t>();
  EXPECT_EQ(byClass, path["length_cycles"].get<std::int64_t>());
  // 2 048 small vector steps behind 64 long cube tasks: the waits dominate (the story's README).
  EXPECT_EQ(health["bound"]["class"], "scheduling") << health["bound"].dump();

  Result text = runPto("report '" + kStory + "'");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("qk                       AIC     64 tasks on 24 cores: 2.67 waves, last wave 16/24 busy"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("bound: scheduling, from the critical path"), std::string::npos) << text.out;
}

// The reproduction of issue 32 item 7: 64 independent cube tasks of about 24 us (a2's 128-row blocks of a
// [8192, 4096] x [4096, 128] product) on 24 cube cores. The last task was ready at once but waited two waves
// for a core: the path runs back through the tasks that held its core, and the run is occupancy-bound. The
// reference is the swimlane `pto run --trace` writes: where and how long each task ran.
TEST(ReportCommand, TasksWaitingForBusyCubeCoresMakeTheRunOccupancyBound) {
  const std::string project = std::string(PTO_SOURCE_DIR) + "/tests/data/advisor/uneven-waves";
  const nlohmann::json health = runPtoJson("report '" + project + "' --no-record");
  ASSERT_TRUE(health.is_object());
  EXPECT_EQ(health["bound"]["class"], "occupancy") << health["bound"].dump();
  const std::string evidence = health["bound"]["evidence"];
  EXPECT_NE(evidence.find("for a free AIC core: 'tall' 64 tasks on 24 cores make 2.67 waves, the last with 16 of 24 "
                          "cores busy"),
            std::string::npos)
      << evidence;

  const auto& path = health["critical_path"];
  const std::int64_t length = path["length_cycles"];
  ASSERT_EQ(path["steps"].size(), 3u) << path.dump();
  EXPECT_EQ(path["steps"][0]["waited_for"], "submission");
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(path["steps"][i]["waited_for"], "core");
    EXPECT_EQ(path["steps"][i]["after"], path["steps"][i - 1]["task"]);
    EXPECT_EQ(path["steps"][i]["cause"], "core");
  }
  std::int64_t byCause = 0, byClass = 0, running = 0;
  for (const auto& [cause, cycles] : path["wait_cycles_by_cause"].items()) byCause += cycles.get<std::int64_t>();
  for (const auto& [kind, cycles] : path["cycles_by_class"].items()) byClass += cycles.get<std::int64_t>();
  for (const auto& [kind, cycles] : path["running_cycles_by_class"].items()) running += cycles.get<std::int64_t>();
  EXPECT_EQ(byCause, path["wait_cycles"].get<std::int64_t>());
  EXPECT_EQ(running, path["busy_cycles"].get<std::int64_t>());
  EXPECT_EQ(byClass, length);
  EXPECT_EQ(running + byCause, length);

  // The swimlane: the path's tasks ran one after the other on one cube core; the last one's running is the
  // path's, and the first two's running is the core wait (every core was busy while they ran: all 64 tasks
  // were ready from the start). Times are in microseconds with 3 decimals: a cycle or two of rounding.
  const std::filesystem::path trace = std::filesystem::temp_directory_path() / ("pto-report-waves-" + std::to_string(::getpid()) + ".json");
  Result ran = runPto("run '" + project + "' --no-check --no-record --trace '" + trace.string() + "'");
  ASSERT_EQ(ran.exitCode, 0) << ran.err;
  const nlohmann::json swimlane = nlohmann::json::parse(slurp(trace));
  std::filesystem::remove(trace);
  std::map<std::int64_t, nlohmann::json> slices;
  for (const auto& event : swimlane["traceEvents"])
    if (event["ph"] == "X" && event["args"].contains("taskId")) slices[event["args"]["taskId"].get<std::int64_t>()] = event;
  const double cyclesPerUs = health["clock_ghz"].get<double>() * 1000.0;
  std::vector<nlohmann::json> onPath;
  for (const auto& step : path["steps"]) onPath.push_back(slices.at(step["task"].get<std::int64_t>()));
  for (int i = 1; i < 3; ++i) {
    EXPECT_EQ(onPath[i]["tid"], onPath[0]["tid"]);
    EXPECT_GE(onPath[i]["ts"].get<double>(), onPath[i - 1]["ts"].get<double>() + onPath[i - 1]["dur"].get<double>());
  }
  EXPECT_NEAR(static_cast<double>(running), onPath[2]["dur"].get<double>() * cyclesPerUs, 3.0);
  const double holders = (onPath[0]["dur"].get<double>() + onPath[1]["dur"].get<double>()) * cyclesPerUs;
  EXPECT_NEAR(path["wait_cycles_by_cause"]["core"].get<double>(), holders, 6.0);

  Result text = runPto("report '" + project + "' --no-record");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("bound: occupancy, from the critical path (3 tasks"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("critical path   3 tasks: running"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("(core "), std::string::npos) << text.out;
}

TEST(ReportCommand, AMissingProjectIsAnErrorNamingIt) {
  Result result = runPto("report /nonexistent/project --json -");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("/nonexistent/project"), std::string::npos) << result.err;
  // JSON was asked for: the failure comes as JSON too.
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["diagnostics"][0]["file"], "/nonexistent/project");
  EXPECT_EQ(report["diagnostics"][0]["message"], "no such project file or folder");
}

// `--by-line`: each kernel line's share of busy time. The busy time it splits is the health report's (its
// utilisation x cores x makespan, summed from the schedule independently), and every line sums back to it.
nlohmann::json byLineReport(const std::string& project) {
  const nlohmann::json report = runPtoJson("report '" + project + "' --by-line --no-record");
  EXPECT_TRUE(report.contains("by_line")) << report.dump().substr(0, 400);
  std::map<std::string, double> busy;
  for (const auto& type : report["core_types"])
    busy[type["core_type"]] = type["utilization"].get<double>() * type["cores"].get<double>() *
                              report["makespan_cycles"].get<double>();
  const auto& byLine = report["by_line"];
  double shares = 0.0;
  std::map<std::string, double> lineBusy;
  for (const auto& line : byLine["lines"]) {
    shares += line["share"].get<double>();
    for (const char* type : {"AIC", "AIV"}) lineBusy[type] += line["cycles"][type].get<double>();
  }
  EXPECT_NEAR(shares, 1.0, 0.001);
  for (const char* type : {"AIC", "AIV"}) {
    EXPECT_NEAR(byLine["busy_cycles"][type].get<double>(), busy[type], 1e-6 * (1.0 + busy[type])) << type;
    EXPECT_NEAR(lineBusy[type], busy[type], 1e-6 * (1.0 + busy[type])) << type;
  }
  return report;
}

// Softmax's row_softmax runs fused in every task: line 14 (amax), 15 (exp(x - max)) and 16 (divide by the
// sum) each count all 256 tasks; before, a task linked to its first line only and 15-16 "ran no task".
TEST(ReportCommand, ByLineCreditsEveryLineOfAFusedTask) {
  const nlohmann::json report = byLineReport(example("softmax"));
  std::map<int, nlohmann::json> lines;
  for (const auto& line : report["by_line"]["lines"]) lines[line["line"].get<int>()] = line;
  for (int number : {14, 15, 16}) {
    ASSERT_TRUE(lines.count(number)) << report["by_line"].dump().substr(0, 400);
    EXPECT_EQ(lines[number]["tasks"], report["execute_graph"]["tasks"]) << number;
    EXPECT_GT(lines[number]["share"].get<double>(), 0.0) << number;
    EXPECT_EQ(lines[number]["cycles"]["AIC"], 0.0) << "softmax runs on vector cores only";
  }
  EXPECT_EQ(lines[15]["text"], "numerator = pypto.exp(x - row_max)");
  EXPECT_EQ(lines[15]["opcodes"]["TEXP"], 1024) << "256 tasks x 4 tiles";
  EXPECT_TRUE(lines[15]["pipes"].contains("VECTOR"));

  Result text = runPto("report '" + example("softmax") + "' --by-line --no-record");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("kernel.py:15"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("numerator = pypto.exp(x - row_max)"), std::string::npos) << text.out;
}

// The LI story's matmul line runs on the cube cores only, its scoring lines on the vector cores.
TEST(ReportCommand, ByLineSplitsCubeAndVectorTime) {
  const nlohmann::json report = byLineReport(kStory);
  int matmulLines = 0;
  for (const auto& line : report["by_line"]["lines"]) {
    const std::string text = line["text"];
    if (text.find("pypto.matmul(") != std::string::npos) {
      ++matmulLines;
      EXPECT_GT(line["cycles"]["AIC"].get<double>(), 0.0);
      EXPECT_EQ(line["cycles"]["AIV"], 0.0);
      EXPECT_TRUE(line["opcodes"].contains("TMATMUL")) << line.dump();
    }
  }
  EXPECT_EQ(matmulLines, 1);
}

} // namespace
} // namespace pto::test
