// Loops, views and assemble with the loop index in offsets, cond paths, unrolled bodies, dynamic symbols and
// writes through to the caller's tensors, checked against numpy and against loops written here.
#include "ReferenceTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {


TEST(ReferenceControlFlow, SoftmaxOverRowsInALoopMatchesNumpy) {
  const TensorGraph graph = buildRowSoftmax(kF32, dimsOf({7, 3, 1, 37}));
  const HostTensor x = randomTensor(kF32, Shape{7, 3, 1, 37}, -4, 4, 11);
  std::vector<HostTensor> arguments{x, HostTensor(kF32, Shape{7, 3, 1, 37})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);

  NumpyReference numpy("SoftmaxOverRows");
  numpy.add("softmax", "softmax", {{"axis", -1}}, {x}, {kF32});
  ASSERT_TRUE(numpy.run());
  // exp and the sums differ in the last ulps between glibc and numpy; 1e-5 relative is ~80 float ulps.
  EXPECT_TRUE(closeTo(arguments[1], numpy.expected("softmax", 0), 1e-5, 1e-6));
}

TEST(ReferenceControlFlow, DynamicRowCountIsBoundFromTheArguments) {
  const SymbolicScalar rows = SymbolicScalar::symbol("B");
  const TensorGraph graph = buildRowSoftmax(kF32, {rows, 2, 1, 5});
  for (std::int64_t count : {1, 4}) {
    const HostTensor x = randomTensor(kF32, Shape{count, 2, 1, 5}, -2, 2, 5);
    std::vector<HostTensor> arguments{x, HostTensor(kF32, Shape{count, 2, 1, 5})};
    DiagnosticEngine diags;
    ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
    // Softmax by hand in double: every group of 5 sums to one and keeps the order of exp.
    for (std::int64_t group = 0; group < count * 2; ++group) {
      double denominator = 0;
      for (int i = 0; i < 5; ++i) denominator += std::exp(x.getAsDouble(group * 5 + i));
      for (int i = 0; i < 5; ++i)
        EXPECT_NEAR(arguments[1].getAsDouble(group * 5 + i), std::exp(x.getAsDouble(group * 5 + i)) / denominator, 1e-6);
    }
  }
}

TEST(ReferenceControlFlow, ADynamicSymbolBoundTwiceToDifferentValuesNamesBothArguments) {
  const TensorGraph graph = buildRowSoftmax(kF32, {SymbolicScalar::symbol("B"), 2, 1, 5});
  const DiagnosticEngine diags =
      failedRun(graph, {HostTensor(kF32, Shape{3, 2, 1, 5}), HostTensor(kF32, Shape{4, 2, 1, 5})});
  EXPECT_EQ(messages(diags), "dynamic dim 'B' is 3 in argument 'x' (dim 0) but 4 in argument 'y' (dim 0)\n");
  EXPECT_EQ(diags.diagnostics().at(0).location, kernelLine(1));
}

TEST(ReferenceControlFlow, ArgumentsMustMatchTheGraphsDtypeShapeAndCount) {
  const TensorGraph graph = buildRowSoftmax(kF32, {SymbolicScalar::symbol("B"), 2, 1, 5});
  EXPECT_EQ(messages(failedRun(graph, {HostTensor(kF32, Shape{3, 2, 1, 5}), HostTensor(kF32, Shape{3, 2, 1, 4})})),
            "argument 'y' must have shape [B, 2, 1, 5] = [3, 2, 1, 5], got [3, 2, 1, 4]\n");
  EXPECT_EQ(messages(failedRun(graph, {HostTensor(kF16, Shape{3, 2, 1, 5}), HostTensor(kF32, Shape{3, 2, 1, 5})})),
            "argument 'x' must be float32, got float16\n");
  EXPECT_EQ(messages(failedRun(graph, {HostTensor(kF32, Shape{3, 2, 1, 5})})),
            "kernel 'softmax' takes 2 arguments, got 1\n");
  EXPECT_EQ(messages(failedRun(graph, {HostTensor(kF32, Shape{3, 2, 5}), HostTensor(kF32, Shape{3, 2, 1, 5})})),
            "argument 'x' must have shape [B, 2, 1, 5], got [3, 2, 5]\n");
}

