// Implementation of ReportCanvas.
#include "widgets/ReportCanvas.h"

#include <QPainter>

namespace pto::widgets {

ReportCanvas::ReportCanvas(const QString& objectName, const QString& message, QWidget* parent)
    : QWidget(parent), m_message(message) {
  setObjectName(objectName);
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
}

void ReportCanvas::setMessage(const QString& text) {
  m_message = text;
  clearReport();
  update();
}

void ReportCanvas::paintMessage(QPainter& painter) const {
  painter.setPen(palette().color(QPalette::PlaceholderText));
  painter.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, m_message);
}

} // namespace pto::widgets
