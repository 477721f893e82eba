// Label colours are stable (fixed FNV-1a hash) and times format readably.
#include "widgets/models/LabelPalette.h"
#include "widgets/models/TimeFormat.h"

#include <gtest/gtest.h>

namespace pto::widgets {
namespace {

TEST(LabelPalette, ALabelAlwaysGetsTheSameColour) {
  // The documented rule, recomputed here: 32-bit FNV-1a of the label, modulo the palette size.
  std::uint32_t hash = 2166136261u;
  for (char c : std::string("softmax")) hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  EXPECT_EQ(labelColorIndex("softmax"), static_cast<int>(hash % kPaletteSize));
  EXPECT_EQ(labelColor("softmax"), paletteColor(labelColorIndex("softmax")));
  EXPECT_EQ(labelColor(""), kUnknownColor);
  EXPECT_EQ(labelColorIndex(""), -1);
  EXPECT_EQ(subgraphColor(-1), kUnknownColor);
  EXPECT_EQ(subgraphColor(3), paletteColor(3));
  EXPECT_EQ(paletteColor(-1), paletteColor(kPaletteSize - 1));
}

TEST(TimeFormat, PicksAUnitForTheSize) {
  EXPECT_EQ(formatDurationNs(850), "850 ns");
  EXPECT_EQ(formatDurationNs(1234), "1.234 µs");
  EXPECT_EQ(formatDurationNs(12500000), "12.500 ms");
  EXPECT_EQ(formatDurationNs(250000), "250.0 µs");
  EXPECT_EQ(formatTickNs(12000, 2000), "12 µs");
  EXPECT_EQ(formatTickNs(12500, 500), "12.5 µs");
  EXPECT_EQ(formatTickNs(1250000, 50000), "1.25 ms");
}

TEST(TimeFormat, NiceStepsAreOneTwoFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(niceStepNs(1), 1);
  EXPECT_DOUBLE_EQ(niceStepNs(1.1), 2);
  EXPECT_DOUBLE_EQ(niceStepNs(3), 5);
  EXPECT_DOUBLE_EQ(niceStepNs(7), 10);
  EXPECT_DOUBLE_EQ(niceStepNs(110), 200);
  EXPECT_DOUBLE_EQ(niceStepNs(4000), 5000);
}

} // namespace
} // namespace pto::widgets
