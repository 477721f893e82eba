// Broken kernels end as one diagnostic at kernel.py:line with exit 1 —
// never a crash, a hang or a Python traceback dump.
#include "CliRunner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace pto::test {
namespace {

namespace fs = std::filesystem;

// The kernel's first four lines: x and y [4, 64] float32. runWithBody() sets a [4, 64] vec tile at line 5, the
// body's lines start at 6.
constexpr const char* kSignature = R"(import pypto

@pypto.frontend.jit
def kernel(x: pypto.Tensor((4, 64), pypto.DT_FP32), y: pypto.Tensor((4, 64), pypto.DT_FP32)):
)";

class BadKernel : public ::testing::Test {
protected:
  // Runs `pto run` on the kernel with `body`.
  Result runWithBody(const std::string& body, const std::string& extraArgs = "") {
    std::ofstream(m_dir / "kernel.py") << kSignature << "    pypto.set_vec_tile_shapes(4, 64)\n" << body;
    return runPto("run " + m_dir.string() + " " + extraArgs);
  }
  std::string at(int line, int column = 0) const {
    return (m_dir / "kernel.py").string() + ":" + std::to_string(line) + ":" +
           (column ? std::to_string(column) + ":" : "");
  }
  // The first line of stderr: the diagnostic's location and message.
  static std::string firstLine(const Result& result) { return result.err.substr(0, result.err.find('\n')); }
  // Whether `result` failed (exit code 1) with its first diagnostic at kernel.py:`line` and `words` in stderr.
  ::testing::AssertionResult failedAt(const Result& result, int line, const std::string& words) const {
    if (result.exitCode != 1) return ::testing::AssertionFailure() << "exit code " << result.exitCode;
    if (firstLine(result).rfind(at(line), 0) != 0)
      return ::testing::AssertionFailure() << "the first diagnostic is not at " << at(line) << "\n" << result.err;
    if (result.err.find(words) == std::string::npos)
      return ::testing::AssertionFailure() << "no \"" << words << "\" in\n" << result.err;
    return ::testing::AssertionSuccess();
  }

  ScratchProject m_project{"pto-bad-kernel", "", xyProject("bad", "kernel", 4, 64)};
  const fs::path& m_dir = m_project.dir();
};

TEST_F(BadKernel, AWorkingKernelPasses) {
  Result result = runWithBody("    y[:] = pypto.exp(x * 0.01)\n");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("y "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("pass"), std::string::npos) << result.out;
}

TEST_F(BadKernel, SyntaxError) {
  EXPECT_TRUE(failedAt(runWithBody("    y[:] = pypto.exp(x\n"), 6, "syntax error"));
}

TEST_F(BadKernel, PythonException) {
  Result result = runWithBody("    scale = {}['missing']\n    y[:] = x\n");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result), at(6) + " error: KeyError: 'missing'") << result.err;
}

TEST_F(BadKernel, UnknownPyptoAttribute) {
  Result result = runWithBody("    y[:] = pypto.expp(x)\n");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result), at(6) + " error: AttributeError: module 'pypto' has no attribute 'expp'") << result.err;
}

TEST_F(BadKernel, ShapesThatDoNotFit) {
  EXPECT_TRUE(failedAt(runWithBody("    z = pypto.tensor((3, 64), pypto.DT_FP32)\n    y[:] = x + z\n"), 7,
                       "add: shapes [4, 64] and [3, 64] do not broadcast"));
}

TEST_F(BadKernel, ErrorsInHelpersPointAtTheHelperAndItsCaller) {
  std::ofstream(m_dir / "kernel.py") << "import pypto\n"
                                        "\n"
                                        "def helper(t):\n"
                                        "    return pypto.sum(t, dim=5)\n"
                                        "\n"
                                        "@pypto.frontend.jit\n"
                                        "def kernel(x: pypto.Tensor((4, 64), pypto.DT_FP32), y: pypto.Tensor((4, 64), pypto.DT_FP32)):\n"
                                        "    pypto.set_vec_tile_shapes(4, 64)\n"
                                        "    y[:] = helper(x)\n";
  Result result = runPto("run " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result), at(4, 12) + " error: sum: dim 5 is out of range for float32 [4, 64] (rank 2)") << result.err;
  EXPECT_NE(result.err.find(at(9) + " note: called from here"), std::string::npos) << result.err;
}

