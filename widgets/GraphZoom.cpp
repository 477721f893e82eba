// Implementation of GraphZoom.
#include "widgets/GraphZoom.h"

#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pto::widgets {

void GraphZoom::set(double newScale, QPointF newOffset) {
  scale = std::clamp(newScale, minScale, maxScale);
  offset = newOffset;
}

void GraphZoom::zoomAbout(QPointF widgetPos, double factor) {
  const QPointF graphPoint = toGraph(widgetPos);
  scale = std::clamp(scale * factor, minScale, maxScale);
  offset = widgetPos - graphPoint * scale;
}

void GraphZoom::wheel(const QWheelEvent& event) {
  constexpr double kNotch = 120.0;       // angleDelta of one wheel notch
  constexpr double kZoomPerNotch = 1.2;
  constexpr double kPanPerDelta = 0.5;   // pixels per angleDelta unit
  const double steps = event.angleDelta().y() / kNotch;
  if (event.modifiers() & (Qt::ShiftModifier | Qt::ControlModifier) || steps == 0.0)
    offset += QPointF(event.angleDelta().x(), event.angleDelta().y()) * kPanPerDelta;
  else
    zoomAbout(event.position(), std::pow(kZoomPerNotch, steps));
}

void GraphZoom::apply(QPainter& painter) const {
  painter.translate(offset);
  painter.scale(scale, scale);
}

} // namespace pto::widgets
