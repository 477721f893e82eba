// Writing a tile shape back into the kernel's set_*_tile_shapes call.
#include "TuningTestSupport.h"

#include "analysis/tuning/TileShapeWriteBack.h"

#include <gtest/gtest.h>

#include <fstream>

namespace pto::testing {
namespace {

std::string kernelOf(const std::string& example) {
  std::ifstream in(std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "examples" / example / "kernel.py");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string lineOf(const std::string& text, int line) {
  std::size_t begin = 0;
  for (int i = 1; i < line; ++i) begin = text.find('\n', begin) + 1;
  return text.substr(begin, text.find('\n', begin) - begin);
}

TEST(TileShapeWriteBack, RewritesTheExampleCalls) {
  std::string softmax = kernelOf("softmax");
  TileWriteBack vec = writeTileShapeBack(softmax, 22, TileSection::Vec, {1, 8, 1, 32});
  ASSERT_TRUE(vec.ok) << vec.error;
  EXPECT_EQ(vec.oldLine, "    pypto.set_vec_tile_shapes(1, 4, 1, 64)");
  EXPECT_EQ(vec.newLine, "    pypto.set_vec_tile_shapes(1, 8, 1, 32)");
  EXPECT_EQ(lineOf(vec.source, 22), vec.newLine);
  // Nothing else changed.
  EXPECT_EQ(vec.source.size(), softmax.size());
  EXPECT_EQ(vec.source.substr(0, vec.source.find("set_vec")), softmax.substr(0, softmax.find("set_vec")));

  std::string matmul = kernelOf("matmul");
  auto cube = nlohmann::ordered_json::parse(R"({"m": [64, 128], "k": [128, 256, 512], "n": [64, 256], "enable_split_k": true})");
  TileWriteBack rewritten = writeTileShapeBack(matmul, 15, TileSection::Cube, cube);
  ASSERT_TRUE(rewritten.ok) << rewritten.error;
  EXPECT_EQ(rewritten.newLine, "    pypto.set_cube_tile_shapes([64, 128], [128, 256, 512], [64, 256], enable_split_k=True)");
}

TEST(TileShapeWriteBack, KeepsAliasCommentsAndLineEndings) {
  std::string source = "import pypto as pto\r\n"
                       "def k(x):\r\n"
                       "\tpto.set_vec_tile_shapes( 8 ,16 )   # tuned on a2 (was 4, 16)\r\n"
                       "\treturn x\r\n";
  TileWriteBack result = writeTileShapeBack(source, 3, TileSection::Vec, {32, 64});
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.source, "import pypto as pto\r\n"
                           "def k(x):\r\n"
                           "\tpto.set_vec_tile_shapes(32, 64)   # tuned on a2 (was 4, 16)\r\n"
                           "\treturn x\r\n");
  // Imported by name, no module prefix; last line without a newline.
  TileWriteBack bare = writeTileShapeBack("from pypto import set_vec_tile_shapes\nset_vec_tile_shapes(1, 2)", 2,
                                          TileSection::Vec, {4, 8});
  ASSERT_TRUE(bare.ok) << bare.error;
  EXPECT_EQ(bare.source, "from pypto import set_vec_tile_shapes\nset_vec_tile_shapes(4, 8)");
}

TEST(TileShapeWriteBack, RefusesWhatItCannotRewriteSafely) {
  std::string softmax = kernelOf("softmax");
  TileWriteBack wrongLine = writeTileShapeBack(softmax, 23, TileSection::Vec, {1, 8, 1, 32});
  EXPECT_FALSE(wrongLine.ok);
  EXPECT_EQ(wrongLine.error, "line 23 holds no set_vec_tile_shapes(...) call: \"    pypto.set_semantic_label(\"softmax\")\"");
  TileWriteBack wrongKind = writeTileShapeBack(softmax, 22, TileSection::Cube,
                                               nlohmann::ordered_json::parse(R"({"m": [1, 1], "k": [1, 1], "n": [1, 1]})"));
  EXPECT_FALSE(wrongKind.ok);
  EXPECT_NE(wrongKind.error.find("(it calls set_vec_tile_shapes)"), std::string::npos) << wrongKind.error;
  EXPECT_FALSE(writeTileShapeBack(softmax, 999, TileSection::Vec, {8}).ok);
  EXPECT_EQ(writeTileShapeBack(softmax, 999, TileSection::Vec, {8}).error, "the kernel has no line 999");

  TileWriteBack spanning = writeTileShapeBack("pypto.set_cube_tile_shapes([64, 64],\n    [64, 64], [32, 32])\n", 1,
                                              TileSection::Cube,
                                              nlohmann::ordered_json::parse(R"({"m": [1, 1], "k": [1, 1], "n": [1, 1]})"));
  EXPECT_FALSE(spanning.ok);
  EXPECT_EQ(spanning.error, "the set_cube_tile_shapes call on line 1 continues on the next line; put it on one line or edit it by hand");
  // Commented out: not a call.
  EXPECT_FALSE(writeTileShapeBack("# pypto.set_vec_tile_shapes(1, 2)\n", 1, TileSection::Vec, {4, 8}).ok);
  // Two calls on one line are ambiguous.
  EXPECT_FALSE(writeTileShapeBack("pypto.set_vec_tile_shapes(1, 8); pypto.set_vec_tile_shapes(2, 8)\n", 1,
                                  TileSection::Vec, {4, 8}).ok);
  // A name that merely contains the function's is not it.
  EXPECT_FALSE(writeTileShapeBack("my_set_vec_tile_shapes(1, 8)\n", 1, TileSection::Vec, {4, 8}).ok);
  // A malformed value.
  EXPECT_FALSE(writeTileShapeBack(softmax, 22, TileSection::Vec, "big").ok);
}

} // namespace
} // namespace pto::testing