// for b in range(4): y[b] = x[b] if b is even else x[b] * 2   (pypto.cond on b % 2 == 0)
TEST(ReferenceControlFlow, CondPathsAreChosenPerIterationFromTheLoopIndex) {
  TensorGraphBuilder builder("cond", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({4, 3}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({4, 3}), kernelLine(1));
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "b", 0, 4, 1, false, kernelLine(2));
  builder.beginLoopBody(loop, 1);
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  int paths = 0;
  do {
    builder.beginPath();
    ++paths;
    const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 3})}}, 3);
    TensorId value = row;
    if (!builder.decide(eq(mod(b, 2), 0), kernelLine(4)))
      value = addOp(builder, TensorOpKind::MulS, {row}, {{"scalar", 2.0}}, 5);
    addOp(builder, TensorOpKind::Assemble, {value}, {{"offsets", SymbolicShape{b, 0}}}, 6, {y});
  } while (builder.endPath());
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  EXPECT_EQ(paths, 2);

  const HostTensor input = randomTensor(kF32, Shape{4, 3}, -1, 1, 3);
  std::vector<HostTensor> arguments{input, HostTensor(kF32, Shape{4, 3})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(arguments[1].getAsDouble(i), input.getAsDouble(i) * ((i / 3) % 2 == 0 ? 1.0 : 2.0)) << i;
}

// A kernel-level cond on a dynamic dim: if N > 4: y = x + 1 else: y = x - 1.
TEST(ReferenceControlFlow, KernelLevelCondOnADynamicDim) {
  const SymbolicScalar n = SymbolicScalar::symbol("N");
  TensorGraphBuilder builder("branch", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, {n}, kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, {n}, kernelLine(1));
  builder.addDynamicSymbol({"N", 0, 0});
  builder.addDynamicSymbol({"N", 1, 0});
  do {
    builder.beginPath();
    const bool big = builder.decide(gt(n, 4), kernelLine(2));
    const TensorId value = addOp(builder, big ? TensorOpKind::AddS : TensorOpKind::SubS, {x}, {{"scalar", 1.0}}, 3);
    addOp(builder, TensorOpKind::Copy, {value}, {}, 4, {y});
  } while (builder.endPath());
  const TensorGraph graph = builder.finish();
  for (std::int64_t size : {3, 4, 5, 9}) {
    std::vector<HostTensor> arguments{HostTensor(kF32, Shape{size}), HostTensor(kF32, Shape{size})};
    DiagnosticEngine diags;
    ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
    EXPECT_EQ(arguments[1].getAsDouble(0), size > 4 ? 1.0 : -1.0) << size;
  }
}

// Symbolic scalar operands: y = x / N + i for row i, with N a dynamic dim and i the loop index; full's value
// may be symbolic too (z = full([1, 3], N)). They are evaluated when the op runs.
TEST(ReferenceControlFlow, SymbolicScalarOperandsAreEvaluatedWhenTheOpRuns) {
  const SymbolicScalar n = SymbolicScalar::symbol("N");
  TensorGraphBuilder builder("scalars", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, {n, 3}, kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, {n, 3}, kernelLine(1));
  const TensorId z = builder.addArgument("z", kF32, dimsOf({1, 3}), kernelLine(1));
  builder.addDynamicSymbol({"N", 0, 0});
  builder.addDynamicSymbol({"N", 1, 0});
  builder.beginPath();
  const TensorId filled = addOp(builder, TensorOpKind::Full, {}, {{"shape", dimsOf({1, 3})}, {"value", n}, {"dtype", kF32}}, 2);
  addOp(builder, TensorOpKind::Copy, {filled}, {}, 2, {z});
  const LoopId loop = builder.beginLoop("rows", "i", 0, n, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{i, 0}}, {"shape", dimsOf({1, 3})}}, 4);
  const TensorId divided = addOp(builder, TensorOpKind::DivS, {row}, {{"scalar", n}}, 5);
  const TensorId shifted = addOp(builder, TensorOpKind::AddS, {divided}, {{"scalar", i}}, 6);
  addOp(builder, TensorOpKind::Assemble, {shifted}, {{"offsets", SymbolicShape{i, 0}}}, 7, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  for (std::int64_t rows : {2, 5}) {
    const HostTensor input = randomTensor(kF32, Shape{rows, 3}, -4, 4, 21);
    std::vector<HostTensor> arguments{input, HostTensor(kF32, Shape{rows, 3}), HostTensor(kF32, Shape{1, 3})};
    DiagnosticEngine diags;
    ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
    for (std::int64_t k = 0; k < rows * 3; ++k) {
      // One fp32 division, then one fp32 addition: exactly what float arithmetic gives.
      const float expected = static_cast<float>(input.getAsDouble(k)) / static_cast<float>(rows) + static_cast<float>(k / 3);
      EXPECT_EQ(arguments[1].getAsDouble(k), expected) << rows << " " << k;
    }
    EXPECT_EQ(valuesOf(arguments[2]), std::vector<double>(3, static_cast<double>(rows)));
  }
}

