// Implementation of TaskInsideView.
#include "widgets/TaskInsideView.h"

#include "widgets/QtText.h"
#include "widgets/Theme.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace pto::widgets {
namespace {

constexpr double kMargin = 6.0;
constexpr double kHeaderHeight = 40.0;
constexpr double kLabelWidth = 64.0;
constexpr double kRowHeight = 24.0;
constexpr double kRowGap = 4.0;

// One colour per pipe, the same in every task.
QColor pipeColour(const std::string& pipe) {
  if (pipe == "MTE2") return QColor(0x4e, 0x9a, 0xd8);
  if (pipe == "MTE1") return QColor(0x6f, 0xc2, 0xd0);
  if (pipe == "CUBE") return QColor(0xe0, 0x8a, 0x3c);
  if (pipe == "FIXPIPE") return QColor(0xc9, 0x6f, 0xb4);
  if (pipe == "VECTOR") return QColor(0x5c, 0xb8, 0x5c);
  if (pipe == "MTE3") return QColor(0x9b, 0x7e, 0xd9);
  return QColor(0xb0, 0xa0, 0x60);  // SCALAR
}

} // namespace

TaskInsideView::TaskInsideView(QWidget* parent)
    : ReportCanvas(QStringLiteral("TaskInsideView"),
                   tr("Select a task in the swimlane to see its instructions on each pipe."), parent) {}

void TaskInsideView::setInside(std::shared_ptr<const TaskInside> inside) {
  m_inside = std::move(inside);
  update();
}

QRectF TaskInsideView::plotArea() const {
  return QRectF(kMargin + kLabelWidth, kMargin + kHeaderHeight, std::max(10.0, width() - 2 * kMargin - kLabelWidth),
                std::max(10.0, height() - 2 * kMargin - kHeaderHeight));
}

QRectF TaskInsideView::rowRect(int row) const {
  const QRectF plot = plotArea();
  return QRectF(plot.left(), plot.top() + row * (kRowHeight + kRowGap), plot.width(), kRowHeight);
}

QRectF TaskInsideView::sliceRect(int row, const InsideSlice& slice) const {
  const QRectF lane = rowRect(row);
  const double span = std::max(1.0, m_inside->durationCycles());
  const double start = static_cast<double>(m_inside->startCycle);
  const double left = lane.left() + (slice.startCycle - start) / span * lane.width();
  const double right = lane.left() + (slice.endCycle - start) / span * lane.width();
  return QRectF(left, lane.top(), std::max(0.0, std::min(right, lane.right()) - left), lane.height());
}

int TaskInsideView::sliceCount() const {
  if (!m_inside) return 0;
  int count = 0;
  for (std::size_t row = 0; row < m_inside->pipes.size(); ++row)
    for (const InsideSlice& slice : m_inside->pipes[row].slices)
      if (sliceRect(static_cast<int>(row), slice).width() >= 1.0) ++count;
  return count;
}

const InsideSlice* TaskInsideView::sliceAt(QPointF point, QString* pipe) const {
  if (!m_inside) return nullptr;
  for (std::size_t row = 0; row < m_inside->pipes.size(); ++row) {
    if (!rowRect(static_cast<int>(row)).contains(point)) continue;
    // A thin slice is found within a pixel of it.
    const InsideSlice* best = nullptr;
    for (const InsideSlice& slice : m_inside->pipes[row].slices) {
      const QRectF box = sliceRect(static_cast<int>(row), slice).adjusted(-1, 0, 1, 0);
      if (box.contains(point) && (!best || (best->wait && !slice.wait))) best = &slice;
    }
    if (best && pipe) *pipe = qtext(m_inside->pipes[row].pipe);
    return best;
  }
  return nullptr;
}

