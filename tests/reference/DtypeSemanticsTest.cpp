// The interpreter's dtype semantics on hand-computed values: rounding after every op, fp32 accumulation,
// integer wrap and floor division, cast modes, NaN handling, ties in arg/sort ops.
#include "ReferenceTestSupport.h"
#include "tests/TestDtypes.h"

#include "core/Float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace pto::testing {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<double> runOne(TensorOpKind kind, const std::vector<HostTensor>& inputs, Attributes attrs = {},
                           std::size_t output = 0) {
  DiagnosticEngine diags;
  SingleOpRun run = runSingleOp(kind, inputs, std::move(attrs), diags);
  EXPECT_TRUE(run.ok) << messages(diags);
  return run.ok ? valuesOf(run.outputs.at(output)) : std::vector<double>{};
}

// Exact comparison that treats NaN as equal to NaN and tells -0 from +0.
::testing::AssertionResult sameValues(const std::vector<double>& actual, const std::vector<double>& expected) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << actual.size() << " values, expected " << expected.size();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const bool same = (std::isnan(a) && std::isnan(e)) || (a == e && std::signbit(a) == std::signbit(e));
    if (!same) return ::testing::AssertionFailure() << "element " << i << ": got " << a << ", expected " << e;
  }
  return ::testing::AssertionSuccess();
}