TEST(ReferenceControlFlow, AnUnboundSymbolicScalarOperandIsAnErrorAtTheOp) {
  TensorGraphBuilder builder("unbound", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({2}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({2}), kernelLine(1));
  builder.beginPath();
  const TensorId scaled = addOp(builder, TensorOpKind::MulS, {x}, {{"scalar", SymbolicScalar::symbol("K") + 1}}, 2);
  addOp(builder, TensorOpKind::Copy, {scaled}, {}, 3, {y});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  const DiagnosticEngine diags = failedRun(graph, {HostTensor(kF32, Shape{2}), HostTensor(kF32, Shape{2})});
  EXPECT_EQ(messages(diags), "muls: the scalar operand 'K + 1' cannot be evaluated: unbound symbol 'K'\n");
  EXPECT_EQ(diags.diagnostics().at(0).location, kernelLine(2));
}

// for i in pypto.loop(1, 12, 2, unroll=[4, 1]): y[i] = x[i] * f, where f is the factor of the body that ran.
// Iterations 1,3,5,...,11: the factor-4 body runs at 1 (covering 1..7), the factor-1 body at 9 and 11.
TEST(ReferenceControlFlow, UnrolledLoopsRunTheLargestBodyThatFits) {
  TensorGraphBuilder builder("unrolled", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({12, 5}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({12, 5}), kernelLine(1));
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "i", 1, 12, 2, false, kernelLine(2));
  for (std::int64_t factor : {4, 1}) {
    builder.beginLoopBody(loop, factor);
    builder.beginPath();
    const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
    const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{i, 0}}, {"shape", dimsOf({1, 5})}}, 3);
    const TensorId scaled = addOp(builder, TensorOpKind::MulS, {row}, {{"scalar", static_cast<double>(factor)}}, 4);
    addOp(builder, TensorOpKind::Assemble, {scaled}, {{"offsets", SymbolicShape{i, 0}}}, 5, {y});
    builder.endPath();
  }
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();

  const HostTensor input = randomTensor(kF32, Shape{12, 5}, 1, 2, 9);
  std::vector<HostTensor> arguments{input, HostTensor(kF32, Shape{12, 5})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  const std::map<int, double> expectedFactor{{1, 4.0}, {9, 1.0}, {11, 1.0}};
  for (int row = 0; row < 12; ++row) {
    const double factor = expectedFactor.count(row) ? expectedFactor.at(row) : 0.0;
    for (int col = 0; col < 5; ++col)
      EXPECT_EQ(arguments[1].getAsDouble(row * 5 + col), input.getAsDouble(row * 5 + col) * factor) << row;
  }
}

