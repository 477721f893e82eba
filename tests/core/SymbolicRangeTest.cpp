#include "core/SymbolicRange.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

namespace pto {
namespace {

TEST(SymbolicRange, ALoopsLastBlockSizeIsKnownWhenEveryBlockIsWhole) {
  const SymbolicScalar i = SymbolicScalar::symbol("i");
  // min(max(min(64 - i*16, 16), 0), 16): the valid rows of a block of 16 over 64 rows, i in [0, 3].
  const SymbolicScalar valid = min(max(min(SymbolicScalar(64) - i * 16, SymbolicScalar(16)), SymbolicScalar(0)), SymbolicScalar(16));
  std::optional<IntRange> range = rangeOf(valid, {{"i", {0, 3}}});
  ASSERT_TRUE(range);
  EXPECT_EQ(range->lo, 16);
  EXPECT_EQ(range->hi, 16);
  // Over 76 rows the last block holds 12: not one value.
  range = rangeOf(min(SymbolicScalar(76) - i * 16, SymbolicScalar(16)), {{"i", {0, 4}}});
  ASSERT_TRUE(range);
  EXPECT_EQ(range->lo, 12);
  EXPECT_EQ(range->hi, 16);
}

TEST(SymbolicRange, UnknownSymbolsElementsAndComparisonsHaveNoRange) {
  const SymbolicScalar i = SymbolicScalar::symbol("i");
  EXPECT_FALSE(rangeOf(i + SymbolicScalar::symbol("n"), {{"i", {0, 3}}}));
  EXPECT_FALSE(rangeOf(SymbolicScalar::element("t", i), {{"i", {0, 3}}}));
  EXPECT_FALSE(rangeOf(floorDiv(SymbolicScalar(8), i), {{"i", {0, 3}}}));  // a divisor that may be 0
}

// Brute force: random expressions over two symbols with small ranges; every value each takes over all
// assignments lies within the range computed for it.
TEST(SymbolicRange, ContainsEveryValueOfRandomExpressions) {
  std::mt19937 random(7);
  const SymbolicScalar x = SymbolicScalar::symbol("x");
  const SymbolicScalar y = SymbolicScalar::symbol("y");
  const SymbolRanges ranges{{"x", {-3, 5}}, {"y", {2, 9}}};
  std::function<SymbolicScalar(int)> build = [&](int depth) -> SymbolicScalar {
    const int leaf = std::uniform_int_distribution<int>(0, 2)(random);
    if (depth == 0 || leaf == 0) {
      switch (std::uniform_int_distribution<int>(0, 2)(random)) {
      case 0: return x;
      case 1: return y;
      default: return SymbolicScalar(std::uniform_int_distribution<int>(-20, 20)(random));
      }
    }
    const SymbolicScalar a = build(depth - 1);
    const SymbolicScalar b = build(depth - 1);
    const std::int64_t divisor = std::uniform_int_distribution<int>(1, 7)(random);
    switch (std::uniform_int_distribution<int>(0, 6)(random)) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 3: return min(a, b);
    case 4: return max(a, b);
    case 5: return floorDiv(a, SymbolicScalar(divisor));
    default: return mod(a, SymbolicScalar(divisor));
    }
  };
  int bounded = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const SymbolicScalar expression = build(4);
    const std::optional<IntRange> range = rangeOf(expression, ranges);
    if (!range) continue;
    ++bounded;
    for (std::int64_t xv = -3; xv <= 5; ++xv)
      for (std::int64_t yv = 2; yv <= 9; ++yv) {
        SymbolicEvaluation value = expression.evaluate({{"x", xv}, {"y", yv}});
        ASSERT_TRUE(value.ok()) << expression.str();
        EXPECT_GE(*value.value, range->lo) << expression.str() << " at x=" << xv << ", y=" << yv;
        EXPECT_LE(*value.value, range->hi) << expression.str() << " at x=" << xv << ", y=" << yv;
      }
  }
  EXPECT_GT(bounded, 1500);
}

} // namespace
} // namespace pto
