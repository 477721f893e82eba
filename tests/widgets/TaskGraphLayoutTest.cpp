// TaskGraphLayout on hand-built traces: dot ranks every producer above its
// consumers, boxes never overlap, every dependency becomes an edge, the
// critical path's edges are marked, and a trace bigger than the node budget
// is grouped by (subgraph, label) with edge counts that add up to the
// dependencies crossing groups (counted here independently).
#include "widgets/models/TaskGraphLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

namespace pto::widgets {
namespace {

using trace::TaskIndex;

// A layered DAG: `layers` layers of `width` tasks; each task depends on the
// task below-left and below-right in the previous layer. Label per layer,
// subgraph = layer % 2. Column i runs on lane AIV_i, layer L at [10L, 10L+10),
// so the critical path follows dependencies, not a lane's queue.
std::shared_ptr<trace::Trace> layeredTrace(int layers, int width) {
  auto trace = std::make_shared<trace::Trace>();
  std::vector<trace::LaneIndex> lanes;
  for (int i = 0; i < width; ++i) lanes.push_back(trace->addLane("AIV_" + std::to_string(i), i));
  std::vector<std::vector<TaskIndex>> ids(static_cast<std::size_t>(layers));
  for (int layer = 0; layer < layers; ++layer)
    for (int i = 0; i < width; ++i) {
      trace::Task task;
      task.lane = lanes[static_cast<std::size_t>(i)];
      task.id = layer * width + i;
      task.startNs = 10 * layer;
      task.endNs = 10 * layer + 10;
      task.subgraph = layer % 2;
      task.label = trace->intern("layer" + std::to_string(layer));
      TaskIndex added = trace->addTask(task);
      ids[static_cast<std::size_t>(layer)].push_back(added);
      if (layer > 0) {
        const auto& below = ids[static_cast<std::size_t>(layer - 1)];
        trace->addDependency(below[static_cast<std::size_t>(i)], added);
        if (i + 1 < width) trace->addDependency(below[static_cast<std::size_t>(i + 1)], added);
      }
    }
  trace->finalize();
  return trace;
}

bool overlap(const TaskGraphNode& a, const TaskGraphNode& b) {
  return std::abs(a.centre.x - b.centre.x) < (a.width + b.width) / 2 - 0.5 &&
         std::abs(a.centre.y - b.centre.y) < (a.height + b.height) / 2 - 0.5;
}

TEST(TaskGraphLayout, ProducersAreAboveConsumersAndBoxesDoNotOverlap) {
  TraceIndex index(layeredTrace(5, 6), "layers");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  EXPECT_FALSE(layout.grouped);
  ASSERT_EQ(layout.nodes.size(), 30u);
  EXPECT_EQ(layout.edges.size(), index.trace().edgeCount());  // 4 layers x (6 + 5)
  EXPECT_EQ(layout.edges.size(), 44u);
  for (const TaskGraphEdge& edge : layout.edges) {
    EXPECT_LT(layout.nodes[edge.from].centre.y, layout.nodes[edge.to].centre.y);
    EXPECT_GE(edge.route.size(), 4u);  // a routed Bezier, not a fallback line
  }
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    const TaskGraphNode& node = layout.nodes[i];
    EXPECT_GE(node.centre.x - node.width / 2, -0.5);
    EXPECT_LE(node.centre.x + node.width / 2, layout.width + 0.5);
    EXPECT_GE(node.centre.y - node.height / 2, -0.5);
    EXPECT_LE(node.centre.y + node.height / 2, layout.height + 0.5);
    for (std::size_t j = i + 1; j < layout.nodes.size(); ++j) EXPECT_FALSE(overlap(node, layout.nodes[j])) << i << " " << j;
    EXPECT_EQ(layout.nodeOf(node.tasks.front()), static_cast<int>(i));
  }
}

TEST(TaskGraphLayout, CriticalPathEdgesAreMarked) {
  TraceIndex index(layeredTrace(4, 3), "layers");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  const auto& path = index.criticalPath();
  ASSERT_GE(path.size(), 2u);
  ASSERT_EQ(path.size(), 4u);  // one task per layer
  std::set<std::pair<int, int>> expected;
  for (std::size_t i = 1; i < path.size(); ++i) {
    auto preds = index.trace().predecessors(path[i]);
    ASSERT_NE(std::find(preds.begin(), preds.end(), path[i - 1]), preds.end());  // a dependency, not a lane wait
    expected.emplace(layout.nodeOf(path[i - 1]), layout.nodeOf(path[i]));
  }
  std::set<std::pair<int, int>> marked;
  for (const TaskGraphEdge& edge : layout.edges)
    if (edge.critical) marked.emplace(static_cast<int>(edge.from), static_cast<int>(edge.to));
  EXPECT_EQ(marked, expected);
}

TEST(TaskGraphLayout, BigTracesAreGroupedBySubgraphAndLabel) {
  TraceIndex index(layeredTrace(6, 80), "layers");  // 480 tasks > 300
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  EXPECT_TRUE(layout.grouped);
  ASSERT_EQ(layout.nodes.size(), 6u);  // one label per layer
  std::size_t tasks = 0;
  for (const TaskGraphNode& node : layout.nodes) tasks += node.tasks.size();
  EXPECT_EQ(tasks, 480u);
  // Every dependency crosses from layer L to L+1: 5 group edges, each standing for 80 + 79 dependencies.
  ASSERT_EQ(layout.edges.size(), 5u);
  for (const TaskGraphEdge& edge : layout.edges) {
    EXPECT_EQ(edge.count, 159u);
    EXPECT_LT(layout.nodes[edge.from].centre.y, layout.nodes[edge.to].centre.y);
  }
}

TEST(TaskGraphLayout, EmptyTraceGivesAnEmptyLayout) {
  auto trace = std::make_shared<trace::Trace>();
  trace->finalize();
  TraceIndex index(trace, "empty");
  TaskGraphLayout layout = layoutTaskGraph(index);
  EXPECT_TRUE(layout.nodes.empty());
  EXPECT_TRUE(layout.error.empty());
}

} // namespace
} // namespace pto::widgets
