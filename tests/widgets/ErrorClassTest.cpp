// The error bands of the swimlane's "error vs measured" colours: their edges,
// their symmetry, and a colour per band that no other band shares.
#include "widgets/models/ErrorClass.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

namespace pto::widgets {
namespace {

TEST(ErrorClass, BandsHaveTheirStatedEdgesOnBothSides) {
  EXPECT_EQ(errorClassOf(std::nan("")), ErrorClass::Unpaired);
  EXPECT_EQ(errorClassOf(0.0), ErrorClass::Close);
  EXPECT_EQ(errorClassOf(0.03), ErrorClass::Close);
  EXPECT_EQ(errorClassOf(-0.03), ErrorClass::Close);
  EXPECT_EQ(errorClassOf(0.031), ErrorClass::SlightlyLonger);
  EXPECT_EQ(errorClassOf(-0.031), ErrorClass::SlightlyShorter);
  EXPECT_EQ(errorClassOf(0.10), ErrorClass::SlightlyLonger);
  EXPECT_EQ(errorClassOf(0.11), ErrorClass::Longer);
  EXPECT_EQ(errorClassOf(-0.25), ErrorClass::Shorter);
  EXPECT_EQ(errorClassOf(0.5), ErrorClass::MuchLonger);
  EXPECT_EQ(errorClassOf(-0.5), ErrorClass::MuchShorter);
}

TEST(ErrorClass, EveryBandHasItsOwnColourAndName) {
  std::set<std::tuple<int, int, int>> colours;
  std::set<std::string_view> names;
  for (int band = 0; band < kErrorClassCount; ++band) {
    const Rgb colour = errorColor(static_cast<ErrorClass>(band));
    colours.insert({colour.r, colour.g, colour.b});
    names.insert(name(static_cast<ErrorClass>(band)));
  }
  EXPECT_EQ(colours.size(), static_cast<std::size_t>(kErrorClassCount));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kErrorClassCount));
  EXPECT_EQ(errorColor(ErrorClass::Unpaired), kUnknownColor);
}

} // namespace
} // namespace pto::widgets