TEST(ReferenceDtypes, Fp16ResultsAreRoundedAfterEveryOp) {
  // y = (x + 1) + 1 with x = 2048: fp16 has a spacing of 2 there, 2049 ties to 2048, twice; fp32 throughout
  // would give 2050.
  TensorGraphBuilder builder("twice", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF16, dimsOf({1}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF16, dimsOf({1}), kernelLine(1));
  builder.beginPath();
  const TensorId once = addOp(builder, TensorOpKind::AddS, {x}, {{"scalar", 1.0}}, 2);
  const TensorId twice = addOp(builder, TensorOpKind::AddS, {once}, {{"scalar", 1.0}}, 3);
  addOp(builder, TensorOpKind::Copy, {twice}, {}, 4, {y});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<HostTensor> arguments{tensorOf(kF16, Shape{1}, {2048}), HostTensor(kF16, Shape{1})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  EXPECT_EQ(arguments[1].getAsDouble(0), 2048.0);
}

TEST(ReferenceDtypes, Fp16AndBf16ComputeInFloatAndRoundOnce) {
  const std::vector<double> xs{0.1, -1.7, 3.14159, 11.0, -0.004};
  const HostTensor x16 = tensorOf(kF16, Shape{5}, xs);
  const HostTensor xb16 = tensorOf(DataType::Bf16, Shape{5}, xs);
  const std::vector<double> exp16 = runOne(TensorOpKind::Exp, {x16});
  const std::vector<double> mulb16 = runOne(TensorOpKind::Mul, {xb16, xb16});
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const float a = static_cast<float>(Float16(static_cast<float>(xs[i])));
    EXPECT_EQ(exp16[i], static_cast<float>(Float16(std::exp(a)))) << i;
    const float b = static_cast<float>(BFloat16(static_cast<float>(xs[i])));
    EXPECT_EQ(mulb16[i], static_cast<float>(BFloat16(b * b))) << i;
  }
}

TEST(ReferenceDtypes, Fp16SumsAndMatmulsAccumulateInFp32) {
  // 3000 ones: an fp16 accumulator would stall at 2048 (2048 + 1 rounds back to 2048).
  const HostTensor ones = tensorOf(kF16, Shape{1, 3000}, std::vector<double>(3000, 1.0));
  EXPECT_EQ(runOne(TensorOpKind::Sum, {ones}, {{"dims", std::vector<std::int64_t>{1}}}), std::vector<double>{3000});
  const HostTensor column = tensorOf(kF16, Shape{3000, 1}, std::vector<double>(3000, 1.0));
  EXPECT_EQ(runOne(TensorOpKind::Matmul, {ones, column}, {{"out_dtype", kF16}}), std::vector<double>{3000});
}

TEST(ReferenceDtypes, IntegerMatmulsAccumulateExactlyAndWrapToTheOutput) {
  const HostTensor a = tensorOf(DataType::Int8, Shape{1, 300}, std::vector<double>(300, 127));
  const HostTensor b = tensorOf(DataType::Int8, Shape{300, 1}, std::vector<double>(300, -128));
  EXPECT_EQ(runOne(TensorOpKind::Matmul, {a, b}), std::vector<double>{300.0 * 127 * -128});
  // (2^16 + 1)^2 = 2^32 + 2^17 + 1 wraps to 131073 in int32, as int32 accumulation does.
  const HostTensor c = tensorOf(DataType::Int32, Shape{1, 1}, {65537});
  EXPECT_EQ(runOne(TensorOpKind::Matmul, {c, c}, {{"out_dtype", DataType::Int32}}), std::vector<double>{131073});
}

TEST(ReferenceDtypes, IntegerDivisionFloorsLikeNumpyAndWraps) {
  const double minInt32 = -2147483648.0;
  const HostTensor a = tensorOf(DataType::Int32, Shape{7}, {-7, 7, -7, 7, 5, -5, minInt32});
  const HostTensor b = tensorOf(DataType::Int32, Shape{7}, {2, -2, -2, 2, 0, 0, -1});
  EXPECT_EQ(runOne(TensorOpKind::Div, {a, b}), (std::vector<double>{-4, -4, 3, 3, 0, 0, minInt32}));
  const HostTensor wide = HostTensor::fromValues<std::int64_t>(Shape{1}, {std::numeric_limits<std::int64_t>::min()});
  const HostTensor minusOne = HostTensor::fromValues<std::int64_t>(Shape{1}, {-1});
  DiagnosticEngine diags;
  SingleOpRun run = runSingleOp(TensorOpKind::Div, {wide, minusOne}, {}, diags);
  ASSERT_TRUE(run.ok) << messages(diags);
  EXPECT_EQ(run.outputs[0].at<std::int64_t>({0}), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(runOne(TensorOpKind::DivS, {a}, {{"scalar", -2.0}}), (std::vector<double>{3, -4, 3, -4, -3, 2, 1073741824}));
  EXPECT_EQ(runOne(TensorOpKind::RDivS, {b}, {{"scalar", 7.0}}), (std::vector<double>{3, -4, -4, 3, 0, 0, -7}));
}

TEST(ReferenceDtypes, IntegerOpsWithFractionalScalarsComputeInDoubleAndTruncate) {
  const HostTensor x = tensorOf(DataType::Int32, Shape{4}, {3, -3, 5, 2147483647});
  EXPECT_EQ(runOne(TensorOpKind::MulS, {x}, {{"scalar", 0.5}}), (std::vector<double>{1, -1, 2, 1073741823}));
  // Saturates rather than wraps when the double result leaves the range.
  EXPECT_EQ(runOne(TensorOpKind::MulS, {x}, {{"scalar", 2.5}}), (std::vector<double>{7, -7, 12, 2147483647}));
  EXPECT_EQ(runOne(TensorOpKind::GtS, {x}, {{"scalar", 2.5}}), (std::vector<double>{1, 0, 1, 1}));
  // Integral scalars are exact and wrap: 2147483647 + 1 is -2147483648 in int32.
  EXPECT_EQ(runOne(TensorOpKind::AddS, {x}, {{"scalar", 1.0}}), (std::vector<double>{4, -2, 6, -2147483648.0}));
}

TEST(ReferenceDtypes, Uint64UsesUnsignedArithmetic) {
  const std::uint64_t big = (std::uint64_t{1} << 63) + 5;
  const HostTensor a = HostTensor::fromValues<std::uint64_t>(Shape{2}, {big, 1});
  const HostTensor b = HostTensor::fromValues<std::uint64_t>(Shape{2}, {3, ~std::uint64_t{0}});
  DiagnosticEngine diags;
  SingleOpRun max = runSingleOp(TensorOpKind::Maximum, {a, b}, {}, diags);
  ASSERT_TRUE(max.ok) << messages(diags);
  EXPECT_EQ(max.outputs[0].at<std::uint64_t>({0}), big);
  EXPECT_EQ(max.outputs[0].at<std::uint64_t>({1}), ~std::uint64_t{0});
  EXPECT_EQ(runOne(TensorOpKind::Gt, {a, b}), (std::vector<double>{1, 0}));
  SingleOpRun quotient = runSingleOp(TensorOpKind::Div, {b, a}, {}, diags);
  ASSERT_TRUE(quotient.ok) << messages(diags);
  EXPECT_EQ(quotient.outputs[0].at<std::uint64_t>({1}), ~std::uint64_t{0});
}

TEST(ReferenceDtypes, BoolOperandsAreZeroOrOne) {
  const HostTensor a = tensorOf(DataType::Bool, Shape{4}, {1, 1, 0, 0});
  const HostTensor b = tensorOf(DataType::Bool, Shape{4}, {1, 0, 1, 0});
  EXPECT_EQ(runOne(TensorOpKind::Add, {a, b}), (std::vector<double>{1, 1, 1, 0}));
  EXPECT_EQ(runOne(TensorOpKind::Mul, {a, b}), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(runOne(TensorOpKind::LogicalAnd, {a, b}), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(runOne(TensorOpKind::LogicalOr, {a, b}), (std::vector<double>{1, 1, 1, 0}));
  EXPECT_EQ(runOne(TensorOpKind::LogicalNot, {a}), (std::vector<double>{0, 0, 1, 1}));
}

TEST(ReferenceDtypes, RoundingOpsAndSpecialValues) {
  const HostTensor x = tensorOf(kF32, Shape{7}, {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, kNan});
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Round, {x}), {0, 2, 2, -0.0, -2, -2, kNan}));
  const HostTensor y = tensorOf(kF32, Shape{5}, {kNan, -0.0, 3, -kInf, 0.0});
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Sign, {y}), {kNan, -0.0, 1, -1, 0}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Relu, {y}), {kNan, 0, 3, 0, 0}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::IsFinite, {y}), {0, 1, 1, 0, 1}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::LogicalNot, {y}), {0, 1, 0, 0, 1}));
  const HostTensor a = tensorOf(kF32, Shape{3}, {1, kNan, 2});
  const HostTensor b = tensorOf(kF32, Shape{3}, {kNan, 5, 1});
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Maximum, {a, b}), {kNan, kNan, 2}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Eq, {a, a}), {1, 0, 1}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Ne, {a, a}), {0, 1, 0}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Clip, {b}, {{"min", 1.5}, {"max", 3.0}}), {kNan, 3, 1.5}));
  const HostTensor ints = tensorOf(DataType::Int32, Shape{5}, {0, 1, 2, 3, 4});
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Clip, {ints}, {{"min", 0.5}, {"max", 2.5}}), {1, 1, 2, 2, 2}));
}

