// The calibration engine's parts on inputs with known answers: the pattern
// search on analytic functions (a minimum inside the box, one on its edge, a
// flat direction that must not move), task pairing by identity, reading
// PyPTO's L1 profile with its topology, and applying factors to a machine file.
#include "analysis/calibration/Calibration.h"
#include "analysis/calibration/PatternSearch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

namespace pto {
namespace {

namespace fs = std::filesystem;

TEST(PatternSearch, FindsTheMinimumOfACoupledQuadraticWithinATenthOfAPercent) {
  // A valley along x0 = x1 (coupled), minimum at (0.3, -0.2): coordinate moves alone zigzag here.
  auto f = [](const std::vector<double>& x) {
    const double a = x[0] - 0.3, b = x[1] + 0.2;
    return (a - b) * (a - b) * 100.0 + (a + b) * (a + b);
  };
  PatternSearchResult found = patternSearch(f, {0.0, 0.0}, {-1.0, -1.0}, {1.0, 1.0});
  EXPECT_NEAR(found.x[0], 0.3, 1e-3);
  EXPECT_NEAR(found.x[1], -0.2, 1e-3);
  EXPECT_TRUE(found.converged);
}

TEST(PatternSearch, StopsAtTheBoundWhenTheMinimumLiesBeyondIt) {
  auto f = [](const std::vector<double>& x) { return (x[0] - 5.0) * (x[0] - 5.0); };
  PatternSearchResult found = patternSearch(f, {0.0}, {-1.0}, {1.0});
  EXPECT_DOUBLE_EQ(found.x[0], 1.0);
}

TEST(PatternSearch, LeavesAParameterTheObjectiveIgnoresWhereItStarted) {
  auto f = [](const std::vector<double>& x) { return std::abs(x[0] - 0.5); };
  PatternSearchResult found = patternSearch(f, {0.0, 0.1}, {-1.0, -1.0}, {1.0, 1.0});
  EXPECT_NEAR(found.x[0], 0.5, 1e-3);
  EXPECT_DOUBLE_EQ(found.x[1], 0.1);
}

TEST(PatternSearch, SpendsNoMoreThanItsBudget) {
  int calls = 0;
  auto f = [&](const std::vector<double>& x) {
    ++calls;
    return x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  };
  PatternSearchOptions options;
  options.budget = 17;
  PatternSearchResult found = patternSearch(f, {0.9, -0.7, 0.4}, {-1, -1, -1}, {1, 1, 1}, options);
  EXPECT_EQ(calls, found.evaluations);
  EXPECT_LE(found.evaluations, 17);
  EXPECT_FALSE(found.converged);
}

MeasuredTrace traceOf(const std::vector<std::tuple<int, std::string, std::string>>& tasks) {
  MeasuredTrace trace;
  trace.file = "measured.json";
  std::int64_t id = 0;
  for (const auto& [subgraph, label, loop] : tasks) {
    MeasuredTask task;
    task.taskId = id++;
    task.subgraph = subgraph;
    task.label = label;
    task.loop = loop;
    trace.tasks.push_back(task);
  }
  return trace;
}

TEST(TaskMatching, PairsBySubgraphAndLabelInProgramOrder) {
  const std::vector<SimulatedTaskIdentity> simulated = {{0, "load", "", 0}, {1, "add", "", 0}, {0, "load", "", 0}};
  // The trace lists them in another order on its lanes; task ids give program order.
  MeasuredTrace trace = traceOf({{0, "load", ""}, {1, "add", ""}, {0, "load", ""}});
  std::swap(trace.tasks[0], trace.tasks[2]);
  std::swap(trace.tasks[0].taskId, trace.tasks[2].taskId);
  const TaskMatch match = matchTasks(trace, simulated);
  EXPECT_EQ(match.key, "subgraph+label");
  ASSERT_EQ(match.pairs.size(), 3u);
  EXPECT_TRUE(match.mismatched.empty());
  for (const auto& [measured, task] : match.pairs) EXPECT_EQ(trace.tasks[measured].taskId, static_cast<std::int64_t>(task));
}

TEST(TaskMatching, FallsBackToLabelsWhenTheTraceNumbersSubgraphsItsOwnWay) {
  const std::vector<SimulatedTaskIdentity> simulated = {{3, "load", "", 0}, {4, "add", "", 0}};
  const TaskMatch match = matchTasks(traceOf({{10, "load", ""}, {11, "add", ""}}), simulated);
  EXPECT_EQ(match.key, "label");
  EXPECT_EQ(match.pairs.size(), 2u);
}

TEST(TaskMatching, PairsByLoopIndicesWhereBothSidesHaveThem) {
  const std::vector<SimulatedTaskIdentity> simulated = {{0, "row", "b=0", 0}, {0, "row", "b=1", 0}};
  const TaskMatch match = matchTasks(traceOf({{0, "row", "b=1"}, {0, "row", "b=0"}}), simulated);
  ASSERT_EQ(match.pairs.size(), 2u);
  EXPECT_EQ(match.pairs[0], (std::pair<std::size_t, std::size_t>{0, 1}));
  EXPECT_EQ(match.pairs[1], (std::pair<std::size_t, std::size_t>{1, 0}));
}

TEST(TaskMatching, CountsWhatIsMissingPerGroup) {
  const std::vector<SimulatedTaskIdentity> simulated = {{0, "load", "", 0}, {0, "load", "", 0}, {1, "add", "", 0}};
  const TaskMatch match = matchTasks(traceOf({{0, "load", ""}, {1, "add", ""}}), simulated);
  ASSERT_EQ(match.mismatched.size(), 1u);
  EXPECT_EQ(match.mismatched[0].label, "load");
  EXPECT_EQ(match.mismatched[0].measured, 1u);
  EXPECT_EQ(match.mismatched[0].simulated, 2u);
  EXPECT_EQ(match.unpairedSimulated, 1u);
}

// A folder holding what PyPTO writes on a chip: the L1 profile (ticks of a
// 50 MHz counter), dyn_topo.txt and program.json.
fs::path pyptoOutputFolder(bool withTopology, int profiledTasks = 3) {
  const fs::path folder = fs::temp_directory_path() / ("pto-l1-" + std::to_string(std::random_device{}()));
  fs::create_directories(folder);
  nlohmann::json cores = nlohmann::json::array();
  nlohmann::json aiv = {{"blockIdx", 24}, {"coreType", "AIV"}, {"tasks", nlohmann::json::array()}};
  for (int t = 0; t < profiledTasks; ++t)
    aiv["tasks"].push_back({{"seqNo", 1}, {"subGraphId", t == 2 ? 1 : 0}, {"taskId", t}, {"execStart", 1000 + 100 * t},
                            {"execEnd", 1050 + 100 * t}});
  cores.push_back(aiv);
  std::ofstream(folder / "tilefwk_L1_prof_data.json") << cores.dump(4);
  if (withTopology) {
    std::ofstream topo(folder / "dyn_topo.txt");
    topo << "seqNo,taskId,rootIndex,rootHash,opmagic,leafIndex,leafHash,coreType,psgId,wrapId,successors\n";
    topo << "1,0,0,777,10,1,888,1,0,-1,2\n1,1,0,777,10,1,888,1,0,-1,2\n1,2,0,777,11,2,999,1,1,-1\n";
    nlohmann::json program = {
        {"functions",
         {{{"hash", "777"},
           {"graphtype", 1},
           {"operations",
            {{{"opmagic", 10}, {"semantic_label", {{"label", "load"}}}}, {{"opmagic", 11}, {"semantic_label", {{"label", "add"}}}}}}}}}};
    std::ofstream(folder / "program.json") << program.dump();
  }
  return folder;
}

TEST(MeasuredTraceReader, ReadsPyptosL1ProfileWithLabelsFromItsTopology) {
  const fs::path folder = pyptoOutputFolder(true);
  DiagnosticEngine diags;
  auto trace = readMeasuredTrace(folder / "tilefwk_L1_prof_data.json", {}, diags);
  ASSERT_TRUE(trace) << diags.printed();
  EXPECT_EQ(trace->format, MeasuredFormat::PyptoL1Profile);
  ASSERT_EQ(trace->tasks.size(), 3u);
  EXPECT_EQ(trace->tasks[0].label, "load");
  EXPECT_EQ(trace->tasks[2].label, "add");
  EXPECT_EQ(trace->tasks[2].subgraph, 1);
  EXPECT_EQ(trace->tasks[0].lane, "AIV_24");
  // 50 ticks of a 50 MHz counter: one microsecond.
  EXPECT_DOUBLE_EQ(trace->tasks[1].durUs(), 1.0);
  EXPECT_DOUBLE_EQ(trace->tasks[1].startUs, 22.0);
  EXPECT_TRUE(trace->missingFromProfile.empty());
  fs::remove_all(folder);
}

TEST(MeasuredTraceReader, NamesTheTasksTheTopologyListsButTheProfileLacks) {
  const fs::path folder = pyptoOutputFolder(true, 2);
  DiagnosticEngine diags;
  auto trace = readMeasuredTrace(folder / "tilefwk_L1_prof_data.json", {}, diags);
  ASSERT_TRUE(trace) << diags.printed();
  EXPECT_EQ(trace->missingFromProfile, std::vector<std::string>{"1-2"});
  fs::remove_all(folder);
}

TEST(MeasuredTraceReader, WithoutATopologyTasksHaveNoLabelAndTheNoteSaysSo) {
  const fs::path folder = pyptoOutputFolder(false);
  DiagnosticEngine diags;
  auto trace = readMeasuredTrace(folder / "tilefwk_L1_prof_data.json", {}, diags);
  ASSERT_TRUE(trace) << diags.printed();
  EXPECT_TRUE(trace->tasks[0].label.empty());
  ASSERT_EQ(trace->notes.size(), 1u);
  EXPECT_NE(trace->notes[0].find("matched by subgraph id only"), std::string::npos);
  fs::remove_all(folder);
}

TEST(MeasuredTraceReader, AProfileTaskEndingBeforeItStartsIsAnErrorAtItsPlace) {
  const fs::path folder = pyptoOutputFolder(false);
  std::ofstream(folder / "tilefwk_L1_prof_data.json")
      << R"([{"blockIdx": 0, "coreType": "AIC", "tasks": [{"seqNo": 0, "subGraphId": 0, "taskId": 0, "execStart": 9, "execEnd": 3}]}])";
  DiagnosticEngine diags;
  EXPECT_FALSE(readMeasuredTrace(folder / "tilefwk_L1_prof_data.json", {}, diags));
  EXPECT_NE(diags.printed().find("tilefwk_L1_prof_data.json: error: [0].tasks[0]: execEnd 3 is before execStart 9"),
            std::string::npos)
      << diags.printed();
  fs::remove_all(folder);
}

// PyPTO's merged_swimlane.json as draw_swim_lane.py writes it with
// --label_type=1: lanes "AIC_<n>"/"AIV_<n>" at tid 1000 + 2n, names
// "seq-func-op-rootIdx-psgId(label)", a "Fake Core_0" lane for tasks the
// topology lists but the profile lacks.
TEST(MeasuredTraceReader, ReadsPyptosMergedSwimlaneAndCountsItsFakeTasksAsMissing) {
  const fs::path file = fs::temp_directory_path() / ("merged_swimlane-" + std::to_string(std::random_device{}()) + ".json");
  std::ofstream(file) << R"json({"traceEvents": [
    {"args": {"name": "Machine View"}, "cat": "__metadata", "name": "process_name", "ph": "M", "pid": 1},
    {"args": {"name": "Fake Core_0"}, "cat": "__metadata", "name": "thread_name", "ph": "M", "pid": 1, "tid": 1000},
    {"args": {"name": "AIV_25"}, "cat": "__metadata", "name": "thread_name", "ph": "M", "pid": 1, "tid": 1050},
    {"args": {"event-hint": "Task:[1-0-0]", "color": "softmax", "taskId": 0, "seqNo": 1}, "cat": "event", "id": 0,
     "name": "1-0-0-0-3(softmax)", "ph": "X", "pid": 1, "tid": 1050, "ts": 20.0, "dur": 1.5},
    {"args": {"color": "softmax", "taskId": 1, "seqNo": 1}, "cat": "event", "id": 1,
     "name": "1-0-1-0-3(softmax)", "ph": "X", "pid": 1, "tid": 1000, "ts": 19.0, "dur": 1.0}]})json";
  DiagnosticEngine diags;
  auto trace = readMeasuredTrace(file, {}, diags);
  ASSERT_TRUE(trace) << diags.printed();
  EXPECT_EQ(trace->format, MeasuredFormat::ChromeTrace);
  ASSERT_EQ(trace->tasks.size(), 1u);
  EXPECT_EQ(trace->tasks[0].label, "softmax");
  EXPECT_EQ(trace->tasks[0].subgraph, 3);
  EXPECT_EQ(trace->tasks[0].seq, 1);
  EXPECT_EQ(trace->tasks[0].lane, "AIV_25");
  EXPECT_DOUBLE_EQ(trace->tasks[0].durUs(), 1.5);
  EXPECT_EQ(trace->missingFromProfile, std::vector<std::string>{"1-1"});
  fs::remove(file);
}

