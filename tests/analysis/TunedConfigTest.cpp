// Tuned configs: export then import restores every tuned setting; bad files
// are rejected with an error at their line and leave the project unchanged.
#include "analysis/simulation/TunedConfig.h"

#include "core/json/JsonPrinter.h"
#include "core/project/ProjectFile.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

OperatorProject softmax() {
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/softmax", diags);
  EXPECT_TRUE(project.has_value());
  return *project;
}

OperatorProject tuned() {
  OperatorProject project = softmax();
  project.machine = "a3";
  project.tileSettings = Json::parse(R"({"vec": {"DEFAULT": [1, 32, 1, 128]}, "cube": {"mm": {"m": [64, 64], "k": [64, 128], "n": [64, 64]}}})");
  project.passOptions = Json::parse(R"({"vec_nbuffer_setting": {"DEFAULT": 2}})");
  project.runtimeOptions = Json::parse(R"({"device_sched_mode": 1, "stitch_function_max_num": 4})");
  project.partitionOverrides = Json::parse(R"([{"merge": [{"label": "a", "tile": 0}, {"label": "a", "tile": 1}]}])");
  return project;
}

TEST(TunedConfig, ExportListsTheTunedSettingsAndTheMeasurement) {
  Json config = tunedConfig(tuned(), TunedConfigMeasurement{12.5, "a3", "timing"});
  std::vector<std::string> keys;
  for (const auto& [key, value] : config.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"format", "version", "project", "machine", "tile_settings", "pass_options",
                                            "runtime_options", "partition_overrides", "measured"}));
  EXPECT_EQ(config["format"], "pto-tuned-config");
  EXPECT_EQ(config["project"], "softmax");
  EXPECT_EQ(config["machine"], "a3");
  EXPECT_EQ(config["runtime_options"]["device_sched_mode"], 1);
  EXPECT_EQ(config["measured"]["makespan_us"], 12.5);
  EXPECT_FALSE(tunedConfig(softmax()).contains("measured"));
}

TEST(TunedConfig, RoundTripRestoresEverySetting) {
  OperatorProject source = tuned();
  std::string text = printJson(tunedConfig(source));
  OperatorProject target = softmax();  // untuned
  DiagnosticEngine diags;
  ASSERT_TRUE(applyTunedConfig(text, "tuned.json", target, diags)) << diags.printed();
  EXPECT_EQ(diags.diagnostics().size(), 0u) << diags.printed();
  EXPECT_EQ(target.machine, source.machine);
  EXPECT_EQ(target.tileSettings, source.tileSettings);
  EXPECT_EQ(target.passOptions, source.passOptions);
  EXPECT_EQ(target.runtimeOptions, source.runtimeOptions);
  EXPECT_EQ(target.partitionOverrides, source.partitionOverrides);
  ASSERT_EQ(target.partitionOverrideLocations.size(), 1u);
  EXPECT_EQ(target.partitionOverrideLocations[0].file, "tuned.json");
  // The project saved after the import reads back with the same settings.
  DiagnosticEngine reload;
  auto reread = parseProject(serializeProject(target), target.file, reload);
  ASSERT_TRUE(reread) << reload.printed();
  EXPECT_EQ(reread->tileSettings, source.tileSettings);
  EXPECT_EQ(reread->runtimeOptions, source.runtimeOptions);
  EXPECT_EQ(reread->machine, "a3");
}

TEST(TunedConfig, AbsentKeysLeaveTheProjectsSettings) {
  OperatorProject project = tuned();
  DiagnosticEngine diags;
  ASSERT_TRUE(applyTunedConfig(R"({"pass_options": {}})", "partial.json", project, diags)) << diags.printed();
  EXPECT_TRUE(project.passOptions.empty());
  EXPECT_EQ(project.machine, "a3");
  EXPECT_EQ(project.runtimeOptions["device_sched_mode"], 1);
}

struct BadConfig {
  const char* name;
  const char* text;
  const char* expected;  // the first printed diagnostic line
};

class TunedConfigErrors : public ::testing::TestWithParam<BadConfig> {};

