// The removal of implied edges in computeTaskDependencies, checked by brute force. On several hundred small
// random kernels (tasks reading and writing random boxes of a few small tensors, seeded): every conflicting pair
// (read after write, write after read, write after write on overlapping boxes of one storage) is ordered, every
// edge joins conflicting tasks (dependenciesAreExact), the removal never adds edges, and where no search can have
// been cut short (at most kImpliedEdgeSearchLinks edges in the end) the predecessors are exactly the transitive
// reduction of the conflict order, computed from the accesses alone (reducedConflictOrder). On larger
// workloads, where the bounded search may keep some implied edges, the edge count lies between that reduction's
// and the unreduced one's.
#include "ExecTestSupport.h"

#include "compiler/passes/BuildExecuteGraph.h"

#include <gtest/gtest.h>

#include <random>

namespace pto::testing {
namespace {

struct SmallTensor {
  std::vector<std::int64_t> shape;
  std::vector<std::vector<std::int64_t>> tiles;
};

// Few and small, so that random boxes overlap often.
const std::vector<SmallTensor>& smallTensors() {
  static const std::vector<SmallTensor> tensors = {
      {{16}, {{4}, {8}}},
      {{8, 8}, {{2, 8}, {4, 4}, {8, 2}}},
      {{4, 6}, {{2, 3}, {1, 6}}},
  };
  return tensors;
}

ConcreteRegion randomBox(TensorId tensor, std::mt19937_64& random) {
  const SmallTensor& spec = smallTensors()[static_cast<std::size_t>(tensor)];
  const std::size_t rank = spec.shape.size();
  ConcreteRegion region{tensor, std::vector<std::int64_t>(rank, 0), spec.shape};
  const auto kind = random() % 100;
  if (kind < 50) {  // an aligned tile, as a kernel's tile ops move
    const auto& tile = spec.tiles[random() % spec.tiles.size()];
    for (std::size_t d = 0; d < rank; ++d) {
      region.offsets[d] = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spec.shape[d] / tile[d])) * tile[d];
      region.shape[d] = tile[d];
    }
  } else if (kind < 60) {  // the whole tensor, as set above
  } else if (kind < 65) {  // empty: touches nothing
    region.shape[random() % rank] = 0;
  } else {
    for (std::size_t d = 0; d < rank; ++d) {
      region.offsets[d] = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spec.shape[d]));
      region.shape[d] = 1 + static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(spec.shape[d] - region.offsets[d]));
    }
  }
  // The last tensor is sometimes a loop-made temporary with per-iteration instances: other storage.
  if (tensor == 2 && random() % 3 == 0) region.instance = 1 + 2 * (random() % 2);
  return region;
}

// `tasks` tasks of 1 to 3 accesses; 40% of accesses write, a third of those also read their box.
ExecuteGraph randomKernel(std::uint64_t seed, int tasks) {
  std::mt19937_64 random(seed);
  ExecuteGraph graph;
  for (int t = 0; t < tasks; ++t) {
    Task task;
    task.id = t;
    const int accesses = 1 + static_cast<int>(random() % 3);
    for (int a = 0; a < accesses; ++a) {
      ConcreteRegion region = randomBox(static_cast<TensorId>(random() % smallTensors().size()), random);
      if (random() % 10 < 4) {
        if (random() % 3 == 0) task.reads.push_back(region);
        task.writes.push_back(std::move(region));
      } else {
        task.reads.push_back(std::move(region));
      }
    }
    graph.tasks.push_back(std::move(task));
  }
  return graph;
}

std::vector<std::vector<TaskId>> predecessorsOf(const ExecuteGraph& graph) {
  std::vector<std::vector<TaskId>> predecessors;
  for (const Task& task : graph.tasks) predecessors.push_back(task.predecessors);
  return predecessors;
}

std::size_t edgesOf(const std::vector<std::vector<TaskId>>& predecessors) {
  std::size_t edges = 0;
  for (const auto& list : predecessors) edges += list.size();
  return edges;
}

