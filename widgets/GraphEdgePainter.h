// Drawing one edge of a laid-out graph (task graph, IR graphs): the route
// Graphviz gave (cubic Bezier: start, then control, control, end triples) or,
// without one, a straight line from the bottom of `from` to the top of `to`,
// and an arrowhead along its last segment. Returns the path, for labels.
#pragma once

#include "widgets/models/TaskGraphLayout.h"

#include <QPainter>
#include <QPainterPath>

#include <vector>

namespace pto::widgets {

QPainterPath paintGraphEdge(QPainter& painter, const std::vector<GraphPoint>& route, const QRectF& from,
                            const QRectF& to, const QPen& pen);

} // namespace pto::widgets
