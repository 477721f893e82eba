// `pto calibrate` end to end on the bundled calibration example. "Measured"
// traces are simulations on machines whose figures were moved by known
// factors (an independent path: `pto run --machine` on a file edited here,
// not the calibration's own scaling); calibration must recover each factor
// within 5 %, alone and all together, from PTO Studio's trace format and
// from PyPTO's L1 profile with its topology. A trace that does not fit the
// project (tasks missing or extra, other time units, another kernel, not a
// swimlane) is refused with a message naming the file and what to do.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>

namespace pto::test {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

const std::vector<std::string> kDefaultParameters = {"paths.gm_to_l1.peak_gib_per_s", "global_memory.bandwidth_tb_per_s",
                                                     "scheduler.dispatch_cycles", "vector.bytes_per_cycle"};

// A scratch copy of the calibration example, with machines and traces made in it.
class CalibrationFolder {
public:
  CalibrationFolder() : m_dir(fs::temp_directory_path() / ("pto-calibrate-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(m_dir);
    for (const char* file : {"kernel.py", "pto-project.json"})
      fs::copy_file(fs::path(example("calibration")) / file, m_dir / file);
  }
  ~CalibrationFolder() { fs::remove_all(m_dir); }
  CalibrationFolder(const CalibrationFolder&) = delete;
  CalibrationFolder& operator=(const CalibrationFolder&) = delete;

  const fs::path& dir() const { return m_dir; }
  std::string project() const { return "'" + m_dir.string() + "'"; }

  // a2.json with each dotted key's figure multiplied by its factor (cycles rounded).
  fs::path machine(const std::string& name, const std::map<std::string, double>& factors) const {
    Json machine = Json::parse(slurp(fs::path(PTO_SOURCE_DIR) / "resources/machines/a2.json"));
    for (const auto& [key, factor] : factors) {
      std::string pointer = "/" + key;
      std::replace(pointer.begin(), pointer.end(), '.', '/');
      Json& value = machine.at(Json::json_pointer(pointer));
      if (value.is_number_integer()) value = std::llround(value.get<double>() * factor);
      else value = value.get<double>() * factor;
    }
    const fs::path file = m_dir / (name + ".json");
    std::ofstream(file) << machine.dump(2);
    return file;
  }

  // The project simulated on `machine`, as a Chrome trace.
  fs::path measure(const fs::path& machine, const std::string& name) const {
    const fs::path trace = m_dir / (name + ".trace.json");
    Result run = runPto("run " + project() + " --machine '" + machine.string() + "' --no-check --no-record --trace '" +
                        trace.string() + "'");
    EXPECT_EQ(run.exitCode, 0) << run.err;
    return trace;
  }

private:
  fs::path m_dir;
};

Json readJson(const fs::path& file) { return Json::parse(slurp(file)); }

void writeJson(const fs::path& file, const Json& json) { std::ofstream(file) << json.dump(); }

// The factor calibration found for each parameter, by key.
std::map<std::string, double> factorsOf(const nlohmann::json& report) {
  std::map<std::string, double> factors;
  for (const auto& parameter : report["parameters"])
    if (parameter.contains("factor")) factors[parameter["key"]] = parameter["factor"];
  return factors;
}

void expectRecovered(const nlohmann::json& report, const std::map<std::string, double>& truth) {
  const std::map<std::string, double> found = factorsOf(report);
  for (const std::string& key : kDefaultParameters) {
    const double expected = truth.count(key) ? truth.at(key) : 1.0;
    ASSERT_TRUE(found.count(key)) << key;
    EXPECT_NEAR(found.at(key) / expected, 1.0, 0.05) << key << ": true x" << expected << ", recovered x" << found.at(key);
  }
}

struct Perturbation {
  const char* name;
  std::map<std::string, double> factors;
};

// The test's name in ctest's list, instead of the parameter's bytes.
void PrintTo(const Perturbation& perturbation, std::ostream* out) { *out << perturbation.name; }

class CalibrateRecovers : public ::testing::TestWithParam<Perturbation> {};

TEST_P(CalibrateRecovers, EveryFactorWithinFivePercentAndTheMachineReproducesTheTrace) {
  CalibrationFolder folder;
  const Perturbation& perturbation = GetParam();
  const fs::path chip = folder.machine(perturbation.name, perturbation.factors);
  const fs::path trace = folder.measure(chip, perturbation.name);
  const nlohmann::json report = runPtoJson("calibrate " + folder.project() + " '" + trace.string() + "'");
  ASSERT_TRUE(report.is_object());
  expectRecovered(report, perturbation.factors);
  EXPECT_EQ(report["traces"][0]["role"], "fit");
  EXPECT_EQ(report["traces"][0]["matched_by"], "subgraph+label");
  EXPECT_TRUE(report["residual"]["held_out"].is_null());

  // The calibrated file is a machine `pto run` takes, and it reproduces the measured makespan.
  const fs::path written = folder.dir() / "machines" / "a2-calibrated.json";
  ASSERT_EQ(report["machine_file"], written.string());
  const Json calibrated = readJson(written);
  EXPECT_EQ(calibrated["calibration"]["fit_traces"][0], trace.string());
  EXPECT_EQ(calibrated["calibration"]["parameters"].size(), kDefaultParameters.size());
  const nlohmann::json measured = runPtoJson("run " + folder.project() + " --machine '" + chip.string() + "' --no-check --no-record");
  const nlohmann::json rerun = runPtoJson("run " + folder.project() + " --machine '" + written.string() + "' --no-check --no-record");
  EXPECT_NEAR(rerun["makespan_us"].get<double>() / measured["makespan_us"].get<double>(), 1.0, 0.01);
}

INSTANTIATE_TEST_SUITE_P(
    Perturbations, CalibrateRecovers,
    ::testing::Values(Perturbation{"gm_to_l1", {{"paths.gm_to_l1.peak_gib_per_s", 0.8}}},
                      Perturbation{"hbm", {{"global_memory.bandwidth_tb_per_s", 1.25}}},
                      Perturbation{"dispatch", {{"scheduler.dispatch_cycles", 2.0}}},
                      Perturbation{"vector", {{"vector.bytes_per_cycle", 0.5}}},
                      Perturbation{"combined",
                                   {{"paths.gm_to_l1.peak_gib_per_s", 0.8},
                                    {"global_memory.bandwidth_tb_per_s", 1.25},
                                    {"scheduler.dispatch_cycles", 2.0},
                                    {"vector.bytes_per_cycle", 0.5}}}),
    [](const ::testing::TestParamInfo<Perturbation>& param) { return std::string(param.param.name); });

const std::map<std::string, double> kCombined = {{"paths.gm_to_l1.peak_gib_per_s", 0.8},
                                                 {"global_memory.bandwidth_tb_per_s", 1.25},
                                                 {"scheduler.dispatch_cycles", 2.0},
                                                 {"vector.bytes_per_cycle", 0.5}};

// Every task's duration stretched by a deterministic +-3 %: a second run on the same chip.
fs::path jittered(const fs::path& trace, const fs::path& to) {
  Json json = readJson(trace);
  int index = 0;
  for (Json& event : json["traceEvents"])
    if (event["ph"] == "X") event["dur"] = event["dur"].get<double>() * (1.0 + 0.03 * std::sin(1.7 * index++));
  writeJson(to, json);
  return to;
}

TEST(CalibrateCommand, WithTwoTracesHoldsOutTheLastAndReportsItsError) {
  CalibrationFolder folder;
  const fs::path trace = folder.measure(folder.machine("chip", kCombined), "chip");
  const fs::path second = jittered(trace, folder.dir() / "second.trace.json");
  Result result = runPto("calibrate " + folder.project() + " '" + trace.string() + "' '" + second.string() + "'");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("second.trace.json"), std::string::npos);
  EXPECT_NE(result.out.find("held out"), std::string::npos) << result.out;