// Nested loops over tiles: for i in range(3): for j in range(4): y[i, 8j:8j+8] = exp(x[i, 8j:8j+8]), then
// the 1x5 tail y[i, 32:37] in the outer body. Each element must be exp computed in float.
TEST(ReferenceControlFlow, NestedLoopsWithTailViewsCoverEveryElement) {
  TensorGraphBuilder builder("tiles", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({3, 37}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({3, 37}), kernelLine(1));
  builder.beginPath();
  const LoopId rows = builder.beginLoop("rows", "i", 0, 3, 1, false, kernelLine(2));
  builder.beginLoopBody(rows, 1);
  builder.beginPath();
  const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(rows).indexSymbol);
  const LoopId cols = builder.beginLoop("cols", "j", 0, 4, 1, false, kernelLine(3));
  builder.beginLoopBody(cols, 1);
  builder.beginPath();
  const SymbolicScalar j = SymbolicScalar::symbol(builder.loop(cols).indexSymbol);
  const SymbolicShape at{i, j * 8};
  const TensorId tile = addOp(builder, TensorOpKind::View, {x}, {{"offsets", at}, {"shape", dimsOf({1, 8})}}, 4);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {tile}, {}, 5);
  addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", at}}, 6, {y});
  builder.endPath();
  builder.endLoop(cols);
  const SymbolicShape tailAt{i, 32};
  const TensorId tail = addOp(builder, TensorOpKind::View, {x}, {{"offsets", tailAt}, {"shape", dimsOf({1, 5})}}, 7);
  const TensorId tailExp = addOp(builder, TensorOpKind::Exp, {tail}, {}, 8);
  addOp(builder, TensorOpKind::Assemble, {tailExp}, {{"offsets", tailAt}}, 9, {y});
  builder.endPath();
  builder.endLoop(rows);
  builder.endPath();
  const TensorGraph graph = builder.finish();

  const HostTensor input = randomTensor(kF32, Shape{3, 37}, -2, 2, 21);
  std::vector<HostTensor> arguments{input, HostTensor(kF32, Shape{3, 37})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  for (int k = 0; k < 3 * 37; ++k)
    EXPECT_EQ(arguments[1].getAsDouble(k), static_cast<double>(std::exp(static_cast<float>(input.getAsDouble(k))))) << k;
}

// Arguments may themselves be views (a column block of a caller's matrix); writes land in the caller's
// storage, only inside the block.
TEST(ReferenceControlFlow, WritesGoThroughArgumentViewsIntoTheCallersStorage) {
  TensorGraphBuilder builder("fill", kernelLine(1));
  const TensorId out = builder.addArgument("out", kF32, dimsOf({3, 4}), kernelLine(1));
  builder.beginPath();
  const TensorId ones = addOp(builder, TensorOpKind::Full, {}, {{"shape", dimsOf({3, 2})}, {"value", 7.0}, {"dtype", kF32}}, 2);
  const TensorId inner = addOp(builder, TensorOpKind::View, {out}, {{"offsets", dimsOf({0, 1})}, {"shape", dimsOf({3, 2})}}, 3);
  addOp(builder, TensorOpKind::Copy, {ones}, {}, 4, {inner});
  builder.endPath();
  const TensorGraph graph = builder.finish();

  HostTensor caller(kF32, Shape{5, 6});
  std::vector<HostTensor> arguments{caller.view({1, 2}, {3, 4})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 6; ++c) {
      const bool written = r >= 1 && r <= 3 && c >= 3 && c <= 4;
      EXPECT_EQ(caller.getAsDouble(r * 6 + c), written ? 7.0 : 0.0) << r << "," << c;
    }
}

