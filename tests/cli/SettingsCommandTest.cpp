// `pto settings`: tile sites with their buffer use and the option catalog,
// as text and JSON. Byte counts are worked out by hand (see tests/tuning).
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>

namespace pto::test {
namespace {

// A scratch copy of the matmul example whose project file has these tile_settings (and pass_options, when
// given) instead of the example's.
std::unique_ptr<ScratchProject> matmulWith(const nlohmann::ordered_json& tileSettings,
                                           const nlohmann::ordered_json& passOptions = nullptr) {
  nlohmann::ordered_json project = nlohmann::ordered_json::parse(slurp(example("matmul") + "/pto-project.json"));
  project["tile_settings"] = tileSettings;
  if (!passOptions.is_null()) project["pass_options"] = passOptions;
  return std::make_unique<ScratchProject>("pto-settings-cli", slurp(example("matmul") + "/kernel.py"), project.dump(2));
}

TEST(SettingsCommand, TextListsSitesWithBufferUseAndOptions) {
  Result result = runPto("settings '" + example("matmul") + "'");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("matmul on a2: UB 192 KiB, L1 512 KiB, L0A 64 KiB, L0B 64 KiB, L0C 128 KiB per core"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("  cube kernel.py:15     m 128,128 k 64,256 n 128,256 (kernel)\n"
                            "       governs 1 op (matmul) label 'gemm', line 17\n"
                            "       fits: L1 32 KiB / 512 KiB, L0A 16 KiB / 64 KiB, L0B 16 KiB / 64 KiB, L0C 64 KiB / 128 KiB\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("ooo_sched_mode           default: 1 (list scheduling)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("runtime_options\n  device_sched_mode"), std::string::npos) << result.out;
}

TEST(SettingsCommand, JsonReportsAnOverflowAndBadOptionsOfAProject) {
  // The matmul example with kL0 = 512 (A: 128 x 512 fp16 = 128 KiB in a 64 KiB L0A) and a bad option.
  const auto copy = matmulWith({{"cube", {{"gemm", {{"m", {128, 128}}, {"k", {512, 512}}, {"n", {128, 128}}}}}}},
                               {{"ooo_sched_mode", 5}, {"pypto_only_option", 1}});
  const std::filesystem::path& folder = copy->dir();

  Result result = runPto("settings '" + folder.string() + "' --machine 950 --json -");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto report = nlohmann::json::parse(result.out);
  EXPECT_EQ(report["command"], "settings");
  EXPECT_EQ(report["machine"], "950");
  nlohmann::json gemm;
  for (const auto& site : report["tile_sites"])
    if (site["key"] == "gemm") gemm = site;
  ASSERT_FALSE(gemm.is_null());
  EXPECT_EQ(gemm["section"], "cube");
  EXPECT_EQ(gemm["effective_from"], "gemm");
  EXPECT_EQ(gemm["check"]["fit"], "does not fit");
  nlohmann::json l0a;
  for (const auto& memory : gemm["check"]["memories"])
    if (memory["memory"] == "L0A") l0a = memory;
  EXPECT_EQ(l0a["used_bytes"], 128 * 512 * 2);
  EXPECT_EQ(l0a["available_bytes"], report["capacities"]["L0A"]);
  nlohmann::json ooo, unknown;
  for (const auto& option : report["pass_options"]) {
    if (option["name"] == "ooo_sched_mode") ooo = option;
    if (option["name"] == "pypto_only_option") unknown = option;
  }
  EXPECT_EQ(ooo["value"], 5);
  EXPECT_EQ(ooo["default"], 1);
  EXPECT_EQ(ooo["problem"], "pass_options.ooo_sched_mode must be 0 (keep program order) or 1 (list scheduling), or PyPTO's \"\", "
            "\"GAPMIN\" or \"HLF\" (list scheduling), got 5");
  EXPECT_EQ(unknown["problem"], "pass_options.pypto_only_option is not read by PTO Studio");
  EXPECT_EQ(report["runtime_options"].size(), 3u);
}

// Whether the compiler can double-buffer a site's tiles. The matmul example's cube tile (m 128, k 64, n 128)
// double-buffers: two k-steps need L1 2 x (16 + 16) KiB, L0A 2 x 16 KiB, L0B 2 x 16 KiB. With kL0 = 128 and
// n = 256 one B tile is 128 x 256 fp16 = 64 KiB, all of L0B: the next k-step's B has no room, so the site is
// single-buffered and says what double buffering needs (L0B 128 KiB of 64 KiB).
TEST(SettingsCommand, SaysWhetherASiteCanBeDoubleBuffered) {
  Result example = runPto("settings '" + pto::test::example("matmul") + "'");
  ASSERT_EQ(example.exitCode, 0) << example.err;
  EXPECT_NE(example.out.find("       double-buffered: L1 64 KiB / 512 KiB, L0A 32 KiB / 64 KiB, L0B 32 KiB / 64 KiB, "
                             "L0C 64 KiB / 128 KiB\n"),
            std::string::npos)
      << example.out;

  const auto copy = matmulWith({{"cube", {{"gemm", {{"m", {128, 128}}, {"k", {128, 256}}, {"n", {256, 256}}}}}}});
  const std::filesystem::path& folder = copy->dir();
  Result result = runPto("settings '" + folder.string() + "'");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("       single-buffered: double buffering needs L0B 128 KiB / 64 KiB\n"), std::string::npos)
      << result.out;
  Result json = runPto("settings '" + folder.string() + "' --json -");
  const nlohmann::json report = nlohmann::json::parse(json.out);
  nlohmann::json gemm;
  for (const auto& site : report["tile_sites"])
    if (site["key"] == "gemm" && site["section"] == "cube") gemm = site;
  ASSERT_FALSE(gemm.is_null());
  EXPECT_EQ(gemm["check"]["double_buffered"], false);
}

TEST(SettingsCommand, UnknownMachineIsAnError) {
  Result result = runPto("settings '" + example("softmax") + "' --machine nosuch");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("nosuch"), std::string::npos) << result.err;
}

} // namespace
} // namespace pto::test
