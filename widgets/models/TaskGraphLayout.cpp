#include "widgets/models/TaskGraphLayout.h"

#include "widgets/models/Graphviz.h"
#include "widgets/models/TimeFormat.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

namespace pto::widgets {
namespace {

// Box sizes from the text, at the view's font (about 6.5 points per
// character of a 9-point sans): dot needs sizes before anything is drawn.
// dot's gaps between boxes (points), as given to it below.
constexpr double kNodeSep = 18.0;
constexpr double kRankSep = 32.0;
// A rank wider than this many boxes wraps into rows of at most this many:
// sixteen boxes of a task's width are about a screen at a legible scale.
constexpr std::size_t kMaxRowNodes = 16;
// Unconnected parts of the graph are packed into a grid of about this
// aspect (width / height), kPackGap points apart.
constexpr double kAspect = 1.5;
constexpr double kPackGap = 18.0;

// Characters, not bytes: "·", "µ" and "–" are one glyph wide.
std::size_t glyphs(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Longest chain of producers above each task (0: no producer), so a task is
// always deeper than everything it waits for. Tasks on a dependency cycle (a
// malformed trace) keep the depth reached before the cycle.
std::vector<int> dependencyDepths(const TraceIndex& index) {
  const trace::Trace& trace = index.trace();
  std::vector<int> depth(trace.tasks().size(), 0);
  std::vector<std::uint32_t> waiting(trace.tasks().size());
  std::deque<TaskIndex> ready;
  for (TaskIndex task = 0; task < trace.tasks().size(); ++task) {
    waiting[task] = static_cast<std::uint32_t>(trace.predecessors(task).size());
    if (waiting[task] == 0) ready.push_back(task);
  }
  while (!ready.empty()) {
    TaskIndex task = ready.front();
    ready.pop_front();
    for (TaskIndex consumer : index.successors(task)) {
      depth[consumer] = std::max(depth[consumer], depth[task] + 1);
      if (--waiting[consumer] == 0) ready.push_back(consumer);
    }
  }
  return depth;
}

// Each task's program as a small integer (see layoutTaskGraph's contract),
// and whether the trace recorded the programs or they were inferred.
struct Programs {
  std::vector<int> ofTask;
  bool recorded = false;
};

Programs programsOf(const trace::Trace& trace) {
  Programs programs;
  programs.ofTask.resize(trace.tasks().size());
  std::map<std::string, int> ids;
  std::string key;
  for (TaskIndex task = 0; task < trace.tasks().size(); ++task) {
    const trace::Task& t = trace.tasks()[task];
    key.clear();
    for (const trace::TaskArg& arg : trace.args(task))
      if (trace.str(arg.key) == "program") {
        key = "p" + std::string(trace.str(arg.value));
        programs.recorded = true;
      }
    if (key.empty()) {
      // "softmax: exp (sg 3)" and "softmax: exp (sg 7)" run the same code;
      // so do PyPTO's "3-f-exp-0-1(softmax)" and "9-f-exp-0-4(softmax)".
      key = "i" + std::string(name(trace.lanes()[t.lane].kind)) + '\x1f' + std::to_string(t.label) + '\x1f' +
            std::to_string(t.sourceLine) + '\x1f';
      bool inNumber = false;
      for (char c : trace.str(t.name)) {
        bool digit = c >= '0' && c <= '9';
        if (!digit) key += c;
        else if (!inNumber) key += '#';
        inNumber = digit;
      }
    }
    programs.ofTask[task] = ids.emplace(key, static_cast<int>(ids.size())).first->second;
  }
  return programs;
}

struct Grouping {
  std::vector<int> nodeOfTask;
  std::size_t nodes = 0;
};

// Tasks → nodes by key; nodes numbered in the order of their first task.
template <typename Key> Grouping groupBy(std::size_t tasks, Key key) {
  Grouping grouping;
  std::map<decltype(key(TaskIndex{0})), int> ids;
  grouping.nodeOfTask.resize(tasks);
  for (TaskIndex task = 0; task < tasks; ++task)
    grouping.nodeOfTask[task] = ids.emplace(key(task), static_cast<int>(ids.size())).first->second;
  grouping.nodes = ids.size();
  return grouping;
}

Grouping groupTasks(const TraceIndex& index, std::size_t maxNodes, const Programs& programs) {
  const trace::Trace& trace = index.trace();
  std::size_t tasks = trace.tasks().size();
  std::vector<int> depth = dependencyDepths(index);
  auto label = [&](TaskIndex task) { return trace.tasks()[task].label; };
  Grouping grouping =
      groupBy(tasks, [&](TaskIndex task) { return std::tuple{programs.ofTask[task], label(task), depth[task]}; });
  if (grouping.nodes > maxNodes)
    grouping = groupBy(tasks, [&](TaskIndex task) { return std::pair{label(task), depth[task]}; });
  // Bands of depths: a long chain becomes a shorter chain of groups. Once a
  // band spans every depth this is grouping by label alone.
  int deepest = tasks ? *std::max_element(depth.begin(), depth.end()) : 0;
  for (int band = 2; grouping.nodes > maxNodes && band / 2 <= deepest; band *= 2)
    grouping = groupBy(tasks, [&](TaskIndex task) { return std::pair{label(task), depth[task] / band}; });
  return grouping;
}

std::string plural(std::size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// How the picture keeps a screen-like shape. Nothing here adds or drops a
// dependency: rows only guide dot, and packing only moves finished parts.
//
// Parts: the graph's unconnected parts (softmax's 256 independent tasks are
// 256 parts) are laid out together, then packed into a grid (packParts).
//
// Rows: ranks are longest paths over the dependency edges (cycles between
// groups are cut where they close). A rank wider than kMaxRowNodes becomes
// several rows — its k-th node (in task order) below its (k - row)-th — and
// in a part with such a rank every rank is pinned to its rows, each rank
// starting below the last row of the one before, so one rank's rows never
// interleave with the next rank's.
struct ShapePlan {
  std::vector<std::size_t> partOfNode;  // parts numbered in the order of their first node
  std::size_t parts = 0;
  std::vector<std::size_t> rowOfNode;   // numbered over all parts; kNoRow: dot ranks it freely
  std::size_t rows = 0;
  std::vector<std::pair<std::size_t, std::size_t>> rowOrder;  // (above, below): row r's first node over row r+1's
  std::vector<std::pair<std::size_t, std::size_t>> columns;   // (above, below): a wrapped rank's columns stay straight
  static constexpr std::size_t kNoRow = ~std::size_t{0};
};

ShapePlan planShape(const TaskGraphLayout& layout) {
  std::size_t count = layout.nodes.size();
  ShapePlan plan;

  // Parts: union-find over the edges.
  std::vector<std::size_t> parent(count);
  for (std::size_t n = 0; n < count; ++n) parent[n] = n;
  auto root = [&](std::size_t n) {
    while (parent[n] != n) n = parent[n] = parent[parent[n]];
    return n;
  };
  for (const TaskGraphEdge& edge : layout.edges) {
    std::size_t a = root(edge.from);
    std::size_t b = root(edge.to);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
  std::map<std::size_t, std::size_t> partOfRoot;
  plan.partOfNode.resize(count);
  for (std::size_t n = 0; n < count; ++n)
    plan.partOfNode[n] = partOfRoot.emplace(root(n), partOfRoot.size()).first->second;
  plan.parts = partOfRoot.size();

  // Ranks: longest paths.
  std::vector<std::vector<std::size_t>> consumers(count);
  std::vector<std::uint32_t> waiting(count, 0);
  for (const TaskGraphEdge& edge : layout.edges) {
    consumers[edge.from].push_back(edge.to);
    ++waiting[edge.to];
  }
  std::vector<std::size_t> rank(count, 0);
  std::deque<std::size_t> ready;
  for (std::size_t n = 0; n < count; ++n)
    if (waiting[n] == 0) ready.push_back(n);
  while (!ready.empty()) {
    std::size_t node = ready.front();
    ready.pop_front();
    for (std::size_t consumer : consumers[node]) {
      rank[consumer] = std::max(rank[consumer], rank[node] + 1);
      if (--waiting[consumer] == 0) ready.push_back(consumer);
    }
  }

  // Rows, in the parts that have a wide rank.
  std::vector<std::map<std::size_t, std::vector<std::size_t>>> ranksOfPart(plan.parts);  // nodes in task order
  for (std::size_t n = 0; n < count; ++n) ranksOfPart[plan.partOfNode[n]][rank[n]].push_back(n);
  plan.rowOfNode.assign(count, ShapePlan::kNoRow);
  for (const auto& ranks : ranksOfPart) {
    bool wide = std::any_of(ranks.begin(), ranks.end(), [](const auto& r) { return r.second.size() > kMaxRowNodes; });
    if (!wide) continue;
    std::size_t firstOfRowAbove = ShapePlan::kNoRow;
    for (const auto& [r, nodes] : ranks) {
      std::size_t rows = (nodes.size() + kMaxRowNodes - 1) / kMaxRowNodes;
      std::size_t row = (nodes.size() + rows - 1) / rows;  // balanced: 17 nodes make rows of 9 and 8, not 16 and 1
      for (std::size_t k = 0; k < nodes.size(); ++k) {
        plan.rowOfNode[nodes[k]] = plan.rows + k / row;
        if (k >= row) plan.columns.emplace_back(nodes[k - row], nodes[k]);
        if (k % row == 0) {
          if (firstOfRowAbove != ShapePlan::kNoRow) plan.rowOrder.emplace_back(firstOfRowAbove, nodes[k]);
          firstOfRowAbove = nodes[k];
        }
      }
      plan.rows += rows;
    }
  }
  return plan;
}

// Moves the parts dot laid out side by side into a grid: in task order, row
// by row, each grid column as wide as its widest part and each grid row as
// tall as its tallest, parts centred in their column and at the top of their
// row, with as many columns as bring the whole closest to kAspect.
void packParts(TaskGraphLayout& layout, const ShapePlan& plan) {
  struct Box {
    double left = 1e300, top = 1e300, right = -1e300, bottom = -1e300;
    void add(double x, double y) {
      left = std::min(left, x);
      right = std::max(right, x);
      top = std::min(top, y);
      bottom = std::max(bottom, y);
    }
  };
  std::vector<Box> boxes(plan.parts);
  for (std::size_t n = 0; n < layout.nodes.size(); ++n) {
    const TaskGraphNode& node = layout.nodes[n];
    Box& box = boxes[plan.partOfNode[n]];
    box.add(node.centre.x - node.width / 2, node.centre.y - node.height / 2);
    box.add(node.centre.x + node.width / 2, node.centre.y + node.height / 2);
  }
  for (const TaskGraphEdge& edge : layout.edges)
    for (const GraphPoint& point : edge.route) boxes[plan.partOfNode[edge.from]].add(point.x, point.y);

  // Cells: a part and its gap.
  auto cellWidth = [&](std::size_t p) { return boxes[p].right - boxes[p].left + kPackGap; };
  auto cellHeight = [&](std::size_t p) { return boxes[p].bottom - boxes[p].top + kPackGap; };
  auto gridSize = [&](std::size_t columns, std::vector<double>& columnWidth, std::vector<double>& rowHeight) {
    columnWidth.assign(columns, 0.0);
    rowHeight.assign((plan.parts + columns - 1) / columns, 0.0);
    for (std::size_t p = 0; p < plan.parts; ++p) {
      columnWidth[p % columns] = std::max(columnWidth[p % columns], cellWidth(p));
      rowHeight[p / columns] = std::max(rowHeight[p / columns], cellHeight(p));
    }
  };
  std::vector<double> columnWidth, rowHeight;
  std::size_t bestColumns = 1;
  double bestError = 1e300;
  for (std::size_t columns = 1; columns <= plan.parts; ++columns) {
    gridSize(columns, columnWidth, rowHeight);
    double width = 0, height = 0;
    for (double w : columnWidth) width += w;
    for (double h : rowHeight) height += h;
    double error = std::abs(std::log(width / height / kAspect));
    if (error < bestError) {
      bestError = error;
      bestColumns = columns;
    }
  }
  gridSize(bestColumns, columnWidth, rowHeight);
  std::vector<double> columnLeft(bestColumns + 1, 0.0), rowTop(rowHeight.size() + 1, 0.0);
  for (std::size_t c = 0; c < bestColumns; ++c) columnLeft[c + 1] = columnLeft[c] + columnWidth[c];
  for (std::size_t r = 0; r < rowHeight.size(); ++r) rowTop[r + 1] = rowTop[r] + rowHeight[r];

  std::vector<GraphPoint> shift(plan.parts);
  for (std::size_t p = 0; p < plan.parts; ++p) {
    std::size_t c = p % bestColumns;
    double left = columnLeft[c] + (columnWidth[c] - cellWidth(p)) / 2;  // centred in its column
    shift[p] = {left - boxes[p].left, rowTop[p / bestColumns] - boxes[p].top};
  }
  for (std::size_t n = 0; n < layout.nodes.size(); ++n) {
    const GraphPoint& by = shift[plan.partOfNode[n]];
    layout.nodes[n].centre.x += by.x;
    layout.nodes[n].centre.y += by.y;
  }
  for (TaskGraphEdge& edge : layout.edges)
    for (GraphPoint& point : edge.route) {
      point.x += shift[plan.partOfNode[edge.from]].x;
      point.y += shift[plan.partOfNode[edge.from]].y;
    }
  // The last gap is not part of the picture.
  layout.width = columnLeft.back() - kPackGap;
  layout.height = rowTop.back() - kPackGap;
}

} // namespace

int TaskGraphLayout::nodeOf(trace::TaskIndex task) const {
  return task < taskToNode.size() ? taskToNode[task] : -1;
}

TaskGraphLayout layoutTaskGraph(const TraceIndex& index, std::size_t maxNodes, const std::atomic<bool>* cancelled) {
  auto started = std::chrono::steady_clock::now();
  const trace::Trace& trace = index.trace();
  TaskGraphLayout layout;
  if (trace.tasks().empty()) return layout;

  Grouping grouping;
  Programs programs;
  if (trace.tasks().size() <= maxNodes) {
    grouping.nodeOfTask.resize(trace.tasks().size());
    for (std::size_t task = 0; task < trace.tasks().size(); ++task) grouping.nodeOfTask[task] = static_cast<int>(task);
    grouping.nodes = trace.tasks().size();
  } else {
    layout.grouped = true;
    programs = programsOf(trace);
    grouping = groupTasks(index, maxNodes, programs);
  }
  layout.taskToNode = grouping.nodeOfTask;
  if (cancelled && cancelled->load()) return {};

  layout.nodes.resize(grouping.nodes);
  std::vector<std::int64_t> busyNs(grouping.nodes, 0);
  for (std::size_t task = 0; task < trace.tasks().size(); ++task) {
    TaskGraphNode& node = layout.nodes[static_cast<std::size_t>(grouping.nodeOfTask[task])];
    node.tasks.push_back(static_cast<trace::TaskIndex>(task));
    node.critical = node.critical || index.onCriticalPath(static_cast<trace::TaskIndex>(task));
    busyNs[static_cast<std::size_t>(grouping.nodeOfTask[task])] += trace.tasks()[task].durNs();
  }
  for (std::size_t n = 0; n < layout.nodes.size(); ++n) {
    TaskGraphNode& node = layout.nodes[n];
    const trace::Task& first = trace.tasks()[node.tasks.front()];
    node.label = std::string(trace.str(first.label));
    node.subgraph = first.subgraph;
    std::string label = node.label.empty() ? std::string("(no label)") : node.label;
    if (node.tasks.size() == 1) {  // a task, grouped or not
      node.title = "#" + std::to_string(first.id) + " " + label;
      node.detail = std::string(trace.str(trace.lanes()[first.lane].name)) + " · " +
                    formatDurationNs(static_cast<double>(first.durNs()));
    } else {
      std::set<int> subgraphs;
      std::set<int> nodePrograms;
      std::int64_t firstId = first.id;
      std::int64_t lastId = first.id;
      for (trace::TaskIndex task : node.tasks) {
        const trace::Task& t = trace.tasks()[task];
        if (t.subgraph >= 0) subgraphs.insert(t.subgraph);
        nodePrograms.insert(programs.ofTask[task]);
        firstId = std::min(firstId, t.id);
        lastId = std::max(lastId, t.id);
      }
      // "softmax · 1024 tasks in 1024 subgraphs (1 program)"
      node.title = label + " · " + plural(node.tasks.size(), "task", "tasks");
      if (subgraphs.size() == 1) node.title += " in subgraph " + std::to_string(*subgraphs.begin());
      else if (subgraphs.size() > 1) node.title += " in " + plural(subgraphs.size(), "subgraph", "subgraphs");
      if (programs.recorded) node.title += " (" + plural(nodePrograms.size(), "program", "programs") + ")";
      node.detail = "#" + std::to_string(firstId) + "–#" + std::to_string(lastId) + " · " +
                    formatDurationNs(static_cast<double>(busyNs[n])) + " busy";
    }
    node.width = kNodePadding + kNodeCharWidth * static_cast<double>(std::max(glyphs(node.title), glyphs(node.detail)));
    node.height = kNodeHeight;
  }

  // Edges between nodes, counted; the critical path's consecutive pairs mark theirs.
  std::set<std::pair<trace::TaskIndex, trace::TaskIndex>> criticalPairs;
  const auto& path = index.criticalPath();
  for (std::size_t i = 1; i < path.size(); ++i) criticalPairs.emplace(path[i - 1], path[i]);
  std::map<std::pair<int, int>, std::size_t> edgeIds;
  for (std::size_t task = 0; task < trace.tasks().size(); ++task) {
    int to = grouping.nodeOfTask[task];
    for (trace::TaskIndex pred : trace.predecessors(static_cast<trace::TaskIndex>(task))) {
      int from = grouping.nodeOfTask[pred];
      if (from == to) continue;  // inside a group
      auto [slot, added] = edgeIds.emplace(std::pair{from, to}, layout.edges.size());
      if (added) layout.edges.push_back({static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to), 0, false, {}});
      TaskGraphEdge& edge = layout.edges[slot->second];
      ++edge.count;
      edge.critical = edge.critical || criticalPairs.count({pred, static_cast<trace::TaskIndex>(task)}) > 0;
    }
  }
  ShapePlan shape = planShape(layout);
  if (cancelled && cancelled->load()) return {};

  std::lock_guard lock(graphvizLock());
  GVC_t* context = graphvizContext();
  Agraph_t* graph = agopen(graphvizText("tasks"), Agdirected, nullptr);
  std::string nodeSep = graphvizInches(kNodeSep);
  std::string rankSep = graphvizInches(kRankSep);
  agattr(graph, AGRAPH, graphvizText("rankdir"), graphvizText("TB"));
  agattr(graph, AGRAPH, graphvizText("nodesep"), nodeSep.data());
  agattr(graph, AGRAPH, graphvizText("ranksep"), rankSep.data());
  agattr(graph, AGNODE, graphvizText("shape"), graphvizText("box"));
  agattr(graph, AGNODE, graphvizText("fixedsize"), graphvizText("true"));
  agattr(graph, AGNODE, graphvizText("width"), graphvizText("1"));
  agattr(graph, AGNODE, graphvizText("height"), graphvizText("0.5"));
  agattr(graph, AGNODE, graphvizText("label"), graphvizText(""));
  agattr(graph, AGEDGE, graphvizText("style"), graphvizText(""));
  std::vector<Agnode_t*> gvNodes(layout.nodes.size());
  for (std::size_t n = 0; n < layout.nodes.size(); ++n) {
    std::string name = "n" + std::to_string(n);
    gvNodes[n] = agnode(graph, name.data(), 1);
    std::string width = graphvizInches(layout.nodes[n].width);
    std::string height = graphvizInches(layout.nodes[n].height);
    agset(gvNodes[n], graphvizText("width"), width.data());
    agset(gvNodes[n], graphvizText("height"), height.data());
  }
  std::vector<Agedge_t*> gvEdges(layout.edges.size());
  for (std::size_t e = 0; e < layout.edges.size(); ++e)
    gvEdges[e] = agedge(graph, gvNodes[layout.edges[e].from], gvNodes[layout.edges[e].to], nullptr, 1);
  // The shape plan's guides. Invisible edges are named, so one parallel to a
  // dependency is a second edge.
  auto invisibleEdge = [&](std::size_t above, std::size_t below, const char* kind) {
    std::string name = kind + std::to_string(above) + "_" + std::to_string(below);
    Agedge_t* edge = agedge(graph, gvNodes[above], gvNodes[below], name.data(), 1);
    agset(edge, graphvizText("style"), graphvizText("invis"));
  };
  std::vector<std::vector<std::size_t>> nodesOfRow(shape.rows);
  for (std::size_t n = 0; n < layout.nodes.size(); ++n)
    if (shape.rowOfNode[n] != ShapePlan::kNoRow) nodesOfRow[shape.rowOfNode[n]].push_back(n);
  for (std::size_t row = 0; row < shape.rows; ++row) {
    std::string name = "row" + std::to_string(row);
    Agraph_t* sameRank = agsubg(graph, name.data(), 1);
    agsafeset(sameRank, graphvizText("rank"), graphvizText("same"), graphvizText(""));
    for (std::size_t n : nodesOfRow[row]) agsubnode(sameRank, gvNodes[n], 1);
  }
  for (const auto& [above, below] : shape.rowOrder) invisibleEdge(above, below, "r");
  for (const auto& [above, below] : shape.columns) invisibleEdge(above, below, "c");

  if (const std::optional<boxf> laidOut = layOutWithDot(context, graph); !laidOut) {
    layout = {};
    layout.error = "Graphviz could not lay out the task graph (is the graphviz package installed?)";
  } else {
    const boxf& box = *laidOut;
    layout.width = boxWidth(box);
    layout.height = boxHeight(box);
    auto flip = [&](pointf p) { return fromGraphviz(p, box); };
    for (std::size_t n = 0; n < layout.nodes.size(); ++n) layout.nodes[n].centre = flip(ND_coord(gvNodes[n]));
    for (std::size_t e = 0; e < layout.edges.size(); ++e) layout.edges[e].route = edgeRoute(gvEdges[e], box);
    gvFreeLayout(context, graph);
    if (shape.parts > 1) packParts(layout, shape);
  }
  agclose(graph);
  layout.layoutMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return layout;
}

GraphViewport wholeGraphViewport(const TaskGraphLayout& layout, double viewWidth, double viewHeight, double margin,
                                 double minScale) {
  GraphViewport viewport;
  double sx = (viewWidth - 2 * margin) / std::max(1.0, layout.width);
  double sy = (viewHeight - 2 * margin) / std::max(1.0, layout.height);
  viewport.scale = std::max({minScale, 1e-6, std::min({sx, sy, 1.0})});
  viewport.offset = {std::max(margin, (viewWidth - layout.width * viewport.scale) / 2),
                     std::max(margin, (viewHeight - layout.height * viewport.scale) / 2)};
  return viewport;
}

GraphViewport readableViewport(const TaskGraphLayout& layout, double viewWidth, double viewHeight, double margin,
                               double legibleScale) {
  GraphViewport whole = wholeGraphViewport(layout, viewWidth, viewHeight, margin);
  if (whole.scale >= legibleScale || layout.nodes.empty()) return whole;
  GraphViewport viewport;
  double widthScale = (viewWidth - 2 * margin) / std::max(1.0, layout.width);
  viewport.scale = std::clamp(widthScale, legibleScale, std::max(1.0, legibleScale));
  double shownWidth = layout.width * viewport.scale;
  if (shownWidth <= viewWidth - 2 * margin) {
    viewport.offset.x = (viewWidth - shownWidth) / 2;
  } else {
    // Centre on the first row (the graph's sources), keeping the view covered.
    double top = layout.nodes.front().centre.y;
    for (const TaskGraphNode& node : layout.nodes) top = std::min(top, node.centre.y);
    double left = layout.width;
    double right = 0;
    for (const TaskGraphNode& node : layout.nodes)
      if (node.centre.y <= top + 0.5) {
        left = std::min(left, node.centre.x - node.width / 2);
        right = std::max(right, node.centre.x + node.width / 2);
      }
    // A first row wider than the view starts at its left end (task #0).
    double x = (right - left) * viewport.scale > viewWidth - 2 * margin ? margin - left * viewport.scale
                                                                        : viewWidth / 2 - (left + right) / 2 * viewport.scale;
    viewport.offset.x = std::clamp(x, viewWidth - margin - shownWidth, margin);
  }
  viewport.offset.y = margin;
  return viewport;
}

} // namespace pto::widgets