TEST(TaskDependencyReduction, SmallRandomKernelsGetTheTransitiveReductionOfTheirConflicts) {
  int exactCases = 0;
  std::size_t keptEdges = 0, removedEdges = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    const int tasks = 4 + static_cast<int>(seed % 37);  // 4 to 40 tasks
    ExecuteGraph kept = randomKernel(seed, tasks);
    ExecuteGraph reduced = kept;
    computeTaskDependencies(kept, ImpliedEdges::Kept);
    computeTaskDependencies(reduced);
    ASSERT_TRUE(dependenciesAreExact(kept)) << "seed " << seed;
    ASSERT_TRUE(dependenciesAreExact(reduced)) << "seed " << seed;
    ASSERT_LE(reduced.edgeCount, kept.edgeCount) << "seed " << seed;
    keptEdges += kept.edgeCount;
    removedEdges += kept.edgeCount - reduced.edgeCount;
    if (reduced.edgeCount > kImpliedEdgeSearchLinks) continue;
    ++exactCases;
    ASSERT_EQ(predecessorsOf(reduced), reducedConflictOrder(reduced)) << "seed " << seed;
    ASSERT_TRUE(noEdgeIsImplied(reduced)) << "seed " << seed;
  }
  // The sizes are chosen so that nearly every case falls under the exactness guarantee, and random boxes on
  // three small tensors conflict often enough that the index finds implied edges to remove.
  EXPECT_GE(exactCases, 380);
  EXPECT_GT(removedEdges * 5, keptEdges) << removedEdges << " of " << keptEdges << " edges removed";
}

TEST(TaskDependencyReduction, LargerKernelsKeepTheOrderAndLieBetweenTheExactAndTheUnreducedCount) {
  for (std::uint64_t seed : {21u, 22u, 23u, 24u}) {
    ExecuteGraph kept = randomKernel(seed, 1500);
    ExecuteGraph reduced = kept;
    computeTaskDependencies(kept, ImpliedEdges::Kept);
    computeTaskDependencies(reduced);
    EXPECT_TRUE(dependenciesAreExact(reduced)) << "seed " << seed;
    const std::size_t exact = edgesOf(reducedConflictOrder(reduced));
    EXPECT_LE(exact, reduced.edgeCount) << "seed " << seed;
    EXPECT_LT(reduced.edgeCount, kept.edgeCount) << "seed " << seed;
  }
}

// A write after a read of what an earlier task wrote: the writer's write-after-write edge to the first task is
// implied by the read (0 -> 1 -> 2), so 2 keeps only its write-after-read edge.
TEST(TaskDependencyReduction, AWriteAfterReadImpliesTheWriteAfterWrite) {
  ExecuteGraph graph;
  const ConcreteRegion box{0, {0}, {8}};
  for (TaskId t = 0; t < 3; ++t) {
    Task task;
    task.id = t;
    (t == 1 ? task.reads : task.writes).push_back(box);
    graph.tasks.push_back(std::move(task));
  }
  ExecuteGraph kept = graph;
  computeTaskDependencies(kept, ImpliedEdges::Kept);
  computeTaskDependencies(graph);
  EXPECT_EQ(kept.tasks[2].predecessors, (std::vector<TaskId>{0, 1}));
  EXPECT_EQ(graph.tasks[2].predecessors, (std::vector<TaskId>{1}));
  EXPECT_EQ(graph.tasks[0].successors, (std::vector<TaskId>{1}));
  EXPECT_EQ(graph.edgeCount, 2u);
}

// x is written by task 0 and read by task 1; a chain of n read-modify-writes of s follows task 1 (the first
// link reads x and s); the last task writes x and reads s. Its edges to 0 (write after write on x) and 1 (write
// after read on x) are implied by the chain, but past kImpliedEdgeSearchLinks links the search stops: the edge
// to 1 stays (never dropped unseen), while the edge to 0 is still found implied one link behind 1. A short chain
// removes both.
TEST(TaskDependencyReduction, ASearchCutShortKeepsWhatItDidNotReach) {
  auto chain = [](TaskId links) {
    ExecuteGraph graph;
    const ConcreteRegion x{0, {0}, {8}}, s{1, {0}, {8}};
    auto add = [&](std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
      Task task;
      task.id = static_cast<TaskId>(graph.tasks.size());
      task.reads = std::move(reads);
      task.writes = std::move(writes);
      graph.tasks.push_back(std::move(task));
    };
    add({}, {x});
    add({x}, {s});
    for (TaskId l = 0; l < links; ++l) add({s}, {s});
    add({s}, {x});
    computeTaskDependencies(graph);
    return graph;
  };
  const ExecuteGraph shortChain = chain(10);
  EXPECT_EQ(shortChain.tasks.back().predecessors, (std::vector<TaskId>{11}));
  EXPECT_TRUE(dependenciesAreExact(shortChain));
  const auto longLinks = static_cast<TaskId>(2 * kImpliedEdgeSearchLinks);
  const ExecuteGraph longChain = chain(longLinks);
  EXPECT_EQ(longChain.tasks.back().predecessors, (std::vector<TaskId>{1, longLinks + 1}));
  EXPECT_TRUE(dependenciesAreExact(longChain));
}

} // namespace
} // namespace pto::testing
