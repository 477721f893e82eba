// HostTensor: storage, views, conversions and comparison.
#include "core/HostTensor.h"

#include "core/Float16.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

namespace pto {
namespace {

// 0, 1, 2, ... as float32 in C order.
HostTensor arangeFloat(Shape shape) {
  std::vector<float> values(static_cast<std::size_t>(shape.elementCount()));
  std::iota(values.begin(), values.end(), 0.0f);
  return HostTensor::fromValues(std::move(shape), values);
}

// The raw bits of element `linearIndex` of a contiguous fp16/bf16 tensor.
std::uint16_t bits16(const HostTensor& tensor, std::int64_t linearIndex) {
  std::uint16_t bits = 0;
  std::memcpy(&bits, tensor.data() + linearIndex * 2, 2);
  return bits;
}

TEST(HostTensor, FreshTensorIsZeroFilledAlignedAndContiguous) {
  HostTensor tensor(DataType::Int32, Shape{2, 3});
  EXPECT_EQ(tensor.strides(), (std::vector<std::int64_t>{3, 1}));
  EXPECT_EQ(tensor.offsetElements(), 0);
  EXPECT_TRUE(tensor.isContiguous());
  EXPECT_EQ(tensor.byteCount(), 24u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(tensor.data()) % HostTensor::kAlignmentBytes, 0u);
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(tensor.getAsDouble(i), 0.0);
}

TEST(HostTensor, BorrowingUsesTheCallersMemoryWithoutCopyingOrFreeingIt) {
  alignas(HostTensor::kAlignmentBytes) float memory[16] = {};
  for (int i = 0; i < 16; ++i) memory[i] = static_cast<float>(i);
  auto* bytes = reinterpret_cast<std::byte*>(memory);
  {
    std::optional<HostTensor> borrowed = HostTensor::borrowing(DataType::Fp32, Shape{4, 4}, bytes);
    ASSERT_TRUE(borrowed);
    EXPECT_EQ(borrowed->data(), bytes);
    EXPECT_TRUE(borrowed->isContiguous());
    EXPECT_EQ(borrowed->getAsDouble(5), 5.0);
    HostTensor handle = *borrowed;  // another handle: one storage, as with owned tensors
    EXPECT_TRUE(handle.sharesStorageWith(*borrowed));
    handle.view({1, 0}, {1, 4}).copyFrom(HostTensor::fromValues<float>(Shape{1, 4}, {-1, -2, -3, -4}));
    EXPECT_FALSE(borrowed->contiguous().sharesStorageWith(*borrowed));
  }
  // Written through the view, into the caller's array, which outlives every handle (nothing freed it).
  EXPECT_EQ(memory[4], -1.0f);
  EXPECT_EQ(memory[7], -4.0f);
  EXPECT_EQ(memory[8], 8.0f);
  // Storage must be aligned as allocated storage is, and the shape valid.
  EXPECT_FALSE(HostTensor::borrowing(DataType::Fp32, Shape{3}, bytes + 4));
  EXPECT_FALSE(HostTensor::borrowing(DataType::Fp32, Shape{-1}, bytes));
}

TEST(HostTensor, DefaultIsEmptyFloat32) {
  HostTensor tensor;
  EXPECT_EQ(tensor.dtype(), DataType::Fp32);
  EXPECT_EQ(tensor.shape(), Shape{0});
  EXPECT_EQ(tensor.elementCount(), 0);
  EXPECT_TRUE(tensor.isContiguous());
  EXPECT_EQ(tensor.data(), nullptr);
}

TEST(HostTensor, ScalarHasOneElement) {
  HostTensor tensor(DataType::Fp32, Shape{});
  EXPECT_EQ(tensor.elementCount(), 1);
  tensor.at<float>({}) = 2.5f;
  EXPECT_EQ(tensor.getAsDouble(0), 2.5);
}

TEST(HostTensor, FromValuesAndTypedAccess) {
  HostTensor tensor = HostTensor::fromValues<std::int16_t>(Shape{2, 2}, {1, -2, 3, -4});
  EXPECT_EQ(tensor.dtype(), DataType::Int16);
  EXPECT_EQ((tensor.at<std::int16_t>({1, 0})), 3);
  tensor.at<std::int16_t>({0, 1}) = 7;
  EXPECT_EQ(tensor.getAsDouble(1), 7.0);

  HostTensor flags = HostTensor::fromValues<bool>(Shape{3}, {true, false, true});
  EXPECT_EQ(flags.dtype(), DataType::Bool);
  EXPECT_TRUE(flags.at<bool>({2}));
  EXPECT_FALSE(flags.at<bool>({1}));
}

TEST(HostTensor, ViewSharesStorageWithStridesAndOffset) {
  HostTensor parent = arangeFloat(Shape{4, 5});
  HostTensor box = parent.view({1, 2}, {2, 3});
  EXPECT_TRUE(box.sharesStorageWith(parent));
  EXPECT_EQ(box.shape(), (Shape{2, 3}));
  EXPECT_EQ(box.strides(), (std::vector<std::int64_t>{5, 1}));
  EXPECT_EQ(box.offsetElements(), 7);
  EXPECT_FALSE(box.isContiguous());
  // Logical C order over the box: rows 1..2, columns 2..4 of the parent.
  const double expected[] = {7, 8, 9, 12, 13, 14};
  for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(box.getAsDouble(i), expected[i]) << i;
}

TEST(HostTensor, ViewWritesThroughToParent) {
  HostTensor parent = arangeFloat(Shape{4, 5});
  HostTensor box = parent.view({1, 2}, {2, 3});
  box.at<float>({0, 0}) = 100.0f;
  box.setFromDouble(5, -1.0);  // box[1, 2] == parent[2, 4]
  EXPECT_EQ(parent.at<float>({1, 2}), 100.0f);
  EXPECT_EQ(parent.at<float>({2, 4}), -1.0f);
  EXPECT_EQ(parent.getAsDouble(0), 0.0);
}

TEST(HostTensor, ViewOfAViewAccumulatesOffsets) {
  HostTensor parent = arangeFloat(Shape{3, 4, 5});
  HostTensor outer = parent.view({1, 1, 0}, {2, 3, 5});
  HostTensor inner = outer.view({1, 0, 2}, {1, 2, 2});
  EXPECT_EQ(inner.offsetElements(), (1 + 1) * 20 + 1 * 5 + 2);
  EXPECT_EQ(inner.strides(), (std::vector<std::int64_t>{20, 5, 1}));
  EXPECT_EQ(inner.getAsDouble(0), 47.0);
  EXPECT_EQ(inner.getAsDouble(3), 53.0);
}

TEST(HostTensor, FullRowViewIsContiguous) {
  HostTensor parent = arangeFloat(Shape{4, 5});
  HostTensor rows = parent.view({1, 0}, {2, 5});
  EXPECT_TRUE(rows.isContiguous());
  EXPECT_EQ(*reinterpret_cast<const float*>(rows.data()), 5.0f);
}

TEST(HostTensor, ContiguousOfAViewIsAPackedCopy) {
  HostTensor parent = arangeFloat(Shape{4, 5});
  HostTensor packed = parent.view({1, 2}, {2, 3}).contiguous();
  EXPECT_FALSE(packed.sharesStorageWith(parent));
  EXPECT_TRUE(packed.isContiguous());
  EXPECT_EQ(packed.strides(), (std::vector<std::int64_t>{3, 1}));
  EXPECT_EQ(packed.offsetElements(), 0);
  const float* values = reinterpret_cast<const float*>(packed.data());
  EXPECT_EQ((std::vector<float>(values, values + 6)), (std::vector<float>{7, 8, 9, 12, 13, 14}));
  packed.setFromDouble(0, 42.0);
  EXPECT_EQ(parent.at<float>({1, 2}), 7.0f);
}

TEST(HostTensor, CopyFromWritesIntoTheParentThroughAView) {
  HostTensor parent(DataType::Fp32, Shape{3, 4});
  HostTensor source = HostTensor::fromValues<float>(Shape{2, 2}, {1, 2, 3, 4});
  parent.view({1, 1}, {2, 2}).copyFrom(source);
  const double expected[] = {0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0};
  for (std::int64_t i = 0; i < 12; ++i) EXPECT_EQ(parent.getAsDouble(i), expected[i]) << i;
}

TEST(HostTensor, CopyFromConvertsDtype) {
  HostTensor target(DataType::Int8, Shape{3});
  target.copyFrom(HostTensor::fromValues<float>(Shape{3}, {1.9f, -1.9f, 1000.0f}));
  EXPECT_EQ(target.getAsDouble(0), 1.0);
  EXPECT_EQ(target.getAsDouble(1), -1.0);
  EXPECT_EQ(target.getAsDouble(2), 127.0);
}

TEST(HostTensor, CopyFromOverlappingViewsActsLikeACopyFirst) {
  // numpy: a[1:4] = a[0:3] gives [0, 0, 1, 2].
  HostTensor a = arangeFloat(Shape{4});
  a.view({1}, {3}).copyFrom(a.view({0}, {3}));
  const double expected[] = {0, 0, 1, 2};
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(a.getAsDouble(i), expected[i]) << i;
}

TEST(HostTensor, Fp32ToFp16AndBf16MatchFloat16Functions) {
  // Every 8191st float32 bit pattern plus edge values, compared with the
  // narrowing functions that define fp16/bf16 rounding.
  std::vector<float> values;
  for (std::uint64_t bits = 0; bits <= 0xffffffffu; bits += 8191)
    values.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  for (float edge : {0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 5.96e-8f, 2.98e-8f, 1e-45f, 3.4e38f})
    values.push_back(edge);
  const HostTensor source = HostTensor::fromValues(Shape{static_cast<std::int64_t>(values.size())}, values);
  const HostTensor half = source.astype(DataType::Fp16);
  const HostTensor brain = source.astype(DataType::Bf16);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    const std::uint16_t expectedHalf = floatToHalfBits(values[i]);
    const std::uint16_t expectedBrain = floatToBfloat16Bits(values[i]);
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(halfBitsToFloat(bits16(half, index))));
      EXPECT_TRUE(std::isnan(bfloat16BitsToFloat(bits16(brain, index))));
    } else {
      ASSERT_EQ(bits16(half, index), expectedHalf) << values[i];
      ASSERT_EQ(bits16(brain, index), expectedBrain) << values[i];
    }
  }
}

