#include "widgets/TaskGraphView.h"

#include "widgets/GraphEdgePainter.h"
#include "widgets/QtText.h"
#include "widgets/SwimlaneRenderer.h"

#include "widgets/models/LabelPalette.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pto::widgets {
namespace {

constexpr double kTaskGraphMinScale = 0.02;
constexpr double kTaskGraphMaxScale = 4.0;
constexpr double kTaskGraphMargin = 16.0;

QRectF nodeRect(const TaskGraphNode& node) {
  return QRectF(node.centre.x - node.width / 2, node.centre.y - node.height / 2, node.width, node.height);
}

} // namespace

TaskGraphView::TaskGraphView(QWidget* parent) : QWidget(parent) {
  m_zoom.minScale = kTaskGraphMinScale;
  m_zoom.maxScale = kTaskGraphMaxScale;
  setObjectName(QStringLiteral("TaskGraphView"));
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
  m_message = tr("Run a project (Ctrl+R) or open a trace to see its task graph.");
}

void TaskGraphView::setGraph(std::shared_ptr<const TaskGraphLayout> layout, std::shared_ptr<const TraceIndex> index) {
  m_layout = std::move(layout);
  m_index = std::move(index);
  m_selectedNode = -1;
  m_message = m_layout && !m_layout->error.empty() ? qtext(m_layout->error) : QString();
  m_fitPending = true;
  fit();
}

void TaskGraphView::setMessage(const QString& message) {
  m_message = message;
  update();
}

void TaskGraphView::applyViewport(const GraphViewport& viewport) {
  m_zoom.set(viewport.scale, QPointF(viewport.offset.x, viewport.offset.y));
  m_fitPending = false;
  update();
}

void TaskGraphView::fit() {
  if (!m_layout || m_layout->nodes.empty() || width() <= 0) return;
  applyViewport(readableViewport(*m_layout, width(), height(), kTaskGraphMargin));
  m_framing = Framing::Readable;
}

void TaskGraphView::fitWhole() {
  if (!m_layout || m_layout->nodes.empty() || width() <= 0) return;
  applyViewport(wholeGraphViewport(*m_layout, width(), height(), kTaskGraphMargin, kTaskGraphMinScale));
  m_framing = Framing::Whole;
}

void TaskGraphView::toggleFit() {
  if (m_framing == Framing::Readable) fitWhole();
  else fit();
}

QPointF TaskGraphView::toGraph(QPointF widgetPos) const { return m_zoom.toGraph(widgetPos); }

QPointF TaskGraphView::widgetPosOfNode(int node) const {
  const TaskGraphNode& n = m_layout->nodes[static_cast<std::size_t>(node)];
  return m_zoom.offset + QPointF(n.centre.x, n.centre.y) * m_zoom.scale;
}

int TaskGraphView::nodeAt(QPointF widgetPos) const {
  if (!m_layout) return -1;
  QPointF p = toGraph(widgetPos);
  for (std::size_t n = 0; n < m_layout->nodes.size(); ++n)
    if (nodeRect(m_layout->nodes[n]).contains(p)) return static_cast<int>(n);
  return -1;
}

void TaskGraphView::selectTask(trace::TaskIndex task) {
  if (!m_layout) return;
  m_selectedNode = m_layout->nodeOf(task);
  if (m_selectedNode >= 0) {
    QPointF at = widgetPosOfNode(m_selectedNode);
    if (!rect().adjusted(40, 40, -40, -40).contains(at.toPoint())) pan(QPointF(width() / 2.0, height() / 2.0) - at);
  }
  update();
}

void TaskGraphView::zoomAbout(QPointF widgetPos, double factor) {
  m_zoom.zoomAbout(widgetPos, factor);
  m_framing = Framing::Free;
  update();
}

void TaskGraphView::pan(QPointF delta) {
  m_zoom.offset += delta;
  m_framing = Framing::Free;
  update();
}

