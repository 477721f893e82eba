// Bad shapes, data and settings in the DeepSeek example projects, as a kernel engineer makes them while
// tuning: each gives a message at the line to fix (the project file's entry or the kernel's op) and exit 1,
// or, for a setting that would silently do nothing, a warning at its entry.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

// A copy of an example whose project file `edit` changes; removed when the test ends.
class EditedExample {
public:
  template <typename Edit> EditedExample(const std::string& name, Edit edit) {
    m_dir = fs::temp_directory_path() / ("pto-bad-settings-" + std::to_string(std::random_device{}()));
    fs::copy(example(name), m_dir, fs::copy_options::recursive);
    nlohmann::ordered_json project = nlohmann::ordered_json::parse(slurp((m_dir / "pto-project.json").string()));
    edit(project);
    std::ofstream(m_dir / "pto-project.json") << project.dump(2);
  }
  ~EditedExample() { fs::remove_all(m_dir); }
  EditedExample(const EditedExample&) = delete;
  EditedExample& operator=(const EditedExample&) = delete;

  std::string dir() const { return m_dir.string(); }
  std::string projectFile() const { return (m_dir / "pto-project.json").string(); }
  std::string kernelFile() const { return (m_dir / "kernel.py").string(); }

private:
  fs::path m_dir;
};

nlohmann::ordered_json& argument(nlohmann::ordered_json& project, const std::string& name) {
  for (auto& arg : project["args"])
    if (arg["name"] == name) return arg;
  throw std::runtime_error("no argument " + name);
}

TEST(BadProjectSettings, ASequenceLengthPastTheCacheStopsAtTheKernelLineInTimingModeToo) {
  // kv_lengths[0] = 70000 > KV = 65536: request 0's last key blocks fall outside `scores`.
  EditedExample project("lightning_indexer", [](auto& json) {
    argument(json, "kv_lengths")["init"]["values"] = {70000, 49152, 65536, 30000};
  });
  for (const char* mode : {"timing", "functional"}) {
    Result result = runPto("run " + project.dir() + " --mode " + mode);
    EXPECT_EQ(result.exitCode, 1) << mode << result.out << result.err;
    EXPECT_NE(result.err.find(project.kernelFile() + ":"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("writes 'scores' [0:1, 65536:65664], outside its shape [8, 65536] in dim 1"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find("check those inputs"), std::string::npos) << result.err;
  }
}

TEST(BadProjectSettings, TileSettingsThatGovernNoOpAreWarnedAtTheirEntry) {
  EditedExample project("lightning_indexer", [](auto& json) {
    json["tile_settings"]["cube"]["kernel.py:999"] = {{"m", {16, 16}}, {"k", {128, 128}}, {"n", {128, 128}}};
    json["tile_settings"]["cube"]["DEFAULT"] = {{"m", {16, 16}}, {"k", {128, 128}}, {"n", {128, 128}}};
    json["tile_settings"]["vec"]["NoSuchLabel"] = {1, 128};
  });
  Result result = runPto("run " + project.dir() + " --mode timing");
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  // Each at a line of the project file.
  for (const char* text : {R"(tile_settings\.cube\.kernel\.py:999: governs no matmul: no set_cube_tile_shapes call of the kernel is at kernel\.py:999)",
                           R"(tile_settings\.cube\.DEFAULT: cube tiles take no DEFAULT)",
                           R"(tile_settings\.vec\.NoSuchLabel: governs no op: no op has the label 'NoSuchLabel')"})
    EXPECT_TRUE(std::regex_search(result.err, std::regex(R"(pto-project\.json:\d+:\d+: warning: )" + std::string(text))))
        << text << "\n" << result.err;
}

TEST(BadProjectSettings, AnAbsurdBindingNamesTheArgumentAndItsEntry) {
  EditedExample project("lightning_indexer", [](auto& json) { json["bindings"]["CACHE_BLOCKS"] = 1000000000000LL; });
  Result result = runPto("run " + project.dir() + " --mode timing");
  EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
  EXPECT_TRUE(std::regex_search(result.err, std::regex(R"(pto-project\.json:\d+:\d+: error: args\[2\] 'key_cache': a int8 tensor of shape \[1000000000000, 128, 1, 128\] needs)")))
      << result.err;
}

TEST(BadProjectSettings, ABadBindingIsReportedOnceNotAgainAtEveryShapeUsingIt) {
  EditedExample project("lightning_indexer", [](auto& json) { json["bindings"]["B"] = 0; });
  Result result = runPto("run " + project.dir());
  EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
  EXPECT_NE(result.err.find("error: bindings.B: a dimension must be positive, got 0"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("has no value"), std::string::npos) << result.err;
}

TEST(BadProjectSettings, ABadMergeCountPointsAtPassOptions) {
  EditedExample project("lightning_indexer",
                        [](auto& json) { json["pass_options"]["cube_l1_reuse_setting"] = {{"-1", -4}}; });
  Result result = runPto("run " + project.dir() + " --mode timing");
  EXPECT_EQ(result.exitCode, 1) << result.out << result.err;
  EXPECT_TRUE(std::regex_search(result.err, std::regex(R"(pto-project\.json:\d+:\d+: error: pass_options\.cube_l1_reuse_setting\.-1 must be a count >= 1, got -4)")))
      << result.err;
}

} // namespace
} // namespace pto::test