TEST(HostTensor, HandComputedHalfAndBfloat16Values) {
  // 1/3 = 0x3EAAAAAB in float32; fp16 keeps 10 mantissa bits (0x155, round
  // down) and bf16 keeps 7 (0x2A, the rest 0xAAAB > half, round up).
  HostTensor third = HostTensor::fromValues<float>(Shape{1}, {1.0f / 3.0f});
  EXPECT_EQ(bits16(third.astype(DataType::Fp16), 0), 0x3555);
  EXPECT_EQ(bits16(third.astype(DataType::Bf16), 0), 0x3EAB);

  HostTensor half = HostTensor::fromDoubles(DataType::Fp16, Shape{6}, {1.0, -2.0, 65504.0, 65520.0, 2049.0, 2051.0});
  EXPECT_EQ(bits16(half, 0), 0x3C00);
  EXPECT_EQ(bits16(half, 1), 0xC000);
  EXPECT_EQ(bits16(half, 2), 0x7BFF);  // largest finite
  EXPECT_EQ(bits16(half, 3), 0x7C00);  // halfway to the next power: ties to even = Inf
  EXPECT_EQ(bits16(half, 4), 0x6800);  // 2049 ties to 2048 (even)
  EXPECT_EQ(bits16(half, 5), 0x6802);  // 2051 ties to 2052 (even)
}

