// Kernels whose tiles, grouped as written, cannot fit a core's memories, compiled and executed in functional
// mode: (1) a temporary both assembled into an output with a vec tile larger than the unified buffer and read
// by another op (PyPTO's mla_prolog_quant: RmsNorm's result into q_norm_out, [128, 1536] bf16, and into the
// next matmul) is written to the output by its producer, so that no tile of the assemble's shape is made;
// (2) a pinned scope (sg_set_scope) whose two matmuls read the same weight tiles with a step between them
// that needs every tile of the first (PyPTO's sparse attention on the 950) is cut into runs that fit, the
// later run reloading the tiles from global memory. Each output is held to values computed here with plain
// loops in double (exp: |difference| <= 1e-6 * |value|, a few float32 ulps; fp16 x fp16 products summed in
// float32 then rounded to fp16 and multiplied again: 1e-3 absolute + 1e-3 relative, the fp16 rounding of
// the intermediate dominating) and to the reference interpreter's golden; the premises (the tiles do not fit
// as grouped) are checked analytically.
#include "CompilerTestSupport.h"
#include "tests/TestDtypes.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "npusim/FunctionalExecutor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace pto::testing {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

std::vector<HostTensor> randomArguments(const TensorGraph& graph, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<HostTensor> arguments;
  for (TensorId id : graph.arguments) {
    const TensorValue& value = graph.tensor(id);
    std::vector<std::int64_t> dims;
    for (const SymbolicScalar& dim : value.shape) dims.push_back(*dim.constantValue());
    HostTensor tensor(value.dtype, Shape(dims));
    for (std::int64_t e = 0; e < tensor.elementCount(); ++e) tensor.setFromDouble(e, uniform(random));
    arguments.push_back(std::move(tensor));
  }
  return arguments;
}

// x [64, 256] float32; t = exp(x) in [16, 256] tiles; u = t * t (into output u); assemble(t) into y with a
// [64, 256] vec tile: 64 KiB, more than the 48 KiB unified buffer given.
TEST(FunctionalOnChipOverflow, AnAssembledTemporaryAnotherOpReadsIsWrittenToTheOutputByItsProducer) {
  TensorGraphBuilder builder("assemble_read_too", kernelLine(1));
  const auto [x, y, u] =
      addArguments(builder, {{"x", kF32, {64, 256}}, {"y", kF32, {64, 256}}, {"u", kF32, {64, 256}}});
  builder.beginPath();
  builder.setVecTile({16, 256}, kernelLine(2));
  const TensorId t = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::Mul, {t, t}, {}, 4, {u});
  builder.setVecTile({64, 256}, kernelLine(5));
  addOp(builder, TensorOpKind::Assemble, {t}, {{"offsets", dimsOf({0, 0})}}, 6, {y});
  const TensorGraph graph = finishNamed(builder, {{t, "t"}});

  CompileSettings settings;
  settings.target.capacityBytes.fill(kMiB);
  const std::int64_t ubBytes = 48 * 1024;
  settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = ubBytes;
  ASSERT_GT(tileBytes({64, 256}, DataType::Fp32, 1), ubBytes) << "premise: the assemble's tile fits no UB";
  DiagnosticEngine diags;
  auto compiled = compileKernel(graph, settings, diags);
  ASSERT_TRUE(compiled) << messages(diags);
  const OpId assemble = graph.ops().back().id;
  EXPECT_TRUE(compiled->compilation.tiles.tilesOf(assemble).empty()) << "the assemble moves nothing";

  std::vector<HostTensor> arguments = randomArguments(graph, 11);
  std::vector<HostTensor> golden;
  for (const HostTensor& tensor : arguments) golden.push_back(tensor.contiguous());
  ASSERT_TRUE(runReference(graph, golden, diags)) << messages(diags);
  ASSERT_TRUE(executeFunctional(compiled->compilation, arguments, diags)) << messages(diags);
  for (std::int64_t e = 0; e < arguments[0].elementCount(); ++e) {
    const double expected = std::exp(arguments[0].getAsDouble(e));
    ASSERT_NEAR(arguments[1].getAsDouble(e), expected, 1e-6 * expected) << "y[" << e << "]";
    ASSERT_NEAR(arguments[2].getAsDouble(e), expected * expected, 2e-6 * expected * expected) << "u[" << e << "]";
    ASSERT_EQ(arguments[1].getAsDouble(e), golden[1].getAsDouble(e)) << "y[" << e << "] vs the reference";
  }
}

