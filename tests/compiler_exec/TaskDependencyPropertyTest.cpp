// computeTaskDependencies against the brute-force O(n^2) check on random workloads: tensors of rank 0 to 3,
// boxes that are aligned tiles (with tails), whole tensors, random boxes and empty boxes, tasks that read and
// write several boxes (some read-modify-write). Every conflicting pair must be ordered and every edge must join
// conflicting tasks.
#include "ExecTestSupport.h"

#include "compiler/passes/BuildExecuteGraph.h"
#include "tests/RandomCases.h"

#include <gtest/gtest.h>

#include <random>

namespace pto::testing {
namespace {

struct TensorSpec {
  std::vector<std::int64_t> shape;
  std::vector<std::vector<std::int64_t>> tiles;  // tile shapes its aligned boxes use
};

struct WorkloadShape {
  int tasks = 3000;
  double writeShare = 0.4;    // chance that an access writes
  double tileShare = 0.6;     // aligned tiles; the rest splits between whole tensors, random and empty boxes
  double wholeShare = 0.08;
  double emptyShare = 0.04;
  double readModifyWrite = 0.2;  // chance that a write also reads its box
};

std::vector<TensorSpec> tensorSpecs() {
  return {
      {{}, {{}}},
      {{256}, {{32}, {64}, {48}}},
      {{64, 96}, {{16, 32}, {8, 96}, {64, 16}}},
      {{128, 128}, {{32, 32}, {16, 64}}},
      {{4, 32, 48}, {{1, 16, 48}, {2, 32, 16}, {1, 8, 8}}},
      {{7, 5}, {{2, 2}, {7, 1}}},
  };
}

ConcreteRegion randomBox(TensorId tensor, const TensorSpec& spec, const WorkloadShape& shape, std::mt19937_64& random) {
  ConcreteRegion region;
  region.tensor = tensor;
  const std::size_t rank = spec.shape.size();
  region.offsets.assign(rank, 0);
  region.shape = spec.shape;
  const double kind = std::uniform_real_distribution<double>(0, 1)(random);
  if (kind < shape.tileShare) {
    const auto& tile = spec.tiles[random() % spec.tiles.size()];
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t count = (spec.shape[d] + tile[d] - 1) / tile[d];
      region.offsets[d] = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(count)) * tile[d];
      region.shape[d] = std::min(tile[d], spec.shape[d] - region.offsets[d]);
    }
  } else if (kind < shape.tileShare + shape.wholeShare) {
    // the whole tensor, as set above
  } else if (kind < shape.tileShare + shape.wholeShare + shape.emptyShare && rank > 0) {
    region.shape[random() % rank] = 0;
  } else {
    for (std::size_t d = 0; d < rank; ++d) {
      region.offsets[d] = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spec.shape[d]));
      const std::int64_t room = spec.shape[d] - region.offsets[d];
      region.shape[d] = 1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(room));
    }
  }
  return region;
}

// Appends the next task in program order.
void appendTask(ExecuteGraph& graph, std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
  Task task;
  task.id = static_cast<TaskId>(graph.tasks.size());
  task.reads = std::move(reads);
  task.writes = std::move(writes);
  graph.tasks.push_back(std::move(task));
}

ExecuteGraph randomWorkload(std::uint64_t seed, const WorkloadShape& shape) {
  std::mt19937_64 random(seed);
  const std::vector<TensorSpec> specs = tensorSpecs();
  ExecuteGraph graph;
  for (int t = 0; t < shape.tasks; ++t) {
    Task task;
    task.id = t;
    const int accesses = 1 + static_cast<int>(random() % 4);
    for (int a = 0; a < accesses; ++a) {
      const auto tensor = static_cast<TensorId>(random() % specs.size());
      ConcreteRegion region = randomBox(tensor, specs[static_cast<std::size_t>(tensor)], shape, random);
      if (std::uniform_real_distribution<double>(0, 1)(random) < shape.writeShare) {
        if (std::uniform_real_distribution<double>(0, 1)(random) < shape.readModifyWrite) task.reads.push_back(region);
        task.writes.push_back(std::move(region));
      } else {
        task.reads.push_back(std::move(region));
      }
    }
    graph.tasks.push_back(std::move(task));
  }
  return graph;
}

TEST(TaskDependencies, MixedRandomBoxesMatchTheBruteForceOrdering) {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    ExecuteGraph graph = randomWorkload(seed, WorkloadShape{});
    computeTaskDependencies(graph);
    EXPECT_TRUE(dependenciesAreExact(graph)) << "seed " << seed;
    EXPECT_GT(graph.edgeCount, 0u);
  }
}