TEST(HostTensor, DoubleToHalfRoundsOnceNotTwice) {
  // 1 + 2^-11 + 2^-40 is just above the fp16 midpoint between 1 and
  // 1 + 2^-10, so it rounds up to 0x3C01. Through float it would first
  // become the midpoint exactly and then tie to even, 0x3C00.
  HostTensor half(DataType::Fp16, Shape{1});
  half.setFromDouble(0, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  EXPECT_EQ(bits16(half, 0), 0x3C01);
  half.setFromDouble(0, 1.0 + std::ldexp(1.0, -11));
  EXPECT_EQ(bits16(half, 0), 0x3C00);
}

TEST(HostTensor, Int64ToBfloat16RoundsOnceNotTwice) {
  // 2^32 + 2^24 + 1 is just above the bf16 midpoint between 2^32 (0x4F80)
  // and 2^32 + 2^25 (0x4F81); float32 would drop the +1 and tie to even.
  HostTensor wide = HostTensor::fromValues<std::int64_t>(
      Shape{2}, {(std::int64_t{1} << 32) + (1 << 24) + 1, (std::int64_t{1} << 32) + (1 << 24)});
  HostTensor brain = wide.astype(DataType::Bf16);
  EXPECT_EQ(bits16(brain, 0), 0x4F81);
  EXPECT_EQ(bits16(brain, 1), 0x4F80);
  HostTensor negative = HostTensor::fromValues<std::int64_t>(Shape{1}, {-((std::int64_t{1} << 32) + (1 << 24) + 1)});
  EXPECT_EQ(bits16(negative.astype(DataType::Bf16), 0), 0xCF81);
}

TEST(HostTensor, FloatToIntegerTruncatesAndSaturates) {
  HostTensor source =
      HostTensor::fromValues<float>(Shape{7}, {2.7f, -2.7f, 300.5f, -300.5f, std::numeric_limits<float>::quiet_NaN(),
                                               std::numeric_limits<float>::infinity(), -0.5f});
  const HostTensor asInt8 = source.astype(DataType::Int8);
  const double expectedInt8[] = {2, -2, 127, -128, 0, 127, 0};
  for (std::int64_t i = 0; i < 7; ++i) EXPECT_EQ(asInt8.getAsDouble(i), expectedInt8[i]) << i;
  const HostTensor asUInt8 = source.astype(DataType::UInt8);
  const double expectedUInt8[] = {2, 0, 255, 0, 0, 255, 0};
  for (std::int64_t i = 0; i < 7; ++i) EXPECT_EQ(asUInt8.getAsDouble(i), expectedUInt8[i]) << i;

  HostTensor wide(DataType::Int64, Shape{2});
  wide.setFromDouble(0, 1e30);
  wide.setFromDouble(1, -1e30);
  EXPECT_EQ(wide.at<std::int64_t>({0}), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(wide.at<std::int64_t>({1}), std::numeric_limits<std::int64_t>::min());
  HostTensor unsignedWide(DataType::UInt64, Shape{1});
  unsignedWide.setFromDouble(0, 18446744073709549568.0);  // largest double below 2^64
  EXPECT_EQ(unsignedWide.at<std::uint64_t>({0}), 18446744073709549568ull);
}

TEST(HostTensor, IntegerToIntegerWrapsLikeNumpy) {
  HostTensor source = HostTensor::fromValues<std::int32_t>(Shape{3}, {300, -1, 65537});
  const HostTensor asInt8 = source.astype(DataType::Int8);
  EXPECT_EQ(asInt8.getAsDouble(0), 44.0);
  EXPECT_EQ(asInt8.getAsDouble(1), -1.0);
  const HostTensor asUInt16 = source.astype(DataType::UInt16);
  EXPECT_EQ(asUInt16.getAsDouble(1), 65535.0);
  EXPECT_EQ(asUInt16.getAsDouble(2), 1.0);
  HostTensor top = HostTensor::fromValues<std::uint64_t>(Shape{1}, {std::numeric_limits<std::uint64_t>::max()});
  EXPECT_EQ(top.astype(DataType::Int64).at<std::int64_t>({0}), -1);
  HostTensor arange(DataType::Int8, Shape{1});
  arange.setFromInt64(0, 128);
  EXPECT_EQ(arange.at<std::int8_t>({0}), -128);
}

TEST(HostTensor, BoolConversions) {
  HostTensor source =
      HostTensor::fromValues<float>(Shape{4}, {0.0f, -0.0f, 0.5f, std::numeric_limits<float>::quiet_NaN()});
  const HostTensor flags = source.astype(DataType::Bool);
  EXPECT_FALSE(flags.at<bool>({0}));
  EXPECT_FALSE(flags.at<bool>({1}));
  EXPECT_TRUE(flags.at<bool>({2}));
  EXPECT_TRUE(flags.at<bool>({3}));
  EXPECT_EQ(flags.astype(DataType::Fp32).getAsDouble(2), 1.0);
}

TEST(HostTensor, AstypeRoundTripsAreExact) {
  // Every fp16 and bf16 bit pattern survives fp16/bf16 -> fp32 -> back.
  for (DataType narrow : {DataType::Fp16, DataType::Bf16}) {
    std::vector<std::uint16_t> patterns(65536);
    std::iota(patterns.begin(), patterns.end(), std::uint16_t{0});
    HostTensor bitsTensor = HostTensor::fromValues(Shape{65536}, patterns);
    HostTensor original(narrow, Shape{65536});
    std::memcpy(original.data(), bitsTensor.data(), original.byteCount());
    const HostTensor back = original.astype(DataType::Fp32).astype(narrow);
    for (std::int64_t i = 0; i < 65536; ++i) {
      const double value = original.getAsDouble(i);
      if (std::isnan(value)) {
        EXPECT_TRUE(std::isnan(back.getAsDouble(i)));
      } else {
        ASSERT_EQ(bits16(back, i), bits16(original, i)) << name(narrow) << " pattern " << i;
      }
    }
  }
  // Integers through float32 where float32 holds them exactly.
  HostTensor ints = HostTensor::fromValues<std::int32_t>(Shape{4}, {-16777216, -1, 0, 16777216});
  EXPECT_TRUE(ints.astype(DataType::Fp32).astype(DataType::Int32).equals(ints));
  HostTensor bytes = HostTensor::fromValues<std::int8_t>(Shape{3}, {-128, 0, 127});
  EXPECT_TRUE(bytes.astype(DataType::Fp16).astype(DataType::Int8).equals(bytes));
}

TEST(HostTensor, AstypeOfAViewConvertsOnlyTheView) {
  HostTensor parent = arangeFloat(Shape{3, 3});
  const HostTensor converted = parent.view({1, 1}, {2, 2}).astype(DataType::Int32);
  EXPECT_TRUE(converted.isContiguous());
  EXPECT_TRUE(converted.equals(HostTensor::fromValues<std::int32_t>(Shape{2, 2}, {4, 5, 7, 8})));
}

TEST(HostTensor, EqualsIsBitwiseOnLogicalElements) {
  HostTensor a = HostTensor::fromValues<float>(Shape{2}, {0.0f, std::numeric_limits<float>::quiet_NaN()});
  HostTensor b = a.contiguous();
  EXPECT_TRUE(a.equals(b));  // same NaN bits are equal
  b.setFromDouble(0, -0.0);
  EXPECT_FALSE(a.equals(b));  // +0 and -0 differ in bits
  EXPECT_FALSE(a.equals(a.astype(DataType::Fp16)));
  EXPECT_FALSE(a.equals(HostTensor::fromValues<float>(Shape{1, 2}, {0.0f, 0.0f})));
  // A view equals a packed tensor with the same elements.
  HostTensor parent = arangeFloat(Shape{3, 3});
  EXPECT_TRUE(parent.view({0, 1}, {3, 1}).equals(HostTensor::fromValues<float>(Shape{3, 1}, {1, 4, 7})));
}

TEST(HostTensor, AllCloseFollowsNumpy) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  HostTensor a = HostTensor::fromValues<float>(Shape{4}, {0.0f, 1.0f, inf, nan});
  HostTensor b = HostTensor::fromValues<float>(Shape{4}, {-0.0f, 1.0f, inf, nan});
  EXPECT_FALSE(a.allClose(b, 0.0, 0.0));
  EXPECT_TRUE(a.allClose(b, 0.0, 0.0, /*equalNan=*/true));
  HostTensor minusInf = HostTensor::fromValues<float>(Shape{1}, {-inf});
  EXPECT_FALSE(HostTensor::fromValues<float>(Shape{1}, {inf}).allClose(minusInf, 1.0, 1.0));
  // The tolerance scales with |b| only, so allclose is not symmetric.
  HostTensor two = HostTensor::fromValues<float>(Shape{1}, {2.0f});
  HostTensor one = HostTensor::fromValues<float>(Shape{1}, {1.0f});
  EXPECT_FALSE(two.allClose(one, 0.5, 0.0));
  EXPECT_TRUE(one.allClose(two, 0.5, 0.0));
  EXPECT_TRUE(two.allClose(one, 0.0, 1.0));
  // Across dtypes, and never across shapes.
  EXPECT_TRUE(one.allClose(HostTensor::fromValues<std::int32_t>(Shape{1}, {1}), 0.0, 0.0));
  EXPECT_FALSE(one.allClose(HostTensor::fromValues<float>(Shape{1, 1}, {1.0f}), 0.0, 0.0));
}

TEST(HostTensor, AbsurdShapeIsAnErrorNotACrash) {
  DiagnosticEngine diags;
  const SourceLocation where{"project.json", 3, 5};
  EXPECT_FALSE(
      HostTensor::tryCreate(DataType::Fp32, Shape{std::int64_t{1} << 40, std::int64_t{1} << 40}, diags, where));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location, where);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "shape [1099511627776, 1099511627776] has more elements than a 64-bit count can hold");

  diags.clear();
  EXPECT_FALSE(
      HostTensor::tryCreate(DataType::Fp32, Shape{std::int64_t{1} << 20, std::int64_t{1} << 20}, diags, where));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "a float32 tensor of shape [1048576, 1048576] needs 4398046511104 bytes, more than host tensors allow "
            "(4294967296 bytes, 4 GiB)");

  diags.clear();
  EXPECT_FALSE(HostTensor::tryCreate(DataType::Int8, Shape{4, -1}, diags, where));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "shape [4, -1] has a negative dimension");

  diags.clear();
  std::optional<HostTensor> fine = HostTensor::tryCreate(DataType::Bf16, Shape{0, 7}, diags, where);
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->elementCount(), 0);
  EXPECT_FALSE(diags.hasErrors());
}

} // namespace
} // namespace pto

