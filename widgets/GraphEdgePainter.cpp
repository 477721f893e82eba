#include "widgets/GraphEdgePainter.h"

#include <cmath>

namespace pto::widgets {

QPainterPath paintGraphEdge(QPainter& painter, const std::vector<GraphPoint>& route, const QRectF& from,
                            const QRectF& to, const QPen& pen) {
  QPainterPath path;
  QPointF tip, beforeTip;
  if (route.size() >= 4) {
    path.moveTo(route[0].x, route[0].y);
    for (std::size_t i = 1; i + 2 < route.size(); i += 3)
      path.cubicTo(route[i].x, route[i].y, route[i + 1].x, route[i + 1].y, route[i + 2].x, route[i + 2].y);
    tip = QPointF(route.back().x, route.back().y);
    beforeTip = QPointF(route[route.size() - 4].x, route[route.size() - 4].y);
  } else {
    beforeTip = QPointF(from.center().x(), from.bottom());
    tip = QPointF(to.center().x(), to.top());
    path.moveTo(beforeTip);
    path.lineTo(tip);
  }
  // Off screen: nothing to stroke (outlining a long spline costs the same
  // whether it is seen or not). The path is still returned for labels.
  const QRectF device(QPointF(0, 0), QSizeF(painter.device()->width(), painter.device()->height()));
  if (!painter.transform().mapRect(path.controlPointRect()).adjusted(-8, -8, 8, 8).intersects(device)) return path;
  painter.setPen(pen);
  painter.setBrush(Qt::NoBrush);
  painter.drawPath(path);
  QPointF direction = tip - beforeTip;
  double length = std::hypot(direction.x(), direction.y());
  if (length > 0.01) {
    direction /= length;
    QPointF normal(-direction.y(), direction.x());
    const double size = 7.0;
    painter.setBrush(pen.color());
    painter.drawPolygon(QPolygonF({tip, tip - direction * size + normal * size * 0.45, tip - direction * size - normal * size * 0.45}));
  }
  return path;
}

} // namespace pto::widgets