TEST(ReferenceDtypes, CastModesFromFloatToInteger) {
  const HostTensor x = tensorOf(kF32, Shape{8}, {2.5, -2.5, 2.7, -2.7, kNan, 1e10, -1e10, kInf});
  const double hi = 2147483647, lo = -2147483648.0;
  auto cast = [&](const char* mode, DataType dtype = DataType::Int32) {
    return runOne(TensorOpKind::Cast, {x}, {{"dtype", dtype}, {"mode", std::string(mode)}});
  };
  EXPECT_EQ(cast("rint"), (std::vector<double>{2, -2, 3, -3, 0, hi, lo, hi}));
  EXPECT_EQ(cast("round"), (std::vector<double>{3, -3, 3, -3, 0, hi, lo, hi}));
  EXPECT_EQ(cast("floor"), (std::vector<double>{2, -3, 2, -3, 0, hi, lo, hi}));
  EXPECT_EQ(cast("ceil"), (std::vector<double>{3, -2, 3, -2, 0, hi, lo, hi}));
  EXPECT_EQ(cast("trunc"), (std::vector<double>{2, -2, 2, -2, 0, hi, lo, hi}));
  EXPECT_EQ(cast("rint", DataType::Int8), (std::vector<double>{2, -2, 3, -3, 0, 127, -128, 127}));
  EXPECT_EQ(cast("floor", DataType::UInt8), (std::vector<double>{2, 0, 2, 0, 0, 255, 0, 255}));
  DiagnosticEngine diags;
  EXPECT_FALSE(runSingleOp(TensorOpKind::Cast, {x}, {{"dtype", DataType::Int32}, {"mode", std::string("up")}}, diags).ok);
  EXPECT_EQ(messages(diags), "cast: unknown mode 'up' (expected rint, round, floor, ceil or trunc)\n");
}