TEST(TaskDependencies, ReadMostlyAndWriteMostlyWorkloadsMatchTheBruteForceOrdering) {
  WorkloadShape readMostly;
  readMostly.writeShare = 0.1;
  WorkloadShape writeMostly;
  writeMostly.writeShare = 0.9;
  writeMostly.readModifyWrite = 0.5;
  for (const WorkloadShape& shape : {readMostly, writeMostly}) {
    ExecuteGraph graph = randomWorkload(7, shape);
    computeTaskDependencies(graph);
    EXPECT_TRUE(dependenciesAreExact(graph)) << "write share " << shape.writeShare;
  }
}

TEST(TaskDependencies, RandomBoxesOnlyMatchTheBruteForceOrdering) {
  WorkloadShape shape;
  shape.tileShare = 0;
  shape.wholeShare = 0.02;
  shape.emptyShare = 0;
  ExecuteGraph graph = randomWorkload(11, shape);
  computeTaskDependencies(graph);
  EXPECT_TRUE(dependenciesAreExact(graph));
}

TEST(TaskDependencies, AlignedTilesOnlyMatchTheBruteForceOrdering) {
  WorkloadShape shape;
  shape.tileShare = 1;
  ExecuteGraph graph = randomWorkload(13, shape);
  computeTaskDependencies(graph);
  EXPECT_TRUE(dependenciesAreExact(graph));
}

// Writes of the whole tensor followed by tiles and the other way round: the boxes a later write covers are
// forgotten, the ones it only overlaps are kept.
TEST(TaskDependencies, WholeTensorAndTileWritesInterleaveCorrectly) {
  ExecuteGraph graph;
  auto add = [&](std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
    appendTask(graph, std::move(reads), std::move(writes));
  };
  auto box = [](std::int64_t row, std::int64_t rows) { return ConcreteRegion{0, {row, 0}, {rows, 16}}; };
  add({}, {box(0, 8)});        // 0: fill
  add({box(0, 2)}, {});        // 1: read a tile
  add({}, {box(2, 2)});        // 2: write another tile
  add({}, {box(0, 8)});        // 3: overwrite everything: after 1 (WAR), 2 (WAW); 0 (WAW) is implied by both
  add({box(2, 2)}, {});        // 4: reads what 3 wrote; 2 is ordered through 3
  add({box(1, 2)}, {box(6, 2)});  // 5: reads rows 1..2 (after 3), writes rows 6..7 (after 3)
  add({box(0, 8)}, {});        // 6: reads everything: after 3 and 5, and 3 is implied by 5
  computeTaskDependencies(graph);
  EXPECT_EQ(graph.tasks[3].predecessors, (std::vector<TaskId>{1, 2}));
  EXPECT_EQ(graph.tasks[4].predecessors, (std::vector<TaskId>{3}));
  EXPECT_EQ(graph.tasks[5].predecessors, (std::vector<TaskId>{3}));
  EXPECT_EQ(graph.tasks[6].predecessors, (std::vector<TaskId>{5}));
  EXPECT_TRUE(dependenciesAreExact(graph));
}

// A loop of 40 iterations, each with its own instance of a temporary t (per-iteration workspace) and a running
// sum in s shared by all: 0 writes t, 1 reads t and writes out's row, 2 reads t and accumulates into s (after the
// previous iteration's 2), 3 overwrites t (after 1 and 2, which read it; the edge to 0 is implied). An instance's
// storage is reused once its last task is done: neither stale boxes (edges between iterations through t) nor
// boxes forgotten too early (missing edges) may show. Per iteration: 1 -> 0, 2 -> 0 and the previous 2, 3 -> 1
// and 2: 5 edges, 4 in the first.
TEST(TaskDependencies, ATemporaryInstancesStorageIsReusedOnlyAfterItsLastTask) {
  constexpr int kIterations = 40;
  enum : TensorId { T, Out, S };
  ExecuteGraph graph;
  auto add = [&](std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
    appendTask(graph, std::move(reads), std::move(writes));
  };
  for (std::int64_t k = 0; k < kIterations; ++k) {
    ConcreteRegion t{T, {0, 0}, {4, 16}, static_cast<std::uint64_t>(2 * k + 1)};
    ConcreteRegion half{T, {0, 0}, {2, 16}, t.instance};
    ConcreteRegion sum{S, {0}, {16}};
    add({}, {t});
    add({half}, {ConcreteRegion{Out, {k, 0}, {1, 16}}});
    add({t, sum}, {sum});
    add({}, {t});
  }
  computeTaskDependencies(graph);
  EXPECT_TRUE(dependenciesAreExact(graph));
  EXPECT_TRUE(noEdgeIsImplied(graph));
  EXPECT_EQ(graph.edgeCount, 5u * kIterations - 1);
  for (TaskId k = 1; k < kIterations; ++k) {
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(4 * k + 2)].predecessors, (std::vector<TaskId>{4 * k - 2, 4 * k}));
    EXPECT_EQ(graph.tasks[static_cast<std::size_t>(4 * k + 3)].predecessors, (std::vector<TaskId>{4 * k + 1, 4 * k + 2}));
  }
}

