// The tile ops' content stamp (TileGraph::tileOpsStamp) and the pass
// runner's changed flags that rest on it: the runner hashes the tile ops
// again only when the stamp moved, so a change the stamp missed would be
// a pass wrongly shown as doing nothing. Checked against the tile ops'
// full text after every pass.
#include "tests/compiler/CompilerTestSupport.h"

#include "compiler/passes/Pipeline.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>

namespace pto {
namespace {

using testing::dumpTiles;

TileOp exp(TensorId from, TensorId to) {
  TileOp op;
  op.kind = TensorOpKind::Exp;
  op.inputs.push_back(TileRegion{from, SymbolicShape{SymbolicScalar(0)}, {8}, {}});
  op.outputs.push_back(TileRegion{to, SymbolicShape{SymbolicScalar(0)}, {8}, {}});
  return op;
}

TEST(TileOpsStamp, MovesWithEveryWayOfChangingTheTileOps) {
  TileGraph graph;
  graph.addTileOp(exp(0, 1));
  const std::uint64_t first = graph.tileOpsStamp();
  EXPECT_EQ(graph.tileOpsStamp(), first);
  const TileGraph& reader = graph;
  EXPECT_EQ(reader.tileOp(0).kind, TensorOpKind::Exp);
  EXPECT_EQ(graph.tileOpsStamp(), first) << "a const read is no change";

  graph.tileOp(0).outputs[0].shape = {4};
  const std::uint64_t edited = graph.tileOpsStamp();
  EXPECT_NE(edited, first);

  graph.addTileOp(exp(1, 2));
  const std::uint64_t added = graph.tileOpsStamp();
  EXPECT_NE(added, edited);

  graph.removeTileOpsIf([](const TileOp& op) { return op.id == 0; });
  EXPECT_NE(graph.tileOpsStamp(), added);
}

TEST(TileOpsStamp, ACopySharesItAndAMovedFromGraphLosesIt) {
  TileGraph graph;
  graph.addTileOp(exp(0, 1));
  const std::uint64_t stamp = graph.tileOpsStamp();
  const TileGraph copy = graph;
  EXPECT_EQ(copy.tileOpsStamp(), stamp);

  TileGraph moved = std::move(graph);
  EXPECT_EQ(moved.tileOpsStamp(), copy.tileOpsStamp());
  EXPECT_NE(graph.tileOpsStamp(), copy.tileOpsStamp()) << "the moved-from graph's tile ops are not the copy's";  // NOLINT(bugprone-use-after-move)

  // Equal contents made separately share no stamp: the stamp is no hash.
  TileGraph other;
  other.addTileOp(exp(0, 1));
  EXPECT_NE(other.tileOpsStamp(), copy.tileOpsStamp());
}

// A chain that ExpandFunction tiles, whose final assemble ForwardAssemble
// folds into its producer (it rewrites tile ops), and that the later passes
// partition, plan and lower without touching a tile op.
TensorGraph chain() {
  TensorGraphBuilder builder("chain", SourceLocation{"chain.py", 1, 0});
  builder.beginPath();
  SourceLocation at{"chain.py", 2, 0};
  TensorId x = builder.addArgument("x", DataType::Fp32, {SymbolicScalar(8), SymbolicScalar(128)}, at);
  TensorId y = builder.addArgument("y", DataType::Fp32, {SymbolicScalar(8), SymbolicScalar(128)}, at);
  builder.setVecTile({1, 64}, at);
  TensorId value = x;
  for (int i = 0; i < 3; ++i)
    value = builder.addOp(TensorOpKind::Exp, {value}, {}, SourceLocation{"chain.py", 3 + i, 0}).outputs[0];
  builder.addOp(TensorOpKind::Assemble, {value}, {{"offsets", SymbolicShape{0, 0}}}, at, {y});
  return builder.finish();
}

TEST(TileOpsStamp, EveryPassThatChangesTheTileOpsIsMarkedChanged) {
  std::map<std::string, std::string> tilesAfter;  // pass -> the tile ops' text after it
  CompileOptions options;
  options.afterPass = [&](const PassInfo& pass, const Compilation& compilation) {
    tilesAfter[std::string(pass.name)] = dumpTiles(compilation.tiles);
    return true;
  };
  DiagnosticEngine diags;
  auto compiled = compileKernel(chain(), CompileSettings{}, diags, options);
  ASSERT_TRUE(compiled) << (diags.diagnostics().empty() ? "" : diags.diagnostics()[0].message);
  std::string before;  // no tile ops before ExpandFunction
  int changedTileOps = 0;
  for (const PassRecord& record : compiled->passes) {
    ASSERT_TRUE(tilesAfter.contains(record.name)) << record.name;
    const std::string& after = tilesAfter[record.name];
    if (after != before) {
      ++changedTileOps;
      EXPECT_TRUE(record.changed) << record.name << " changed the tile ops";
    }
    before = after;
  }
  EXPECT_GE(changedTileOps, 2) << "ExpandFunction and ForwardAssemble both rewrite this kernel's tile ops";
  // Passes after the tile ops settle still report their own changes (the rest of the fingerprint).
  for (const PassRecord& record : compiled->passes) {
    if (record.name == "GraphPartition" || record.name == "LowerToPto" || record.name == "BuildExecuteGraph") {
      EXPECT_TRUE(record.changed) << record.name;
    }
  }
}

} // namespace
} // namespace pto
