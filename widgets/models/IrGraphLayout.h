// IrGraphLayout: what the graph view draws for one IR level — the visible
// items (nodes and collapsed groups, analysis/irviews/IrGraph.h) placed by
// Graphviz's dot, subgraphs as cluster boxes, edges as routes. Plain C++
// (no Qt): the window lays out on a worker thread and the view only paints.
//
// Stability: dot places nodes by rank and input order, and items are fed in
// node order (execution order) and clusters in subgraph order, so expanding
// one group or stepping to a pass that changed little moves little; the
// view keeps its viewport and selection (by node key) across such changes.
#pragma once

#include "analysis/irviews/IrGraph.h"
#include "widgets/models/TaskGraphLayout.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace pto::widgets {

struct LaidOutItem {
  GraphPoint centre;
  double width = 0.0;
  double height = 0.0;
};

struct LaidOutCluster {
  int cluster = -1;  // IrGraph::clusters index
  double left = 0.0, top = 0.0, width = 0.0, height = 0.0;
};

struct LaidOutEdge {
  int from = 0;  // item indices
  int to = 0;
  int count = 1;
  std::vector<GraphPoint> route;  // cubic Bezier as in TaskGraphEdge; may be empty
};

struct IrGraphLayout {
  std::shared_ptr<const IrGraph> graph;
  VisibleGraph visible;
  std::vector<LaidOutItem> items;  // by VisibleGraph item
  std::vector<LaidOutCluster> clusters;
  std::vector<LaidOutEdge> edges;
  double width = 0.0;
  double height = 0.0;
  std::string error;
  double layoutMs = 0.0;  // building the visible graph and dot, wall
  std::thread::id laidOutOn;  // the thread dot ran on (tests: never the GUI thread)

  // The item showing graph node `node`, or -1.
  int itemOfNode(int node) const;
  int itemWithKey(const std::string& key) const;
};

// Box size of an item from its text (the view's 9-point font).
void measureItem(const VisibleItem& item, double& width, double& height);

IrGraphLayout layoutIrGraph(std::shared_ptr<const IrGraph> graph, VisibleGraph visible,
                            const std::atomic<bool>* cancelled = nullptr);

// One IR level after one pass, as the Graphs tab asks for it.
struct IrLevelRequest {
  GraphLevel level = GraphLevel::Tile;
  std::shared_ptr<const IrJson> tensor;    // the traced kernel (PassHistory::tensor)
  std::shared_ptr<const IrJson> snapshot;  // the IR after the pass; null: before the first
  // The level already built (PyPTO's pass dumps, PassStep::graphs): laid out
  // as it is, `tensor` and `snapshot` unused.
  std::shared_ptr<const IrGraph> graph;
  std::optional<GraphGrouping> grouping;           // nullopt: the level's default
  VisibleGraphOptions options;                     // its expanded groups, expand-all and focus node
};

// Builds the level and lays out what is visible of it (run it on a worker: a
// level of ten thousand nodes takes tens of milliseconds to build; the
// Graphs tab keeps what it built in an IrLevelCache). A level
// the snapshot does not have yet comes back with only `graph` set, whose
// `missing` says why.
IrGraphLayout layoutIrLevel(const IrLevelRequest& request, const std::atomic<bool>* cancelled = nullptr);
// What of `graph` (the level `request` asks for) is shown: the level's
// default grouping unless the request names one, and the request's groups.
VisibleGraphOptions visibleOptionsOf(const IrLevelRequest& request, const IrGraph& graph);

} // namespace pto::widgets