// A paged cache of 4 blocks of 8 rows x 16 fp32 (tensor 0), read as 32 rows (tensor 1, a folded reshape) and
// as 4 x 8 x 32 fp16 (tensor 2, a folded bitcast): an access under an alias conflicts with the accesses of the
// bytes it shares, under any name. Expected edges worked out from the blocks each access touches.
TEST(TaskDependencies, AnAliasConflictsWithTheBytesItShares) {
  enum : TensorId { Cache, Rows, Halves };
  ExecuteGraph graph;
  graph.aliases.push_back(ByteAlias{Rows, Cache, {32, 16}, {4, 8, 16}, 4, 4});
  graph.aliases.push_back(ByteAlias{Halves, Cache, {4, 8, 32}, {4, 8, 16}, 2, 4});
  auto add = [&](std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
    appendTask(graph, std::move(reads), std::move(writes));
  };
  auto block = [](std::int64_t b) { return ConcreteRegion{Cache, {b, 0, 0}, {1, 8, 16}}; };
  auto rows = [](std::int64_t first, std::int64_t count) { return ConcreteRegion{Rows, {first, 0}, {count, 16}}; };
  add({}, {block(1)});            // 0: writes block 1
  add({}, {block(3)});            // 1: writes block 3
  add({rows(8, 8)}, {});          // 2: block 1's rows: after 0
  add({rows(0, 8)}, {});          // 3: block 0's rows: nothing wrote them
  add({rows(20, 8)}, {});         // 4: the second half of block 2 and the first of block 3: after 1
  add({}, {rows(16, 4)});         // 5: writes 4 rows of block 2 through the alias: after 4 (which read them)
  add({block(2)}, {});            // 6: reads block 2 under its own name: after 5
  add({ConcreteRegion{Halves, {3, 7, 0}, {1, 1, 32}}}, {});  // 7: block 3's last row as fp16: after 1
  add({}, {ConcreteRegion{Halves, {0, 0, 0}, {1, 8, 32}}});  // 8: overwrites block 0 as fp16: after 3
  computeTaskDependencies(graph);
  EXPECT_EQ(graph.tasks[2].predecessors, (std::vector<TaskId>{0}));
  EXPECT_TRUE(graph.tasks[3].predecessors.empty());
  EXPECT_EQ(graph.tasks[4].predecessors, (std::vector<TaskId>{1}));
  EXPECT_EQ(graph.tasks[5].predecessors, (std::vector<TaskId>{4}));
  EXPECT_EQ(graph.tasks[6].predecessors, (std::vector<TaskId>{5}));
  EXPECT_EQ(graph.tasks[7].predecessors, (std::vector<TaskId>{1}));
  EXPECT_EQ(graph.tasks[8].predecessors, (std::vector<TaskId>{3}));
}

