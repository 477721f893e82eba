// Integer matmuls in functional mode (the quantized Lightning Indexer's int8 scores): c = a @ b of int8
// tiles into int32 (L0C holds int32 for int8, ExpandFunction) must be the exact integer product, computed
// here independently in int64 with plain loops (tolerance: none). An instruction whose k * max|a| * max|b|
// stays below 2^24 takes FunctionalCore's fp32 GEMM (exact there); a longer k-step the reference kernel's
// integer loop; both are run.
#include "CompilerTestSupport.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/FunctionalExecutor.h"

#include <gtest/gtest.h>

#include <random>

namespace pto::testing {
namespace {

// c[m, n] = a[m, k] @ b[k, n] of int8 into int32 in cube tiles of 16 x kStep x 16 (k / kStep k-steps
// accumulate in L0C), a and b uniform in [-127, 127]; expects c to equal the int64 product.
void expectExactProduct(std::int64_t m, std::int64_t k, std::int64_t n, std::int64_t kStep) {
  const DataType dtype = DataType::Int8;
  const std::int64_t limit = 127;
  TensorGraphBuilder builder("int_matmul", kernelLine(1));
  const TensorId a = builder.addArgument("a", dtype, SymbolicShape{m, k}, kernelLine(1));
  const TensorId b = builder.addArgument("b", dtype, SymbolicShape{k, n}, kernelLine(1));
  const TensorId c = builder.addArgument("c", DataType::Int32, SymbolicShape{m, n}, kernelLine(1));
  builder.beginPath();
  CubeTileShape cube;
  cube.mL0 = cube.mL1 = 16;
  cube.kL0 = cube.kAL1 = cube.kBL1 = kStep;
  cube.nL0 = cube.nL1 = 16;
  builder.setCubeTile(cube, kernelLine(2));
  builder.addOp(TensorOpKind::Matmul, {a, b}, {{"out_dtype", DataType::Int32}}, kernelLine(3), {c});
  builder.endPath();
  DiagnosticEngine diags;
  auto compiled = compileKernel(builder.finish(), CompileSettings{}, diags);
  ASSERT_TRUE(compiled) << messages(diags);

  std::mt19937 random(7);
  std::uniform_int_distribution<std::int64_t> uniform(-limit, limit);
  std::vector<HostTensor> arguments{HostTensor(dtype, Shape({m, k})), HostTensor(dtype, Shape({k, n})),
                                    HostTensor(DataType::Int32, Shape({m, n}))};
  for (int i = 0; i < 2; ++i)
    for (std::int64_t e = 0; e < arguments[static_cast<std::size_t>(i)].elementCount(); ++e)
      arguments[static_cast<std::size_t>(i)].setFromInt64(e, uniform(random));
  ASSERT_TRUE(executeFunctional(compiled->compilation, arguments, diags)) << messages(diags);

  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      std::int64_t expected = 0;
      for (std::int64_t p = 0; p < k; ++p)
        expected += arguments[0].getAsInt64(i * k + p) * arguments[1].getAsInt64(p * n + j);
      ASSERT_EQ(arguments[2].getAsInt64(i * n + j), expected) << "c[" << i << ", " << j << "]";
    }
}

// Three k-steps of 32: 127 * 127 * 32 < 2^24, the fp32 path.
TEST(FunctionalIntegerMatmul, Int8ProductsAreExact) { expectExactProduct(48, 96, 32, 32); }

// One k-step of 1 056: 127 * 127 * 1 056 > 2^24, past the fp32 path's exact range (the reference kernel).
TEST(FunctionalIntegerMatmul, LongInt8KStepsAreExact) { expectExactProduct(16, 1056, 16, 1056); }

} // namespace
} // namespace pto::testing
