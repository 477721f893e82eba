// TaskGraphLayout on hand-built traces: dot ranks every producer above its
// consumers, boxes never overlap, every dependency becomes an edge, the
// critical path's edges are marked, wide ranks wrap into rows so the picture
// keeps a screen-like aspect, and a trace bigger than the node budget is
// grouped by (program, label, depth) — titles counting tasks, subgraphs and
// programs, chains staying chains — with edge counts that add up to the
// dependencies crossing groups (counted here independently). Also the view's
// first picture (readableViewport): never below a legible scale.
#include "widgets/models/TaskGraphLayout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

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

// `count` tasks with no dependencies, each its own subgraph (softmax's rows
// after merging), labelled `label`; `programOf(i)` >= 0 is recorded as the
// task's "program" arg, as a trace that knows its programs carries it.
std::shared_ptr<trace::Trace> independentTrace(int count, const std::string& label, int (*programOf)(int)) {
  auto trace = std::make_shared<trace::Trace>();
  std::vector<trace::LaneIndex> lanes;
  for (int i = 0; i < 48; ++i) lanes.push_back(trace->addLane("AIV_" + std::to_string(i), i));
  for (int i = 0; i < count; ++i) {
    trace::Task task;
    task.lane = lanes[static_cast<std::size_t>(i % 48)];
    task.id = i;
    task.startNs = 100 * (i / 48);
    task.endNs = task.startNs + 90;
    task.subgraph = i;
    task.label = trace->intern(label);
    task.name = trace->intern(label + ": exp (sg " + std::to_string(i) + ")");
    std::vector<trace::TaskArg> args;
    if (int program = programOf(i); program >= 0)
      args.push_back({trace->intern("program"), trace->intern(std::to_string(program)), true});
    trace->addTask(task, {}, args);
  }
  trace->finalize();
  return trace;
}

int noProgram(int) { return -1; }
int programZero(int) { return 0; }
int evenOddProgram(int i) { return i % 2; }

// `chains` independent chains of `length` tasks; step s of every chain is
// labelled `labels[s % labels.size()]` and runs subgraph s % labels.size()
// (a loop body of that many subgraphs), one after another on one lane.
std::shared_ptr<trace::Trace> chainTrace(int chains, int length, const std::vector<std::string>& labels) {
  auto trace = std::make_shared<trace::Trace>();
  std::vector<trace::LaneIndex> lanes;
  for (int i = 0; i < chains; ++i) lanes.push_back(trace->addLane("AIV_" + std::to_string(i), i));
  for (int chain = 0; chain < chains; ++chain) {
    TaskIndex previous = trace::kNoTask;
    for (int step = 0; step < length; ++step) {
      trace::Task task;
      task.lane = lanes[static_cast<std::size_t>(chain)];
      task.id = chain * length + step;
      task.startNs = 10 * step;
      task.endNs = task.startNs + 10;
      std::size_t kind = static_cast<std::size_t>(step) % labels.size();
      task.subgraph = static_cast<int>(kind);
      task.label = trace->intern(labels[kind]);
      TaskIndex added = trace->addTask(task);
      if (previous != trace::kNoTask) trace->addDependency(previous, added);
      previous = added;
    }
  }
  trace->finalize();
  return trace;
}

// The most boxes sharing one row (one y) of the layout.
std::size_t widestRow(const TaskGraphLayout& layout) {
  std::map<long, std::size_t> perRow;
  for (const TaskGraphNode& node : layout.nodes) ++perRow[std::lround(node.centre.y)];
  std::size_t widest = 0;
  for (const auto& [y, count] : perRow) widest = std::max(widest, count);
  return widest;
}

bool overlap(const TaskGraphNode& a, const TaskGraphNode& b) {
  return std::abs(a.centre.x - b.centre.x) < (a.width + b.width) / 2 - 0.5 &&
         std::abs(a.centre.y - b.centre.y) < (a.height + b.height) / 2 - 0.5;
}

// How far `point` lies outside `node`'s box (0 inside).
double distanceOutside(const GraphPoint& point, const TaskGraphNode& node) {
  double dx = std::max(0.0, std::abs(point.x - node.centre.x) - node.width / 2);
  double dy = std::max(0.0, std::abs(point.y - node.centre.y) - node.height / 2);
  return std::hypot(dx, dy);
}