TEST_P(TunedConfigErrors, AreLocatedAndChangeNothing) {
  const BadConfig& bad = GetParam();
  OperatorProject project = tuned();
  OperatorProject before = project;
  DiagnosticEngine diags;
  EXPECT_FALSE(applyTunedConfig(bad.text, "bad.json", project, diags));
  ASSERT_TRUE(diags.hasErrors());
  std::string text = diags.printed();
  EXPECT_EQ(text.substr(0, text.find('\n')), bad.expected) << text;
  EXPECT_EQ(project.tileSettings, before.tileSettings);
  EXPECT_EQ(project.runtimeOptions, before.runtimeOptions);
  EXPECT_EQ(project.machine, before.machine);
}

INSTANTIATE_TEST_SUITE_P(
    TunedConfig, TunedConfigErrors,
    ::testing::Values(
        BadConfig{"Malformed", "{\n  \"machine\": \"a2\",\n  \"pass_options\": {,\n}\n",
                  "bad.json:3:20: error: invalid JSON: syntax error while parsing object key - unexpected ','; expected string literal"},
        BadConfig{"NotAnObject", "[1, 2]",
                  "bad.json:1:1: error: a tuned config, as `pto export-config` writes it, must hold a JSON object, got an array"},
        BadConfig{"TileDimNotPositive", "{\n  \"tile_settings\": {\"vec\": {\"DEFAULT\": [0, 32]}}\n}\n",
                  "bad.json:2:41: error: tile_settings.vec.DEFAULT[0]: a tile dimension must be positive, got 0"},
        BadConfig{"PassOptionsNotObject", "{\"pass_options\": [1]}",
                  "bad.json:1:18: error: pass_options: expected an object, got an array"},
        BadConfig{"RuntimeOptionOutOfRange", "{\n  \"runtime_options\": {\"device_sched_mode\": 7}\n}",
                  "bad.json:2:22: error: runtime_options.device_sched_mode: expected an integer from 0 to 3 (0 shared "
                  "FIFO, 1 affinity, 2 fair, 3 both), got 7"},
        BadConfig{"OverrideNotObject", "{\"partition_overrides\": [\"merge\"]}",
                  "bad.json:1:26: error: partition_overrides[0]: expected an object, got \"merge\""},
        BadConfig{"WrongFormat", "{\"format\": \"pto-project\"}",
                  "bad.json:1:12: error: format: expected \"pto-tuned-config\", got \"pto-project\"; this is not a "
                  "tuned-config file"},
        BadConfig{"Empty", "", "bad.json:1:1: error: the tuned-config file is empty; it is a JSON object such as "
                               "`pto export-config` writes"}),
    [](const auto& param) { return std::string(param.param.name); });

TEST(TunedConfig, UnknownMachineIsAnErrorAtItsValue) {
  OperatorProject project = tuned();
  DiagnosticEngine diags;
  EXPECT_FALSE(applyTunedConfig("{\n  \"machine\": \"a99\"\n}", "bad.json", project, diags));
  std::string text = diags.printed();
  EXPECT_EQ(text.rfind("bad.json:2:14: error:", 0), 0u) << text;
  EXPECT_NE(text.find("a99"), std::string::npos) << text;
  EXPECT_EQ(project.machine, "a3");
}

TEST(TunedConfig, UnknownKeysAndAnotherProjectAreWarnings) {
  OperatorProject project = tuned();
  DiagnosticEngine diags;
  EXPECT_TRUE(applyTunedConfig("{\"project\": \"matmul\", \"tile_setings\": {}}", "w.json", project, diags));
  EXPECT_EQ(diags.warningCount(), 2u) << diags.printed();
  std::string text = diags.printed();
  EXPECT_NE(text.find("exported from project 'matmul', applied to 'softmax'"), std::string::npos) << text;
  EXPECT_NE(text.find("did you mean 'tile_settings'?"), std::string::npos) << text;
}

TEST(TunedConfig, UnreadableFileIsAnError) {
  OperatorProject project = tuned();
  DiagnosticEngine diags;
  EXPECT_FALSE(applyTunedConfigFile("/nonexistent/tuned.json", project, diags));
  EXPECT_EQ(diags.printed().rfind("/nonexistent/tuned.json: error: cannot read the tuned config", 0), 0u) << diags.printed();
}

} // namespace
} // namespace pto
