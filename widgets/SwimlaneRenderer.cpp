// Painting the swimlane.
#include "widgets/SwimlaneRenderer.h"

#include "widgets/models/LabelPalette.h"
#include "widgets/models/TimeFormat.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace pto::widgets {
namespace {

QString qtext(std::string_view text) { return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size())); }

// Text on a slice: black on light colours, white on dark ones.
QColor textOn(const QColor& fill) { return fill.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250); }

} // namespace

QColor toQColor(Rgb rgb) { return QColor(rgb.r, rgb.g, rgb.b); }

void SwimlaneRenderer::setTrace(std::shared_ptr<const TraceIndex> index) {
  m_index = std::move(index);
  m_rowOffsetPx.clear();
  m_rowOfLane.clear();
  m_labelRgb.clear();
  if (!m_index) return;
  const trace::Trace& tr = m_index->trace();
  m_rowOfLane.assign(tr.lanes().size(), std::nullopt);
  double y = 6;
  std::optional<trace::LaneKind> previousKind;
  for (std::size_t row = 0; row < m_index->laneOrder().size(); ++row) {
    LaneIndex lane = m_index->laneOrder()[row];
    trace::LaneKind kind = tr.lanes()[lane].kind;
    if (previousKind && *previousKind != kind) y += kKindGapPx;
    previousKind = kind;
    m_rowOffsetPx.push_back(y);
    m_rowOfLane[lane] = row;
    y += kLaneHeightPx + kLaneGapPx;
  }
  m_rowOffsetPx.push_back(y);  // the end, for contentHeightPx()
  // Label colours once per distinct label, not per task per frame.
  m_labelRgb.assign(tr.strings().size(), 0);
  std::vector<bool> done(tr.strings().size(), false);
  for (const trace::Task& task : tr.tasks()) {
    if (done[task.label]) continue;
    done[task.label] = true;
    m_labelRgb[task.label] = toQColor(labelColor(tr.str(task.label))).rgb();
  }
}

QRect SwimlaneRenderer::timeArea(QSize size) {
  return QRect(kHeaderWidthPx, kRulerHeightPx, std::max(1, size.width() - kHeaderWidthPx),
               std::max(1, size.height() - kRulerHeightPx));
}

int SwimlaneRenderer::contentHeightPx() const {
  return m_rowOffsetPx.empty() ? 0 : static_cast<int>(std::ceil(m_rowOffsetPx.back())) + 4;
}

double SwimlaneRenderer::rowTopPx(std::size_t row, const SwimlaneState& state) const {
  return kRulerHeightPx + m_rowOffsetPx[row] - state.scrollYPx;
}

std::optional<std::size_t> SwimlaneRenderer::rowAt(double y, const SwimlaneState& state) const {
  if (y < kRulerHeightPx || m_rowOffsetPx.size() < 2) return std::nullopt;
  double offset = y - kRulerHeightPx + state.scrollYPx;
  auto next = std::upper_bound(m_rowOffsetPx.begin(), m_rowOffsetPx.end() - 1, offset);
  if (next == m_rowOffsetPx.begin()) return std::nullopt;
  std::size_t row = static_cast<std::size_t>(next - m_rowOffsetPx.begin()) - 1;
  if (offset >= m_rowOffsetPx[row] + kLaneHeightPx) return std::nullopt;
  return row;
}

std::optional<std::size_t> SwimlaneRenderer::rowOfLane(LaneIndex lane) const {
  return lane < m_rowOfLane.size() ? m_rowOfLane[lane] : std::nullopt;
}

TaskIndex SwimlaneRenderer::taskAt(QPointF point, QSize size, const SwimlaneState& state) const {
  if (!m_index) return trace::kNoTask;
  QRect area = timeArea(size);
  if (point.x() < area.left()) return trace::kNoTask;
  auto row = rowAt(point.y(), state);
  if (!row) return trace::kNoTask;
  LaneIndex lane = m_index->laneOrder()[*row];
  const trace::Trace& tr = m_index->trace();
  double x = point.x() - area.left();
  constexpr double kSlopPx = 3;
  auto range = visibleTaskRange(tr, lane, state.coords.nsAt(x - kSlopPx), state.coords.nsAt(x + kSlopPx),
                                m_index->laneMaxDurNs(lane));
  const auto& order = tr.lanes()[lane].tasksByStart;
  TaskIndex best = trace::kNoTask;
  double bestDistance = kSlopPx + 1;
  for (std::size_t pos = range.first; pos < range.second; ++pos) {
    const trace::Task& task = tr.tasks()[order[pos]];
    double x0 = state.coords.xOf(static_cast<double>(task.startNs));
    double x1 = state.coords.xOf(static_cast<double>(task.endNs));
    double distance = x < x0 ? x0 - x : (x > x1 ? x - x1 : 0);
    // Among tasks containing the point, the shortest (the innermost) wins.
    if (distance < bestDistance ||
        (distance == 0 && bestDistance == 0 && task.durNs() < tr.tasks()[best].durNs())) {
      best = order[pos];
      bestDistance = distance;
    }
  }
  return best;
}

