// `pto graph --stage tile`: the DOT edges are the region-accurate producer -> consumer relation, the same
// one the JSON gives as `producers`. The kernel's two exp tiles write the halves of t and the two muls
// tiles each read one half, so each reader has exactly the writer of its own half.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kGraphKernel = R"(import pypto

@pypto.frontend.jit
def halves(x: pypto.Tensor((4, 64), pypto.DT_FP32), y: pypto.Tensor((4, 64), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(2, 64)
    t = pypto.exp(x)
    y[:] = t * 2.0
)";

using Edges = std::set<std::pair<int, int>>;

class TileGraphOutput : public ::testing::Test {
protected:
  pto::test::ScratchProject m_project{"pto-graph-cli", kGraphKernel, xyProject("halves", "halves", 4, 64)};
  const fs::path& m_dir = m_project.dir();
};

// "  n0 -> n2;" lines of a DOT text.
Edges dotEdges(const std::string& dot) {
  Edges edges;
  std::regex edge(R"(^\s*n(\d+)\s*->\s*n(\d+)\s*;?\s*$)");
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch match; std::regex_match(line, match, edge)) edges.emplace(std::stoi(match[1]), std::stoi(match[2]));
  return edges;
}

TEST_F(TileGraphOutput, DotEdgesLinkEachReaderToTheWriterOfItsHalf) {
  Result json = runPto("graph " + m_dir.string() + " --stage tile --format json");
  ASSERT_EQ(json.exitCode, 0) << json.err;
  auto graph = nlohmann::json::parse(json.out);

  // The expected edges from the regions alone: a muls tile reads the rows of t an exp tile wrote.
  std::map<std::int64_t, int> writerOfRow;  // first row of t -> exp tile
  nlohmann::json t;                         // exp's result tensor id
  Edges expected, producers;
  int exps = 0, readers = 0;
  for (const auto& op : graph["operations"])
    if (op["opcode"] == "exp") {
      ++exps;
      t = op["ooperands"][0]["tensor"];
      ASSERT_EQ(op["ooperands"][0]["shape"], nlohmann::json({2, 64}));
      writerOfRow[op["ooperands"][0]["offset"][0].get<std::int64_t>()] = op["opmagic"];
    }
  for (const auto& op : graph["operations"]) {
    for (const auto& from : op["producers"]) producers.emplace(from.get<int>(), op["opmagic"].get<int>());
    if (op["opcode"] != "muls") continue;
    ++readers;
    ASSERT_EQ(op["ioperands"][0]["tensor"], t);
    ASSERT_EQ(op["ioperands"][0]["shape"], nlohmann::json({2, 64}));
    expected.emplace(writerOfRow.at(op["ioperands"][0]["offset"][0].get<std::int64_t>()), op["opmagic"].get<int>());
  }
  ASSERT_EQ(exps, 2) << json.out;
  ASSERT_EQ(readers, 2) << json.out;
  ASSERT_EQ(expected.size(), 2u);

  Result dot = runPto("graph " + m_dir.string() + " --stage tile --format dot");
  ASSERT_EQ(dot.exitCode, 0) << dot.err;
  EXPECT_EQ(dotEdges(dot.out), expected) << dot.out;
  EXPECT_EQ(producers, expected) << json.out;
}

// PyPTO's loop barrier through the frontend: the tensor graph marks the loop, and the Execute graph puts the
// barrier before the loop's first task, saying whether it orders data (it does only when the loop reads what
// came before).
TEST(LoopBarrierGraph, TheTracedLoopAndTheExecuteGraphCarryTheBarrier) {
  const std::string folder = std::string(PTO_SOURCE_DIR) + "/tests/data/advisor/";
  Result tensor = runPto("graph '" + folder + "loop-barrier' --stage tensor --format json");
  ASSERT_EQ(tensor.exitCode, 0) << tensor.err;
  std::map<std::string, bool> barrierOf;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& node) {
    if (node.is_object() && node.contains("loop") && node.contains("bodies"))
      barrierOf[node["name"]] = node.value("submit_before_loop", false);
    if (node.is_structured())
      for (const auto& child : node) walk(child);
  };
  walk(nlohmann::json::parse(tensor.out));
  EXPECT_EQ(barrierOf, (std::map<std::string, bool>{{"ACTIVATE", false}, {"SCALE", true}}));

  for (const auto& [project, ordersData] : {std::pair{"loop-barrier", false}, std::pair{"loop-barrier-needed", true}}) {
    Result exec = runPto("graph '" + folder + project + "' --stage exec --format json");
    ASSERT_EQ(exec.exitCode, 0) << exec.err;
    const nlohmann::json graph = nlohmann::json::parse(exec.out);
    ASSERT_EQ(graph["barriers"].size(), 1u) << project;
    const nlohmann::json& barrier = graph["barriers"][0];
    EXPECT_EQ(barrier["loop"], "SCALE");
    EXPECT_EQ(barrier["orders_data"], ordersData) << project;
    // 8 blocks of 16x1024 in 16x256 tiles: 32 tasks per loop, the barrier between the two loops.
    EXPECT_EQ(barrier["first_task"], 32);
    EXPECT_EQ(graph["task_count"], 64);
    for (const auto& task : graph["tasks"]) {
      if (task["id"].get<int>() >= 32) {
        EXPECT_EQ(task["label"], "scale");
      }
    }
  }
}

} // namespace
} // namespace pto::test