// Boxes inside the layout's extent and apart; every routed edge starts at
// its producer's box and ends at its consumer's (so moved parts took their
// edges along).
void expectSoundGeometry(const TaskGraphLayout& layout) {
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    const TaskGraphNode& node = layout.nodes[i];
    EXPECT_GE(node.centre.x - node.width / 2, -0.5) << i;
    EXPECT_LE(node.centre.x + node.width / 2, layout.width + 0.5) << i;
    EXPECT_GE(node.centre.y - node.height / 2, -0.5) << i;
    EXPECT_LE(node.centre.y + node.height / 2, layout.height + 0.5) << i;
    for (std::size_t j = i + 1; j < layout.nodes.size(); ++j) ASSERT_FALSE(overlap(node, layout.nodes[j])) << i << " " << j;
  }
  for (const TaskGraphEdge& edge : layout.edges) {
    if (edge.route.empty()) continue;
    EXPECT_LT(distanceOutside(edge.route.front(), layout.nodes[edge.from]), 3.0) << edge.from << " -> " << edge.to;
    EXPECT_LT(distanceOutside(edge.route.back(), layout.nodes[edge.to]), 3.0) << edge.from << " -> " << edge.to;
  }
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

TEST(TaskGraphLayout, BigTracesAreGroupedByLabelAndDepth) {
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
  // Layer 3 is subgraph 1; the trace records no programs, so the title does not count them.
  int third = layout.nodeOf(3 * 80);
  ASSERT_GE(third, 0);
  EXPECT_EQ(layout.nodes[static_cast<std::size_t>(third)].title, "layer3 · 80 tasks in subgraph 1");
  EXPECT_TRUE(layout.nodes[static_cast<std::size_t>(third)].detail.starts_with("#240–#319 · "))
      << layout.nodes[static_cast<std::size_t>(third)].detail;  // task ids, then busy time
}

// Softmax's 256 independent tasks used to be one rank 256 boxes wide (about
// 30 000 x 36 points): fitted to a window, a 2-pixel strip.
TEST(TaskGraphLayout, AWideRankWrapsIntoRowsOfAScreenLikeAspect) {
  TraceIndex index(independentTrace(256, "softmax", noProgram), "softmax");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  EXPECT_FALSE(layout.grouped);
  ASSERT_EQ(layout.nodes.size(), 256u);
  EXPECT_TRUE(layout.edges.empty());  // the rows' aids are not dependencies
  double aspect = layout.width / layout.height;
  EXPECT_GT(aspect, 0.5) << layout.width << " x " << layout.height;
  EXPECT_LT(aspect, 3.0) << layout.width << " x " << layout.height;
  EXPECT_LE(widestRow(layout), 16u);
  expectSoundGeometry(layout);
  // Read row by row, left to right, the boxes come in task order.
  for (std::size_t i = 1; i < layout.nodes.size(); ++i) {
    const GraphPoint& before = layout.nodes[i - 1].centre;
    const GraphPoint& after = layout.nodes[i].centre;
    EXPECT_TRUE(after.y > before.y + 1 || (std::abs(after.y - before.y) <= 1 && after.x > before.x)) << i;
  }
}

// Three unconnected parts — a 40-task ladder, a fan-in of 12 tasks into one,
// and 30 lone tasks — packed into one picture: nothing overlaps, every edge
// moved with its part, and the whole has about the grid's aspect (1.5).
TEST(TaskGraphLayout, UnconnectedPartsArePackedIntoAGrid) {
  auto trace = std::make_shared<trace::Trace>();
  trace::LaneIndex lane = trace->addLane("AIV_0", 0);
  auto add = [&](const std::string& label) {
    trace::Task task;
    task.lane = lane;
    task.id = static_cast<std::int64_t>(trace->tasks().size());
    task.label = trace->intern(label);
    return trace->addTask(task);
  };
  std::vector<TaskIndex> ladder;
  for (int i = 0; i < 40; ++i) {
    ladder.push_back(add("ladder"));
    if (i >= 2) trace->addDependency(ladder[static_cast<std::size_t>(i - 2)], ladder.back());
    if (i >= 1 && i % 2 == 1) trace->addDependency(ladder[static_cast<std::size_t>(i - 1)], ladder.back());
  }
  TaskIndex sink = add("sum");
  for (int i = 0; i < 12; ++i) trace->addDependency(add("load"), sink);
  for (int i = 0; i < 30; ++i) add("lone");
  trace->finalize();
  TraceIndex index(trace, "parts");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  ASSERT_EQ(layout.nodes.size(), 83u);
  EXPECT_EQ(layout.edges.size(), index.trace().edgeCount());
  for (const TaskGraphEdge& edge : layout.edges) EXPECT_GE(edge.route.size(), 4u);
  expectSoundGeometry(layout);
  double aspect = layout.width / layout.height;
  EXPECT_GT(aspect, 0.5) << layout.width << " x " << layout.height;
  EXPECT_LT(aspect, 2.5) << layout.width << " x " << layout.height;  // one strip of sources: 3.8
}

