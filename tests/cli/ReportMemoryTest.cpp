// `pto report --memory`: the on-chip memory map of a task as JSON and text, and the errors for a task or
// subgraph the run does not have. Expected figures come from the matmul example's tile shapes (128 x 64 and
// 64 x 128 fp16 k-step tiles: 16 KiB each; a 128 x 128 fp32 accumulator: 64 KiB) and a2's capacities.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace pto::test {
namespace {

const std::string kMatmul = std::string(PTO_SOURCE_DIR) + "/resources/examples/matmul";

TEST(ReportMemory, JsonGivesEachCubeMemoryItsBuffersAndPeak) {
  const nlohmann::json report = runPtoJson("report '" + kMatmul + "' --memory --task 2 --no-record");
  ASSERT_FALSE(report.is_null());
  const auto& map = report.at("memory_map");
  EXPECT_EQ(map.at("core_type"), "AIC");
  EXPECT_EQ(map.at("task").at("id"), 2);
  EXPECT_LT(map.at("task").at("start_cycle").get<std::int64_t>(), map.at("task").at("end_cycle").get<std::int64_t>());
  std::map<std::string, nlohmann::json> spaces;
  for (const auto& space : map.at("spaces")) spaces[space.at("memory")] = space;
  ASSERT_EQ(spaces.size(), 4u) << map.dump();
  EXPECT_EQ(spaces.at("l1").at("capacity_bytes"), 512 * 1024);
  EXPECT_EQ(spaces.at("l0a").at("capacity_bytes"), 64 * 1024);
  EXPECT_EQ(spaces.at("l0c").at("capacity_bytes"), 128 * 1024);
  // Two k-steps' A pieces reserved in L0A (ping-pong) and both live at the peak: the next one is moved out of
  // the L1 block while this one's matmul waits.
  EXPECT_EQ(spaces.at("l0a").at("peak_live_bytes"), 32768);
  EXPECT_EQ(spaces.at("l0a").at("footprint_bytes"), 32768);
  EXPECT_DOUBLE_EQ(spaces.at("l0a").at("utilization").get<double>(), 32768.0 / 65536.0);
  EXPECT_EQ(spaces.at("l0c").at("peak_live_bytes"), 65536);
  for (const auto& buffer : spaces.at("l0b").at("buffers")) {
    EXPECT_EQ(buffer.at("bytes"), 16384);
    EXPECT_EQ(buffer.at("tensor"), "b");
    EXPECT_EQ(buffer.at("shape"), nlohmann::json::array({64, 128}));
    EXPECT_TRUE(buffer.contains("ping_pong_half"));
    EXPECT_LE(buffer.at("first_instruction").get<int>(), buffer.at("last_instruction").get<int>());
  }
}

TEST(ReportMemory, TextShowsATableAndAMapPerMemory) {
  Result report = runPto("report '" + kMatmul + "' --memory --subgraph 0 --no-record");
  ASSERT_EQ(report.exitCode, 0) << report.err;
  for (const char* expected : {"L1: capacity 512 KiB", "L0A: capacity 64 KiB; peak 32 KiB live (50.0 %)",
                               "L0C: capacity 128 KiB; peak 64 KiB live (50.0 %)", "load a[128x256] float16",
                               "load a[128x64] float16",
                               "matmul c[128x128] float32", "map: x = instruction"})
    EXPECT_NE(report.out.find(expected), std::string::npos) << expected << "\n" << report.out;
}

TEST(ReportMemory, AnUnknownTaskOrSubgraphSaysWhichExist) {
  Result task = runPto("report '" + kMatmul + "' --memory --task 100000 --no-record");
  EXPECT_EQ(task.exitCode, 1);
  EXPECT_NE(task.err.find("--task 100000: the run has 16 tasks, numbered 0..15"), std::string::npos) << task.err;
  Result subgraph = runPto("report '" + kMatmul + "' --memory --subgraph 99 --no-record");
  EXPECT_EQ(subgraph.exitCode, 1);
  EXPECT_NE(subgraph.err.find("--subgraph 99: the kernel compiled into 16 subgraphs"), std::string::npos) << subgraph.err;
  // --subgraph without --memory is a usage error (--task alone shows the inside of a task).
  EXPECT_EQ(runPto("report '" + kMatmul + "' --subgraph 1 --no-record").exitCode, 2);
}

} // namespace
} // namespace pto::test
