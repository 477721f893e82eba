#include "widgets/models/Graphviz.h"

namespace pto::widgets {

std::mutex& graphvizLock() {
  static std::mutex mutex;
  return mutex;
}

GVC_t* graphvizContext() {
  // Never freed: see the header.
  static GVC_t* context = gvContext();
  return context;
}

std::optional<boxf> layOutWithDot(GVC_t* context, Agraph_t* graph) {
  if (gvLayout(context, graph, "dot") != 0) return std::nullopt;
  return GD_bb(graph);
}

std::vector<GraphPoint> edgeRoute(Agedge_t* edge, const boxf& box) {
  std::vector<GraphPoint> points;
  splines* route = ED_spl(edge);
  if (!route || route->size == 0) return points;
  const bezier& curve = route->list[0];
  for (int i = 0; i < curve.size; ++i) points.push_back(fromGraphviz(curve.list[i], box));
  // The route stops where the arrowhead begins; the head reaches the node.
  if (curve.eflag && !points.empty()) {
    GraphPoint tip = fromGraphviz(curve.ep, box);
    GraphPoint last = points.back();
    points.push_back(last);
    points.push_back(tip);
    points.push_back(tip);
  }
  return points;
}

} // namespace pto::widgets
