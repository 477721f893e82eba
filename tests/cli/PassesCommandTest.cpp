// `pto passes`: the pass list with node counts per IR level, checked against what `pto compile` and
// `pto graph` report for the final IR (an independent path), the counts' own bookkeeping, and the
// hand-worked ForwardAssemble step of muls_add_matmul_rowsum; `--diff` between two passes, and a bad name;
// `--list`, the declarations, checked against what a compile does with an option's value.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>

namespace pto::test {
namespace {

const std::string kMatmulRowsumExample = example("muls_add_matmul_rowsum");

TEST(PassesCommand, CountsMatchTheFinalIrAndAddUp) {
  Result result = runPto("passes '" + kMatmulRowsumExample + "' --json -");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  const nlohmann::json& passes = report["passes"];
  ASSERT_EQ(passes.size(), 13u);
  EXPECT_EQ(passes[0]["name"], "ExpandFunction");
  EXPECT_EQ(passes[12]["name"], "BuildExecuteGraph");
  // Every level's count is what the passes added minus what they removed.
  for (const char* level : {"tile_ops", "subgraphs", "programs", "tasks"}) {
    int net = 0;
    for (const auto& pass : passes) {
      net += pass["nodes"][level]["added"].get<int>() - pass["nodes"][level]["removed"].get<int>();
      EXPECT_EQ(pass["nodes"][level]["count"].get<int>(), net) << level << " after " << pass["name"];
    }
  }
  // The final counts, by other commands.
  const nlohmann::json compiled = nlohmann::json::parse(runPto("compile '" + kMatmulRowsumExample + "' --json -").out);
  const nlohmann::json block = nlohmann::json::parse(runPto("graph '" + kMatmulRowsumExample + "' --stage block --format json").out);
  const nlohmann::json exec = nlohmann::json::parse(runPto("graph '" + kMatmulRowsumExample + "' --stage exec --format json").out);
  const nlohmann::json& last = passes.back()["nodes"];
  EXPECT_EQ(last["tile_ops"]["count"], compiled["tile_ops"]);
  EXPECT_EQ(last["subgraphs"]["count"].get<std::size_t>(), block["subgraphs"].size());
  EXPECT_EQ(last["tasks"]["count"].get<std::size_t>(), exec["tasks"].size());
  EXPECT_EQ(last["programs"]["count"], block["program_count"]);
  // Passes that report no change change no node.
  for (const auto& pass : passes) {
    if (pass["changed"].get<bool>()) continue;
    for (const char* level : {"tile_ops", "subgraphs", "programs", "tasks"}) {
      EXPECT_EQ(pass["nodes"][level]["added"].get<int>() + pass["nodes"][level]["removed"].get<int>() +
                    pass["nodes"][level]["changed"].get<int>(),
                0)
            << pass["name"] << " " << level;
    }
  }
}

// ForwardAssemble on this kernel: the two row-sum tiles wrote a temporary that two copies moved into `out`;
// afterwards the sums write `out` directly and the copies are gone: +2 sums into out, -2 sums into the
// temporary, -2 copies.
TEST(PassesCommand, DiffListsTheNodesOneStepChanged) {
  Result result = runPto("passes '" + kMatmulRowsumExample + "' --diff RemoveRedundantOp ForwardAssemble");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("after RemoveRedundantOp -> after ForwardAssemble: 6 nodes differ"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("+ tile_ops   sum out[0:32, 0:1] (kernel.py:26)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("- tile_ops   copy out[32:64, 0:1] (kernel.py:26)"), std::string::npos) << result.out;
  Result json = runPto("passes '" + kMatmulRowsumExample + "' --diff 3 4 --json -");
  const nlohmann::json diff = nlohmann::json::parse(json.out)["diff"];
  EXPECT_EQ(diff["from"], "ForwardAssemble");
  EXPECT_EQ(diff["to"], "GraphPartition");
  std::size_t added = 0;
  for (const auto& change : diff["changes"]) added += change["kind"] == "+" && change["level"] == "subgraphs";
  EXPECT_EQ(added, diff["changes"].size()) << "partitioning only adds subgraphs";
  EXPECT_GT(added, 0u);
}

TEST(PassesCommand, AnUnknownPassIsAnErrorListingThePasses) {
  Result result = runPto("passes '" + kMatmulRowsumExample + "' --diff ExpandFunction Nope");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("--diff: there is no pass 'Nope' (1 to 13, or one of ExpandFunction"), std::string::npos)
      << result.err;
}

// The pipeline's declarations without a project: each option under the pass that reads it, with the
// range a compile enforces (a value past it is refused by `pto settings`'s check, which runs the pass's reader).
TEST(PassesCommand, ListShowsEachPassWithTheOptionsItDeclares) {
  Result result = runPto("passes --list --json -");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  const nlohmann::json report = nlohmann::json::parse(result.out);
  ASSERT_EQ(report["pipeline"].size(), 13u);
  std::map<std::string, std::string> readBy;
  for (const auto& pass : report["pipeline"])
    for (const auto& option : pass["options"]) readBy[option["name"]] = pass["name"];
  EXPECT_EQ(readBy["mg_copyin_upper_bound"], "GraphPartition");
  EXPECT_EQ(readBy["vec_nbuffer_setting"], "NBufferMerge");
  EXPECT_EQ(readBy["cube_l1_reuse_setting"], "L1CopyInReuseMerge");
  EXPECT_EQ(readBy["ooo_sched_mode"], "OoOSchedule");
  for (const auto& pass : report["pipeline"])
    if (pass["name"] == "GraphPartition") {
      const auto& bound = pass["options"][0];
      EXPECT_EQ(bound["default"], 104857600);
      EXPECT_EQ(bound["minimum"], 1);
    }
  std::vector<std::string> runtime;
  for (const auto& option : report["runtime_options"]) runtime.push_back(option["name"]);
  EXPECT_EQ(runtime, (std::vector<std::string>{"device_sched_mode", "stitch_function_max_num", "launch_sched_aicpu_num"}));
  EXPECT_EQ(report["runner_options"][0]["name"], "disable_pass");
  // Only the optional passes may be disabled, and the list says which they are.
  std::vector<std::string> optional;
  for (const auto& pass : report["pipeline"])
    if (!pass["required"].get<bool>()) optional.push_back(pass["name"]);
  EXPECT_EQ(report["runner_options"][0]["values"], nlohmann::json(optional));
  Result text = runPto("passes --list");
  EXPECT_NE(text.out.find("ooo_sched_mode           enum 0 keep program order | 1 list scheduling; default 1"),
            std::string::npos)
      << text.out;
}

TEST(PassesCommand, WithoutAProjectOrListItSaysWhatItNeeds) {
  Result result = runPto("passes");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("pto passes: error: needs a PROJECT (or --list for the pipeline and its options)"),
            std::string::npos)
      << result.err;
}

} // namespace
} // namespace pto::test
