// Run-time failures of the reference interpreter: each is a diagnostic at the kernel line that caused it,
// with the full message text checked, never a crash.
#include "ReferenceTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {


// for b in range(4): y[b] = exp(x[b]) with x of 3 rows (the builder cannot see it: b is symbolic).
TensorGraph rowLoop(std::int64_t xRows, std::int64_t yRows) {
  TensorGraphBuilder builder("rows", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({xRows, 37}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({yRows, 37}), kernelLine(1));
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "b", 0, 4, 1, false, kernelLine(2));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 37})}}, 3);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {row}, {}, 4);
  addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", SymbolicShape{b, 0}}}, 5, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  return builder.finish();
}

TEST(ReferenceRuntimeErrors, AViewOutsideItsTensorAtRunTime) {
  const TensorGraph graph = rowLoop(3, 4);
  std::vector<HostTensor> arguments{tensorOf(kF32, Shape{3, 37}, std::vector<double>(111, 1.0)), HostTensor(kF32, Shape{4, 37})};
  const DiagnosticEngine diags = failedRun(graph, arguments);
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "view: region [3, 4) of dim 0 lies outside 'x' [3, 37] (offsets [3, 0], shape [1, 37])");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(3));
  // The rows before the failing iteration were written.
  EXPECT_FLOAT_EQ(static_cast<float>(arguments[1].getAsDouble(2 * 37)), std::exp(1.0f));
  EXPECT_EQ(arguments[1].getAsDouble(3 * 37), 0.0);
}

TEST(ReferenceRuntimeErrors, AnAssembleOutsideItsTargetAtRunTime) {
  const TensorGraph graph = rowLoop(4, 3);
  const DiagnosticEngine diags = failedRun(graph, {HostTensor(kF32, Shape{4, 37}), HostTensor(kF32, Shape{3, 37})});
  EXPECT_EQ(messages(diags), "assemble: region [3, 4) of dim 0 lies outside 'y' [3, 37] (offsets [3, 0], value shape [1, 37])\n");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(5));
}

TEST(ReferenceRuntimeErrors, IndicesOutOfRange) {
  const HostTensor x = randomTensor(kF32, Shape{3, 37}, -1, 1, 1);
  {
    DiagnosticEngine diags;
    const HostTensor index = tensorOf(DataType::Int32, Shape{3, 2}, {0, 1, 2, 37, 4, 5});
    EXPECT_FALSE(runSingleOp(TensorOpKind::Gather, {x, index}, {{"dim", std::int64_t{1}}}, diags).ok);
    EXPECT_EQ(messages(diags), "gather: index 37 at [1, 1] is out of range for dim 1 of [3, 37] (valid: 0..36)\n");
    EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(10));
  }
  {
    DiagnosticEngine diags;
    const HostTensor index = tensorOf(DataType::Int64, Shape{2}, {0, -1});
    EXPECT_FALSE(runSingleOp(TensorOpKind::IndexSelect, {x, index}, {{"dim", std::int64_t{0}}}, diags).ok);
    EXPECT_EQ(messages(diags), "index_select: index -1 at [1] is out of range for dim 0 of [3, 37] (valid: 0..2)\n");
  }
  {
    DiagnosticEngine diags;
    const HostTensor index = tensorOf(DataType::Int32, Shape{1}, {3});
    EXPECT_FALSE(runSingleOp(TensorOpKind::ScatterUpdate, {x, index, HostTensor(kF32, Shape{1, 37})},
                             {{"dim", std::int64_t{0}}}, diags)
                     .ok);
    EXPECT_EQ(messages(diags), "scatter_update: index 3 at [0] is out of range for dim 0 of [3, 37] (valid: 0..2)\n");
  }
  {
    DiagnosticEngine diags;
    const HostTensor index = tensorOf(DataType::Int32, Shape{1, 2}, {0, 40});
    EXPECT_FALSE(runSingleOp(TensorOpKind::Scatter, {x, index, HostTensor(kF32, Shape{1, 2})},
                             {{"dim", std::int64_t{1}}}, diags)
                     .ok);
    EXPECT_EQ(messages(diags), "scatter: index 40 at [0, 1] is out of range for dim 1 of [3, 37] (valid: 0..36)\n");
  }
}