TEST(CalibrationParameters, ScaleTheirFigureAndRoundCyclesToIntegers) {
  nlohmann::ordered_json machine = {{"scheduler", {{"dispatch_cycles", 200}}},
                                    {"paths", {{"gm_to_l1", {{"peak_gib_per_s", 135.0}}}}}};
  const std::vector<const CalibrationParameter*> parameters = {findCalibrationParameter("scheduler.dispatch_cycles"),
                                                               findCalibrationParameter("paths.gm_to_l1.peak_gib_per_s")};
  ASSERT_TRUE(parameters[0] && parameters[1]);
  const std::vector<double> factors = {1.337, 0.8};
  const nlohmann::ordered_json scaled = scaledMachineJson(machine, parameters, factors);
  EXPECT_EQ(scaled["scheduler"]["dispatch_cycles"], 267);
  EXPECT_DOUBLE_EQ(scaled["paths"]["gm_to_l1"]["peak_gib_per_s"].get<double>(), 108.0);
  EXPECT_EQ(machineFigure(machine, "paths.gm_to_ub.peak_gib_per_s"), nullptr);
}

TEST(CalibrationParameters, EveryDefaultParameterNamesAFigureOfEveryBundledMachine) {
  for (const char* machine : {"a2", "a3", "950", "tiny"}) {
    std::ifstream in(fs::path(PTO_SOURCE_DIR) / "resources/machines" / (std::string(machine) + ".json"));
    const nlohmann::ordered_json json = nlohmann::ordered_json::parse(in);
    for (const CalibrationParameter& parameter : calibrationParameters()) {
      EXPECT_LT(parameter.minFactor, 1.0) << parameter.key;
      EXPECT_GT(parameter.maxFactor, 1.0) << parameter.key;
      if (parameter.byDefault) {
        EXPECT_NE(machineFigure(json, parameter.key), nullptr) << machine << ": " << parameter.key;
      }
    }
  }
}

} // namespace
} // namespace pto
