// A project whose kernel computes on run-time valid parts (PyPTO's valid_shape): row blocks of 16 of which
// the last holds 40 - 32 = 8 rows, and keys valid up to lengths[0] = 100 of 128. Both modes match the
// reference interpreter (timing mode checks the tile graph run on the CPU, which must honour valid parts
// as the functional simulator does), and each task writes exactly its tiles' valid parts, worked out here
// from the shapes: rows min(16, 40 - 16 i), key tiles of 32 holding 32, 32, 32 and 4 keys.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kTailSoftmaxKernel = R"(import pypto

@pypto.frontend.jit
def tail_softmax(x: pypto.Tensor(), lengths: pypto.Tensor(), out: pypto.Tensor()):
    pypto.set_vec_tile_shapes(16, 32)
    n = lengths[0]
    for i in pypto.loop((x.shape[0] + 15) // 16, name='rows', idx_name='i'):
        rows = pypto.min(16, lengths[1] - i * 16)
        block = pypto.view(x, [16, 128], [i * 16, 0], valid_shape=[rows, n])
        weights = pypto.exp(pypto.sub(block, pypto.amax(block, dim=-1, keepdim=True)))
        pypto.assemble(pypto.div(weights, pypto.sum(weights, dim=-1, keepdim=True)), [i * 16, 0], out)
)";

constexpr const char* kTailSoftmaxProject = R"({"name": "tail_softmax", "source": "kernel.py", "entry": "tail_softmax",
  "machine": "a2", "bindings": {"R": 48},
  "args": [
    {"name": "x", "shape": ["R", 128], "dtype": "float32", "init": {"kind": "uniform", "low": -4, "high": 4, "seed": 1}},
    {"name": "lengths", "shape": [2], "dtype": "int32", "init": {"kind": "values", "values": [100, 40]}},
    {"name": "out", "shape": ["R", 128], "dtype": "float32", "init": {"kind": "zeros"}}
  ],
  "golden": {"out": "reference"}
})";

TEST(ValidPartsProject, BothModesMatchTheReferenceAndTasksWriteOnlyTheirValidParts) {
  const pto::test::ScratchProject project("pto-valid-parts", kTailSoftmaxKernel, kTailSoftmaxProject);
  const fs::path& dir = project.dir();
  // Timing mode checks the tile graph run on the CPU, functional mode the simulated PTO programs.
  for (const auto& [mode, outputsFrom] : {std::pair{"timing", "tiles"}, std::pair{"functional", "functional"}}) {
    const fs::path report = dir / "report.json";
    Result result = runPto("run " + dir.string() + " --mode " + mode + " --json " + report.string());
    EXPECT_EQ(result.exitCode, 0) << mode << "\n" << result.err;
    std::ifstream in(report);
    const nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    EXPECT_TRUE(json.value("pass", false)) << mode << "\n" << result.out;
    EXPECT_EQ(json.value("outputs_from", ""), outputsFrom) << mode;
  }

  Result graph = runPto("graph " + dir.string() + " --stage exec");
  ASSERT_EQ(graph.exitCode, 0) << graph.err;
  const nlohmann::json exec = nlohmann::json::parse(graph.out, nullptr, false);
  ASSERT_EQ(exec["tasks"].size(), 3u) << graph.out.substr(0, 400);
  for (const auto& task : exec["tasks"]) {
    const std::int64_t i = task["loop_indices"]["i"];
    const std::int64_t rows = std::min<std::int64_t>(16, 40 - 16 * i);
    std::vector<std::vector<std::int64_t>> shapes;
    for (const auto& write : task["writes"]) shapes.push_back(write["shape"].get<std::vector<std::int64_t>>());
    std::sort(shapes.begin(), shapes.end());
    const std::vector<std::vector<std::int64_t>> expected{{rows, 4}, {rows, 32}, {rows, 32}, {rows, 32}};
    EXPECT_EQ(shapes, expected) << "task of i = " << i;
  }

  // The tile dump shows each tile's valid part as an expression of the loop index and the read lengths.
  Result tiles = runPto("graph " + dir.string() + " --stage tile");
  ASSERT_EQ(tiles.exitCode, 0) << tiles.err;
  EXPECT_NE(tiles.out.find("\"valid_shape\""), std::string::npos);
  EXPECT_NE(tiles.out.find("lengths[1]"), std::string::npos);
}

} // namespace
} // namespace pto::test