TEST(ReferenceDtypes, CastModesFromFp32ToFp16AndBf16) {
  const double tie16 = 1.0 + std::ldexp(1.0, -11);      // halfway between 1 and the next fp16
  const double step16 = 1.0 + std::ldexp(1.0, -10);
  const double above16 = 1.0 + 3 * std::ldexp(1.0, -12);  // 3/4 of the way to the next fp16
  const HostTensor x = tensorOf(kF32, Shape{7}, {tie16, -tie16, above16, 70000, -70000, 65504, kNan});
  auto cast = [&](const char* mode, DataType dtype) {
    return runOne(TensorOpKind::Cast, {x}, {{"dtype", dtype}, {"mode", std::string(mode)}});
  };
  EXPECT_TRUE(sameValues(cast("rint", kF16), {1, -1, step16, kInf, -kInf, 65504, kNan}));
  EXPECT_TRUE(sameValues(cast("round", kF16), {step16, -step16, step16, kInf, -kInf, 65504, kNan}));
  EXPECT_TRUE(sameValues(cast("floor", kF16), {1, -step16, 1, 65504, -kInf, 65504, kNan}));
  EXPECT_TRUE(sameValues(cast("ceil", kF16), {step16, -1, step16, kInf, -65504, 65504, kNan}));
  EXPECT_TRUE(sameValues(cast("trunc", kF16), {1, -1, 1, 65504, -65504, 65504, kNan}));

  const double tieB = 1.0 + std::ldexp(1.0, -8);  // bf16 keeps 8 significant bits: spacing 2^-7 at 1
  const double stepB = 1.0 + std::ldexp(1.0, -7);
  const HostTensor b = tensorOf(kF32, Shape{2}, {tieB, -tieB});
  auto castB = [&](const char* mode) {
    return runOne(TensorOpKind::Cast, {b}, {{"dtype", DataType::Bf16}, {"mode", std::string(mode)}});
  };
  EXPECT_TRUE(sameValues(castB("rint"), {1, -1}));
  EXPECT_TRUE(sameValues(castB("round"), {stepB, -stepB}));
  EXPECT_TRUE(sameValues(castB("floor"), {1, -stepB}));
  EXPECT_TRUE(sameValues(castB("ceil"), {stepB, -1}));
  EXPECT_TRUE(sameValues(castB("trunc"), {1, -1}));
}

TEST(ReferenceDtypes, ArgReductionsTakeTheFirstExtremeOrTheFirstNan) {
  const Attributes dim0{{"dims", std::vector<std::int64_t>{0}}};
  EXPECT_EQ(runOne(TensorOpKind::Argmax, {tensorOf(kF32, Shape{4}, {1, 3, 3, 2})}, dim0), std::vector<double>{1});
  EXPECT_EQ(runOne(TensorOpKind::Argmin, {tensorOf(kF32, Shape{3}, {2, 1, 1})}, dim0), std::vector<double>{1});
  EXPECT_EQ(runOne(TensorOpKind::Argmax, {tensorOf(kF32, Shape{4}, {1, kNan, 3, kNan})}, dim0), std::vector<double>{1});
  EXPECT_EQ(runOne(TensorOpKind::Argmin, {tensorOf(kF32, Shape{3}, {1, 0, kNan})}, dim0), std::vector<double>{2});
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Amax, {tensorOf(kF32, Shape{3}, {1, kNan, 3})}, dim0), {kNan}));
  EXPECT_TRUE(sameValues(runOne(TensorOpKind::Amin, {tensorOf(kF32, Shape{3}, {1, -4, 3})}, dim0), {-4}));
}

TEST(ReferenceDtypes, SortsAreStableAndPutNanAboveNumbers) {
  const HostTensor x = tensorOf(kF32, Shape{5}, {1, 3, 3, 2, 3});
  const Attributes largest3{{"k", std::int64_t{3}}, {"dim", std::int64_t{0}}, {"largest", true}};
  EXPECT_EQ(runOne(TensorOpKind::TopK, {x}, largest3, 0), (std::vector<double>{3, 3, 3}));
  EXPECT_EQ(runOne(TensorOpKind::TopK, {x}, largest3, 1), (std::vector<double>{1, 2, 4}));
  const Attributes smallest2{{"k", std::int64_t{2}}, {"dim", std::int64_t{0}}, {"largest", false}};
  EXPECT_EQ(runOne(TensorOpKind::TopK, {x}, smallest2, 1), (std::vector<double>{0, 3}));
  const HostTensor withNan = tensorOf(kF32, Shape{3}, {1, kNan, 2});
  EXPECT_EQ(runOne(TensorOpKind::TopK, {withNan}, {{"k", std::int64_t{1}}, {"dim", std::int64_t{0}}}, 1), std::vector<double>{1});
  EXPECT_EQ(runOne(TensorOpKind::ArgSort, {withNan}, {{"dim", std::int64_t{0}}}), (std::vector<double>{0, 2, 1}));
  EXPECT_EQ(runOne(TensorOpKind::ArgSort, {tensorOf(kF32, Shape{4}, {2, 1, 2, 1})}, {{"dim", std::int64_t{0}}, {"descending", true}}),
            (std::vector<double>{0, 2, 1, 3}));
}

