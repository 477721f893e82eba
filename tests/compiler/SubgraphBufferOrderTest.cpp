// AllocateBuffers' placement on tile graphs written by hand: first fit's reuse of freed bytes, and the
// fallbacks for a subgraph that overflows a buffer, the depth-first op order (SubgraphOpOrder.h) and
// greedy-by-size placement, and the order of first use for a buffer planned late (a cube subgraph's
// fixpipe Cast tile). Each expected order and byte count
// is worked out from the regions alone (tensors of [16, 8] float32: 32 bytes a row; the cube test's
// are [8, 8], 256 bytes).
#include "CompilerTestSupport.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/SubgraphOpOrder.h"

#include <gtest/gtest.h>

#include <map>

namespace pto::testing {
namespace {

using Dims = std::vector<std::int64_t>;

class SubgraphBuffers : public ::testing::Test {
protected:
  void SetUp() override {
    TensorGraphBuilder builder("order", kernelLine(1));
    for (const char* tensor : {"x", "y", "a", "b", "s"})
      builder.addArgument(tensor, DataType::Fp32, SymbolicShape{SymbolicScalar(16), SymbolicScalar(8)}, kernelLine(1));
    builder.beginPath();
    EXPECT_EQ(builder.addOp(TensorOpKind::Exp, {kX}, {}, kernelLine(2), {kA}).error, "");
    builder.endPath();
    m_tiles.graph = builder.finish();
    for (TensorId id : {kX, kY, kA, kB, kS}) m_tiles.setShape(id, {16, 8});
    m_subgraph.coreType = CoreType::AIV;
  }

  static TileRegion rows(TensorId tensor, std::int64_t first, std::int64_t count) {
    return TileRegion{tensor, SymbolicShape{SymbolicScalar(first), SymbolicScalar(0)}, {count, 8}, {}};
  }
  void add(std::vector<TileRegion> inputs, std::vector<TileRegion> outputs) {
    TileOp op;
    op.tensorOp = 0;
    op.kind = TensorOpKind::Exp;
    op.inputs = std::move(inputs);
    op.outputs = std::move(outputs);
    m_subgraph.ops.push_back(m_tiles.addTileOp(std::move(op)));
  }