QRectF SwimlaneRenderer::taskRect(TaskIndex task, QSize size, const SwimlaneState& state) const {
  if (!m_index || task >= m_index->trace().tasks().size()) return {};
  const trace::Task& t = m_index->trace().tasks()[task];
  auto row = rowOfLane(t.lane);
  if (!row) return {};
  QRect area = timeArea(size);
  double x0 = area.left() + state.coords.xOf(static_cast<double>(t.startNs));
  double x1 = area.left() + state.coords.xOf(static_cast<double>(t.endNs));
  return QRectF(x0, rowTopPx(*row, state), std::max(x1 - x0, 1.0), kLaneHeightPx);
}

QColor SwimlaneRenderer::taskColor(TaskIndex task, SwimlaneColorMode mode) const {
  const trace::Task& t = m_index->trace().tasks()[task];
  if (mode == SwimlaneColorMode::Subgraph) return toQColor(subgraphColor(t.subgraph));
  return QColor::fromRgb(m_labelRgb[t.label]);
}

bool SwimlaneRenderer::isDark() const { return m_palette.color(QPalette::Window).lightness() < 128; }

void SwimlaneRenderer::paint(QPainter& painter, QSize size, const SwimlaneState& state) const {
  painter.fillRect(QRect(QPoint(0, 0), size), m_palette.color(QPalette::Base));
  m_lastItems = 0;
  m_lastTasks = 0;
  if (!m_index) {
    painter.setPen(m_palette.color(QPalette::PlaceholderText));
    painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
                     QCoreApplication::translate("SwimlaneRenderer", "No trace loaded.\nOpen a swimlane file or a project (Ctrl+O)."));
    return;
  }
  paintLanes(painter, size, state);
  paintOverlays(painter, size, state);
  paintArrows(painter, size, state);
  paintRuler(painter, size, state);
  paintHeaders(painter, size, state);
}