TEST(TaskGraphLayout, WrappedRanksKeepProducersAboveConsumers) {
  TraceIndex index(layeredTrace(4, 40), "layers");  // ranks of 40
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  ASSERT_EQ(layout.nodes.size(), 160u);
  EXPECT_EQ(layout.edges.size(), index.trace().edgeCount());
  EXPECT_LE(widestRow(layout), 16u);
  // Narrower than the 40-box strip a rank used to be (dependencies that skip
  // rows need room of their own, so not by the ratio of rows).
  double strip = -18.0;
  for (int i = 0; i < 40; ++i) strip += layout.nodes[static_cast<std::size_t>(i)].width + 18.0;
  EXPECT_LT(layout.width, strip);
  for (const TaskGraphEdge& edge : layout.edges)
    EXPECT_LT(layout.nodes[edge.from].centre.y, layout.nodes[edge.to].centre.y);
  expectSoundGeometry(layout);
}

// The old grouping put 1024 one-task subgraphs into one box titled with the
// first task's subgraph: "softmax · subgraph 0", "1024 tasks".
TEST(TaskGraphLayout, IsomorphicIndependentTasksFormOneGroupThatCountsSubgraphsAndPrograms) {
  TraceIndex index(independentTrace(1024, "softmax", programZero), "softmax");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  EXPECT_TRUE(layout.grouped);
  ASSERT_EQ(layout.nodes.size(), 1u);
  EXPECT_EQ(layout.nodes[0].title, "softmax · 1024 tasks in 1024 subgraphs (1 program)");
  EXPECT_TRUE(layout.nodes[0].detail.starts_with("#0–#1023 · ")) << layout.nodes[0].detail;

  // Without recorded programs the names (numbers blanked) stand in; the title claims no program count.
  TraceIndex unnamed(independentTrace(1024, "softmax", noProgram), "softmax");
  layout = layoutTaskGraph(unnamed, 300);
  ASSERT_EQ(layout.nodes.size(), 1u);
  EXPECT_EQ(layout.nodes[0].title, "softmax · 1024 tasks in 1024 subgraphs");
}

TEST(TaskGraphLayout, TasksOfDifferentProgramsAreDifferentGroups) {
  TraceIndex index(independentTrace(1024, "softmax", evenOddProgram), "softmax");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_EQ(layout.nodes.size(), 2u);
  for (const TaskGraphNode& node : layout.nodes) {
    EXPECT_EQ(node.title, "softmax · 512 tasks in 512 subgraphs (1 program)");
    for (TaskIndex task : node.tasks) EXPECT_EQ(task % 2, node.tasks.front() % 2);
  }
}

// 32 independent chains of 32 steps alternating matmul and add: a group per
// step, so the picture is one chain of 32 boxes with 32 dependencies on each edge.
TEST(TaskGraphLayout, ParallelChainsStayAChainWhenGrouped) {
  TraceIndex index(chainTrace(32, 32, {"matmul", "add"}), "chains");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  EXPECT_TRUE(layout.grouped);
  ASSERT_EQ(layout.nodes.size(), 32u);
  ASSERT_EQ(layout.edges.size(), 31u);
  for (const TaskGraphEdge& edge : layout.edges) {
    EXPECT_EQ(edge.count, 32u);
    EXPECT_LT(layout.nodes[edge.from].centre.y, layout.nodes[edge.to].centre.y);
  }
  int second = layout.nodeOf(1);  // chain 0, step 1
  ASSERT_GE(second, 0);
  EXPECT_EQ(layout.nodes[static_cast<std::size_t>(second)].title, "add · 32 tasks in subgraph 1");
}