  static constexpr TensorId kX = 0, kY = 1, kA = 2, kB = 3, kS = 4;
  TileGraph m_tiles;
  Subgraph m_subgraph;
};

TEST_F(SubgraphBuffers, ChainsMadeOpByOpRunDepthFirst) {
  add({rows(kX, 0, 8)}, {rows(kA, 0, 8)});  // #0 a0 = f(x0)
  add({rows(kX, 8, 8)}, {rows(kA, 8, 8)});  // #1 a1 = f(x1)
  add({rows(kA, 0, 8)}, {rows(kB, 0, 8)});  // #2 b0 = f(a0)
  add({rows(kA, 8, 8)}, {rows(kB, 8, 8)});  // #3 b1 = f(a1)
  EXPECT_EQ(depthFirstOpOrder(m_tiles, m_subgraph), (std::vector<int>{0, 2, 1, 3}));
}

TEST_F(SubgraphBuffers, TheDepthFirstOrderKeepsEveryDependence) {
  add({rows(kX, 0, 8)}, {rows(kA, 0, 8)});  // #0 reads x0
  add({rows(kY, 0, 8)}, {rows(kX, 0, 8)});  // #1 writes x0: after #0's read
  add({rows(kA, 0, 8)}, {rows(kB, 0, 8)});  // #2 reads a0: after #0
  add({rows(kX, 0, 8)}, {rows(kS, 0, 8)});  // #3 reads x0: after #1's write
  add({rows(kY, 8, 8)}, {rows(kB, 0, 8)});  // #4 writes b0 again: after #2
  // #0 makes #1 and #2 ready: #1, made first, runs, then #3 (made ready by #1, the latest), then #2 and
  // #4 (made ready by #2). Every op after its predecessors.
  EXPECT_EQ(depthFirstOpOrder(m_tiles, m_subgraph), (std::vector<int>{0, 1, 3, 2, 4}));
}

TEST_F(SubgraphBuffers, GreedyBySizeFitsWhereFirstFitLeavesAGapTooSmall) {
  // s = x[0:8] (256 bytes, used by #0 only), t = the 512-byte output of #0 (read by #2), y (512 bytes,
  // loaded at #1, read again at #2). First fit in order of use puts s at 0 and t at 256; at #1 the 256 bytes
  // s leaves free cannot take y, which goes to 768: 1 280 bytes. Largest first: t at 0, y beside it at
  // 512, and s, live only beside t, at 512 too: 1 024 bytes, the most live at once (t and y).
  add({rows(kX, 0, 8)}, {rows(kA, 0, 16)});
  add({rows(kY, 0, 16)}, {});
  add({rows(kA, 0, 16), rows(kY, 0, 16)}, {});
  TargetInfo target;
  target.allocationGranularityBytes = 32;
  target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = 1024;
  const auto ub = static_cast<std::size_t>(MemoryKind::UB);
  const SubgraphBufferPlan firstFit = planSubgraphBuffers(m_tiles, target, m_subgraph, BufferOverlap::PingPong);
  EXPECT_EQ(firstFit.peakBytes[ub], 1280);
  const SubgraphBufferPlan bySize =
      planSubgraphBuffers(m_tiles, target, m_subgraph, BufferOverlap::PingPong, /*bySizeFallback=*/true);
  EXPECT_EQ(bySize.peakBytes[ub], 1024);
  EXPECT_EQ(bySize.overlap, BufferOverlap::Single);
  EXPECT_TRUE(fitsCapacities(bySize, target));
  // No two buffers live at once share a byte.
  for (std::size_t i = 0; i < bySize.buffers.size(); ++i)
    for (std::size_t j = i + 1; j < bySize.buffers.size(); ++j) {
      const BufferAllocation &a = bySize.buffers[i], &b = bySize.buffers[j];
      const bool together = a.firstUse <= b.lastUse && b.firstUse <= a.lastUse;
      const bool apart = a.offsetBytes + a.bytes <= b.offsetBytes || b.offsetBytes + b.bytes <= a.offsetBytes;
      EXPECT_TRUE(!together || apart) << "buffers " << i << " and " << j;
    }
}

TEST_F(SubgraphBuffers, FirstFitJoinsTheBytesOfNeighboursThatDied) {
  // Without ping-pong a buffer's bytes are free after its last use. x0 (256 bytes, read at #0) goes to 0,
  // a0 (256 bytes, made at #0, read at #1) to 256. Both are dead at #2, where y (512 bytes) is loaded: the
  // two freed ranges and the free space above them are one range from 0, so y goes to 0 and the peak is
  // 512 bytes. Freed ranges left apart would put y at 256: 768.
  add({rows(kX, 0, 8)}, {rows(kA, 0, 8)});
  add({rows(kA, 0, 8)}, {});
  add({rows(kY, 0, 16)}, {});
  TargetInfo target;
  target.allocationGranularityBytes = 32;
  target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = 1024;
  const SubgraphBufferPlan plan = planSubgraphBuffers(m_tiles, target, m_subgraph, BufferOverlap::Single);
  EXPECT_EQ(plan.peakBytes[static_cast<std::size_t>(MemoryKind::UB)], 512);
  ASSERT_EQ(plan.buffers.size(), 3u);
  EXPECT_EQ(plan.buffers[2].bytes, 512);
  EXPECT_EQ(plan.buffers[2].offsetBytes, 0);
}

// A cube subgraph on a machine with an L0C -> UB path makes a buffer out of
// order: the UB tile of a matmul result's fixpipe Cast is planned when a
// vector op first reads it, but lives from the Cast on. Here the Cast (#1)
// comes before a vector op of other data (#2: x0 loaded, s0 made), and the
// Cast's tile d is read at #3. In order of first use the UB buffers are d
// (from #1, 256 bytes), x0 and s0 (#2), y0 (#3); first fit without ping-pong
// puts d at 0, x0 at 256, s0 at 512 and y0, once x0 and s0 are dead, at
// 256. Placed in the order they were made, d would go above x0 and s0, to 512.
TEST(SubgraphBufferOrder, ACastTileMadeLateIsPlacedInOrderOfFirstUse) {
  TensorGraphBuilder builder("cube", kernelLine(1));
  const SymbolicShape square{SymbolicScalar(8), SymbolicScalar(8)};
  std::map<std::string, TensorId> t;
  for (const char* name : {"a", "b", "c", "d", "x", "s", "y"})
    t[name] = builder.addArgument(name, DataType::Fp32, square, kernelLine(1));
  const TensorId a = t["a"], b = t["b"], c = t["c"], d = t["d"], x = t["x"], s = t["s"], y = t["y"];
  builder.beginPath();
  EXPECT_EQ(builder.addOp(TensorOpKind::Matmul, {a, b}, {}, kernelLine(2), {c}).error, "");
  EXPECT_EQ(builder.addOp(TensorOpKind::Cast, {c}, {{"dtype", DataType::Fp32}}, kernelLine(3), {d}).error, "");
  EXPECT_EQ(builder.addOp(TensorOpKind::Exp, {x}, {}, kernelLine(4), {s}).error, "");
  EXPECT_EQ(builder.addOp(TensorOpKind::Exp, {d}, {}, kernelLine(5), {y}).error, "");
  builder.endPath();
  TileGraph tiles;
  tiles.graph = builder.finish();
  for (TensorId id = 0; id < static_cast<TensorId>(tiles.graph.tensors().size()); ++id) tiles.setShape(id, {8, 8});
  auto whole = [](TensorId tensor) {
    return TileRegion{tensor, SymbolicShape{SymbolicScalar(0), SymbolicScalar(0)}, {8, 8}, {}};
  };
  Subgraph subgraph;
  subgraph.coreType = CoreType::AIC;
  auto add = [&](OpId tensorOp, TensorOpKind kind, std::vector<TileRegion> inputs, TileRegion output) {
    TileOp op;
    op.tensorOp = tensorOp;
    op.kind = kind;
    op.inputs = std::move(inputs);
    op.outputs = {std::move(output)};
    subgraph.ops.push_back(tiles.addTileOp(std::move(op)));
  };
  add(0, TensorOpKind::Matmul, {whole(a), whole(b)}, whole(c));  // #0
  add(0, TensorOpKind::Cast, {whole(c)}, whole(d));               // #1: the matmul's fixpipe
  add(2, TensorOpKind::Exp, {whole(x)}, whole(s));                // #2
  add(3, TensorOpKind::Exp, {whole(d)}, whole(y));                // #3
  TargetInfo target;
  target.hasL0cToUb = true;
  target.allocationGranularityBytes = 32;
  for (std::int64_t& capacity : target.capacityBytes) capacity = 1 << 20;
  const SubgraphBufferPlan plan = planSubgraphBuffers(tiles, target, subgraph, BufferOverlap::Single);
  std::map<TensorId, std::pair<std::int64_t, int>> ub;  // tensor -> offset, first use
  for (const BufferAllocation& buffer : plan.buffers)
    if (buffer.memory == MemoryKind::UB) ub[buffer.region.tensor] = {buffer.offsetBytes, buffer.firstUse};
  ASSERT_EQ(ub.size(), 4u);
  EXPECT_EQ(ub.at(d), std::make_pair(std::int64_t{0}, 1));
  EXPECT_EQ(ub.at(x), std::make_pair(std::int64_t{256}, 2));
  EXPECT_EQ(ub.at(s), std::make_pair(std::int64_t{512}, 2));
  EXPECT_EQ(ub.at(y), std::make_pair(std::int64_t{256}, 3));
  EXPECT_EQ(plan.peakBytes[static_cast<std::size_t>(MemoryKind::UB)], 768);
  for (std::size_t i = 1; i < plan.buffers.size(); ++i)
    EXPECT_LE(plan.buffers[i - 1].firstUse, plan.buffers[i].firstUse) << "buffer " << i;
}

} // namespace
} // namespace pto::testing