TEST(ReferenceDtypes, WhereQuantizeAndCreationConvertScalarsOnce) {
  const HostTensor cond = tensorOf(DataType::Bool, Shape{2}, {1, 0});
  EXPECT_EQ(runOne(TensorOpKind::Where, {cond}, {{"x", 1.5}, {"y", -2.0}, {"dtype", kF16}}), (std::vector<double>{1.5, -2}));
  // quantize = saturate(rint(x * scale)): 0.5 and 2.5 tie to even, -150 saturates, NaN -> 0.
  const HostTensor x = tensorOf(kF32, Shape{5}, {1.0, -300, 5.0, kNan, 0.75});
  const HostTensor scale = tensorOf(kF32, Shape{1}, {0.5});
  EXPECT_EQ(runOne(TensorOpKind::Quantize, {x, scale}), (std::vector<double>{0, -128, 2, 0, 0}));
  const HostTensor wide = tensorOf(kF32, Shape{4}, {3, -4, 600, 1.5});
  const HostTensor one = tensorOf(kF32, Shape{1}, {1.0});
  EXPECT_EQ(runOne(TensorOpKind::Quantize, {wide, one}, {{"otype", DataType::UInt8}}),
            (std::vector<double>{3, 0, 255, 2}));
  const HostTensor q = tensorOf(DataType::Int8, Shape{3}, {-128, 0, 127});
  EXPECT_EQ(runOne(TensorOpKind::Dequantize, {q, scale}), (std::vector<double>{-64, 0, 63.5}));
  DiagnosticEngine diags;
  SingleOpRun full = runSingleOp(TensorOpKind::Full, {}, {{"shape", dimsOf({2})}, {"value", 0.1}, {"dtype", kF16}}, diags);
  ASSERT_TRUE(full.ok) << messages(diags);
  EXPECT_EQ(full.outputs[0].at<Float16>({1}).bits, 0x2E66);  // fp16 nearest to 0.1
  EXPECT_EQ(runOne(TensorOpKind::Arange, {}, {{"start", 1.0}, {"step", -0.5}, {"size", std::int64_t{4}}, {"dtype", kF32}}),
            (std::vector<double>{1, 0.5, 0, -0.5}));
}

// view -> transpose -> reshape: the reshape sees the transposed elements in C order.
TEST(ReferenceDtypes, LayoutOpsOnViewsUseLogicalOrder) {
  TensorGraphBuilder builder("layout", kernelLine(1));
  const TensorId x = builder.addArgument("x", DataType::Int32, dimsOf({4, 6}), kernelLine(1));
  const TensorId y = builder.addArgument("y", DataType::Int32, dimsOf({1, 6}), kernelLine(1));
  builder.beginPath();
  const TensorId block = addOp(builder, TensorOpKind::View, {x}, {{"offsets", dimsOf({1, 2})}, {"shape", dimsOf({2, 3})}}, 2);
  const TensorId flipped = addOp(builder, TensorOpKind::Transpose, {block}, {{"dims", std::vector<std::int64_t>{0, 1}}}, 3);
  const TensorId flat = addOp(builder, TensorOpKind::Reshape, {flipped}, {{"shape", dimsOf({1, 6})}}, 4);
  addOp(builder, TensorOpKind::Copy, {flat}, {}, 5, {y});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<double> values;
  for (int k = 0; k < 24; ++k) values.push_back(k);
  std::vector<HostTensor> arguments{tensorOf(DataType::Int32, Shape{4, 6}, values), HostTensor(DataType::Int32, Shape{1, 6})};
  DiagnosticEngine diags;
  ASSERT_TRUE(runReference(graph, arguments, diags)) << messages(diags);
  // Block rows [8, 9, 10] and [14, 15, 16]; transposed: [8, 14], [9, 15], [10, 16].
  EXPECT_EQ(valuesOf(arguments[1]), (std::vector<double>{8, 14, 9, 15, 10, 16}));
}

} // namespace
} // namespace pto::testing