namespace pto {
namespace {

// A folded reshape's storage (RemoveRedundantOp): the same bytes in another
// shape when contiguous, so writes through either show in both; a strided
// view is copied first; a different element count is a programming error.
TEST(HostTensorReshapedView, SharesContiguousStorageInCOrder) {
  HostTensor cache(DataType::Int32, Shape{2, 3, 1, 4});
  for (std::int64_t i = 0; i < cache.elementCount(); ++i) cache.setFromInt64(i, i);
  HostTensor rows = cache.reshapedView(Shape{6, 4});
  EXPECT_TRUE(rows.sharesStorageWith(cache));
  EXPECT_EQ(rows.at<std::int32_t>({4, 1}), 17);  // row 4 = block 1, slot 1
  rows.at<std::int32_t>({5, 3}) = -1;
  EXPECT_EQ(cache.at<std::int32_t>({1, 2, 0, 3}), -1);

  HostTensor strided = cache.view({0, 0, 0, 1}, {2, 3, 1, 2});
  HostTensor copied = strided.reshapedView(Shape{12});
  EXPECT_FALSE(copied.sharesStorageWith(cache));
  EXPECT_EQ(copied.getAsInt64(2), 5);  // (0, 1, 0, 1)
  EXPECT_THROW(cache.reshapedView(Shape{5, 5}), std::logic_error);
}

} // namespace
} // namespace pto