void SwimlaneRenderer::paintLanes(QPainter& painter, QSize size, const SwimlaneState& state) const {
  const trace::Trace& tr = m_index->trace();
  QRect area = timeArea(size);
  painter.save();
  painter.setClipRect(area);
  painter.setRenderHint(QPainter::Antialiasing, false);
  bool dark = isDark();
  // Opaque lane background (a blend of Base towards Text): blending a
  // translucent one over every lane costs more than all the slices.
  QColor base = m_palette.color(QPalette::Base);
  QColor ink = m_palette.color(QPalette::Text);
  double mix = dark ? 0.04 : 0.035;
  QColor laneBackground = QColor::fromRgbF(base.redF() + (ink.redF() - base.redF()) * mix,
                                           base.greenF() + (ink.greenF() - base.greenF()) * mix,
                                           base.blueF() + (ink.blueF() - base.blueF()) * mix);
  QColor outline = dark ? QColor(0, 0, 0, 140) : QColor(0, 0, 0, 90);
  double fromNs = state.coords.startNs();
  double toNs = state.coords.endNs();
  bool dimmed = !state.highlighted.empty();
  for (auto& batch : m_fillBatches) batch.second.clear();
  m_labelled.clear();
  auto batchFor = [&](QRgb rgb) -> std::vector<QRect>& {
    for (auto& batch : m_fillBatches)
      if (batch.first == rgb) return batch.second;
    m_fillBatches.emplace_back(rgb, std::vector<QRect>());
    return m_fillBatches.back().second;
  };

  for (std::size_t row = 0; row < m_index->laneOrder().size(); ++row) {
    double top = rowTopPx(row, state);
    if (top + kLaneHeightPx < area.top() || top > area.bottom()) continue;
    LaneIndex lane = m_index->laneOrder()[row];
    int y = static_cast<int>(top);
    painter.fillRect(QRect(area.left(), y, area.width(), kLaneHeightPx), laneBackground);
    auto range = visibleTaskRange(tr, lane, fromNs, toNs, m_index->laneMaxDurNs(lane));
    foldSlices(tr, lane, range, state.coords, kMinSliceWidthPx, m_runs);
    const auto& order = tr.lanes()[lane].tasksByStart;
    m_lastItems += m_runs.size();
    QRect* previousFold = nullptr;
    QRgb previousFoldRgb = 0;
    for (const SliceRun& run : m_runs) {
      m_lastTasks += run.count();
      // Clip to the area by hand: a 1e9-pixel-wide rectangle overflows int.
      double x0 = std::max(run.x0, -2.0) + area.left();
      double x1 = std::min(run.x1, area.width() + 2.0) + area.left();
      if (x1 <= x0) continue;
      TaskIndex first = order[run.first];
      QColor fill = taskColor(first, state.colorMode);
      if (run.folded) {
        // Folds: the first task's colour, lighter, so many tiny tasks read as
        // "busy, zoom in" rather than as one long task.
        fill = dark ? fill.darker(140) : fill.lighter(125);
      }
      if (dimmed) fill.setAlpha(70);
      int left = static_cast<int>(std::floor(x0));
      QRect rect(QPoint(left, y + 1), QPoint(std::max(left, static_cast<int>(std::ceil(x1)) - 1), y + kLaneHeightPx - 2));
      QRgb rgb = fill.rgba();
      if (run.folded && previousFold && previousFoldRgb == rgb && previousFold->right() + 1 >= rect.left()) {
        previousFold->setRight(std::max(previousFold->right(), rect.right()));  // same colour, touching: one rectangle
        continue;
      }
      std::vector<QRect>& batch = batchFor(rgb);
      batch.push_back(rect);
      previousFold = run.folded ? &batch.back() : nullptr;
      previousFoldRgb = rgb;
      if (!run.folded && rect.width() >= 6) m_labelled.push_back({rect, first, fill});
    }
  }
  painter.setPen(Qt::NoPen);
  for (const auto& [rgb, rects] : m_fillBatches) {
    if (rects.empty()) continue;
    painter.setBrush(QColor::fromRgba(rgb));
    painter.drawRects(rects.data(), static_cast<int>(rects.size()));
  }
  // Outlines and names on slices wide enough to carry them.
  QFont font = painter.font();
  font.setPointSizeF(font.pointSizeF() * 0.85);
  painter.setFont(font);
  QFontMetrics metrics(font);
  painter.setBrush(Qt::NoBrush);
  for (const LabelledSlice& slice : m_labelled) {
    painter.setPen(outline);
    painter.drawRect(slice.rect.adjusted(0, 0, -1, -1));
    if (slice.rect.width() <= 36) continue;
    const trace::Task& task = tr.tasks()[slice.task];
    std::string_view label = tr.str(task.label);
    QString text = qtext(label.empty() ? tr.str(task.name) : label);
    QRect textRect = slice.rect.adjusted(4, 0, -3, 0);
    textRect.setLeft(std::max(textRect.left(), area.left() + 4));  // keep the text visible when panned
    QString elided = metrics.elidedText(text, Qt::ElideRight, textRect.width());
    if (elided.size() > 1 && !elided.startsWith(QChar(0x2026))) {
      painter.setPen(textOn(slice.fill));
      painter.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, elided);
    }
  }
  painter.restore();
}