TEST_F(BadKernel, EndlessLoopIsStoppedByTheTimeout) {
  Result result = runWithBody("    while True:\n        pass\n", "--timeout 1");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result).rfind(at(6), 0) == 0 || firstLine(result).rfind(at(7), 0) == 0, true) << result.err;
  EXPECT_NE(result.err.find("did not finish within 1 s"), std::string::npos) << result.err;
}

TEST_F(BadKernel, AbsurdAllocation) {
  Result result = runWithBody("    big = pypto.tensor((1 << 20, 1 << 20), pypto.DT_FP32)\n    y[:] = x\n");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result),
            at(6, 11) + " error: tensor: 1099511627776 elements is more than the limit of 2147483648")
      << result.err;
}

TEST_F(BadKernel, TileShapeRankMismatchIsReportedAtTheSetting) {
  std::ofstream(m_dir / "kernel.py") << kSignature << "    pypto.set_vec_tile_shapes(64)\n"
                                                      "    y[:] = pypto.exp(x)\n";
  Result result = runPto("run " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result), at(5) + " error: set_vec_tile_shapes(64) gives 1 dim, but exp works on rank-2 "
                                       "tensors; give one tile dim per tensor dim (2 values) (used by exp at kernel.py:6)")
      << result.err;
}

// A row of no whole number of 32-byte blocks is accepted, as PyPTO accepts it: the unified buffer pads it, and
// `pto settings` says what the padding costs.
TEST_F(BadKernel, TileRowsOfNoWholeBlockArePaddedNotRefused) {
  std::ofstream(m_dir / "kernel.py") << kSignature << "    pypto.set_vec_tile_shapes(4, 12)\n"
                                                      "    y[:] = x + 1.0\n";
  Result result = runPto("run " + m_dir.string() + " --no-record");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  Result settings = runPto("settings " + m_dir.string());
  EXPECT_EQ(settings.exitCode, 0) << settings.err;
  EXPECT_NE(settings.out.find("padded: its innermost dim is 48 bytes of float32; the unified buffer holds each row "
                              "padded to 64 bytes"),
            std::string::npos)
      << settings.out;
}

TEST_F(BadKernel, NonPositiveTileDim) {
  Result result = runWithBody("    pypto.set_vec_tile_shapes(0, 64)\n    y[:] = x\n");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result),
            at(6, 5) + " error: set_vec_tile_shapes: dim 0 is 0; every tile dim must be positive") << result.err;
}

TEST_F(BadKernel, CubeL1NotAMultipleOfL0) {
  Result result = runWithBody("    pypto.set_cube_tile_shapes([64, 96], [64, 64], [64, 64])\n    y[:] = x\n");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result), at(6, 5) + " error: set_cube_tile_shapes: m L1 = 96 is not a multiple of m L0 = 64; use 64 or 128")
      << result.err;
}

TEST_F(BadKernel, OutputNeverWrittenWarns) {
  Result result = runWithBody("    y = pypto.exp(x)\n");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.err.find("warning: argument 'y' is never read or written; if it is an output, write it in place "
                            "with y[:] = ... (a plain y = ... only rebinds the Python name)"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find(at(3)), std::string::npos) << result.err;
}

TEST_F(BadKernel, EntryThatIsNotAKernel) {
  std::ofstream(m_dir / "kernel.py") << "import pypto\n\ndef kernel(x, y):\n    pass\n";
  Result result = runPto("run " + m_dir.string());
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(firstLine(result),
            at(3) + " error: 'kernel' is not a kernel; decorate it with @pypto.frontend.jit (or @pypto.jit)")
      << result.err;
}

TEST_F(BadKernel, EditedKernelIsReadAgain) {
  EXPECT_EQ(runWithBody("    y[:] = x + 1.0\n").exitCode, 0);
  Result second = runWithBody("    y[:] = x + undefined_name\n");
  EXPECT_EQ(second.exitCode, 1);
  EXPECT_EQ(firstLine(second), at(6) + " error: NameError: name 'undefined_name' is not defined") << second.err;
}

} // namespace
} // namespace pto::test
