// The block graph dumps: JSON fields and the DOT text written by hand for a small kernel, and Graphviz
// accepting the DOT of a larger one.
#include "PartitionTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/ir/BlockGraphJson.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace pto::testing {
namespace {


// a = exp(x); c = a @ w; d = c + a; y = d: [64, 64] float32, one tile per op, all labelled "attn".
TensorGraph labelledVectorCubeVector() { return vectorCubeVectorKernel({"attn", "attn", "attn", "attn"}); }

TEST(BlockGraphDump, JsonListsScopesSubgraphsAndCopies) {
  auto result = compileWith(labelledVectorCubeVector(), {});
  ASSERT_TRUE(result);
  nlohmann::ordered_json json = blockGraphToJson(result->compilation);
  EXPECT_EQ(json["stage"], "block");
  EXPECT_EQ(json["kernel"], "vcv");
  EXPECT_EQ(json["program_count"], 3);
  EXPECT_EQ(json["scopes"].dump(), R"([{"id":0,"loop":null,"loop_id":-1,"body":0,"path":0,"ops":[0,1,2,3]}])");
  ASSERT_EQ(json["subgraphs"].size(), 3u);
  EXPECT_EQ(json["subgraphs"][1].dump(),
            R"({"id":1,"scope":0,"core_type":"AIC","program_id":1,"label":"attn","pinned":false,)"
            R"("ops":[{"id":1,"opcode":"matmul"}],)"
            R"("copy_ins":[{"tensor":"a","tensor_id":3,"offset":["0","0"],"shape":[64,64]},)"
            R"({"tensor":"w","tensor_id":1,"offset":["0","0"],"shape":[64,64]}],)"
            R"("copy_outs":[{"tensor":"c","tensor_id":4,"offset":["0","0"],"shape":[64,64]}],)"
            // After AllocateBuffers: the peaks and that the buffers could be ping-ponged.
            R"("peak_bytes":{"l1":32768,"l0a":16384,"l0b":16384,"l0c":16384},"buffering":{"overlap":"ping-pong"}})");
}

TEST(BlockGraphDump, JsonOffsetsKeepTheLoopIndex) {
  auto [builder, x, y] = beginXyKernel("rows", {4, 64}, {4, 64}, {1, 64});
  const LoopId loop = builder.beginLoop("rows", "b", 0, 4, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 64})}}, 4);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {row}, {}, 5);
  addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", SymbolicShape{b + 0, 0}}}, 6, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  auto result = compileWith(builder.finish(), {});
  ASSERT_TRUE(result);
  nlohmann::ordered_json json = blockGraphToJson(result->compilation);
  EXPECT_EQ(json["scopes"][1]["loop"], "rows");
  EXPECT_EQ(json["subgraphs"][0]["copy_ins"].dump(), R"([{"tensor":"x","tensor_id":0,"offset":["b","0"],"shape":[1,64]}])");
  EXPECT_EQ(json["subgraphs"][0]["copy_outs"].dump(), R"([{"tensor":"y","tensor_id":1,"offset":["b","0"],"shape":[1,64]}])");
}