// Pinned (sg_set_scope 7) on a machine with both on-chip paths between cube and vector: c1 = a1 @ w,
// a2 = fp16(c1), y = a2 @ w; a1 [32, 64], w [64, 64] fp16, cube tiles m 32, k 32, n 32. y's first k-step
// needs a2's first column block, made from c1's first column block, whose k-steps read w's tiles (k0, n0)
// and (k1, n0); its second needs (k0, n1) and (k1, n1); y's second column block reads (k0, n1) and (k1, n1)
// again. So all four [32, 32] tiles of w (8 KiB) are in L1 when y's first step runs, beside a2's first tile
// (2 KiB): 10 KiB, over the 8 KiB of L1 given (checked below). Each run after a cut needs at most 8 KiB.
TEST(FunctionalOnChipOverflow, APinnedScopeThatFitsInNoOrderIsCutAndReloadsItsOperandsFromGm) {
  TensorGraphBuilder builder("pinned_reuse", kernelLine(1));
  const auto [a1, w, y] = addArguments(
      builder, {{"a1", DataType::Fp16, {32, 64}}, {"w", DataType::Fp16, {64, 64}}, {"y", kF32, {32, 64}}});
  builder.beginPath();
  builder.setPassOptions({{"sg_set_scope", 7}});
  builder.setVecTile({32, 32}, kernelLine(2));
  builder.setCubeTile(CubeTileShape{32, 32, 32, 32, 32, 32, 32, false}, kernelLine(2));
  const TensorId c1 = addOp(builder, TensorOpKind::Matmul, {a1, w}, {{"out_dtype", DataType::Fp32}}, 3);
  const TensorId a2 =
      addOp(builder, TensorOpKind::Cast, {c1}, {{"dtype", DataType::Fp16}, {"mode", std::string("rint")}}, 4);
  addOp(builder, TensorOpKind::Matmul, {a2, w}, {{"out_dtype", DataType::Fp32}}, 5, {y});
  const TensorGraph graph = finishNamed(builder, {{c1, "c1"}, {a2, "a2"}});

  CompileSettings settings;
  settings.target.capacityBytes.fill(kMiB);
  const std::int64_t l1Bytes = 8 * 1024;
  settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::L1)] = l1Bytes;
  settings.target.hasL0cToUb = true;
  settings.target.hasUbToL1 = true;
  DiagnosticEngine diags;
  auto compiled = compileKernel(graph, settings, diags);
  ASSERT_TRUE(compiled) << messages(diags);
  const Compilation& compilation = compiled->compilation;

  // Premise: all the scope's ops as one cube task fit L1 in no order AllocateBuffers tries.
  Subgraph whole;
  whole.coreType = CoreType::AIC;
  for (const TileOp& op : compilation.tiles.tileOps()) whole.ops.push_back(op.id);
  EXPECT_FALSE(fitsOnChipInSomeOrder(compilation.tiles, settings.target, whole));
  // The cut: pinned runs, each within L1, and w read from GM by more than one of them.
  ASSERT_GE(compilation.blocks.subgraphs.size(), 2u);
  int readingW = 0;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) {
    EXPECT_TRUE(subgraph.pinned);
    EXPECT_LE(subgraph.peakBytes[static_cast<std::size_t>(MemoryKind::L1)], l1Bytes);
    bool reads = false;
    for (const TileRegion& region : subgraph.copyIns) reads = reads || region.tensor == w;
    readingW += reads ? 1 : 0;
  }
  EXPECT_GE(readingW, 2);

  std::vector<HostTensor> arguments = randomArguments(graph, 5);
  std::vector<HostTensor> golden;
  for (const HostTensor& tensor : arguments) golden.push_back(tensor.contiguous());
  ASSERT_TRUE(runReference(graph, golden, diags)) << messages(diags);
  ASSERT_TRUE(executeFunctional(compilation, arguments, diags)) << messages(diags);
  const HostTensor& A = arguments[0];
  const HostTensor& W = arguments[1];
  for (std::int64_t i = 0; i < 32; ++i) {
    std::vector<double> rounded(64);
    for (std::int64_t k = 0; k < 64; ++k) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < 64; ++p) sum += A.getAsDouble(i * 64 + p) * W.getAsDouble(p * 64 + k);
      HostTensor half(DataType::Fp16, Shape({1}));
      half.setFromDouble(0, sum);
      rounded[static_cast<std::size_t>(k)] = half.getAsDouble(0);
    }
    for (std::int64_t j = 0; j < 64; ++j) {
      double expected = 0.0;
      for (std::int64_t k = 0; k < 64; ++k) expected += rounded[static_cast<std::size_t>(k)] * W.getAsDouble(k * 64 + j);
      const double actual = arguments[2].getAsDouble(i * 64 + j);
      ASSERT_NEAR(actual, expected, 1e-3 + 1e-3 * std::abs(expected)) << "y[" << i << ", " << j << "]";
      ASSERT_NEAR(actual, golden[2].getAsDouble(i * 64 + j), 1e-3 + 1e-3 * std::abs(expected))
          << "y[" << i << ", " << j << "] vs the reference";
    }
  }
}

} // namespace
} // namespace pto::testing