// One chain of 1024 tasks has 1024 depths, too many groups even by (label,
// depth): bands of depths keep it a chain of a few hundred boxes, never one.
TEST(TaskGraphLayout, ALongChainIsBandedNotCollapsed) {
  TraceIndex index(chainTrace(1, 1024, {"softmax"}), "chain");
  TaskGraphLayout layout = layoutTaskGraph(index, 300);
  ASSERT_TRUE(layout.error.empty()) << layout.error;
  EXPECT_TRUE(layout.grouped);
  ASSERT_GT(layout.nodes.size(), 1u);
  ASSERT_LE(layout.nodes.size(), 300u);
  // A path: every group but the last feeds exactly the next one, downwards.
  ASSERT_EQ(layout.edges.size(), layout.nodes.size() - 1);
  std::set<std::uint32_t> sources;
  std::size_t tasks = 0;
  for (const TaskGraphNode& node : layout.nodes) tasks += node.tasks.size();
  EXPECT_EQ(tasks, 1024u);
  for (const TaskGraphEdge& edge : layout.edges) {
    EXPECT_TRUE(sources.insert(edge.from).second);
    EXPECT_EQ(edge.count, 1u);
    EXPECT_LT(layout.nodes[edge.from].centre.y, layout.nodes[edge.to].centre.y);
  }
}

// A layout of given size with one box at the top centre, for the viewport maths.
TaskGraphLayout boxLayout(double width, double height) {
  TaskGraphLayout layout;
  layout.width = width;
  layout.height = height;
  TaskGraphNode top;
  top.centre = {width / 2, 18};
  top.width = 120;
  top.height = 36;
  layout.nodes.push_back(top);
  return layout;
}

TEST(GraphViewport, ASmallGraphIsShownWholeAndCentredAtItsNaturalSize) {
  GraphViewport viewport = readableViewport(boxLayout(500, 300), 1000, 700, 16);
  EXPECT_DOUBLE_EQ(viewport.scale, 1.0);
  EXPECT_DOUBLE_EQ(viewport.offset.x, 250.0);
  EXPECT_DOUBLE_EQ(viewport.offset.y, 200.0);
}

TEST(GraphViewport, AGraphThatFitsLegiblyIsShownWhole) {
  GraphViewport viewport = readableViewport(boxLayout(1200, 800), 1000, 700, 16);
  EXPECT_NEAR(viewport.scale, 968.0 / 1200.0, 1e-9);  // the width decides, above 0.75
  EXPECT_NEAR(viewport.offset.y, (700 - 800 * viewport.scale) / 2, 1e-9);
}

TEST(GraphViewport, ATallGraphFitsItsWidthAndShowsItsTop) {
  GraphViewport viewport = readableViewport(boxLayout(900, 6000), 1000, 700, 16);
  EXPECT_DOUBLE_EQ(viewport.scale, 1.0);  // 968 / 900 would enlarge it
  EXPECT_DOUBLE_EQ(viewport.offset.x, 50.0);
  EXPECT_DOUBLE_EQ(viewport.offset.y, 16.0);
  viewport = readableViewport(boxLayout(1100, 6000), 1000, 700, 16);
  EXPECT_NEAR(viewport.scale, 968.0 / 1100.0, 1e-9);
  EXPECT_DOUBLE_EQ(viewport.offset.y, 16.0);
}

TEST(GraphViewport, AGraphTooWideToReadWholeStaysLegibleAroundItsFirstRow) {
  // 30 000 x 36: the old fit scaled this to 0.03, boxes a pixel tall.
  GraphViewport viewport = readableViewport(boxLayout(30000, 36), 1000, 700, 16);
  EXPECT_DOUBLE_EQ(viewport.scale, kLegibleGraphScale);
  EXPECT_DOUBLE_EQ(viewport.offset.y, 16.0);
  // The top box (at x = 15 000) is in the middle of the view.
  EXPECT_NEAR(viewport.offset.x + 15000 * viewport.scale, 500.0, 1e-9);
  // A first row wider than the view starts at its left end.
  TaskGraphLayout wideRow = boxLayout(30000, 36);
  wideRow.nodes[0].width = 3000;
  viewport = readableViewport(wideRow, 1000, 700, 16);
  EXPECT_DOUBLE_EQ(viewport.offset.x + (15000 - 1500) * viewport.scale, 16.0);
  // The overview shows it all, however small.
  GraphViewport whole = wholeGraphViewport(boxLayout(30000, 36), 1000, 700, 16);
  EXPECT_NEAR(whole.scale, 968.0 / 30000.0, 1e-12);
}

TEST(GraphViewport, AWideGraphKeepsTheViewCoveredAtItsEdges) {
  TaskGraphLayout layout = boxLayout(3000, 2000);
  layout.nodes[0].centre.x = 60;  // the first row at the far left
  GraphViewport viewport = readableViewport(layout, 1000, 700, 16);
  EXPECT_DOUBLE_EQ(viewport.scale, kLegibleGraphScale);
  EXPECT_DOUBLE_EQ(viewport.offset.x, 16.0);  // no empty band left of the graph
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
