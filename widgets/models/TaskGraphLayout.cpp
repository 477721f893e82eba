#include "widgets/models/TaskGraphLayout.h"

#include "widgets/models/TimeFormat.h"

#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

namespace pto::widgets {
namespace {

// Graphviz keeps global state (the dot layout's statics, cgraph's
// dictionaries): one layout at a time in the process.
std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// Box sizes from the text, at the view's font (about 6.5 points per
// character of a 9-point sans): dot needs sizes before anything is drawn.
constexpr double kCharWidth = 6.6;
constexpr double kNodeHeight = 36.0;
constexpr double kPadding = 18.0;

char* mutableText(const char* text) { return const_cast<char*>(text); }

std::string inches(double points) { return std::to_string(points / 72.0); }

struct Grouping {
  std::vector<int> nodeOfTask;
  std::size_t nodes = 0;
};

// Tasks → nodes: one each when few enough, else by key.
template <typename Key> Grouping groupBy(const trace::Trace& trace, Key key) {
  Grouping grouping;
  std::map<decltype(key(trace.tasks()[0])), int> ids;
  grouping.nodeOfTask.resize(trace.tasks().size());
  for (std::size_t task = 0; task < trace.tasks().size(); ++task) {
    auto [slot, added] = ids.emplace(key(trace.tasks()[task]), static_cast<int>(ids.size()));
    grouping.nodeOfTask[task] = slot->second;
  }
  grouping.nodes = ids.size();
  return grouping;
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
  if (trace.tasks().size() <= maxNodes) {
    grouping.nodeOfTask.resize(trace.tasks().size());
    for (std::size_t task = 0; task < trace.tasks().size(); ++task) grouping.nodeOfTask[task] = static_cast<int>(task);
    grouping.nodes = trace.tasks().size();
  } else {
    layout.grouped = true;
    grouping = groupBy(trace, [](const trace::Task& t) { return std::pair{t.subgraph, t.label}; });
    if (grouping.nodes > maxNodes) grouping = groupBy(trace, [](const trace::Task& t) { return t.label; });
  }
  layout.taskToNode = grouping.nodeOfTask;

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
    if (!layout.grouped) {
      node.title = "#" + std::to_string(first.id) + " " + label;
      node.detail = std::string(trace.str(trace.lanes()[first.lane].name)) + " · " +
                    formatDurationNs(static_cast<double>(first.durNs()));
    } else {
      node.title = label;
      if (node.subgraph >= 0) node.title += " · subgraph " + std::to_string(node.subgraph);
      node.detail = std::to_string(node.tasks.size()) + (node.tasks.size() == 1 ? " task · " : " tasks · ") +
                    formatDurationNs(static_cast<double>(busyNs[n])) + " busy";
    }
    node.width = kPadding + kCharWidth * static_cast<double>(std::max(node.title.size(), node.detail.size()));
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
  if (cancelled && cancelled->load()) return {};

  std::lock_guard lock(graphvizMutex());
  GVC_t* context = gvContext();
  Agraph_t* graph = agopen(mutableText("tasks"), Agdirected, nullptr);
  agattr(graph, AGRAPH, mutableText("rankdir"), mutableText("TB"));
  agattr(graph, AGRAPH, mutableText("nodesep"), mutableText("0.25"));
  agattr(graph, AGRAPH, mutableText("ranksep"), mutableText("0.45"));
  agattr(graph, AGNODE, mutableText("shape"), mutableText("box"));
  agattr(graph, AGNODE, mutableText("fixedsize"), mutableText("true"));
  agattr(graph, AGNODE, mutableText("width"), mutableText("1"));
  agattr(graph, AGNODE, mutableText("height"), mutableText("0.5"));
  agattr(graph, AGNODE, mutableText("label"), mutableText(""));
  std::vector<Agnode_t*> gvNodes(layout.nodes.size());
  for (std::size_t n = 0; n < layout.nodes.size(); ++n) {
    std::string name = "n" + std::to_string(n);
    gvNodes[n] = agnode(graph, name.data(), 1);
    std::string width = inches(layout.nodes[n].width);
    std::string height = inches(layout.nodes[n].height);
    agset(gvNodes[n], mutableText("width"), width.data());
    agset(gvNodes[n], mutableText("height"), height.data());
  }
  std::vector<Agedge_t*> gvEdges(layout.edges.size());
  for (std::size_t e = 0; e < layout.edges.size(); ++e)
    gvEdges[e] = agedge(graph, gvNodes[layout.edges[e].from], gvNodes[layout.edges[e].to], nullptr, 1);

  if (gvLayout(context, graph, "dot") != 0) {
    layout = {};
    layout.error = "Graphviz could not lay out the task graph (is the graphviz package installed?)";
  } else {
    boxf box = GD_bb(graph);
    layout.width = box.UR.x - box.LL.x;
    layout.height = box.UR.y - box.LL.y;
    // Graphviz puts y up from the bottom; the view wants y down from the top.
    auto flip = [&](pointf p) { return GraphPoint{p.x - box.LL.x, box.UR.y - p.y}; };
    for (std::size_t n = 0; n < layout.nodes.size(); ++n) layout.nodes[n].centre = flip(ND_coord(gvNodes[n]));
    for (std::size_t e = 0; e < layout.edges.size(); ++e) {
      splines* route = ED_spl(gvEdges[e]);
      if (!route || route->size == 0) continue;
      const bezier& curve = route->list[0];
      auto& points = layout.edges[e].route;
      for (int i = 0; i < curve.size; ++i) points.push_back(flip(curve.list[i]));
      // The route stops where the arrowhead begins; the head reaches the node.
      if (curve.eflag && !points.empty()) {
        GraphPoint tip = flip(curve.ep);
        GraphPoint last = points.back();
        points.push_back(last);
        points.push_back(tip);
        points.push_back(tip);
      }
    }
    gvFreeLayout(context, graph);
  }
  agclose(graph);
  gvFreeContext(context);
  layout.layoutMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return layout;
}

} // namespace pto::widgets
