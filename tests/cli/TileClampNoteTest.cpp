// A tile larger than everything it cuts is clamped with one note where the tile is set: at the kernel's
// set_vec_tile_shapes line for the kernel's own tile, at the tile_settings entry's line of the project
// file for a project tile (here a cube tile); seen by `pto compile`, `pto run` and `pto settings`, in
// their text and their JSON diagnostics.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

// exp and muls on [32, 100] under a [64, 1024] tile set at line 5.
constexpr const char* kVecKernel = R"(import pypto

@pypto.frontend.jit
def kernel(x: pypto.Tensor((32, 100), pypto.DT_FP32), y: pypto.Tensor((32, 100), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(64, 1024)
    t = pypto.exp(x)
    y[:] = t * 0.5
)";
const std::string kVecProject = xyProject("clamp", "kernel", 32, 100);

// c[32, 16] = a[32, 64] @ b[64, 16]; the kernel's cube tile fits, the project's (line 12) is 128 x 128 x 64.
constexpr const char* kCubeKernel = R"(import pypto

@pypto.frontend.jit
def gemm(a: pypto.Tensor((32, 64), pypto.DT_FP32), b: pypto.Tensor((64, 16), pypto.DT_FP32),
         c: pypto.Tensor((32, 16), pypto.DT_FP32)):
    pypto.set_cube_tile_shapes([32, 32], [64, 64], [16, 16])
    pypto.set_semantic_label("gemm")
    c[:] = pypto.matmul(a, b, pypto.DT_FP32)
)";

constexpr const char* kCubeProject = R"({
  "name": "cube_clamp",
  "source": "kernel.py",
  "entry": "gemm",
  "args": [
    {"name": "a", "shape": [32, 64], "dtype": "float32", "init": {"kind": "arange"}},
    {"name": "b", "shape": [64, 16], "dtype": "float32", "init": {"kind": "arange"}},
    {"name": "c", "shape": [32, 16], "dtype": "float32"}
  ],
  "tile_settings": {
    "cube": {
      "gemm": {"m": [128, 128], "k": [128, 128], "n": [64, 64]}
    }
  }
}
)";

const char* const kVecNote = "vec tile [64, 1024] is larger than what it cuts (exp at kernel.py:6: [32, 100]; muls at "
                             "kernel.py:7: [32, 100]; assemble at kernel.py:7: [32, 100]); it is clamped to [32, 100]";
const char* const kCubeNote = "tile_settings.cube.gemm: cube tile mL0 128, kL0 128, nL0 64 is larger than what it cuts "
                              "(matmul 'gemm' at kernel.py:8: m 32, k 64, n 16); it is clamped to mL0 32, kL0 64, nL0 16";

class ClampedTile : public ::testing::Test {
protected:
  void write(const std::string& kernel, const std::string& project) {
    std::ofstream(m_dir / "kernel.py") << kernel;
    std::ofstream(m_dir / "pto-project.json") << project;
  }
  // The notes of a JSON report as "line: message".
  static std::vector<std::string> notes(const Result& result) {
    std::vector<std::string> found;
    const nlohmann::json report = nlohmann::json::parse(result.out);
    for (const auto& diagnostic : report["diagnostics"])
      if (diagnostic["severity"] == "note")
        found.push_back(fs::path(diagnostic["file"].get<std::string>()).filename().string() + ":" +
                        std::to_string(diagnostic["line"].get<int>()) + ": " + diagnostic["message"].get<std::string>());
    return found;
  }
  ScratchFolder m_scratch{"pto-clamp-cli"};
  const fs::path& m_dir = m_scratch.dir();
};

TEST_F(ClampedTile, TheKernelsTileIsNotedOnceAtItsCallByCompileRunAndSettings) {
  write(kVecKernel, kVecProject);
  const std::vector<std::string> expected = {std::string("kernel.py:5: ") + kVecNote};
  for (const char* command : {"compile", "run", "settings"}) {
    SCOPED_TRACE(command);
    Result json = runPto(std::string(command) + " " + m_dir.string() + " --json -");
    ASSERT_EQ(json.exitCode, 0) << json.err;
    EXPECT_EQ(notes(json), expected);
    Result text = runPto(std::string(command) + " " + m_dir.string());
    EXPECT_NE(text.err.find("kernel.py:5: note: " + std::string(kVecNote) + "\n"), std::string::npos) << text.err;
  }
}

TEST_F(ClampedTile, AnOversizedProjectCubeTileIsReportedAtItsProjectFileLine) {
  write(kCubeKernel, kCubeProject);
  Result settings = runPto("settings " + m_dir.string() + " --json -");
  ASSERT_EQ(settings.exitCode, 0) << settings.err;
  EXPECT_EQ(notes(settings), std::vector<std::string>{std::string("pto-project.json:12: ") + kCubeNote});

  // Compiling clamps the same tile with the same words.
  Result compile = runPto("compile " + m_dir.string() + " --json -");
  ASSERT_EQ(compile.exitCode, 0) << compile.err;
  std::vector<std::string> compiled = notes(compile);
  ASSERT_EQ(compiled.size(), 1u);
  EXPECT_NE(compiled[0].find("cube tile mL0 128, kL0 128, nL0 64 is larger than what it cuts (matmul 'gemm' at "
                             "kernel.py:8: m 32, k 64, n 16); it is clamped to mL0 32, kL0 64, nL0 16"),
            std::string::npos)
      << compiled[0];
}

} // namespace
} // namespace pto::test