void SwimlaneRenderer::paintOverlays(QPainter& painter, QSize size, const SwimlaneState& state) const {
  const trace::Trace& tr = m_index->trace();
  QRect area = timeArea(size);
  painter.save();
  painter.setClipRect(area);
  bool dark = isDark();
  auto outlineTask = [&](TaskIndex task, const QColor& color, double width) {
    QRectF rect = taskRect(task, size, state);
    if (rect.isNull() || rect.right() < area.left() - 4 || rect.left() > area.right() + 4) return;
    if (rect.bottom() < area.top() || rect.top() > area.bottom()) return;
    rect.setLeft(std::max(rect.left(), area.left() - 4.0));
    rect.setRight(std::min(rect.right(), area.right() + 4.0));
    if (rect.width() < 3) rect.adjust(-1.5, 0, 1.5, 0);
    painter.setPen(QPen(color, width));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(rect.adjusted(width / 2, width / 2, -width / 2, -width / 2));
  };
  // Highlights (search matches, a source line's tasks): full colour over the
  // dimmed lanes, plus an outline so single-pixel ones are found.
  QColor highlight(dark ? QColor(255, 214, 10) : QColor(200, 120, 0));
  std::size_t drawn = 0;
  for (TaskIndex task : state.highlighted) {
    const trace::Task& t = tr.tasks()[task];
    if (static_cast<double>(t.endNs) < state.coords.startNs() || static_cast<double>(t.startNs) > state.coords.endNs()) continue;
    if (++drawn > 20000) break;  // enough to show where they are
    QRectF rect = taskRect(task, size, state);
    painter.fillRect(rect.adjusted(0, 1, 0, -1), taskColor(task, state.colorMode));
    outlineTask(task, highlight, 1.5);
  }
  if (state.showCriticalPath) {
    QColor critical = dark ? QColor(255, 90, 90) : QColor(200, 0, 0);
    for (TaskIndex task : m_index->criticalPath()) {
      QRectF rect = taskRect(task, size, state);
      if (rect.right() < area.left() || rect.left() > area.right()) continue;
      painter.fillRect(QRectF(rect.left(), rect.bottom() - 3, std::max(rect.width(), 2.0), 3), critical);
      outlineTask(task, critical, 1);
    }
  }
  if (state.hovered != trace::kNoTask && state.hovered != state.selected)
    outlineTask(state.hovered, m_palette.color(QPalette::Text), 1);
  if (state.selected != trace::kNoTask) outlineTask(state.selected, m_palette.color(QPalette::Highlight), 2.5);

  if (state.boxZoomPx) {
    double x0 = area.left() + std::min(state.boxZoomPx->first, state.boxZoomPx->second);
    double x1 = area.left() + std::max(state.boxZoomPx->first, state.boxZoomPx->second);
    QColor fill = m_palette.color(QPalette::Highlight);
    fill.setAlpha(50);
    painter.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), fill);
    painter.setPen(m_palette.color(QPalette::Highlight));
    painter.drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
    painter.drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
  }
  painter.restore();
  if (state.measureNs) {
    // The measured interval spans the ruler too, with its length written on it.
    double a = std::min(state.measureNs->first, state.measureNs->second);
    double b = std::max(state.measureNs->first, state.measureNs->second);
    double x0 = area.left() + state.coords.xOf(a);
    double x1 = area.left() + state.coords.xOf(b);
    painter.save();
    painter.setClipRect(QRect(area.left(), 0, area.width(), size.height()));
    QColor band = dark ? QColor(120, 200, 255, 45) : QColor(0, 110, 220, 35);
    QColor edge = dark ? QColor(120, 200, 255) : QColor(0, 90, 200);
    painter.fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), band);
    painter.setPen(QPen(edge, 1, Qt::DashLine));
    painter.drawLine(QPointF(x0, 0), QPointF(x0, size.height()));
    painter.drawLine(QPointF(x1, 0), QPointF(x1, size.height()));
    painter.restore();
  }
}

void SwimlaneRenderer::paintArrows(QPainter& painter, QSize size, const SwimlaneState& state) const {
  if (state.arrows.empty()) return;
  QRect area = timeArea(size);
  painter.save();
  painter.setClipRect(area);
  painter.setRenderHint(QPainter::Antialiasing, true);
  bool dark = isDark();
  QColor upstream = dark ? QColor(255, 170, 60) : QColor(210, 100, 0);
  QColor downstream = dark ? QColor(110, 180, 255) : QColor(0, 90, 200);
  for (const DependencyEdge& edge : state.arrows) {
    QRectF from = taskRect(edge.producer, size, state);
    QRectF to = taskRect(edge.consumer, size, state);
    if (from.isNull() || to.isNull()) continue;
    QPointF a(from.right(), from.center().y());
    QPointF b(to.left(), to.center().y());
    if ((a.x() < area.left() && b.x() < area.left()) || (a.x() > area.right() && b.x() > area.right())) continue;
    bool up = edge.upstream;
    QColor color = up ? upstream : downstream;
    color.setAlphaF(edge.depth == 1 ? 0.95 : std::max(0.35, 0.85 - 0.15 * edge.depth));
    QPainterPath path(a);
    double bend = std::clamp(std::fabs(b.x() - a.x()) * 0.5, 12.0, 80.0);
    path.cubicTo(a + QPointF(bend, 0), b - QPointF(bend, 0), b);
    painter.setPen(QPen(color, edge.depth == 1 ? 1.6 : 1.0));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);
    // Arrow head pointing right, into the consumer's start.
    QPolygonF head;
    head << b << b + QPointF(-7, -3.5) << b + QPointF(-7, 3.5);
    painter.setBrush(color);
    painter.setPen(Qt::NoPen);
    painter.drawPolygon(head);
  }
  painter.restore();
}