QString TaskInsideView::describe(const TaskInside& inside, const QString& pipe, const InsideSlice& slice) {
  const double offset = slice.startCycle - static_cast<double>(inside.startCycle);
  if (slice.wait)
    return tr("%1 waits (%2): %3 cycles from cycle %4 of the task\n%5 #%6")
        .arg(pipe, qtext(slice.reason))
        .arg(slice.cycles(), 0, 'f', 0)
        .arg(offset, 0, 'f', 0)
        .arg(qtext(slice.mnemonic))
        .arg(slice.instruction);
  QString text = tr("%1 #%2 on %3\n%4\n%5 cycles from cycle %6 of the task")
                     .arg(qtext(slice.mnemonic))
                     .arg(slice.instruction)
                     .arg(pipe, slice.source.empty() ? tr("(no kernel line)") : qtext(slice.source))
                     .arg(slice.cycles(), 0, 'f', 0)
                     .arg(offset, 0, 'f', 0);
  if (slice.bytes > 0)
    text += tr("\n%1 bytes; start-up %2 cycles, bandwidth wait %3 cycles")
                .arg(slice.bytes)
                .arg(slice.startupCycles, 0, 'f', 0)
                .arg(slice.bandwidthWaitCycles, 0, 'f', 0);
  if (slice.onChain) text += tr("\non the chain that sets the task's end");
  return text;
}

void TaskInsideView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QPalette& colours = palette();
  if (!m_inside) {
    paintMessage(painter);
    return;
  }
  const TaskInside& inside = *m_inside;
  painter.setPen(colours.color(QPalette::Text));
  const QString title = tr("Task %1 on %2 (subgraph %3%4): %5 cycles, %6 us")
                            .arg(inside.task)
                            .arg(qtext(inside.core))
                            .arg(inside.subgraph)
                            .arg(inside.label.empty() ? QString() : QStringLiteral(", ") + qtext(inside.label))
                            .arg(inside.durationCycles(), 0, 'f', 0)
                            .arg(inside.durationCycles() / (inside.clockGHz * 1000.0), 0, 'f', 2);
  const QRectF header(kMargin, kMargin, width() - 2 * kMargin, kHeaderHeight);
  painter.drawText(header, Qt::AlignLeft | Qt::AlignTop, title);
  painter.setPen(colours.color(QPalette::PlaceholderText));
  painter.drawText(header.adjusted(0, 18, 0, 0), Qt::AlignLeft | Qt::AlignTop,
                   painter.fontMetrics().elidedText(tr("Why: ") + qtext(inside.why), Qt::ElideRight,
                                                    static_cast<int>(header.width())));
  const QColor waitColour = isDark(colours) ? QColor(110, 110, 110) : QColor(170, 170, 170);
  const QColor chainEdge = colours.color(QPalette::Text);
  for (std::size_t row = 0; row < inside.pipes.size(); ++row) {
    const InsidePipe& pipe = inside.pipes[row];
    const QRectF lane = rowRect(static_cast<int>(row));
    painter.setPen(colours.color(QPalette::Text));
    painter.drawText(QRectF(kMargin, lane.top(), kLabelWidth - 4, lane.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     qtext(pipe.pipe));
    painter.fillRect(lane, colours.color(QPalette::AlternateBase));
    const QColor fill = pipeColour(pipe.pipe);
    for (const InsideSlice& slice : pipe.slices) {
      const QRectF box = sliceRect(static_cast<int>(row), slice);
      if (box.width() <= 0.0) continue;
      const QRectF drawn = box.width() < 1.0 ? QRectF(box.left(), box.top(), 1.0, box.height()) : box;
      if (slice.wait) {
        painter.fillRect(drawn.adjusted(0, 4, 0, -4), QBrush(waitColour, Qt::BDiagPattern));
        continue;
      }
      painter.fillRect(drawn, fill);
      if (slice.onChain && drawn.width() >= 3.0) {
        painter.setPen(QPen(chainEdge, 1.0));
        painter.drawRect(drawn.adjusted(0, 0, -1, -1));
      }
      const QString label = qtext(slice.mnemonic);
      if (painter.fontMetrics().horizontalAdvance(label) + 4 <= drawn.width()) {
        painter.setPen(Qt::black);
        painter.drawText(drawn, Qt::AlignCenter, label);
      }
    }
  }
}

bool TaskInsideView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_inside) {
    auto* help = static_cast<QHelpEvent*>(event);
    QString pipe;
    if (const InsideSlice* slice = sliceAt(help->pos(), &pipe)) QToolTip::showText(help->globalPos(), describe(*m_inside, pipe, *slice), this);
    else QToolTip::hideText();
    return true;
  }
  return ReportCanvas::event(event);
}

} // namespace pto::widgets
