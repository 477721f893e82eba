// Implementation of MemoryMapView.
#include "widgets/MemoryMapView.h"

#include "analysis/tuning/TileBufferCheck.h"
#include "widgets/QtText.h"
#include "widgets/Theme.h"

#include <QEvent>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <functional>

namespace pto::widgets {
namespace {

constexpr double kMargin = 6.0;
constexpr double kMinPlotHeight = 36.0;

QString bytesText(std::int64_t bytes) { return QString::fromStdString(formatBytes(bytes)); }

// `bytes` rounded up to a step that reads well on the offset axis.
std::int64_t roundedUp(std::int64_t bytes) {
  const std::int64_t step = bytes > 64 * 1024 ? 16 * 1024 : bytes > 8 * 1024 ? 4 * 1024 : bytes > 1024 ? 512 : 64;
  return std::max<std::int64_t>(step, (bytes + step - 1) / step * step);
}

// One hue per family of tiles: a loaded tensor's, or the tiles one op of one
// kernel line makes (each merged tile's temporaries are tensors of their own).
int hueOf(const MemoryMapBuffer& buffer) {
  const std::string family = buffer.loaded ? "load " + buffer.tensor : buffer.op + ":" + std::to_string(buffer.sourceLine);
  return static_cast<int>(std::hash<std::string>{}(family) % 360);
}

QColor boxColour(const MemoryMapBuffer& buffer) {
  const int hue = hueOf(buffer);
  if (buffer.pingPongHalf == 0) return QColor::fromHsv(hue, 150, 215);
  if (buffer.pingPongHalf == 1) return QColor::fromHsv(hue, 60, 245);
  return QColor::fromHsv(hue, 100, 230);
}

QString shortName(const MemoryMapBuffer& buffer) {
  QString text = qtext(buffer.name());
  if (buffer.sourceLine > 0) text += QStringLiteral(" :%1").arg(buffer.sourceLine);
  return text;
}

} // namespace

MemoryMapView::MemoryMapView(QWidget* parent)
    : ReportCanvas(QStringLiteral("MemoryMapView"),
                   tr("Select a task in the swimlane (or a subgraph in the graphs) to see its on-chip memory."),
                   parent) {}

void MemoryMapView::setMap(std::shared_ptr<const MemoryMap> map) {
  m_map = std::move(map);
  update();
}

void MemoryMapView::setWholeCapacity(bool whole) {
  m_wholeCapacity = whole;
  update();
}

QString MemoryMapView::title() const {
  const MemoryMap& map = *m_map;
  QString text = tr("subgraph %1 (%2%3)").arg(map.subgraph).arg(qtext(map.coreType),
                                                                  map.label.empty() ? QString() : QStringLiteral(", ") + qtext(map.label));
  if (map.task) text = tr("task %1 on %2: ").arg(map.task->task).arg(qtext(map.task->core)) + text;
  text += tr(" · %1 instructions").arg(map.instructionCount);
  if (map.members > 1) text += tr(" · %1 tiles merged").arg(map.members);
  text += tr(" · buffers %1 · x: instruction, y: offset").arg(qtext(map.overlap));
  const bool halves = std::any_of(map.spaces.begin(), map.spaces.end(), [](const MemorySpaceMap& space) {
    return std::any_of(space.buffers.begin(), space.buffers.end(),
                       [](const MemoryMapBuffer& buffer) { return buffer.pingPongHalf >= 0; });
  });
  if (halves) text += tr(" · ping-pong halves deep and pale");
  return text;
}

std::vector<MemoryMapView::Panel> MemoryMapView::panels() const {
  std::vector<Panel> result;
  if (!m_map || m_map->spaces.empty()) return result;
  const QFontMetricsF metrics(font());
  const double line = metrics.height() + 2.0;
  const double axisWidth = metrics.horizontalAdvance(QStringLiteral("000.0 KiB")) + 6.0;
  const double top = kMargin + line;                        // below the title
  const double bottom = height() - kMargin - line;          // above the instruction axis
  const auto count = static_cast<double>(m_map->spaces.size());
  const double each = std::max(line + kMinPlotHeight, (bottom - top) / count);
  double y = top;
  for (const MemorySpaceMap& space : m_map->spaces) {
    Panel panel;
    panel.space = &space;
    panel.header = QRectF(kMargin, y, width() - 2 * kMargin, line);
    panel.plot = QRectF(kMargin + axisWidth, y + line, std::max(10.0, width() - 2 * kMargin - axisWidth), each - line - 4.0);
    const bool roomy = space.footprintBytes * 2 < space.capacityBytes;
    panel.topBytes = m_wholeCapacity || !roomy ? std::max<std::int64_t>(1, space.capacityBytes)
                                               : std::min(space.capacityBytes, roundedUp(space.footprintBytes * 5 / 4 + 1));
    result.push_back(panel);
    y += each;
  }
  return result;
}

QRectF MemoryMapView::boxRect(const Panel& panel, const MemoryMapBuffer& buffer) const {
  const double instructions = std::max(1, m_map->instructionCount);
  const QRectF& plot = panel.plot;
  const double left = plot.left() + plot.width() * buffer.firstInstruction / instructions;
  const double right = plot.left() + plot.width() * (buffer.lastInstruction + 1) / instructions;
  const double scale = plot.height() / static_cast<double>(panel.topBytes);
  const double low = plot.bottom() - scale * static_cast<double>(buffer.offsetBytes);
  const double high = plot.bottom() - scale * static_cast<double>(buffer.offsetBytes + buffer.bytes);
  return QRectF(QPointF(left, std::max(plot.top(), high)), QPointF(right, std::min(plot.bottom(), low)));
}

int MemoryMapView::boxCount() const {
  int count = 0;
  for (const Panel& panel : panels())
    for (const MemoryMapBuffer& buffer : panel.space->buffers) {
      const QRectF box = boxRect(panel, buffer);
      if (box.width() >= 1.0 && box.height() >= 1.0) ++count;
    }
  return count;
}

const MemoryMapBuffer* MemoryMapView::bufferAt(QPointF point) const {
  for (const Panel& panel : panels()) {
    if (!panel.plot.contains(point)) continue;
    for (const MemoryMapBuffer& buffer : panel.space->buffers)
      if (boxRect(panel, buffer).contains(point)) return &buffer;
  }
  return nullptr;
}

QString MemoryMapView::describe(const MemorySpaceMap& space, const MemoryMapBuffer& buffer) {
  QString text = QStringLiteral("<b>%1</b> %2").arg(qtext(buffer.name()).toHtmlEscaped(), qtext(buffer.dtype));
  if (!buffer.source().empty()) text += QStringLiteral(" — %1").arg(qtext(buffer.source()));
  text += tr("<br>%1 offset %2, %3 (bytes %2..%4)")
              .arg(qtext(memoryLabel(space.memory)))
              .arg(buffer.offsetBytes)
              .arg(bytesText(buffer.bytes))
              .arg(buffer.offsetBytes + buffer.bytes);
  text += tr("<br>instructions %1-%2, ops %3-%4").arg(buffer.firstInstruction).arg(buffer.lastInstruction)
              .arg(buffer.firstOp).arg(buffer.lastOp);
  text += buffer.loaded ? tr("<br>loaded from global memory") : tr("<br>made by %1").arg(qtext(buffer.op));
  if (buffer.pingPongHalf >= 0) text += tr("<br>ping-pong half %1").arg(buffer.pingPongHalf);
  if (buffer.member >= 0) text += tr(", tile %1 of the merged subgraph").arg(buffer.member);
  if (buffer.inPlaceOf >= 0) text += tr("<br>written in place over buffer %1").arg(buffer.inPlaceOf);
  return text;
}

void MemoryMapView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QPalette& colours = palette();
  const QColor text = colours.color(QPalette::Text);
  QColor faint = text;
  faint.setAlpha(60);
  if (!m_map) {
    paintMessage(painter);
    return;
  }
  const QFontMetricsF metrics(font());
  painter.setPen(text);
  painter.drawText(QRectF(kMargin, kMargin, width() - 2 * kMargin, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   metrics.elidedText(title(), Qt::ElideRight, width() - 2 * kMargin));
  const std::vector<Panel> all = panels();
  for (const Panel& panel : all) {
    const MemorySpaceMap& space = *panel.space;
    QString header = tr("%1  %2").arg(qtext(memoryLabel(space.memory)), bytesText(space.capacityBytes));
    if (space.buffers.empty()) header += tr(" · no buffers");
    else
      header += tr(" · peak %1 (%2 %) at #%3 · footprint %4 · fragmentation %5")
                    .arg(bytesText(space.peakLiveBytes))
                    .arg(100.0 * space.utilization, 0, 'f', 1)
                    .arg(space.peakInstruction)
                    .arg(bytesText(space.footprintBytes))
                    .arg(space.fragmentation, 0, 'f', 2);
    if (panel.topBytes < space.capacityBytes) header += tr(" · shown up to %1").arg(bytesText(panel.topBytes));
    painter.setPen(text);
    painter.drawText(panel.header, Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(header, Qt::ElideRight, panel.header.width()));
    // Frame, offset ticks (0, half, top).
    painter.setPen(faint);
    painter.drawRect(panel.plot);
    // Inside the plot's height, so that the top one stays clear of the header.
    for (double fraction : {0.0, 0.5, 1.0}) {
      const double y = panel.plot.bottom() - fraction * panel.plot.height();
      const auto bytes = static_cast<std::int64_t>(std::llround(fraction * static_cast<double>(panel.topBytes)));
      const double top = std::clamp(y - metrics.height() / 2, panel.plot.top(), panel.plot.bottom() - metrics.height());
      painter.setPen(text);
      painter.drawText(QRectF(kMargin, top, panel.plot.left() - kMargin - 4, metrics.height()),
                       Qt::AlignRight | Qt::AlignVCenter, bytesText(bytes));
    }
    // The boxes, labelled where the label fits.
    painter.save();
    painter.setClipRect(panel.plot);
    for (const MemoryMapBuffer& buffer : space.buffers) {
      const QRectF box = boxRect(panel, buffer);
      if (box.width() <= 0.0 || box.height() <= 0.0) continue;
      const QColor fill = boxColour(buffer);
      painter.fillRect(box, fill);
      painter.setPen(fill.darker(160));
      painter.drawRect(box.adjusted(0, 0, -1, -1));
      const QString label = shortName(buffer);
      if (box.height() >= metrics.height() && box.width() >= metrics.horizontalAdvance(label) + 4) {
        painter.setPen(Qt::black);
        painter.drawText(box.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter, label);
      }
    }
    // The peak instruction, and the capacity when it is in range.
    if (space.peakInstruction >= 0) {
      const double x = panel.plot.left() + panel.plot.width() * (space.peakInstruction + 0.5) / std::max(1, m_map->instructionCount);
      painter.setPen(QPen(text, 1, Qt::DashLine));
      painter.drawLine(QPointF(x, panel.plot.top()), QPointF(x, panel.plot.bottom()));
    }
    painter.restore();
    if (panel.topBytes >= space.capacityBytes) {
      painter.setPen(QPen(badColour(colours), 2));
      painter.drawLine(QPointF(panel.plot.left(), panel.plot.top()), QPointF(panel.plot.right(), panel.plot.top()));
    }
  }
  // The instruction axis under the last panel.
  if (!all.empty()) {
    const QRectF& plot = all.back().plot;
    painter.setPen(text);
    const int instructions = m_map->instructionCount;
    for (double fraction : {0.0, 0.25, 0.5, 0.75, 1.0}) {
      const int index = static_cast<int>(std::lround(fraction * instructions));
      const double x = plot.left() + plot.width() * fraction;
      // The ends' labels start and end at the plot's edges, so that they stay in the view.
      const double left = fraction == 0.0 ? x : fraction == 1.0 ? x - 80 : x - 40;
      painter.drawText(QRectF(left, plot.bottom() + 2, 80, metrics.height()),
                       (fraction == 0.0 ? Qt::AlignLeft : fraction == 1.0 ? Qt::AlignRight : Qt::AlignHCenter) | Qt::AlignTop,
                       QString::number(index));
    }
  }
}

bool MemoryMapView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_map) {
    auto* help = static_cast<QHelpEvent*>(event);
    for (const Panel& panel : panels())
      for (const MemoryMapBuffer& buffer : panel.space->buffers)
        if (panel.plot.contains(help->pos()) && boxRect(panel, buffer).contains(help->pos())) {
          QToolTip::showText(help->globalPos(), describe(*panel.space, buffer), this);
          return true;
        }
    QToolTip::hideText();
    event->ignore();
    return true;
  }
  return ReportCanvas::event(event);
}

void MemoryMapView::mouseDoubleClickEvent(QMouseEvent* event) {
  setWholeCapacity(!m_wholeCapacity);
  event->accept();
}

} // namespace pto::widgets
