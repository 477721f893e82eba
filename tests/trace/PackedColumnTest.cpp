// PackedColumn against a plain std::vector of the same values: every value
// reads back exactly (blocks of equal values, small and full 64-bit ranges,
// negative values, the int64 extremes, a partial last block), and values in
// a small range cost about their byte width.
#include "runtime/trace/PackedColumn.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

namespace pto::trace {
namespace {

TEST(PackedColumn, EveryValueReadsBackExactly) {
  std::mt19937_64 rng(5);
  std::vector<std::int64_t> expected;
  PackedColumn column;
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  // Block by block a different kind of values (blocks are 128 values; 1 000
  // values per kind straddle block edges).
  for (int kind = 0; kind < 9; ++kind) {
    for (int i = 0; i < 1000; ++i) {
      std::int64_t value = 0;
      switch (kind) {
      case 0: value = 42; break;                                                              // constant
      case 1: value = 1000 + static_cast<std::int64_t>(rng() % 200); break;                    // one byte
      case 2: value = -5000 + static_cast<std::int64_t>(rng() % 60000); break;                 // two bytes, negative
      case 3: value = static_cast<std::int64_t>(i) * 1'000'000'007LL; break;                  // growing times
      case 4: value = static_cast<std::int64_t>(rng()); break;                                 // full range
      case 5: value = i % 2 ? kMin : kMax; break;                                              // the extremes
      case 6: value = kMin + static_cast<std::int64_t>(rng() % 3); break;
      case 7: value = kMax - static_cast<std::int64_t>(rng() % 3); break;
      case 8: value = static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 40)) - (std::int64_t{1} << 39); break;
      }
      expected.push_back(value);
      column.push_back(value);
      // Reads while growing: the open block and packed blocks alike.
      if (i % 97 == 0) {
        ASSERT_EQ(column[expected.size() - 1], value);
      }
    }
  }
  expected.push_back(7);  // a partial last block
  column.push_back(7);
  ASSERT_EQ(column.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(column[i], expected[i]) << "value " << i;
  column.shrink_to_fit();
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(column[i], expected[i]) << "value " << i << " after shrink";
}

TEST(PackedColumn, SmallRangesCostTheirByteWidth) {
  constexpr std::size_t kValues = 128 * 1000;
  PackedColumn constant, oneByte, twoBytes;
  for (std::size_t i = 0; i < kValues; ++i) {
    constant.push_back(-3);
    oneByte.push_back(static_cast<std::int64_t>(1'000'000 + i % 256));
    twoBytes.push_back(static_cast<std::int64_t>(i * 300));  // a block spans 127 * 300 < 65 536
  }
  for (PackedColumn* column : {&constant, &oneByte, &twoBytes}) column->shrink_to_fit();  // as Trace::finalize() does
  // Per value: the width, plus a 16-byte block header per 128 values and the fixed parts.
  auto perValue = [&](const PackedColumn& c) { return static_cast<double>(c.memoryBytes()) / kValues; };
  EXPECT_LT(perValue(constant), 0.0 + 16.0 / 128 + 0.05);
  EXPECT_LT(perValue(oneByte), 1.0 + 16.0 / 128 + 0.05);
  EXPECT_LT(perValue(twoBytes), 2.0 + 16.0 / 128 + 0.05);
  EXPECT_EQ(twoBytes[kValues - 1], static_cast<std::int64_t>((kValues - 1) * 300));
}

} // namespace
} // namespace pto::trace
