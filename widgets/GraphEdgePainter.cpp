#include "widgets/GraphEdgePainter.h"

#include <algorithm>
#include <cmath>

namespace pto::widgets {

namespace {

// Stroking is what a graph's frame costs: Qt's raster engine strokes a pen
// of at most one device pixel with its fast cosmetic stroker, while a wider
// pen is outlined along the whole curve and the outline filled, about a
// millisecond for a long spline (50-65 ms for the 50 edges on screen after
// opening a group of sparse_flash_attention; 15 ms this way). So a wide pen
// is drawn as several one-pixel strokes side by side, which looks the same.

// Strokes `path` with `pen` as one-device-pixel strokes (the fast stroker),
// as many as the pen is wide, side by side along `across` (a unit vector).
void strokeFast(QPainter& painter, const QPainterPath& path, const QPen& pen, QPointF across) {
  const double scale = std::max(1e-9, std::sqrt(std::abs(painter.transform().determinant())));
  const double widthPx = pen.isCosmetic() ? pen.widthF() : pen.widthF() * scale;
  painter.setBrush(Qt::NoBrush);
  if (widthPx <= 1.0) {
    painter.setPen(pen);
    painter.drawPath(path);
    return;
  }
  QPen thin = pen;
  thin.setCosmetic(true);
  thin.setWidthF(1.0);
  painter.setPen(thin);
  const int strokes = static_cast<int>(std::ceil(widthPx));
  const double step = (widthPx - 1.0) / std::max(1, strokes - 1);
  for (int k = 0; k < strokes; ++k) {
    const double offsetPx = k * step - (widthPx - 1.0) / 2;
    painter.save();
    painter.translate(across * (offsetPx / scale));
    painter.drawPath(path);
    painter.restore();
  }
}

} // namespace

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
  // Across the edge as a whole (start to tip): where a wide pen's strokes go.
  QPointF direction = tip - path.elementAt(0);
  const double span = std::hypot(direction.x(), direction.y());
  const QPointF across = span > 0.01 ? QPointF(-direction.y() / span, direction.x() / span) : QPointF(1, 0);
  strokeFast(painter, path, pen, across);
  direction = tip - beforeTip;
  double length = std::hypot(direction.x(), direction.y());
  if (length > 0.01) {
    direction /= length;
    QPointF normal(-direction.y(), direction.x());
    const double size = 7.0;
    painter.setPen(pen);
    painter.setBrush(pen.color());
    painter.drawPolygon(QPolygonF({tip, tip - direction * size + normal * size * 0.45, tip - direction * size - normal * size * 0.45}));
  }
  return path;
}

} // namespace pto::widgets
