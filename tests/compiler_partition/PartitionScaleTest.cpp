// Partitioning about 100 000 tile ops: the structure is checked; the passes' times (from the pass runner)
// are printed for the record, not asserted (budgets are measured by benchmarks, not timed tests).
#include "PartitionTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/passes/GenerateMoveOp.h"
#include "compiler/passes/GraphPartition.h"

#include <time.h>

#include <gtest/gtest.h>

#include <iostream>

namespace pto::testing {
namespace {


// x, y: [100, 1024] float32, vec tile [1, 64]: 1600 tiles per op. 16 rounds of
//   t = exp(t); t = t + x; s = sum(t, dim `dim`, keepdim); t = t - s
// then y = t: 16 * 4 * 1600 + 1600 = 104 000 tile ops. Summing along the rows (dim 1) keeps each row its
// own connected component; alternating row and column sums ties every tile op into one.
TensorGraph rounds(bool alternate) {
  auto [builder, x, y] = beginXyKernel("scale", {100, 1024}, {100, 1024}, {1, 64});
  TensorId t = x;
  for (int round = 0; round < 16; ++round) {
    const std::int64_t dim = alternate && round % 2 ? 0 : 1;
    t = addOp(builder, TensorOpKind::Exp, {t}, {}, 3);
    t = addOp(builder, TensorOpKind::Add, {t, x}, {}, 4);
    const TensorId s = addOp(builder, TensorOpKind::Sum, {t}, {{"dims", std::vector<std::int64_t>{dim}}, {"keepdim", true}}, 5);
    t = addOp(builder, TensorOpKind::Sub, {t, s}, {}, 6);
  }
  addOp(builder, TensorOpKind::Copy, {t}, {}, 7, {y});
  builder.endPath();
  return builder.finish();
}

double threadCpuMilliseconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

// Wall time per pass from the runner, and the two passes rerun on a copy timed by this thread's CPU clock
// (steadier on a busy machine).
void report(const char* what, const CompileResult& result) {
  std::cout << what << ": " << result.compilation.tiles.tileOps().size() << " tile ops, "
            << result.compilation.blocks.subgraphs.size() << " subgraphs, " << result.compilation.blocks.programCount
            << " programs; wall:";
  for (const PassRecord& pass : result.passes) std::cout << " " << pass.name << " " << pass.milliseconds << " ms";
  Compilation copy = result.compilation;
  DiagnosticEngine diags;
  double start = threadCpuMilliseconds();
  EXPECT_TRUE(graphPartition(copy, diags));
  double partitioned = threadCpuMilliseconds();
  EXPECT_TRUE(generateMoveOp(copy, diags));
  double moved = threadCpuMilliseconds();
  std::cout << "; cpu: GraphPartition " << partitioned - start << " ms GenerateMoveOp " << moved - partitioned << " ms\n";
}

TEST(PartitionScale, OneHundredThousandTileOpsInIndependentRows) {
  auto result = compileWith(rounds(false), {});
  ASSERT_TRUE(result);
  report("rows", *result);
  const BlockGraph& blocks = result->compilation.blocks;
  ASSERT_EQ(result->compilation.tiles.tileOps().size(), 104000u);
  // One subgraph per row, all alike; each loads its row of x once and stores its row of y.
  ASSERT_EQ(blocks.subgraphs.size(), 100u);
  EXPECT_EQ(blocks.programCount, 1);
  for (const Subgraph& subgraph : blocks.subgraphs) {
    EXPECT_EQ(subgraph.ops.size(), 1040u);
    EXPECT_EQ(subgraph.copyIns.size(), 16u);
    EXPECT_EQ(subgraph.copyOuts.size(), 16u);
  }
}

TEST(PartitionScale, OneHundredThousandTileOpsTiedTogetherByRowAndColumnSums) {
  auto result = compileWith(rounds(true), {});
  ASSERT_TRUE(result);
  report("one group", *result);
  const BlockGraph& blocks = result->compilation.blocks;
  // x is 400 KiB, under the 4 MiB copy-in bound: one subgraph loads all of x and stores all of y.
  ASSERT_EQ(blocks.subgraphs.size(), 1u);
  EXPECT_EQ(blocks.subgraphs[0].copyIns.size(), 1600u);
  EXPECT_EQ(blocks.subgraphs[0].copyOuts.size(), 1600u);
}

// s = sum(exp(x)) over x [1, 3 276 800] float32 (12.5 MiB), vec tile [1, 64]: 51 200 exp tiles, each its own
// group at first, and 51 200 partial sums, each merging the next exp tile into the growing chain. Merging
// iterates the smaller copy-in set, so this stays linear; the 4 MiB bound cuts the chain into 4 subgraphs
// (4 MiB is 16 384 x tiles of 256 bytes, minus the running sum each later part loads).
TEST(PartitionScale, ALongReductionChainIsCutByTheCopyInBound) {
  auto [builder, x, y] = beginXyKernel("chain", {1, 3276800}, {1, 1}, {1, 64});
  const TensorId e = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  const TensorId s = addOp(builder, TensorOpKind::Sum, {e}, {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}}, 4);
  addOp(builder, TensorOpKind::Copy, {s}, {}, 5, {y});
  builder.endPath();
  // 12.5 MiB of copy-in under a 4 MiB bound (the default, PyPTO's 100 MiB, would keep it whole).
  auto result = compileWith(builder.finish(), {{"mg_copyin_upper_bound", std::int64_t{4} << 20}});
  ASSERT_TRUE(result);
  report("chain", *result);
  const BlockGraph& blocks = result->compilation.blocks;
  ASSERT_EQ(blocks.subgraphs.size(), 4u);
  for (const Subgraph& subgraph : blocks.subgraphs) {
    std::int64_t bytes = 0;
    for (const TileRegion& region : subgraph.copyIns) bytes += region.shape[0] * region.shape[1] * 4;
    EXPECT_LE(bytes, std::int64_t{4} << 20) << "sg" << subgraph.id;
  }
}

} // namespace
} // namespace pto::testing
