// GraphZoom: where a graph drawn in its own coordinates sits in a view,
// widget = offset + graph * scale, and how the view zooms and pans it. The
// graph views (IrGraphView for the tensor, tile and block levels,
// TaskGraphView for tasks) share it, so that they read the wheel alike and
// zoom about the same point.
#pragma once

#include <QPointF>

class QPainter;
class QWheelEvent;

namespace pto::widgets {

struct GraphZoom {
  double scale = 1.0;
  QPointF offset;  // widget position of graph point (0, 0)
  double minScale = 0.01, maxScale = 4.0;

  QPointF toGraph(QPointF widgetPos) const { return (widgetPos - offset) / scale; }
  QPointF toWidget(QPointF graphPos) const { return offset + graphPos * scale; }
  // Sets the scale (clamped to [minScale, maxScale]) and the offset.
  void set(double newScale, QPointF newOffset);
  // Zooms by `factor` (clamped) keeping the graph point under `widgetPos` where it is.
  void zoomAbout(QPointF widgetPos, double factor);
  // The wheel: with Shift or Ctrl, or a sideways wheel, it pans; otherwise it
  // zooms about the pointer, 1.2 times per notch.
  void wheel(const QWheelEvent& event);
  // Draws in graph coordinates from here on.
  void apply(QPainter& painter) const;
};

} // namespace pto::widgets