TEST(BlockGraphDump, DotHasAClusterPerSubgraphAndGlobalMemoryEdges) {
  auto result = compileWith(labelledVectorCubeVector(), {});
  ASSERT_TRUE(result);
  EXPECT_EQ(blockGraphToDot(result->compilation),
            "digraph \"vcv_blocks\" {\n"
            "  compound=true;\n"
            "  rankdir=TB;\n"
            "  node [fontname=\"Helvetica\", fontsize=9, shape=box, style=rounded];\n"
            "  edge [fontname=\"Helvetica\", fontsize=8];\n"
            "  subgraph cluster_sg0 {\n"
            "    label=\"sg0 AIV program 0 scope 0\\nattn\";\n"
            "    style=rounded;\n"
            "    color=\"#4f81bd\";\n"
            "    t0 [label=\"exp #0\"];\n"
            "  }\n"
            "  subgraph cluster_sg1 {\n"
            "    label=\"sg1 AIC program 1 scope 0\\nattn\";\n"
            "    style=rounded;\n"
            "    color=\"#c0504d\";\n"
            "    t1 [label=\"matmul #1\"];\n"
            "  }\n"
            "  subgraph cluster_sg2 {\n"
            "    label=\"sg2 AIV program 2 scope 0\\nattn\";\n"
            "    style=rounded;\n"
            "    color=\"#4f81bd\";\n"
            "    t2 [label=\"add #2\"];\n"
            "    t3 [label=\"copy #3\"];\n"
            "    t2 -> t3 [style=invis];\n"
            "  }\n"
            "  t0 -> t1 [ltail=cluster_sg0, lhead=cluster_sg1, label=\"a\"];\n"
            "  t0 -> t2 [ltail=cluster_sg0, lhead=cluster_sg2, label=\"a\"];\n"
            "  t1 -> t2 [ltail=cluster_sg1, lhead=cluster_sg2, label=\"c\"];\n"
            "}\n");
}

TEST(BlockGraphDump, GraphvizAcceptsTheDot) {
  if (std::system("command -v dot > /dev/null 2>&1") != 0) GTEST_SKIP() << "Graphviz (dot) is not installed";
  // A kernel with a loop, partial reductions and a matmul.
  TensorGraphBuilder builder("mixed", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({2, 16, 64}), kernelLine(1));
  const TensorId w = builder.addArgument("w", kF32, dimsOf({64, 64}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({2, 16, 64}), kernelLine(1));
  builder.beginPath();
  builder.setCubeTile(CubeTileShape{8, 8, 32, 32, 32, 64, 64, false}, kernelLine(2));
  const LoopId loop = builder.beginLoop("batches", "b", 0, 2, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  builder.setVecTile({1, 8, 32}, kernelLine(4));
  const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0, 0}}, {"shape", dimsOf({1, 16, 64})}}, 5);
  const TensorId m = addOp(builder, TensorOpKind::Amax, {row}, {{"dims", std::vector<std::int64_t>{2}}, {"keepdim", true}}, 6);
  const TensorId d = addOp(builder, TensorOpKind::Sub, {row, m}, {}, 7);
  builder.setVecTile({16, 64}, kernelLine(8));
  const TensorId flat = addOp(builder, TensorOpKind::Reshape, {d}, {{"shape", dimsOf({16, 64})}}, 9);
  const TensorId p = addOp(builder, TensorOpKind::Matmul, {flat, w}, {}, 10);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {p}, {}, 11);
  const TensorId back = addOp(builder, TensorOpKind::Reshape, {e}, {{"shape", dimsOf({1, 16, 64})}}, 12);
  builder.setVecTile({1, 16, 64}, kernelLine(12));
  addOp(builder, TensorOpKind::Assemble, {back}, {{"offsets", SymbolicShape{b, 0, 0}}}, 13, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  auto result = compileWith(builder.finish(), {});
  ASSERT_TRUE(result);
  EXPECT_GT(result->compilation.blocks.subgraphs.size(), 3u);
  const std::filesystem::path dir = std::filesystem::path(PTO_TEST_DATA_DIR) / "BlockGraphDump";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "mixed.dot");
    out << blockGraphToDot(result->compilation);
  }
  const std::string command = "dot -Tsvg \"" + (dir / "mixed.dot").string() + "\" -o \"" + (dir / "mixed.svg").string() +
                              "\" 2> \"" + (dir / "dot.log").string() + "\"";
  EXPECT_EQ(std::system(command.c_str()), 0);
  std::ifstream log(dir / "dot.log");
  std::string warnings((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(warnings, "");
  EXPECT_GT(std::filesystem::file_size(dir / "mixed.svg"), 1000u);
}

} // namespace
} // namespace pto::testing
