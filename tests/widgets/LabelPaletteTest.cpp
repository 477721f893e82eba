// Label colours are stable (fixed FNV-1a hash) and times format readably.
#include "widgets/models/LabelPalette.h"
#include "widgets/models/TimeFormat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>

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

// Two labels whose hashes collide get different colours in a LabelColors set:
// the alphabetically first keeps its own, the other takes the next free one.
TEST(LabelColors, CollidingLabelsGetDifferentColours) {
  std::string first, second;
  for (int a = 0; a < 200 && second.empty(); ++a)
    for (int b = a + 1; b < 200 && second.empty(); ++b)
      if (labelColorIndex("l" + std::to_string(a)) == labelColorIndex("l" + std::to_string(b))) {
        first = "l" + std::to_string(a);
        second = "l" + std::to_string(b);
      }
  ASSERT_FALSE(second.empty());
  if (second < first) std::swap(first, second);
  LabelColors colors({second, first, "", first});
  EXPECT_EQ(colors.color(first), labelColor(first));
  EXPECT_EQ(colors.colorIndex(second), (labelColorIndex(second) + 1) % kPaletteSize);
  EXPECT_NE(colors.color(first), colors.color(second));
  EXPECT_EQ(colors.color(""), kUnknownColor);
  EXPECT_EQ(colors.color("not-in-the-set"), labelColor("not-in-the-set"));
  // Up to kPaletteSize labels are all distinct.
  std::vector<std::string> many;
  for (int i = 0; i < kPaletteSize; ++i) many.push_back("label" + std::to_string(i));
  LabelColors all(many);
  std::set<int> indices;
  for (const auto& label : many) indices.insert(all.colorIndex(label));
  EXPECT_EQ(indices.size(), static_cast<std::size_t>(kPaletteSize));
}

// CIELAB (D65) from sRGB, and the WCAG relative luminance, written out here
// from their definitions.
double linear(std::uint8_t c) {
  double v = c / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}
double luminance(Rgb c) { return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b); }
double contrast(Rgb a, Rgb b) {
  double la = luminance(a), lb = luminance(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}
std::array<double, 3> lab(Rgb c) {
  double r = linear(c.r), g = linear(c.g), b = linear(c.b);
  double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}
double deltaE(Rgb a, Rgb b) {
  auto p = lab(a), q = lab(b);
  return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

// Distinct: every two palette colours at least 25 apart in CIELAB (ΔE76;
// about 2.3 is a just-noticeable difference) and 20 from the "unknown" grey.
// Readable: contrast against a light (#fafafa) and a dark (#2a2a2a) lane
// background of at least 1.5 and 2.5.
TEST(LabelPalette, ColoursAreDistinctAndVisibleOnLightAndDarkLanes) {
  Rgb light{250, 250, 250}, dark{42, 42, 42};
  for (int i = 0; i < kPaletteSize; ++i) {
    Rgb c = paletteColor(i);
    EXPECT_GE(deltaE(c, kUnknownColor), 20) << i;
    EXPECT_GE(contrast(c, light), 1.5) << i;
    EXPECT_GE(contrast(c, dark), 2.5) << i;
    for (int j = i + 1; j < kPaletteSize; ++j) EXPECT_GE(deltaE(c, paletteColor(j)), 25) << i << " " << j;
  }
  for (int a = 0; a < kBoundClassCount; ++a)
    for (int b = a + 1; b < kBoundClassCount; ++b)
      EXPECT_GE(deltaE(boundColor(static_cast<BoundClass>(a)), boundColor(static_cast<BoundClass>(b))), 25) << a << " " << b;
}

TEST(TimeFormat, PicksAUnitForTheSize) {
  EXPECT_EQ(formatDurationNs(850), "850 ns");
  EXPECT_EQ(formatDurationNs(1234), "1.234 µs");
  EXPECT_EQ(formatDurationNs(12500000), "12.500 ms");
  EXPECT_EQ(formatDurationNs(250000), "250.0 µs");
  EXPECT_EQ(formatTickNs(12000, 2000), "12 µs");
  EXPECT_EQ(formatTickNs(12500, 500), "12.5 µs");
  // A 170 µs run's axis: 50 µs steps read in µs, not as 0.05 ms.
  EXPECT_EQ(formatTickNs(50000, 50000), "50 µs");
  EXPECT_EQ(formatTickNs(150000, 50000), "150 µs");
  EXPECT_EQ(formatTickNs(1250000, 50000), "1250 µs");
  EXPECT_EQ(formatTickNs(1500000, 500000), "1.5 ms");
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
