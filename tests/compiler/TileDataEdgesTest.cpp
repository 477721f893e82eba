// The tile producer -> consumer relation (TileDataEdges.h), on tile graphs written by hand: each case is
// the tile ops' regions and the edges the contract gives, worked out from the regions alone.
#include "CompilerTestSupport.h"
#include "compiler/ir/TileDataEdges.h"
#include "compiler/ir/TileGraphJson.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

using Dims = std::vector<std::int64_t>;

// Tensors x, t, s of shape [4, 8] (ids 0, 1, 2); tile ops are added by the tests, all standing for one
// tensor op (t = exp(x) at line 2) so that the dumps can name a source.
class TileEdges : public ::testing::Test {
protected:
  void SetUp() override {
    TensorGraphBuilder builder("edges", kernelLine(1));
    for (const char* tensor : {"x", "t", "s"})
      builder.addArgument(tensor, DataType::Fp32, SymbolicShape{SymbolicScalar(4), SymbolicScalar(8)}, kernelLine(1));
    builder.beginPath();
    EXPECT_EQ(builder.addOp(TensorOpKind::Exp, {kX}, {}, kernelLine(2), {kT}).error, "");
    builder.endPath();
    m_tiles.graph = builder.finish();
    for (TensorId id : {kX, kT, kS}) m_tiles.setShape(id, {4, 8});
  }

  static TileRegion region(TensorId tensor, SymbolicShape offsets, Dims shape) {
    return TileRegion{tensor, std::move(offsets), std::move(shape), {}};
  }
  static TileRegion rows(TensorId tensor, std::int64_t first, std::int64_t count) {
    return region(tensor, SymbolicShape{SymbolicScalar(first), SymbolicScalar(0)}, {count, 8});
  }
  TileOpId add(std::vector<TileRegion> inputs, std::vector<TileRegion> outputs,
               TileAccumulate accumulate = TileAccumulate::None) {
    TileOp op;
    op.tensorOp = 0;
    op.kind = TensorOpKind::Exp;
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    op.accumulate = accumulate;
    return m_tiles.addTileOp(std::move(op));
  }
  std::vector<TileDataEdge> edges() const { return tileDataEdges(m_tiles); }

  static constexpr TensorId kX = 0, kT = 1, kS = 2;
  TileGraph m_tiles;
};

TEST_F(TileEdges, ReadersOfDisjointHalvesEachReadTheirOwnWriter) {
  add({rows(kX, 0, 2)}, {rows(kT, 0, 2)});  // #0 writes t[0:2]
  add({rows(kX, 2, 2)}, {rows(kT, 2, 2)});  // #1 writes t[2:4]
  add({rows(kT, 0, 2)}, {rows(kS, 0, 2)});  // #2 reads t[0:2]
  add({rows(kT, 2, 2)}, {rows(kS, 2, 2)});  // #3 reads t[2:4]
  EXPECT_EQ(edges(), (std::vector<TileDataEdge>{{0, 2}, {1, 3}}));
}

TEST_F(TileEdges, AReadAcrossBothHalvesReadsBothWriters) {
  add({}, {rows(kT, 0, 2)});
  add({}, {rows(kT, 2, 2)});
  add({rows(kT, 1, 2)}, {rows(kS, 0, 2)});  // t[1:3] straddles the halves
  EXPECT_EQ(edges(), (std::vector<TileDataEdge>{{0, 2}, {1, 2}}));
}

TEST_F(TileEdges, AWriteThatCoversAnEarlierOneHidesIt) {
  add({}, {rows(kT, 0, 4)});              // #0 t[0:4]
  add({}, {rows(kT, 0, 2)});              // #1 t[0:2]: rows 2..3 still #0's
  add({rows(kT, 0, 4)}, {rows(kS, 0, 4)});  // #2 reads both
  add({}, {rows(kT, 0, 4)});              // #3 covers #0 and #1
  add({rows(kT, 0, 2)}, {rows(kS, 0, 2)});  // #4 reads only #3
  EXPECT_EQ(edges(), (std::vector<TileDataEdge>{{0, 2}, {1, 2}, {3, 4}}));
}

TEST_F(TileEdges, PartialsOfAnAccumulationChainAndTheReaderSeesTheLast) {
  add({rows(kX, 0, 4)}, {rows(kS, 0, 4)});                         // #0 first partial
  add({rows(kX, 0, 4)}, {rows(kS, 0, 4)}, TileAccumulate::Add);    // #1 adds into s: reads #0
  add({rows(kX, 0, 4)}, {rows(kS, 0, 4)}, TileAccumulate::Add);    // #2 reads #1
  add({rows(kS, 0, 4)}, {rows(kT, 0, 4)});                         // #3 reads the sum
  EXPECT_EQ(edges(), (std::vector<TileDataEdge>{{0, 1}, {1, 2}, {2, 3}}));
}

TEST_F(TileEdges, LoopIndexOffsetsCompareWithinOneIteration) {
  const SymbolicScalar b = SymbolicScalar::symbol("b");
  add({}, {region(kT, SymbolicShape{b, SymbolicScalar(0)}, {1, 8})});                       // #0 t[b]
  add({region(kT, SymbolicShape{b + 1, SymbolicScalar(0)}, {1, 8})}, {rows(kS, 0, 1)});    // #1 t[b + 1]: not #0's
  add({region(kT, SymbolicShape{b, SymbolicScalar(0)}, {1, 8})}, {rows(kS, 1, 1)});        // #2 t[b]: #0's
  add({rows(kT, 3, 1)}, {rows(kS, 2, 1)});  // #3 t[3]: b may be 3
  EXPECT_EQ(edges(), (std::vector<TileDataEdge>{{0, 2}, {0, 3}}));
}

TEST_F(TileEdges, JsonProducersAndDotEdgesAreTheSameRelation) {
  add({rows(kX, 0, 2)}, {rows(kT, 0, 2)});
  add({rows(kX, 2, 2)}, {rows(kT, 2, 2)});
  add({rows(kT, 0, 2)}, {rows(kS, 0, 2)});
  add({rows(kT, 2, 2)}, {rows(kS, 2, 2)});
  nlohmann::ordered_json json = tileGraphToJson(m_tiles);
  EXPECT_EQ(json["operations"][0]["producers"], nlohmann::ordered_json::array());
  EXPECT_EQ(json["operations"][2]["producers"], nlohmann::ordered_json::array({0}));
  EXPECT_EQ(json["operations"][3]["producers"], nlohmann::ordered_json::array({1}));
  std::string dot = tileGraphToDot(m_tiles);
  EXPECT_NE(dot.find("  n0 -> n2;\n  n1 -> n3;\n}\n"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("n1 -> n2"), std::string::npos) << dot;
}

} // namespace
} // namespace pto::testing