void SwimlaneRenderer::paintRuler(QPainter& painter, QSize size, const SwimlaneState& state) const {
  QRect area = timeArea(size);
  QRect ruler(0, 0, size.width(), kRulerHeightPx);
  painter.fillRect(ruler, m_palette.color(QPalette::Window));
  painter.setPen(m_palette.color(QPalette::Mid));
  painter.drawLine(0, kRulerHeightPx - 1, size.width(), kRulerHeightPx - 1);
  double stepNs = niceStepNs(state.coords.nsPerPx() * 110);  // a label every >= 110 px
  double firstTick = std::ceil(state.coords.startNs() / stepNs) * stepNs;
  QColor grid = m_palette.color(QPalette::Text);
  grid.setAlpha(isDark() ? 28 : 22);
  QColor minorTick = m_palette.color(QPalette::Mid);
  painter.save();
  painter.setClipRect(QRect(area.left(), 0, area.width(), size.height()));
  for (double tick = firstTick - stepNs; tick <= state.coords.endNs(); tick += stepNs) {
    double x = area.left() + state.coords.xOf(tick);
    // Five minor ticks per step.
    painter.setPen(minorTick);
    for (int minor = 1; minor < 5; ++minor) {
      double mx = x + minor * stepNs / 5 / state.coords.nsPerPx();
      painter.drawLine(QPointF(mx, kRulerHeightPx - 5), QPointF(mx, kRulerHeightPx - 1));
    }
    if (tick < firstTick) continue;
    painter.setPen(m_palette.color(QPalette::WindowText));
    painter.drawLine(QPointF(x, kRulerHeightPx - 10), QPointF(x, kRulerHeightPx - 1));
    painter.drawText(QRectF(x + 3, 2, 120, kRulerHeightPx - 8), Qt::AlignLeft | Qt::AlignVCenter,
                     QString::fromStdString(formatTickNs(tick, stepNs)));
    painter.setPen(grid);
    painter.drawLine(QPointF(x, kRulerHeightPx), QPointF(x, size.height()));
  }
  if (state.measureNs) {
    double a = std::min(state.measureNs->first, state.measureNs->second);
    double b = std::max(state.measureNs->first, state.measureNs->second);
    double x0 = area.left() + state.coords.xOf(a);
    double x1 = area.left() + state.coords.xOf(b);
    QString text = QStringLiteral("Δ ") + QString::fromStdString(formatDurationNs(b - a));
    QFontMetrics metrics(painter.font());
    double width = metrics.horizontalAdvance(text) + 12;
    double centre = std::clamp((x0 + x1) / 2, area.left() + width / 2, area.right() - width / 2);
    QRectF box(centre - width / 2, 3, width, kRulerHeightPx - 6);
    bool dark = isDark();
    painter.setPen(Qt::NoPen);
    painter.setBrush(dark ? QColor(120, 200, 255) : QColor(0, 90, 200));
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.drawRoundedRect(box, 4, 4);
    painter.setPen(dark ? Qt::black : Qt::white);
    painter.drawText(box, Qt::AlignCenter, text);
  }
  painter.restore();
}

void SwimlaneRenderer::paintHeaders(QPainter& painter, QSize size, const SwimlaneState& state) const {
  const trace::Trace& tr = m_index->trace();
  QRect headers(0, kRulerHeightPx, kHeaderWidthPx, size.height() - kRulerHeightPx);
  painter.fillRect(headers, m_palette.color(QPalette::Window));
  painter.fillRect(QRect(0, 0, kHeaderWidthPx, kRulerHeightPx), m_palette.color(QPalette::Window));
  painter.setPen(m_palette.color(QPalette::Mid));
  painter.drawLine(kHeaderWidthPx - 1, 0, kHeaderWidthPx - 1, size.height());
  painter.save();
  painter.setClipRect(headers);
  QColor kindColor[4] = {QColor(214, 96, 77), QColor(67, 147, 195), QColor(140, 140, 140), QColor(140, 140, 140)};
  for (std::size_t row = 0; row < m_index->laneOrder().size(); ++row) {
    double top = rowTopPx(row, state);
    if (top + kLaneHeightPx < headers.top() || top > headers.bottom()) continue;
    const trace::Lane& lane = tr.lanes()[m_index->laneOrder()[row]];
    painter.fillRect(QRectF(4, top + 2, 3, kLaneHeightPx - 4), kindColor[static_cast<int>(lane.kind)]);
    painter.setPen(m_palette.color(QPalette::WindowText));
    painter.drawText(QRectF(12, top, kHeaderWidthPx - 16, kLaneHeightPx), Qt::AlignVCenter | Qt::AlignLeft,
                     qtext(tr.str(lane.name)));
  }
  painter.restore();
}

} // namespace pto::widgets
