// The task graph of a trace, laid out by Graphviz's dot for the IDE's graph
// view: nodes are tasks (or, for big traces, groups of tasks that run the
// same code at the same dependency depth), edges their dependencies, ranked
// top to bottom so a producer is above its consumers. The picture keeps a
// screen-like shape: ranks wider than sixteen boxes wrap into rows, and
// unconnected parts (independent tasks) are packed into a grid in task
// order. Plain C++ (no Qt): the window computes it on a worker thread, the
// view only paints it; readableViewport says where the view starts.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace pto::widgets {

// A node box of the graph views: its width grows with its longest text line
// (kNodeCharWidth per character, plus kNodePadding), its height is fixed.
inline constexpr double kNodeCharWidth = 6.6;
inline constexpr double kNodeHeight = 36.0;
inline constexpr double kNodePadding = 18.0;

struct GraphPoint {
  double x = 0.0;
  double y = 0.0;  // points, y grows downwards
};

struct TaskGraphNode {
  std::vector<trace::TaskIndex> tasks;  // one task, or the tasks of a group
  // "#12 softmax", or for a group "softmax · 1024 tasks in 1024 subgraphs (1 program)"
  std::string title;
  // "AIV_3 · 1.20 µs", or for a group "#0–#1023 · 38.4 µs busy" (task ids)
  std::string detail;
  std::string label;                    // the semantic label, for the colour
  int subgraph = -1;                    // of the first task
  bool critical = false;                // holds a task on the critical path
  GraphPoint centre;
  double width = 0.0;
  double height = 0.0;
};

struct TaskGraphEdge {
  std::uint32_t from = 0;  // node indices
  std::uint32_t to = 0;
  std::uint32_t count = 1;  // task dependencies this edge stands for (groups)
  bool critical = false;    // both ends hold consecutive critical-path tasks
  // Cubic Bezier: start, then (control, control, end) triples; may be empty
  // when the layout gave no route (the view then draws a straight line).
  std::vector<GraphPoint> route;
};

struct TaskGraphLayout {
  std::vector<TaskGraphNode> nodes;
  std::vector<TaskGraphEdge> edges;  // dependencies only (not the layout's row-wrapping aids)
  double width = 0.0;
  double height = 0.0;
  bool grouped = false;  // nodes are groups of tasks, not single tasks
  std::string error;     // set when the layout failed (nodes then empty)
  double layoutMs = 0.0;
  // The node holding `task`, or -1.
  int nodeOf(trace::TaskIndex task) const;
  std::vector<int> taskToNode;  // by task index
};

// Up to `maxNodes` tasks, one node per task. Above, the graph is grouped,
// finest first while the groups number more than `maxNodes`:
//   1. by (program, label, dependency depth): isomorphic tasks side by side
//      in the picture form one group, and a chain stays a chain;
//   2. by (label, depth);
//   3. by (label, band of depths), the band doubling until few enough.
// A "program" is the trace's `program` task arg when it records one (the
// compiler's isomorphism class); otherwise tasks of one label, core kind and
// source line whose names agree with their numbers blanked. Titles count a
// group's subgraphs, and its programs when the trace records them.
// dot grows faster than linearly, and a picture of ten thousand boxes
// explains nothing.
TaskGraphLayout layoutTaskGraph(const TraceIndex& index, std::size_t maxNodes = 300,
                                const std::atomic<bool>* cancelled = nullptr);

// Where the view puts a layout: widget position = offset + scale * graph point.
struct GraphViewport {
  double scale = 1.0;
  GraphPoint offset;
};

// Below this scale the view's 9-point box titles shrink under ~9 pixels and
// stop being readable.
inline constexpr double kLegibleGraphScale = 0.75;

// The first picture of a layout in a view of the given size (pixels), with
// `margin` pixels kept free at the edges: the whole graph, centred and never
// enlarged, when it fits at a legible scale; otherwise its full width if that
// fits legibly, else the legible scale, showing the top of the graph centred
// on its first row (or from its left end, if the first row is wider than the view).
GraphViewport readableViewport(const TaskGraphLayout& layout, double viewWidth, double viewHeight, double margin,
                               double legibleScale = kLegibleGraphScale);
// The whole graph, centred and never enlarged (the overview); a graph too
// big even at `minScale` shows its top left corner at that scale.
GraphViewport wholeGraphViewport(const TaskGraphLayout& layout, double viewWidth, double viewHeight, double margin,
                                 double minScale = 0.0);

} // namespace pto::widgets