  const nlohmann::json report =
      runPtoJson("calibrate " + folder.project() + " '" + trace.string() + "' '" + second.string() + "'");
  expectRecovered(report, kCombined);
  EXPECT_EQ(report["traces"][0]["role"], "fit");
  EXPECT_EQ(report["traces"][1]["role"], "held out");
  // The held-out trace differs from the fitted one by the jitter, at most 3 % per task.
  const double heldOut = report["residual"]["held_out"]["median_task_error"];
  EXPECT_GT(heldOut, 0.005);
  EXPECT_LT(heldOut, 0.035);
  EXPECT_LT(report["residual"]["fit"]["median_task_error"].get<double>(), 0.01);

  // --hold-out names the other one instead.
  const nlohmann::json swapped = runPtoJson("calibrate " + folder.project() + " '" + second.string() + "' --hold-out '" +
                                            trace.string() + "'");
  EXPECT_EQ(swapped["traces"][0]["role"], "fit");
  EXPECT_EQ(swapped["traces"][1]["file"], trace.string());
  EXPECT_EQ(swapped["traces"][1]["role"], "held out");
}

// What PyPTO writes on a chip for the same run: tilefwk_L1_prof_data.json
// (ticks of a 50 MHz counter, AIC cores first), dyn_topo.txt and
// program.json beside it; subgraphs numbered its own way.
fs::path asPyptoOutput(const fs::path& trace, const fs::path& folder) {
  fs::create_directories(folder);
  const Json json = readJson(trace);
  std::map<int, std::string> laneNames;
  for (const Json& event : json["traceEvents"])
    if (event["ph"] == "M" && event["name"] == "thread_name") laneNames[event["tid"]] = event["args"]["name"];
  std::map<std::string, Json> cores;
  std::map<std::string, int> opMagic;
  std::ostringstream topo;
  topo << "seqNo,taskId,rootIndex,rootHash,opmagic,leafIndex,leafHash,coreType,psgId,wrapId,successors\n";
  for (const Json& event : json["traceEvents"]) {
    if (event["ph"] != "X") continue;
    const std::string lane = laneNames.at(event["tid"]);
    const bool cube = lane.rfind("AIC_", 0) == 0;
    const int block = std::stoi(lane.substr(4)) + (cube ? 0 : 24);
    Json& core = cores[lane];
    if (core.is_null()) core = {{"blockIdx", block}, {"coreType", cube ? "AIC" : "AIV"}, {"tasks", Json::array()}};
    const Json& args = event["args"];
    const double start = event["ts"].get<double>(), end = start + event["dur"].get<double>();
    core["tasks"].push_back({{"seqNo", args["seqNo"]},
                             {"subGraphId", args["subgraph"].get<int>() + 1000},
                             {"taskId", args["taskId"]},
                             {"execStart", std::llround(start * 50.0) + 123456789},
                             {"execEnd", std::llround(end * 50.0) + 123456789}});
    const std::string label = args["label"];
    if (!opMagic.count(label)) opMagic[label] = 100 + static_cast<int>(opMagic.size());
    topo << args["seqNo"] << "," << args["taskId"] << ",0,4242," << opMagic[label] << ",1,77," << (cube ? 0 : 1)
         << ",0,-1\n";
  }
  Json profile = Json::array();
  for (auto& [lane, core] : cores) profile.push_back(core);
  writeJson(folder / "tilefwk_L1_prof_data.json", profile);
  std::ofstream(folder / "dyn_topo.txt") << topo.str();
  Json operations = Json::array();
  for (const auto& [label, magic] : opMagic) operations.push_back({{"opmagic", magic}, {"semantic_label", {{"label", label}}}});
  writeJson(folder / "program.json", {{"functions", {{{"hash", "4242"}, {"graphtype", 1}, {"operations", operations}}}}});
  return folder / "tilefwk_L1_prof_data.json";
}

TEST(CalibrateCommand, ReadsPyptosL1ProfileAndMatchesByLabelWhenSubgraphsAreNumberedOtherwise) {
  CalibrationFolder folder;
  const fs::path trace = folder.measure(folder.machine("chip", kCombined), "chip");
  const fs::path profile = asPyptoOutput(trace, folder.dir() / "output_20260101");
  const nlohmann::json report = runPtoJson("calibrate " + folder.project() + " '" + profile.string() + "'");
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["traces"][0]["format"], "pypto-l1-prof");
  EXPECT_EQ(report["traces"][0]["matched_by"], "label");
  // 20 ns ticks: the shortest tasks lose up to 10 ns at each end, so within 5 % but not exactly.
  expectRecovered(report, kCombined);
}

