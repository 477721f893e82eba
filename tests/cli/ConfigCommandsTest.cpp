// `pto export-config` / `pto import-config`: the round trip through a file
// restores the tuned settings in another copy of the project; a malformed or
// wrong file is an error at its line, exit 1, and the project file stays.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

class ConfigCommands : public ::testing::Test {
protected:
  void SetUp() override {
    for (const char* copy : {"tuned", "plain"}) fs::copy(example("softmax"), m_dir / copy, fs::copy_options::recursive);
  }
  void write(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  nlohmann::ordered_json project(const char* copy) {
    return nlohmann::ordered_json::parse(slurp(m_dir / copy / "pto-project.json"));
  }
  ScratchFolder m_scratch{"pto-config-test"};
  const fs::path& m_dir = m_scratch.dir();
};

TEST_F(ConfigCommands, ExportThenImportRestoresTheSettings) {
  // Tune one copy by hand.
  nlohmann::ordered_json tuned = project("tuned");
  tuned["machine"] = "a3";
  tuned["tile_settings"] = {{"vec", {{"DEFAULT", {1, 32, 1, 128}}}}};
  tuned["pass_options"] = {{"vec_nbuffer_setting", {{"DEFAULT", 2}}}};
  tuned["runtime_options"] = {{"device_sched_mode", 1}};
  write(m_dir / "tuned" / "pto-project.json", tuned.dump(2));

  fs::path config = m_dir / "config.json";
  Result exported = runPto("export-config " + (m_dir / "tuned").string() + " -o " + config.string());
  ASSERT_EQ(exported.exitCode, 0) << exported.err;
  nlohmann::ordered_json written = nlohmann::ordered_json::parse(slurp(config));
  EXPECT_EQ(written["format"], "pto-tuned-config");
  EXPECT_EQ(written["project"], "softmax");
  EXPECT_EQ(written["tile_settings"], tuned["tile_settings"]);

  Result imported = runPto("import-config " + (m_dir / "plain").string() + " " + config.string());
  ASSERT_EQ(imported.exitCode, 0) << imported.err;
  nlohmann::ordered_json result = project("plain");
  for (const char* key : {"machine", "tile_settings", "pass_options", "runtime_options"})
    EXPECT_EQ(result[key], tuned[key]) << key;
  // The rest of the project is as it was (key order too).
  EXPECT_EQ(result["args"], tuned["args"]);
  EXPECT_EQ(result.begin().key(), "name");
  // And it still checks.
  EXPECT_EQ(runPto("check " + (m_dir / "plain").string()).exitCode, 0);
}

TEST_F(ConfigCommands, ExportToStdoutWithARunNotesTheMakespan) {
  Result exported = runPto("export-config " + (m_dir / "plain").string() + " --run");
  ASSERT_EQ(exported.exitCode, 0) << exported.err;
  nlohmann::json config = nlohmann::json::parse(exported.out);
  Result run = runPto("run " + (m_dir / "plain").string() + " --json -");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_DOUBLE_EQ(config["measured"]["makespan_us"].get<double>(),
                   nlohmann::json::parse(run.out)["makespan_us"].get<double>());
  EXPECT_EQ(config["measured"]["mode"], "timing");
}

TEST_F(ConfigCommands, MalformedFileIsAnErrorAtItsLineAndChangesNothing) {
  std::string before = slurp(m_dir / "plain" / "pto-project.json");
  fs::path bad = m_dir / "bad.json";
  write(bad, "{\n  \"machine\": \"a3\",\n  \"tile_settings\": {\"vec\": {\"DEFAULT\": [1, 32,]}}\n}\n");
  Result result = runPto("import-config " + (m_dir / "plain").string() + " " + bad.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find(bad.string() + ":3:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("error: invalid JSON"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("was not changed"), std::string::npos) << result.err;
  EXPECT_EQ(slurp(m_dir / "plain" / "pto-project.json"), before);

  write(bad, "{\n  \"runtime_options\": {\"device_sched_mode\": \"fast\"}\n}\n");
  result = runPto("import-config " + (m_dir / "plain").string() + " " + bad.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find(bad.string() + ":2:22: error: runtime_options.device_sched_mode"), std::string::npos)
      << result.err;
  EXPECT_EQ(slurp(m_dir / "plain" / "pto-project.json"), before);
}

TEST_F(ConfigCommands, MissingArgumentsAreUsageErrors) {
  EXPECT_EQ(runPto("import-config " + (m_dir / "plain").string()).exitCode, 2);
  Result missing = runPto("import-config " + (m_dir / "plain").string() + " " + (m_dir / "none.json").string());
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("cannot read the tuned config"), std::string::npos) << missing.err;
}

} // namespace
} // namespace pto::test
