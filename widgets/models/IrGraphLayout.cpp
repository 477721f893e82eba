#include "widgets/models/IrGraphLayout.h"

#include "widgets/models/Graphviz.h"

#include <algorithm>
#include <chrono>
#include <map>

namespace pto::widgets {

namespace {

// About 6.5 points per character of a 9-point sans; dot needs sizes before
// anything is drawn.
constexpr std::size_t kMaxTitleChars = 48;

} // namespace

void measureItem(const VisibleItem& item, double& width, double& height) {
  std::size_t chars = std::min(kMaxTitleChars, std::max(item.title.size(), item.detail.size()));
  width = kNodePadding + kNodeCharWidth * static_cast<double>(std::max<std::size_t>(chars, 6));
  height = item.group >= 0 ? kNodeHeight + 8.0 : kNodeHeight;
}

int IrGraphLayout::itemOfNode(int node) const {
  return node >= 0 && static_cast<std::size_t>(node) < visible.itemOfNode.size()
             ? visible.itemOfNode[static_cast<std::size_t>(node)]
             : -1;
}

int IrGraphLayout::itemWithKey(const std::string& key) const {
  for (std::size_t i = 0; i < visible.items.size(); ++i)
    if (visible.items[i].key == key) return static_cast<int>(i);
  return -1;
}

IrGraphLayout layoutIrGraph(std::shared_ptr<const IrGraph> graph, VisibleGraph visible,
                            const std::atomic<bool>* cancelled) {
  auto started = std::chrono::steady_clock::now();
  IrGraphLayout layout;
  layout.graph = graph;
  layout.laidOutOn = std::this_thread::get_id();
  layout.visible = std::move(visible);
  const VisibleGraph& shown = layout.visible;
  layout.items.resize(shown.items.size());
  for (std::size_t i = 0; i < shown.items.size(); ++i)
    measureItem(shown.items[i], layout.items[i].width, layout.items[i].height);
  for (const VisibleEdge& edge : shown.edges) layout.edges.push_back({edge.from, edge.to, edge.count, {}});
  if (shown.items.empty() || (cancelled && cancelled->load())) return layout;

  std::lock_guard lock(graphvizLock());
  GVC_t* context = graphvizContext();
  Agraph_t* root = agopen(graphvizText("ir"), Agdirected, nullptr);
  agattr(root, AGRAPH, graphvizText("rankdir"), graphvizText("TB"));
  agattr(root, AGRAPH, graphvizText("nodesep"), graphvizText("0.2"));
  agattr(root, AGRAPH, graphvizText("ranksep"), graphvizText("0.4"));
  agattr(root, AGRAPH, graphvizText("label"), graphvizText(""));
  agattr(root, AGRAPH, graphvizText("fontsize"), graphvizText("10"));
  // Big graphs: fewer crossing-minimisation rounds; dot's default spends
  // most of its time there for little gain in a picture this dense.
  if (shown.items.size() > 150) agattr(root, AGRAPH, graphvizText("mclimit"), graphvizText("0.3"));
  agattr(root, AGNODE, graphvizText("shape"), graphvizText("box"));
  agattr(root, AGNODE, graphvizText("fixedsize"), graphvizText("true"));
  agattr(root, AGNODE, graphvizText("width"), graphvizText("1"));
  agattr(root, AGNODE, graphvizText("height"), graphvizText("0.5"));
  agattr(root, AGNODE, graphvizText("label"), graphvizText(""));

  // Clusters, in subgraph order; their label reserves room for the title.
  std::map<int, Agraph_t*> clusterGraphs;
  for (const VisibleItem& item : shown.items)
    if (item.cluster >= 0 && !clusterGraphs.count(item.cluster)) {
      std::string name = "cluster_" + std::to_string(item.cluster);
      Agraph_t* cluster = agsubg(root, name.data(), 1);
      std::string title = graph->clusters[static_cast<std::size_t>(item.cluster)].title;
      agset(cluster, graphvizText("label"), title.data());
      clusterGraphs[item.cluster] = cluster;
    }
  std::vector<Agnode_t*> nodes(shown.items.size());
  for (std::size_t i = 0; i < shown.items.size(); ++i) {
    std::string name = "n" + std::to_string(i);
    Agraph_t* owner = shown.items[i].cluster >= 0 ? clusterGraphs[shown.items[i].cluster] : root;
    nodes[i] = agnode(owner, name.data(), 1);
    if (owner != root) agsubnode(root, nodes[i], 1);
    std::string width = graphvizInches(layout.items[i].width), height = graphvizInches(layout.items[i].height);
    agset(nodes[i], graphvizText("width"), width.data());
    agset(nodes[i], graphvizText("height"), height.data());
  }
  std::vector<Agedge_t*> edges(layout.edges.size());
  for (std::size_t e = 0; e < layout.edges.size(); ++e)
    edges[e] = agedge(root, nodes[static_cast<std::size_t>(layout.edges[e].from)],
                      nodes[static_cast<std::size_t>(layout.edges[e].to)], nullptr, 1);

  if (const std::optional<boxf> laidOut = layOutWithDot(context, root); !laidOut) {
    layout.error = "Graphviz could not lay out the graph (is the graphviz package installed?)";
  } else {
    const boxf& box = *laidOut;
    layout.width = boxWidth(box);
    layout.height = boxHeight(box);
    auto flip = [&](pointf p) { return fromGraphviz(p, box); };
    for (std::size_t i = 0; i < nodes.size(); ++i) layout.items[i].centre = flip(ND_coord(nodes[i]));
    for (const auto& [cluster, sub] : clusterGraphs) {
      boxf bb = GD_bb(sub);
      GraphPoint topLeft = flip(pointf{bb.LL.x, bb.UR.y});
      layout.clusters.push_back({cluster, topLeft.x, topLeft.y, boxWidth(bb), boxHeight(bb)});
    }
    for (std::size_t e = 0; e < edges.size(); ++e) layout.edges[e].route = edgeRoute(edges[e], box);
    gvFreeLayout(context, root);
  }
  agclose(root);
  layout.layoutMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  return layout;
}

IrGraphLayout layoutIrLevel(const IrLevelRequest& request, const std::atomic<bool>* cancelled) {
  static const IrJson empty = IrJson::object();
  auto graph = request.graph ? request.graph
                             : std::make_shared<const IrGraph>(buildIrGraph(request.level, *request.tensor,
                                                                             request.snapshot ? *request.snapshot : empty));
  if (!graph->missing.empty()) {
    IrGraphLayout missing;
    missing.graph = graph;
    return missing;
  }
  return layoutIrGraph(graph, visibleGraph(*graph, visibleOptionsOf(request, *graph)), cancelled);
}

VisibleGraphOptions visibleOptionsOf(const IrLevelRequest& request, const IrGraph& graph) {
  VisibleGraphOptions options = defaultVisibleOptions(graph);
  if (request.grouping) options.grouping = *request.grouping;
  options.expanded = request.options.expanded;
  options.expandAll = request.options.expandAll;
  options.focusNode = request.options.focusNode;
  return options;
}

} // namespace pto::widgets