// A copy of `trace` with its complete events passed through `edit` (return false to drop one).
fs::path edited(const fs::path& trace, const fs::path& to, const std::function<bool(Json&)>& edit) {
  Json json = readJson(trace);
  Json events = Json::array();
  for (Json& event : json["traceEvents"])
    if (event["ph"] != "X" || edit(event)) events.push_back(event);
  json["traceEvents"] = events;
  writeJson(to, json);
  return to;
}

TEST(CalibrateCommand, ATraceMissingTasksIsRefusedUnlessPartialAndSaysWhichGroups) {
  CalibrationFolder folder;
  const fs::path trace = folder.measure(folder.machine("chip", kCombined), "chip");
  int seen = 0;
  const fs::path cut = edited(trace, folder.dir() / "cut.json", [&](Json& event) {
    return event["args"]["label"] != "tiny" || seen++ % 4 != 0;  // a quarter of the tiny tasks lost
  });
  Result result = runPto("calibrate " + folder.project() + " '" + cut.string() + "'");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find(cut.string() + ": error: 0 measured and 64 simulated tasks have no partner"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("64 missing from the trace"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("--partial"), std::string::npos);
  EXPECT_FALSE(fs::exists(folder.dir() / "machines" / "a2-calibrated.json"));

  const nlohmann::json partial = runPtoJson("calibrate " + folder.project() + " '" + cut.string() + "' --partial");
  ASSERT_TRUE(partial.is_object());
  EXPECT_EQ(partial["traces"][0]["tasks"], 236);
}

TEST(CalibrateCommand, ATraceWithExtraTasksIsRefused) {
  CalibrationFolder folder;
  const fs::path trace = folder.measure(folder.machine("chip", kCombined), "chip");
  Json json = readJson(trace);
  Json extra;
  for (const Json& event : json["traceEvents"])
    if (event["ph"] == "X" && event["args"]["label"] == "compute") extra = event;
  extra["args"]["taskId"] = 99999;
  json["traceEvents"].push_back(extra);
  writeJson(folder.dir() / "extra.json", json);
  Result result = runPto("calibrate " + folder.project() + " '" + (folder.dir() / "extra.json").string() + "'");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("label 'compute'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("9 measured, 8 simulated (1 extra in the trace)"), std::string::npos) << result.err;
}

TEST(CalibrateCommand, ATraceInNanosecondsIsRefusedWithTheScaleThatFixesIt) {
  CalibrationFolder folder;
  const fs::path trace = folder.measure(folder.machine("chip", kCombined), "chip");
  const fs::path nanoseconds = edited(trace, folder.dir() / "ns.json", [](Json& event) {
    event["ts"] = event["ts"].get<double>() * 1000.0;
    event["dur"] = event["dur"].get<double>() * 1000.0;
    return true;
  });
  Result result = runPto("calibrate " + folder.project() + " '" + nanoseconds.string() + "'");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find(nanoseconds.string() + ": error: the measured task durations are a median"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("nanoseconds rather than microseconds (--time-scale 0.001)"), std::string::npos) << result.err;

  const nlohmann::json fixed = runPtoJson("calibrate " + folder.project() + " '" + nanoseconds.string() + "' --time-scale 0.001");
  expectRecovered(fixed, kCombined);
}

TEST(CalibrateCommand, AnotherKernelsTraceIsRefusedWithBothLabelLists) {
  CalibrationFolder folder;
  const fs::path softmax = folder.dir() / "softmax.trace.json";
  Result run = runPto("run '" + example("softmax") + "' --no-check --no-record --trace '" + softmax.string() + "'");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  Result result = runPto("calibrate " + folder.project() + " '" + softmax.string() + "' --json -");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("the trace looks like another kernel's"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("the trace's labels: 'softmax'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("the project's labels: 'compute', 'matmul', 'stream', 'tiny'"), std::string::npos) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["ok"], false);
  EXPECT_EQ(report["diagnostics"][0]["file"], softmax.string());
}

TEST(CalibrateCommand, AFileThatIsNoSwimlaneIsRefused) {
  CalibrationFolder folder;
  Result result = runPto("calibrate " + folder.project() + " '" + (folder.dir() / "pto-project.json").string() + "'");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("pto-project.json"), std::string::npos) << result.err;
  Result missing = runPto("calibrate " + folder.project() + " '" + (folder.dir() / "nowhere.json").string() + "'");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("nowhere.json: error: no such file"), std::string::npos) << missing.err;
}

TEST(CalibrateCommand, AnUnknownParameterListsTheKnownOnes) {
  CalibrationFolder folder;
  const fs::path trace = folder.measure(folder.machine("chip", {}), "chip");
  Result result = runPto("calibrate " + folder.project() + " '" + trace.string() + "' --parameters vector.speed");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("no calibration parameter 'vector.speed'; the parameters are"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'vector.bytes_per_cycle'"), std::string::npos) << result.err;
}

} // namespace
} // namespace pto::test
