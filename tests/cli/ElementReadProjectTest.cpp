// A project whose kernel reads elements of an index tensor (act_seq[b]) as
// loop bounds: pto run, compile and graph take the index tensor's values
// from the project's inputs, so the task graph follows the data (one task
// per tile that runs), in timing mode too, where generated inputs are
// otherwise left unmade; the outputs match the golden.
#include "CliRunner.h"
#include "core/Npy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kElementReadKernel = R"(import pypto

@pypto.frontend.jit
def ragged(x: pypto.Tensor([4, 256], pypto.DT_FP32), lengths: pypto.Tensor([4], pypto.DT_INT32),
           out: pypto.Tensor([4, 256], pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 64)
    for b in pypto.loop(0, 4, 1, name='batch', idx_name='b'):
        for i in pypto.loop(0, (lengths[b] + 63) // 64, 1, name='tiles', idx_name='i'):
            pypto.assemble(pypto.view(x, [1, 64], [b, i * 64]) * 2.0, [b, i * 64], out)
)";

std::string projectWith(const std::string& lengthsInit) {
  return R"({"name": "ragged", "source": "kernel.py", "entry": "ragged", "machine": "a2",
  "args": [
    {"name": "x", "shape": [4, 256], "dtype": "float32", "init": {"kind": "uniform", "low": -1, "high": 1, "seed": 3}},
    {"name": "lengths", "shape": [4], "dtype": "int32", "init": )" +
         lengthsInit + R"(},
    {"name": "out", "shape": [4, 256], "dtype": "float32"}
  ],
  "golden": {"out": "reference"}
})";
}

class ElementReadProject : public ::testing::Test {
protected:
  void SetUp() override { std::ofstream(m_dir / "kernel.py") << kElementReadKernel; }

  void writeLengths(const std::vector<std::int32_t>& lengths) {
    pto::HostTensor tensor(pto::DataType::Int32, pto::Shape({static_cast<std::int64_t>(lengths.size())}));
    for (std::size_t i = 0; i < lengths.size(); ++i) tensor.setFromInt64(static_cast<std::int64_t>(i), lengths[i]);
    pto::DiagnosticEngine diags;
    ASSERT_TRUE(pto::writeNpy(m_dir / "lengths.npy", tensor, diags));
    std::ofstream(m_dir / "pto-project.json") << projectWith(R"({"kind": "npy", "path": "lengths.npy"})");
  }
  nlohmann::json runJson(const std::string& mode) {
    fs::path report = m_dir / "report.json";
    Result result = runPto("run " + m_dir.string() + " --mode " + mode + " --json " + report.string());
    EXPECT_EQ(result.exitCode, 0) << result.err;
    std::ifstream in(report);
    return nlohmann::json::parse(in, nullptr, false);
  }
  std::size_t execTasks() {
    Result result = runPto("graph " + m_dir.string() + " --stage exec");
    EXPECT_EQ(result.exitCode, 0) << result.err;
    nlohmann::json graph = nlohmann::json::parse(result.out, nullptr, false);
    return graph.value("tasks", nlohmann::json::array()).size();
  }

  ScratchFolder m_scratch{"pto-element-read"};
  const fs::path& m_dir = m_scratch.dir();
};

TEST_F(ElementReadProject, TheTaskGraphFollowsTheReadLengths) {
  // ceil(n / 64) tiles per row: 4 + 1 + 0 + 3.
  writeLengths({256, 64, 0, 130});
  for (const char* mode : {"timing", "functional"}) {
    nlohmann::json report = runJson(mode);
    EXPECT_EQ(report.value("tasks", 0), 8) << mode;
    EXPECT_TRUE(report.value("pass", false)) << mode;
  }
  EXPECT_EQ(execTasks(), 8u);
  // The tile dump's bindings are the compilation's settings, not the index data.
  Result tile = runPto("graph " + m_dir.string() + " --stage tile");
  ASSERT_EQ(tile.exitCode, 0) << tile.err;
  nlohmann::json tileGraph = nlohmann::json::parse(tile.out, nullptr, false);
  ASSERT_TRUE(tileGraph.contains("bindings")) << tile.out.substr(0, 200);
  for (const auto& [key, value] : tileGraph["bindings"].items()) EXPECT_EQ(key.find('['), std::string::npos) << key;
  Result compiled = runPto("compile " + m_dir.string());
  EXPECT_EQ(compiled.exitCode, 0) << compiled.err;
  EXPECT_EQ(compiled.err.find("never read"), std::string::npos) << compiled.err;

  writeLengths({64, 64, 64, 64});
  EXPECT_EQ(runJson("timing").value("tasks", 0), 4);
  EXPECT_EQ(execTasks(), 4u);
}

TEST_F(ElementReadProject, GeneratedLengthsAreMadeEvenInTimingMode) {
  // arange gives 0, 1, 2, 3: one tile for each nonzero length.
  std::ofstream(m_dir / "pto-project.json") << projectWith(R"({"kind": "arange"})");
  EXPECT_EQ(runJson("timing").value("tasks", 0), 3);
  EXPECT_EQ(execTasks(), 3u);
  // Written in the project file: 2 + 4 + 1 + 0 tiles.
  std::ofstream(m_dir / "pto-project.json") << projectWith(R"({"kind": "values", "values": [128, 250, 1, 0]})");
  EXPECT_EQ(runJson("timing").value("tasks", 0), 7);
}

} // namespace
} // namespace pto::test