// An op may write its result into an existing tensor (`out=`), here into a row of the output.
TEST(ReferenceControlFlow, OpsWritingIntoExistingTensorsFillTheirRegion) {
  TensorGraphBuilder builder("into", kernelLine(1));
  const TensorId a = builder.addArgument("a", kF32, dimsOf({2, 3}), kernelLine(1));
  const TensorId b = builder.addArgument("b", kF32, dimsOf({2, 3}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({2, 3}), kernelLine(1));
  builder.beginPath();
  addOp(builder, TensorOpKind::Add, {a, b}, {}, 2, {y});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<HostTensor> arguments{tensorOf(kF32, Shape{2, 3}, {1, 2, 3, 4, 5, 6}),
                                    tensorOf(kF32, Shape{2, 3}, {10, 20, 30, 40, 50, 60}), HostTensor(kF32, Shape{2, 3})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  EXPECT_EQ(valuesOf(arguments[2]), (std::vector<double>{11, 22, 33, 44, 55, 66}));
}

// A temporary made by pypto.tensor() starts as zeros and accumulates across iterations.
TEST(ReferenceControlFlow, TemporariesKeepTheirContentsAcrossIterations) {
  TensorGraphBuilder builder("accumulate", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({5, 3}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({1, 3}), kernelLine(1));
  const TensorId acc = builder.addTemporary("acc", kF32, dimsOf({1, 3}), kernelLine(2));
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "r", 0, 5, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar r = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{r, 0}}, {"shape", dimsOf({1, 3})}}, 4);
  const TensorId sum = addOp(builder, TensorOpKind::Add, {acc, row}, {}, 5);
  addOp(builder, TensorOpKind::Copy, {sum}, {}, 6, {acc});
  builder.endPath();
  builder.endLoop(loop);
  addOp(builder, TensorOpKind::Copy, {acc}, {}, 7, {y});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<double> values;
  for (int k = 0; k < 15; ++k) values.push_back(k);
  std::vector<HostTensor> arguments{tensorOf(kF32, Shape{5, 3}, values), HostTensor(kF32, Shape{1, 3})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  EXPECT_EQ(valuesOf(arguments[1]), (std::vector<double>{0 + 3 + 6 + 9 + 12, 1 + 4 + 7 + 10 + 13, 2 + 5 + 8 + 11 + 14}));
}

// for i in pypto.loop(0, 5, unroll=[2, 1]): the factor-2 body handles rows i and i + 1 (y = x + 10 * f),
// the factor-1 body the last row. A clone of x and views of that temporary feed the bodies.
TEST(ReferenceControlFlow, UnrolledBodiesCoverSeveralIterationsThroughViewsOfATemporary) {
  TensorGraphBuilder builder("pairs", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({5, 3}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({5, 3}), kernelLine(1));
  builder.beginPath();
  const TensorId copy = addOp(builder, TensorOpKind::Copy, {x}, {}, 2);  // clone(): a new temporary
  const LoopId loop = builder.beginLoop("rows", "i", 0, 5, 1, false, kernelLine(3));
  for (std::int64_t factor : {2, 1}) {
    builder.beginLoopBody(loop, factor);
    builder.beginPath();
    const SymbolicScalar i = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
    for (std::int64_t k = 0; k < factor; ++k) {
      const SymbolicShape at{i + k, 0};
      const TensorId row = addOp(builder, TensorOpKind::View, {copy}, {{"offsets", at}, {"shape", dimsOf({1, 3})}}, 4);
      const TensorId shifted = addOp(builder, TensorOpKind::AddS, {row}, {{"scalar", 10.0 * static_cast<double>(factor)}}, 5);
      addOp(builder, TensorOpKind::Assemble, {shifted}, {{"offsets", at}}, 6, {y});
    }
    builder.endPath();
  }
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<double> values;
  for (int k = 0; k < 15; ++k) values.push_back(k);
  std::vector<HostTensor> arguments{tensorOf(kF32, Shape{5, 3}, values), HostTensor(kF32, Shape{5, 3})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  for (int k = 0; k < 15; ++k) EXPECT_EQ(arguments[1].getAsDouble(k), k + (k < 12 ? 20.0 : 10.0)) << k;
}

TEST(ReferenceControlFlow, LoopsWithNoIterationsRunNothing) {
  TensorGraphBuilder builder("empty", kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({2}), kernelLine(1));
  builder.beginPath();
  const LoopId loop = builder.beginLoop("never", "i", 5, 5, 1, false, kernelLine(2));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const TensorId full = addOp(builder, TensorOpKind::Full, {}, {{"shape", dimsOf({2})}, {"value", 1.0}, {"dtype", kF32}}, 3);
  addOp(builder, TensorOpKind::Copy, {full}, {}, 4, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<HostTensor> arguments{HostTensor(kF32, Shape{2})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  EXPECT_EQ(valuesOf(arguments[0]), (std::vector<double>{0, 0}));
}

} // namespace
} // namespace pto::testing