// Random boxes under three names of one storage of 6 x 10 x 12 bytes (as [6, 10, 12] int8, as [60, 12] int8 and
// as [6, 10, 6] fp16): every pair of tasks that touch a common byte, one of them writing it, must be ordered
// (the brute force compares byte sets, not boxes, so it does not share the code's box arithmetic). The
// sanitizer suite takes a quarter of the tasks (randomCaseCount): the brute force is quadratic in them, and
// under ASan it was 40 s of CPU for code the smaller graph takes through the same paths.
TEST(TaskDependencies, AccessesUnderAliasesAreOrderedWheneverTheirBytesConflict) {
  const int taskCount = test::randomCaseCount(600);
  enum : TensorId { Storage, Rows, Pairs };
  const std::vector<std::vector<std::int64_t>> shapes = {{6, 10, 12}, {60, 12}, {6, 10, 6}};
  const std::vector<std::int64_t> elementBytes = {1, 1, 2};
  ExecuteGraph graph;
  graph.aliases.push_back(ByteAlias{Rows, Storage, shapes[1], shapes[0], 1, 1});
  graph.aliases.push_back(ByteAlias{Pairs, Storage, shapes[2], shapes[0], 2, 1});
  std::mt19937_64 random(17);
  std::vector<std::vector<std::pair<std::vector<bool>, bool>>> touched;  // per task: (bytes, written)
  for (TaskId t = 0; t < taskCount; ++t) {
    Task task;
    task.id = t;
    std::vector<std::pair<std::vector<bool>, bool>> bytes;
    for (int a = 0; a < 2; ++a) {
      const auto tensor = static_cast<TensorId>(random() % 3);
      const auto& shape = shapes[static_cast<std::size_t>(tensor)];
      ConcreteRegion region{tensor, {}, {}};
      for (std::int64_t extent : shape) {
        const auto offset = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(extent));
        region.offsets.push_back(offset);
        region.shape.push_back(1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(std::min<std::int64_t>(3, extent - offset))));
      }
      std::vector<bool> set(720, false);
      const std::size_t rank = shape.size();
      std::vector<std::int64_t> index(region.offsets);
      while (true) {
        std::int64_t linear = 0;
        for (std::size_t d = 0; d < rank; ++d) linear = linear * shape[d] + index[d];
        for (std::int64_t b = 0; b < elementBytes[static_cast<std::size_t>(tensor)]; ++b)
          set[static_cast<std::size_t>(linear * elementBytes[static_cast<std::size_t>(tensor)] + b)] = true;
        std::size_t d = rank;
        while (d-- > 0 && ++index[d] == region.offsets[d] + region.shape[d]) index[d] = region.offsets[d];
        if (d == static_cast<std::size_t>(-1)) break;
      }
      const bool write = random() % 3 == 0;
      bytes.emplace_back(std::move(set), write);
      (write ? task.writes : task.reads).push_back(std::move(region));
    }
    touched.push_back(std::move(bytes));
    graph.tasks.push_back(std::move(task));
  }
  computeTaskDependencies(graph);
  // reachable[t]: the tasks t follows, directly or not.
  std::vector<std::vector<bool>> reachable(graph.tasks.size(), std::vector<bool>(graph.tasks.size(), false));
  for (const Task& task : graph.tasks)
    for (TaskId p : task.predecessors) {
      reachable[static_cast<std::size_t>(task.id)][static_cast<std::size_t>(p)] = true;
      for (std::size_t q = 0; q < graph.tasks.size(); ++q)
        if (reachable[static_cast<std::size_t>(p)][q]) reachable[static_cast<std::size_t>(task.id)][q] = true;
    }
  int conflicts = 0;
  for (std::size_t later = 0; later < graph.tasks.size(); ++later)
    for (std::size_t earlier = 0; earlier < later; ++earlier) {
      bool conflict = false;
      for (const auto& [a, aWrites] : touched[later])
        for (const auto& [b, bWrites] : touched[earlier])
          if (aWrites || bWrites)
            for (std::size_t i = 0; i < a.size() && !conflict; ++i) conflict = a[i] && b[i];
      if (!conflict) continue;
      ++conflicts;
      ASSERT_TRUE(reachable[later][earlier]) << "task " << later << " is not ordered after task " << earlier;
    }
  EXPECT_GT(conflicts, 100);
}

TEST(TaskDependencies, RecomputingReplacesTheLinksAndEmptyBoxesTouchNothing) {
  ExecuteGraph graph = randomWorkload(5, WorkloadShape{});
  computeTaskDependencies(graph);
  const ExecuteGraph first = graph;
  computeTaskDependencies(graph);
  ASSERT_EQ(graph.tasks.size(), first.tasks.size());
  for (std::size_t t = 0; t < graph.tasks.size(); ++t) {
    EXPECT_EQ(graph.tasks[t].predecessors, first.tasks[t].predecessors);
    EXPECT_EQ(graph.tasks[t].successors, first.tasks[t].successors);
  }
  EXPECT_EQ(graph.edgeCount, first.edgeCount);

  ExecuteGraph empty;
  for (TaskId t = 0; t < 3; ++t) {
    Task task;
    task.id = t;
    task.writes.push_back(ConcreteRegion{0, {0, 0}, {4, 0}});
    empty.tasks.push_back(std::move(task));
  }
  computeTaskDependencies(empty);
  EXPECT_EQ(empty.edgeCount, 0u);
}

} // namespace
} // namespace pto::testing
