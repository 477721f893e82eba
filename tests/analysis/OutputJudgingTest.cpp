// How `pto run` judges outputs: the rule each output gets from how the kernel computes it, the rules
// themselves (quantized within one step, top-k rows as sets), and the staged golden of a kernel whose later
// stages read its earlier outputs. Each rule is tested both ways: the difference it exists to excuse passes,
// a real error next to it still fails.
#include "analysis/simulation/OutputRules.h"
#include "analysis/run/StagedGolden.h"
#include "tests/reference/ReferenceTestSupport.h"

#include <gtest/gtest.h>

namespace pto {
namespace {

using testing::addArguments;
using testing::addOp;
using testing::dimsOf;
using testing::kernelLine;
using testing::messages;
using testing::tensorOf;
using testing::valuesOf;

constexpr DataType kF32 = DataType::Fp32;
constexpr DataType kI32 = DataType::Int32;
constexpr DataType kI8 = DataType::Int8;

TEST(OutputRules, QuantizedAcceptsOneStepAndNoMore) {
  const HostTensor golden = tensorOf(kI8, Shape{4}, {-128, -3, 0, 127});
  OutputComparison oneStep = compareOutputByRule(tensorOf(kI8, Shape{4}, {-127, -3, 1, 126}), golden,
                                                 CompareRule::Quantized, {});
  EXPECT_TRUE(oneStep.pass());
  EXPECT_EQ(oneStep.tolerated, 3);
  EXPECT_EQ(oneStep.rule, "quantized");
  OutputComparison twoSteps = compareOutputByRule(tensorOf(kI8, Shape{4}, {-128, -1, 0, 127}), golden,
                                                  CompareRule::Quantized, {});
  EXPECT_FALSE(twoSteps.pass());
  EXPECT_EQ(twoSteps.mismatches, 1);
  EXPECT_EQ(twoSteps.firstMismatch, 1);
  // The same one-step difference under the exact rule is a mismatch.
  EXPECT_FALSE(compareOutputByRule(tensorOf(kI8, Shape{4}, {-127, -3, 0, 127}), golden, CompareRule::Exact, {}).pass());
}

TEST(OutputRules, TopkComparesEachRowAsASet) {
  const HostTensor golden = tensorOf(kI32, Shape{2, 4}, {7, 3, 9, -1, 0, 1, 2, 3});
  // Order within a row is free (ties may come out in any order).
  EXPECT_TRUE(compareOutputByRule(tensorOf(kI32, Shape{2, 4}, {9, 7, -1, 3, 3, 2, 1, 0}), golden, CompareRule::Topk, {})
                  .pass());
  // An index the golden does not select fails: k = 4 allows none missing.
  OutputComparison foreign =
      compareOutputByRule(tensorOf(kI32, Shape{2, 4}, {7, 3, 9, -1, 0, 1, 2, 5}), golden, CompareRule::Topk, {});
  EXPECT_FALSE(foreign.pass());
  EXPECT_EQ(foreign.mismatches, 1);
  EXPECT_EQ(foreign.firstMismatch, 7);
  // A duplicate in place of an index is a missing index too (rows are multisets).
  EXPECT_FALSE(compareOutputByRule(tensorOf(kI32, Shape{2, 4}, {7, 7, 9, -1, 0, 1, 2, 3}), golden, CompareRule::Topk, {})
                   .pass());
}

TEST(OutputRules, TopkOf2048ExcusesOneTiedIndexPerRowAsPyptosIndexerTestDoes) {
  std::vector<double> goldenValues(2048), oneSwapped(2048), twoSwapped(2048);
  for (int i = 0; i < 2048; ++i) goldenValues[i] = oneSwapped[i] = twoSwapped[i] = 2047 - i;
  oneSwapped[2047] = 5000;  // the boundary index replaced by its tie partner
  twoSwapped[2046] = 5001;
  twoSwapped[2047] = 5000;
  const HostTensor golden = tensorOf(kI32, Shape{1, 2048}, goldenValues);
  OutputComparison one = compareOutputByRule(tensorOf(kI32, Shape{1, 2048}, oneSwapped), golden, CompareRule::Topk, {});
  EXPECT_TRUE(one.pass());
  EXPECT_EQ(one.tolerated, 1);
  OutputComparison two = compareOutputByRule(tensorOf(kI32, Shape{1, 2048}, twoSwapped), golden, CompareRule::Topk, {});
  EXPECT_FALSE(two.pass());
  EXPECT_EQ(two.mismatches, 2);
}

// x [2, 8] fp32 -> scores = x * 3; values, index = topk(scores, 4); q = cast(scores, int32, rint);
// idx = where(values > -1e30, index, -1) assembled into out_idx; q into out_q; scores into out_scores.
TEST(OutputRules, RulesFollowHowTheKernelComputesEachOutput) {
  TensorGraphBuilder builder("rules", kernelLine(1));
  const auto [x, outScores, outQ, outIdx, outCopy] =
      addArguments(builder, {{"x", kF32, {2, 8}}, {"out_scores", kF32, {2, 8}}, {"out_q", kI32, {2, 8}},
                             {"out_idx", kI32, {2, 4}}, {"out_copy", kI32, {2, 4}}});
  builder.beginPath();
  const TensorId scores = addOp(builder, TensorOpKind::MulS, {x}, {{"scalar", 3.0}}, 2);
  addOp(builder, TensorOpKind::Assemble, {scores}, {{"offsets", dimsOf({0, 0})}}, 3, {outScores});
  const TensorId q = addOp(builder, TensorOpKind::Cast, {scores}, {{"dtype", kI32}, {"mode", std::string("rint")}}, 4);
  addOp(builder, TensorOpKind::Assemble, {q}, {{"offsets", dimsOf({0, 0})}}, 5, {outQ});
  const std::vector<TensorId> top = testing::addOps(
      builder, TensorOpKind::TopK, {scores}, {{"k", std::int64_t{4}}, {"dim", std::int64_t{1}}, {"largest", true}}, 6);
  ASSERT_EQ(top.size(), 2u);
  const TensorId valid = addOp(builder, TensorOpKind::GtS, {top[0]}, {{"scalar", -1e30}}, 7);
  const TensorId picked = addOp(builder, TensorOpKind::Where, {valid, top[1]}, {{"y", -1.0}}, 7);
  addOp(builder, TensorOpKind::Assemble, {picked}, {{"offsets", dimsOf({0, 0})}}, 8, {outIdx});
  const TensorId ints = addOp(builder, TensorOpKind::View, {outQ}, {{"offsets", dimsOf({0, 0})}, {"shape", dimsOf({2, 4})}}, 9);
  addOp(builder, TensorOpKind::Assemble, {ints}, {{"offsets", dimsOf({0, 0})}}, 9, {outCopy});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  EXPECT_EQ(compareRuleFor(graph, outScores), CompareRule::Allclose);
  EXPECT_EQ(compareRuleFor(graph, outQ), CompareRule::Quantized);
  EXPECT_EQ(compareRuleFor(graph, outIdx), CompareRule::Topk);
  // Copied from a quantized output: still quantized values.
  EXPECT_EQ(compareRuleFor(graph, outCopy), CompareRule::Quantized);
}

// Two stages: stage 1 writes mid = round(x * 0.5) (int32); stage 2 reads mid back from the output and
// writes out = mid * 10 (int32), then adds 1 to out in place (an accumulator: read back, written again).
TensorGraph buildTwoStages() {
  TensorGraphBuilder builder("two_stages", kernelLine(1));
  const auto [x, mid, out] = addArguments(builder, {{"x", kF32, {1, 4}}, {"mid", kI32, {1, 4}}, {"out", kI32, {1, 4}}});
  builder.beginPath();
  const TensorId half = addOp(builder, TensorOpKind::MulS, {x}, {{"scalar", 0.5}}, 2);
  const TensorId rounded = addOp(builder, TensorOpKind::Cast, {half}, {{"dtype", kI32}, {"mode", std::string("rint")}}, 2);
  addOp(builder, TensorOpKind::Assemble, {rounded}, {{"offsets", dimsOf({0, 0})}}, 3, {mid});
  const TensorId readBack = addOp(builder, TensorOpKind::View, {mid}, {{"offsets", dimsOf({0, 0})}, {"shape", dimsOf({1, 4})}}, 4);
  const TensorId tens = addOp(builder, TensorOpKind::MulS, {readBack}, {{"scalar", 10.0}}, 4);
  addOp(builder, TensorOpKind::Assemble, {tens}, {{"offsets", dimsOf({0, 0})}}, 5, {out});
  const TensorId partial = addOp(builder, TensorOpKind::View, {out}, {{"offsets", dimsOf({0, 0})}, {"shape", dimsOf({1, 4})}}, 6);
  const TensorId plusOne = addOp(builder, TensorOpKind::AddS, {partial}, {{"scalar", 1.0}}, 6);
  addOp(builder, TensorOpKind::Assemble, {plusOne}, {{"offsets", dimsOf({0, 0})}}, 7, {out});
  builder.endPath();
  return builder.finish();
}

struct Goldens {
  std::vector<HostTensor> chained;
  StagedGoldenResult staged;
};

Goldens goldensFor(const TensorGraph& graph, const std::vector<HostTensor>& initial, const std::vector<HostTensor>& actual) {
  Goldens result;
  for (const HostTensor& tensor : initial) result.chained.push_back(tensor.contiguous());
  OutputWriteLog log(graph, result.chained);
  ReferenceOptions options;
  options.onWrite = [&log](const TensorOp& op, const HostTensor& region) { log.onWrite(op, region); };
  DiagnosticEngine diags;
  EXPECT_TRUE(runReference(graph, result.chained, diags, options)) << messages(diags);
  EXPECT_EQ(log.writes().size(), 3u);  // mid once, out twice
  result.staged = stagedGolden(graph, initial, actual, {"x", "mid", "out"}, log.writes(), {});
  return result;
}

TEST(StagedGolden, EachStageIsJudgedOnWhatTheKernelHandedIt) {
  const TensorGraph graph = buildTwoStages();
  ASSERT_TRUE(readsItsOutputs(graph));
  // x * 0.5 = 1.5 and 2.5 sit on rounding boundaries: a kernel may land on 2 or 3 legitimately.
  const std::vector<HostTensor> initial{tensorOf(kF32, Shape{1, 4}, {3, 5, -2, 8}), HostTensor(kI32, Shape{1, 4}),
                                        HostTensor(kI32, Shape{1, 4})};
  // The kernel rounded 2.5 up (3, the golden's rint gives 2) and then computed stage 2 right from its 3.
  const std::vector<HostTensor> kernel{initial[0], tensorOf(kI32, Shape{1, 4}, {2, 3, -1, 4}),
                                       tensorOf(kI32, Shape{1, 4}, {21, 31, -9, 41})};
  Goldens goldens = goldensFor(graph, initial, kernel);
  EXPECT_EQ(valuesOf(goldens.chained[2]), (std::vector<double>{21, 21, -9, 41}));
  ASSERT_TRUE(goldens.staged.staged) << goldens.staged.reason;
  EXPECT_EQ(goldens.staged.handedOver, (std::vector<std::string>{"mid", "out"}));
  // mid's golden is still the reference's own (2 at index 1); out's is computed from the kernel's mid.
  EXPECT_EQ(valuesOf(goldens.staged.golden[1]), (std::vector<double>{2, 2, -1, 4}));
  EXPECT_EQ(valuesOf(goldens.staged.golden[2]), (std::vector<double>{21, 31, -9, 41}));
  EXPECT_TRUE(compareOutputByRule(kernel[1], goldens.staged.golden[1], CompareRule::Quantized, {}).pass());
  EXPECT_TRUE(compareOutputByRule(kernel[2], goldens.staged.golden[2], CompareRule::Exact, {}).pass());
  // Against the chained golden, stage 2 would fail for stage 1's legitimate rounding.
  EXPECT_FALSE(compareOutputByRule(kernel[2], goldens.chained[2], CompareRule::Exact, {}).pass());
}

TEST(StagedGolden, AStageThatComputesWronglyFromWhatItReceivedStillFails) {
  const TensorGraph graph = buildTwoStages();
  const std::vector<HostTensor> initial{tensorOf(kF32, Shape{1, 4}, {3, 5, -2, 8}), HostTensor(kI32, Shape{1, 4}),
                                        HostTensor(kI32, Shape{1, 4})};
  // Stage 1 right; stage 2 forgot the + 1 on one element.
  const std::vector<HostTensor> kernel{initial[0], tensorOf(kI32, Shape{1, 4}, {2, 2, -1, 4}),
                                       tensorOf(kI32, Shape{1, 4}, {21, 20, -9, 41})};
  Goldens goldens = goldensFor(graph, initial, kernel);
  ASSERT_TRUE(goldens.staged.staged) << goldens.staged.reason;
  // The accumulator's first write (out = mid * 10) is read back by the + 1: it is not handed over, so
  // the golden adds 1 to the reference's own 20, not to the kernel's final value.
  EXPECT_EQ(valuesOf(goldens.staged.golden[2]), (std::vector<double>{21, 21, -9, 41}));
  OutputComparison stage2 = compareOutputByRule(kernel[2], goldens.staged.golden[2], CompareRule::Exact, {});
  EXPECT_FALSE(stage2.pass());
  EXPECT_EQ(stage2.firstMismatch, 1);
  // And a stage 1 off by two steps fails its own rule.
  const HostTensor wrongMid = tensorOf(kI32, Shape{1, 4}, {2, 4, -1, 4});
  EXPECT_FALSE(compareOutputByRule(wrongMid, goldens.staged.golden[1], CompareRule::Quantized, {}).pass());
}

} // namespace
} // namespace pto
