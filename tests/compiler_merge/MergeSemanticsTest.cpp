// Merge settings swept over seeded random kernels: random shapes (not multiples of the tiles), vec and cube
// tile shapes, elementwise chains, row reductions and a matmul, compiled on the A2 machine with random
// vec_nbuffer_setting / cube_l1_reuse_setting / cube_nbuffer_setting. For each: the merged block graph runs
// like sequential execution (runsLikeSequential), every subgraph fits the machine's buffers, and the tile
// interpreter on the compiled graph gives the reference interpreter's numbers (float32; relative and
// absolute tolerance 1e-5: tiling changes only the order partial row sums are added in).
#include "MergeTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/reference/TileInterpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pto::testing {
namespace {


class RandomMergeCase {
public:
  explicit RandomMergeCase(std::uint64_t seed) : m_random(seed) {}

  void run() {
    const std::int64_t rows = pick(5, 40), cols = pick(16, 96), inner = 16 * pick(1, 4);
    TensorGraphBuilder builder("random", kernelLine(1));
    const TensorId x = builder.addArgument("x", kF32, dimsOf({rows, cols}), kernelLine(1));
    const TensorId w = builder.addArgument("w", kF32, dimsOf({cols, inner}), kernelLine(1));
    const TensorId y = builder.addArgument("y", kF32, dimsOf({rows, cols}), kernelLine(1));
    const TensorId z = builder.addArgument("z", kF32, dimsOf({rows, inner}), kernelLine(1));
    m_shapes = {{rows, cols}, {cols, inner}, {rows, cols}, {rows, inner}};
    builder.beginPath();
    builder.setVecTile({pick(1, 12), 8 * pick(1, 8)}, kernelLine(2));
    builder.setLabel("V1");
    TensorId t = addOp(builder, pick(0, 1) ? TensorOpKind::Exp : TensorOpKind::Abs, {x}, {}, 3);
    builder.setLabel("");
    for (int i = pick(0, 2); i > 0; --i) {
      static const TensorOpKind binary[] = {TensorOpKind::Add, TensorOpKind::Mul, TensorOpKind::Sub};
      t = addOp(builder, binary[pick(0, 2)], {t, x}, {}, 4 + i);
    }
    if (pick(0, 1)) {
      const TensorId s = addOp(builder, TensorOpKind::Sum, {t}, {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}}, 8);
      t = addOp(builder, TensorOpKind::Sub, {t, s}, {}, 9);
    }
    addOp(builder, TensorOpKind::Copy, {t}, {}, 10, {y});
    CubeTileShape cube;
    cube.mL0 = cube.mL1 = 8 * pick(1, 2);
    cube.kL0 = cube.kAL1 = cube.kBL1 = 16 * pick(1, 2);
    cube.nL0 = cube.nL1 = 16;
    builder.setCubeTile(cube, kernelLine(11));
    builder.setLabel("MM");
    addOp(builder, TensorOpKind::Matmul, {x, w}, {{"out_dtype", kF32}}, 12, {z});
    builder.endPath();
    const TensorGraph graph = builder.finish();

    nlohmann::ordered_json options = nlohmann::ordered_json::object();
    setting(options, "vec_nbuffer_setting", "V1");
    setting(options, "cube_l1_reuse_setting", "MM");
    setting(options, "cube_nbuffer_setting", "MM");
    SCOPED_TRACE("x [" + std::to_string(rows) + ", " + std::to_string(cols) + "], options " + options.dump());

    std::vector<HostTensor> expected = arguments();
    DiagnosticEngine diags;
    ASSERT_TRUE(runReference(graph, expected, diags)) << messages(diags);
    TargetInfo target;
    auto compiled = compileOn(graph, options, target, diags);
    ASSERT_TRUE(compiled) << messages(diags);
    const Compilation& compilation = compiled->compilation;
    EXPECT_TRUE(runsLikeSequential(compilation));
    for (const Subgraph& subgraph : compilation.blocks.subgraphs)
      for (std::size_t m = 1; m < kMemoryKindCount; ++m)
        EXPECT_LE(subgraph.peakBytes[m], target.capacityBytes[m]) << "sg" << subgraph.id;
    std::vector<HostTensor> actual = arguments();
    ASSERT_TRUE(runTiles(compilation.tiles, actual, diags)) << messages(diags);
    for (std::size_t a : {std::size_t{2}, std::size_t{3}})
      for (std::int64_t e = 0; e < actual[a].elementCount(); ++e) {
        const double got = actual[a].getAsDouble(e), want = expected[a].getAsDouble(e);
        if (!(std::abs(got - want) <= 1e-5 + 1e-5 * std::abs(want))) {
          ADD_FAILURE() << "argument " << a << " element " << e << ": " << got << " vs reference " << want;
          break;
        }
      }
    m_merged += compilation.blocks.subgraphs.size() < countUnmerged(graph);
  }

  int merged() const { return m_merged; }

private:
  std::int64_t pick(std::int64_t low, std::int64_t high) {
    return std::uniform_int_distribution<std::int64_t>(low, high)(m_random);
  }

  // Absent, a plain count, DEFAULT, a label key, or {} (automatic).
  void setting(nlohmann::ordered_json& options, const char* key, const char* label) {
    switch (pick(0, 4)) {
    case 0: break;
    case 1: options[key] = pick(1, 6); break;
    case 2: options[key] = {{"DEFAULT", pick(1, 8)}}; break;
    case 3: options[key] = {{"DEFAULT", pick(1, 3)}, {label, pick(2, 5)}}; break;
    default: options[key] = nlohmann::ordered_json::object(); break;
    }
  }

  std::size_t countUnmerged(const TensorGraph& graph) {
    DiagnosticEngine diags;
    auto plain = compileOn(graph, nlohmann::ordered_json::object(), TargetInfo{}, diags);
    return plain ? plain->compilation.blocks.subgraphs.size() : 0;
  }

  std::vector<HostTensor> arguments() {
    std::mt19937 values(17);
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<HostTensor> tensors;
    for (const std::vector<std::int64_t>& shape : m_shapes) {
      std::vector<double> data(static_cast<std::size_t>(shape[0] * shape[1]));
      for (double& v : data) v = value(values);
      tensors.push_back(HostTensor::fromDoubles(kF32, Shape(shape), data));
    }
    return tensors;
  }

  std::mt19937_64 m_random;
  std::vector<std::vector<std::int64_t>> m_shapes;
  int m_merged = 0;
};

TEST(MergeSemantics, RandomKernelsAndSettingsRunLikeSequentialAndMatchTheReference) {
  int merged = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomMergeCase test(seed);
    test.run();
    merged += test.merged();
    if (::testing::Test::HasFatalFailure()) return;
  }
  // The sweep must exercise merging, not only the settings that leave the graph alone.
  EXPECT_GE(merged, 15);
}

} // namespace
} // namespace pto::testing
