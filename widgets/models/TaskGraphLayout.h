// The task graph of a trace, laid out by Graphviz's dot for the IDE's graph
// view: nodes are tasks (or, for big traces, groups of tasks of one label and
// subgraph), edges their dependencies, ranked top to bottom so a producer is
// above its consumers. Plain C++ (no Qt): the window computes it on a worker
// thread, the view only paints it.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace pto::widgets {

struct GraphPoint {
  double x = 0.0;
  double y = 0.0;  // points, y grows downwards
};

struct TaskGraphNode {
  std::vector<trace::TaskIndex> tasks;  // one task, or the tasks of a group
  std::string title;                    // "#12 softmax" or "softmax · subgraph 3"
  std::string detail;                   // "AIV_3 · 1.20 µs" or "32 tasks · 38.4 µs busy"
  std::string label;                    // the semantic label, for the colour
  int subgraph = -1;
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
  std::vector<TaskGraphEdge> edges;
  double width = 0.0;
  double height = 0.0;
  bool grouped = false;  // nodes are groups of tasks, not single tasks
  std::string error;     // set when the layout failed (nodes then empty)
  double layoutMs = 0.0;
  // The node holding `task`, or -1.
  int nodeOf(trace::TaskIndex task) const;
  std::vector<int> taskToNode;  // by task index
};

// Above `maxNodes` tasks the graph is grouped: one node per (subgraph, label),
// then per label if that is still too many. dot grows faster than linearly,
// and a picture of ten thousand boxes explains nothing.
TaskGraphLayout layoutTaskGraph(const TraceIndex& index, std::size_t maxNodes = 300,
                                const std::atomic<bool>* cancelled = nullptr);

} // namespace pto::widgets