TEST(ReferenceRuntimeErrors, LoopStepsMustBePositive) {
  TensorGraphBuilder builder("steps", kernelLine(1));
  const SymbolicScalar step = SymbolicScalar::symbol("S");
  const TensorId x = builder.addArgument("x", kF32, {step}, kernelLine(1));
  builder.addDynamicSymbol({"S", 0, 0});
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "i", 0, 10, step, false, kernelLine(2));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  const DiagnosticEngine diags = failedRun(graph, {HostTensor(kF32, Shape{0})});
  EXPECT_EQ(messages(diags), "loop 'rows': the step must be positive, got 0\n");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(2));
}

TEST(ReferenceRuntimeErrors, UnrolledLoopsWithoutABodyForTheRemainder) {
  TensorGraphBuilder builder("unrolled", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({2}), kernelLine(1));
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "i", 0, 3, 1, false, kernelLine(2));
  builder.beginLoopBody(loop, 2);
  builder.beginPath();
  addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  EXPECT_EQ(messages(failedRun(graph, {HostTensor(kF32, Shape{2})})),
            "loop 'rows': no body covers the remaining 1 iteration(s) from index 2\n");
}

TEST(ReferenceRuntimeErrors, ShapesWithUnboundSymbols) {
  TensorGraphBuilder builder("unbound", kernelLine(1));
  builder.beginPath();
  addOp(builder, TensorOpKind::Full, {}, {{"shape", SymbolicShape{SymbolicScalar::symbol("N")}}, {"value", 1.0}, {"dtype", kF32}}, 2);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  const DiagnosticEngine diags = failedRun(graph, {});
  EXPECT_EQ(messages(diags), "cannot evaluate dim 0 of the shape of full's output 'N': unbound symbol 'N'\n");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(2));
}

TEST(ReferenceRuntimeErrors, TemporariesLargerThanMaxElementsAreRefused) {
  TensorGraphBuilder builder("big", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({1000, 1000}), kernelLine(1));
  builder.beginPath();
  const TensorId small = addOp(builder, TensorOpKind::View, {x}, {{"offsets", dimsOf({0, 0})}, {"shape", dimsOf({10, 100})}}, 2);
  addOp(builder, TensorOpKind::Exp, {small}, {}, 3);
  addOp(builder, TensorOpKind::Exp, {x}, {}, 4);
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<HostTensor> arguments{HostTensor(kF32, Shape{1000, 1000})};
  ReferenceOptions options;
  options.maxElements = 1000;
  const DiagnosticEngine diags = failedRun(graph, arguments, options);
  // Arguments and views allocate nothing; the 10x100 temporary is within the limit, the 1000x1000 one is not.
  EXPECT_EQ(messages(diags), "refusing to allocate the output of exp of shape [1000, 1000] (1000000 elements): the "
                             "reference interpreter's limit is 1000 elements\n");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(4));
}

TEST(ReferenceRuntimeErrors, CancellationStopsBetweenOps) {
  const TensorGraph graph = rowLoop(4, 4);
  std::vector<HostTensor> arguments{HostTensor(kF32, Shape{4, 37}), HostTensor(kF32, Shape{4, 37})};
  int polls = 0;
  ReferenceOptions options;
  // Polls: one per iteration and one per op (view, exp, assemble), so the 7th is the second iteration's exp.
  options.cancelled = [&polls] { return ++polls == 7; };
  const DiagnosticEngine diags = failedRun(graph, arguments, options);
  EXPECT_EQ(messages(diags), "cancelled\n");
  EXPECT_EQ(polls, 7);
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(4));
  EXPECT_EQ(arguments[1].getAsDouble(0), 1.0);       // row 0 done: exp(0)
  EXPECT_EQ(arguments[1].getAsDouble(37), 0.0);      // row 1 not assembled

  ReferenceOptions always;
  always.cancelled = [] { return true; };
  const DiagnosticEngine early = failedRun(graph, arguments, always);
  EXPECT_EQ(messages(early), "cancelled\n");
  EXPECT_EQ(early.diagnostics()[0].location, kernelLine(2));  // the loop's first iteration
}

} // namespace
} // namespace pto::testing
