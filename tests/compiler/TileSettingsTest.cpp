// The tile settings module: a shape read from the project's JSON or the
// panel's text is the same typed value, writes back to the same forms, and
// a malformed one is refused with the form it should have.
#include "compiler/settings/TileSettings.h"

#include <gtest/gtest.h>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

TileShape parsed(TileSection section, std::string_view text) {
  std::string error;
  auto shape = TileShape::parse(section, text, error);
  EXPECT_TRUE(shape) << text << ": " << error;
  return shape.value_or(TileShape{});
}

TEST(TileSettings, VecShapesReadTheSameFromTextAndJson) {
  const TileShape fromText = parsed(TileSection::Vec, "[64, 128]");
  std::string error;
  const auto fromJson = TileShape::fromJson(TileSection::Vec, Json{64, 128}, error);
  ASSERT_TRUE(fromJson) << error;
  EXPECT_EQ(fromText, *fromJson);
  EXPECT_EQ(fromText.vec, (std::vector<std::int64_t>{64, 128}));
  EXPECT_EQ(fromText.text(), "64, 128");
  EXPECT_EQ(fromText.json(), (Json{64, 128}));
  EXPECT_EQ(fromText.problem(), "");
  EXPECT_EQ(parsed(TileSection::Vec, "8, 0").problem(), "[8, 0] has a non-positive dim");
}

TEST(TileSettings, CubeShapesRoundTripWithThreeKValuesAndSplitK) {
  const TileShape shape = parsed(TileSection::Cube, "m 16,16 k 512,512,1024 n 128,128 split_k");
  EXPECT_EQ(shape.cube.mL0, 16);
  EXPECT_EQ(shape.cube.kAL1, 512);
  EXPECT_EQ(shape.cube.kBL1, 1024);
  EXPECT_TRUE(shape.cube.enableSplitK);
  const Json json = shape.json();
  EXPECT_EQ(json, Json::parse(R"({"m": [16, 16], "k": [512, 512, 1024], "n": [128, 128], "enable_split_k": true})"));
  std::string error;
  const auto again = TileShape::fromJson(TileSection::Cube, json, error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(*again, shape);
  EXPECT_EQ(again->text(), "m 16,16 k 512,512,1024 n 128,128 split_k");
  // Two k values mean kAL1 == kBL1, and the text says it once.
  EXPECT_EQ(parsed(TileSection::Cube, "m 64,64 k 64,128 n 64,64").text(), "m 64,64 k 64,128 n 64,64");
}

TEST(TileSettings, MalformedShapesNameTheForm) {
  std::string error;
  EXPECT_FALSE(TileShape::parse(TileSection::Vec, "1, four", error));
  EXPECT_EQ(error, "expected tile dims such as \"64, 128\"");
  EXPECT_FALSE(TileShape::parse(TileSection::Vec, "", error));
  EXPECT_EQ(error, "no tile dims given");
  EXPECT_FALSE(TileShape::fromJson(TileSection::Vec, Json("64"), error));
  EXPECT_NE(error.find("a list of integers such as [64, 128]"), std::string::npos);
  EXPECT_FALSE(TileShape::parse(TileSection::Cube, "m 64 k 64,64 n 64,64", error));
  EXPECT_NE(error.find("expected \"m mL0,mL1 k kL0,kL1 n nL0,nL1\""), std::string::npos);
  EXPECT_FALSE(TileShape::fromJson(TileSection::Cube, Json{64, 64}, error));
  EXPECT_NE(error.find("a cube tile shape is {\"m\": [mL0, mL1]"), std::string::npos);
  EXPECT_EQ(shapeText(TileSection::Vec, Json("x")), "\"x\"");  // shown as given
  EXPECT_EQ(shapeText(TileSection::Vec, Json()), "");
}

TEST(TileSettings, SectionsByName) {
  EXPECT_EQ(tileSectionNamed("vec"), TileSection::Vec);
  EXPECT_EQ(tileSectionNamed("cube"), TileSection::Cube);
  EXPECT_FALSE(tileSectionNamed("VEC"));
  EXPECT_EQ(name(TileSection::Cube), "cube");
}

} // namespace
} // namespace pto