void TaskGraphView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  if (!m_layout || m_layout->nodes.empty() || !m_message.isEmpty()) {
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                     m_message.isEmpty() ? tr("No tasks.") : m_message);
    return;
  }
  m_zoom.apply(painter);
  QRectF visible = QRectF(toGraph(QPointF(0, 0)), toGraph(QPointF(width(), height()))).adjusted(-20, -20, 20, 20);
  bool dark = pal.color(QPalette::Base).lightness() < 128;
  QColor edgeColor = pal.color(QPalette::Text);
  edgeColor.setAlpha(110);
  QColor criticalColor(dark ? QColor(255, 110, 90) : QColor(200, 40, 30));

  // Edges under the boxes.
  for (const TaskGraphEdge& edge : m_layout->edges) {
    const TaskGraphNode& from = m_layout->nodes[edge.from];
    const TaskGraphNode& to = m_layout->nodes[edge.to];
    QRectF span = nodeRect(from).united(nodeRect(to));
    if (!span.intersects(visible)) continue;
    bool critical = edge.critical;
    double penWidth = (critical ? 2.2 : 1.0) * (edge.count > 1 ? 1.0 + std::log2(double(edge.count)) * 0.3 : 1.0);
    QPen pen(critical ? criticalColor : edgeColor, penWidth / std::max(m_zoom.scale, 0.3));
    QPainterPath path = paintGraphEdge(painter, edge.route, nodeRect(from), nodeRect(to), pen);
    if (edge.count > 1 && m_zoom.scale > 0.5) {
      QPointF middle = path.pointAtPercent(0.5);
      painter.setPen(pal.color(QPalette::Text));
      painter.drawText(middle + QPointF(4, 0), QString::number(edge.count));
    }
  }

  // Boxes.
  QFont titleFont = font();
  titleFont.setPointSizeF(9.0);
  titleFont.setBold(true);
  QFont detailFont = font();
  detailFont.setPointSizeF(8.0);
  for (std::size_t n = 0; n < m_layout->nodes.size(); ++n) {
    const TaskGraphNode& node = m_layout->nodes[n];
    QRectF box = nodeRect(node);
    if (!box.intersects(visible)) continue;
    QColor fill = toQColor(labelColor(node.label));
    if (dark) fill = fill.darker(160);
    else fill = fill.lighter(125);
    bool selected = static_cast<int>(n) == m_selectedNode;
    QPen border(selected ? pal.color(QPalette::Highlight) : (node.critical ? criticalColor : fill.darker(170)),
                (selected ? 3.0 : node.critical ? 2.0 : 1.0) / std::max(m_zoom.scale, 0.3));
    painter.setPen(border);
    painter.setBrush(fill);
    painter.drawRoundedRect(box, 4, 4);
    if (m_zoom.scale * node.height < 14) continue;  // too small to read: colour only
    painter.setPen(dark ? QColor(235, 235, 235) : QColor(20, 20, 20));
    painter.setFont(titleFont);
    QRectF top(box.left() + 6, box.top() + 2, box.width() - 12, box.height() / 2);
    painter.drawText(top, Qt::AlignLeft | Qt::AlignBottom, qtext(node.title));
    painter.setFont(detailFont);
    QRectF bottom(box.left() + 6, box.center().y() + 1, box.width() - 12, box.height() / 2 - 3);
    painter.drawText(bottom, Qt::AlignLeft | Qt::AlignTop, qtext(node.detail));
  }
}

void TaskGraphView::wheelEvent(QWheelEvent* event) {
  m_zoom.wheel(*event);
  m_framing = Framing::Free;
  update();
  event->accept();
}

void TaskGraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  int node = nodeAt(event->position());
  if (node >= 0) {
    m_selectedNode = node;
    update();
    Q_EMIT taskActivated(m_layout->nodes[static_cast<std::size_t>(node)].tasks.front());
    return;
  }
  m_dragging = true;
  m_dragStart = event->position();
  m_offsetAtDragStart = m_zoom.offset;
  setCursor(Qt::ClosedHandCursor);
}

void TaskGraphView::mouseMoveEvent(QMouseEvent* event) {
  if (!m_dragging) return;
  pan(m_offsetAtDragStart + (event->position() - m_dragStart) - m_zoom.offset);
}

void TaskGraphView::mouseReleaseEvent(QMouseEvent*) {
  m_dragging = false;
  unsetCursor();
}

void TaskGraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  int node = nodeAt(event->position());
  if (node < 0) toggleFit();
  else if (m_layout->nodes[static_cast<std::size_t>(node)].subgraph >= 0)
    Q_EMIT subgraphOpened(m_layout->nodes[static_cast<std::size_t>(node)].subgraph);
}

void TaskGraphView::keyPressEvent(QKeyEvent* event) {
  QPointF centre(width() / 2.0, height() / 2.0);
  switch (event->key()) {
  case Qt::Key_F:
  case Qt::Key_Home: toggleFit(); break;
  case Qt::Key_Plus:
  case Qt::Key_Equal:
  case Qt::Key_W: zoomAbout(centre, 1.25); break;
  case Qt::Key_Minus:
  case Qt::Key_S: zoomAbout(centre, 0.8); break;
  case Qt::Key_A:
  case Qt::Key_Left: pan(QPointF(width() * 0.15, 0)); break;
  case Qt::Key_D:
  case Qt::Key_Right: pan(QPointF(-width() * 0.15, 0)); break;
  case Qt::Key_Up: pan(QPointF(0, height() * 0.15)); break;
  case Qt::Key_Down: pan(QPointF(0, -height() * 0.15)); break;
  default: QWidget::keyPressEvent(event); return;
  }
}

void TaskGraphView::resizeEvent(QResizeEvent*) {
  if (m_fitPending) fit();
}

bool TaskGraphView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_layout) {
    auto* help = static_cast<QHelpEvent*>(event);
    int node = nodeAt(help->pos());
    if (node < 0) {
      QToolTip::hideText();
      return true;
    }
    const TaskGraphNode& n = m_layout->nodes[static_cast<std::size_t>(node)];
    QString text = QStringLiteral("<b>%1</b><br>%2").arg(qtext(n.title).toHtmlEscaped(), qtext(n.detail).toHtmlEscaped());
    if (n.critical) text += tr("<br>on the critical path");
    if (m_index && n.tasks.size() == 1) {
      const trace::Task& task = m_index->trace().tasks()[n.tasks.front()];
      if (task.sourceLine > 0)
        text += tr("<br>kernel line %1").arg(task.sourceLine);
    }
    text += tr("<br><i>click: select in the swimlane</i>");
    QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

} // namespace pto::widgets
