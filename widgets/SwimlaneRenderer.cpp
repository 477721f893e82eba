// Painting the swimlane.
#include "widgets/SwimlaneRenderer.h"

#include "widgets/QtText.h"
#include "widgets/models/LabelPalette.h"
#include "widgets/models/TimeFormat.h"

#include <QCoreApplication>
#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QStaticText>
#include <QPaintEngine>

#include <algorithm>
#include <cmath>
#include <functional>

namespace pto::widgets {
namespace {

// Text on a slice: black on light colours, white on dark ones.
QColor textOn(const QColor& fill) { return fill.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250); }

} // namespace

QColor toQColor(Rgb rgb) { return QColor(rgb.r, rgb.g, rgb.b); }

void SwimlaneRenderer::setTrace(std::shared_ptr<const TraceIndex> index) {
  m_index = std::move(index);
  m_labelRgb.clear();
  m_textCache.clear();
  m_columnRgb.fill(ColumnColor{});
  for (auto& legend : m_legend) legend.reset();
  rebuildLayout();
  if (!m_index) return;
  const trace::Trace& tr = m_index->trace();
  // Label colours once per distinct label, not per task per frame.
  m_labelRgb.assign(tr.strings().size(), 0);
  std::vector<bool> done(tr.strings().size(), false);
  for (TaskIndex t = 0; t < tr.taskCount(); ++t) {
    trace::StringId label = tr.taskLabel(t);
    if (done[label]) continue;
    done[label] = true;
    m_labelRgb[label] = toQColor(m_index->labelColors().color(tr.str(label))).rgb();
  }
}

void SwimlaneRenderer::setPalette(const QPalette& palette) {
  m_palette = palette;
  m_columnRgb.fill(ColumnColor{});  // column shades blend with the lane background
}

void SwimlaneRenderer::setCollapseIdleLanes(bool collapse) {
  if (collapse == m_collapseIdle) return;
  m_collapseIdle = collapse;
  rebuildLayout();
}

void SwimlaneRenderer::rebuildLayout() {
  if (!m_index) {
    m_layout = LaneLayout();
    return;
  }
  const trace::Trace& tr = m_index->trace();
  std::vector<trace::LaneKind> kinds;
  std::vector<std::size_t> counts;
  for (LaneIndex lane = 0; lane < tr.lanes().size(); ++lane) {
    kinds.push_back(tr.lanes()[lane].kind);
    counts.push_back(m_index->laneTaskCount(lane));
  }
  LaneLayoutMetrics metrics;
  metrics.laneHeightPx = kLaneHeightPx;
  metrics.laneGapPx = kLaneGapPx;
  metrics.kindGapPx = kKindGapPx;
  metrics.idleRowHeightPx = kIdleRowHeightPx;
  m_layout = LaneLayout(m_index->laneOrder(), kinds, counts, m_collapseIdle, metrics);
}

QRect SwimlaneRenderer::timeArea(QSize size) {
  return QRect(kHeaderWidthPx, kRulerHeightPx, std::max(1, size.width() - kHeaderWidthPx),
               std::max(1, size.height() - kRulerHeightPx));
}

int SwimlaneRenderer::contentHeightPx() const {
  return m_layout.rows().empty() ? 0 : static_cast<int>(std::ceil(m_layout.contentHeightPx())) + 4 + kLegendHeightPx;
}

double SwimlaneRenderer::rowTopPx(std::size_t row, const SwimlaneState& state) const {
  return kRulerHeightPx + m_layout.rows()[row].topPx - state.scrollYPx;
}

std::optional<std::size_t> SwimlaneRenderer::rowAt(double y, const SwimlaneState& state) const {
  if (y < kRulerHeightPx) return std::nullopt;
  return m_layout.rowAt(y - kRulerHeightPx + state.scrollYPx);
}

std::optional<std::size_t> SwimlaneRenderer::rowOfLane(LaneIndex lane) const { return m_layout.rowOfLane(lane); }

TaskIndex SwimlaneRenderer::taskAt(QPointF point, QSize size, const SwimlaneState& state) const {
  if (!m_index) return trace::kNoTask;
  QRect area = timeArea(size);
  if (point.x() < area.left()) return trace::kNoTask;
  auto row = rowAt(point.y(), state);
  if (!row) return trace::kNoTask;
  auto laneOfPoint = m_layout.laneOfRow(*row);
  if (!laneOfPoint) return trace::kNoTask;
  LaneIndex lane = *laneOfPoint;
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
  if (!row || m_layout.rows()[*row].idleGroup) return {};
  QRect area = timeArea(size);
  double x0 = area.left() + state.coords.xOf(static_cast<double>(t.startNs));
  double x1 = area.left() + state.coords.xOf(static_cast<double>(t.endNs));
  return QRectF(x0, rowTopPx(*row, state), std::max(x1 - x0, 1.0), kLaneHeightPx);
}

QColor SwimlaneRenderer::taskColor(TaskIndex task, SwimlaneColorMode mode) const {
  return keyColor(m_index->colorKey(task, mode), mode);
}

QColor SwimlaneRenderer::keyColor(std::uint32_t key, SwimlaneColorMode mode) const {
  switch (mode) {
  case SwimlaneColorMode::Label: return key < m_labelRgb.size() ? QColor::fromRgb(m_labelRgb[key]) : toQColor(kUnknownColor);
  case SwimlaneColorMode::Subgraph: return toQColor(subgraphColor(static_cast<int>(key) - 1));
  case SwimlaneColorMode::Bound: return toQColor(boundColor(static_cast<BoundClass>(key)));
  case SwimlaneColorMode::Error: return toQColor(errorColor(static_cast<ErrorClass>(key)));
  }
  return toQColor(kUnknownColor);
}

std::vector<LegendEntry> SwimlaneRenderer::legend(SwimlaneColorMode mode) const {
  std::vector<LegendEntry> entries;
  if (!m_index) return entries;
  const trace::Trace& tr = m_index->trace();
  // Palette colours repeat: keys sharing a colour share an entry.
  std::unordered_map<QRgb, std::size_t> entryOfColor;
  for (const ColorKeyTotal& total : m_index->colorKeyTotals(mode)) {
    std::uint32_t key = total.key;
    std::int64_t ns = total.busyNs;
    QColor color = keyColor(key, mode);
    QString text;
    switch (mode) {
    case SwimlaneColorMode::Label: text = key == trace::kEmptyString ? QStringLiteral("(no label)") : qtext(tr.str(key)); break;
    case SwimlaneColorMode::Subgraph: {
      if (key == 0) {
        text = QStringLiteral("(no subgraph)");
        break;
      }
      text = QStringLiteral("subgraph %1").arg(key - 1);
      if (total.topLabel != trace::kEmptyString) text += QStringLiteral(" \u00b7 ") + qtext(tr.str(total.topLabel));
      break;
    }
    case SwimlaneColorMode::Bound: {
      auto bound = static_cast<BoundClass>(key);
      text = bound == BoundClass::Unknown ? QStringLiteral("unknown (no pipe data)")
                                          : QStringLiteral("%1 (%2)").arg(qtext(name(bound)), qtext(pipesOf(bound)));
      break;
    }
    case SwimlaneColorMode::Error: text = qtext(name(static_cast<ErrorClass>(key))); break;
    }
    auto [it, added] = entryOfColor.emplace(color.rgb(), entries.size());
    if (added) entries.push_back({color, text, ns});
    else {
      entries[it->second].busyNs += ns;
      if (!entries[it->second].text.endsWith(QStringLiteral(", \u2026"))) entries[it->second].text += QStringLiteral(", \u2026");
    }
  }
  return entries;
}

bool SwimlaneRenderer::isDark() const { return m_palette.color(QPalette::Window).lightness() < 128; }

void SwimlaneRenderer::paint(QPainter& painter, QSize size, const SwimlaneState& state) const {
  m_lastItems = 0;
  m_lastTasks = 0;
  if (!m_index) {
    painter.fillRect(QRect(QPoint(0, 0), size), m_palette.color(QPalette::Base));
    painter.setPen(m_palette.color(QPalette::PlaceholderText));
    painter.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter | Qt::TextWordWrap,
                     m_emptyMessage.isEmpty() ? QCoreApplication::translate(
                                                    "SwimlaneRenderer", "No trace loaded.\nOpen a swimlane file or a project (Ctrl+O).")
                                              : m_emptyMessage);
    return;
  }
  paintLanes(painter, size, state);
  paintOverlays(painter, size, state);
  paintArrows(painter, size, state);
  paintRuler(painter, size, state);
  paintHeaders(painter, size, state);
  if (state.showLegend) paintLegend(painter, size, state);
}

// What paintLanes shares with summariseLane for one frame.
struct SwimlaneRenderer::LaneContext {
  const SwimlaneState& state;
  QRect area;
  int y = 0;  // top of the lane being painted
  bool dark = false;
  bool dimmed = false;
  bool raster = false;  // painting pixels: dense lanes go in as one image row each
  QPainter* painter = nullptr;
  QColor laneBackground;
  std::function<std::vector<QRect>&(QRgb)> batchFor;
};

namespace {

// Folds: the first task's colour, lighter, so many tiny tasks read as "busy,
// zoom in" rather than as one long task.
QColor foldColor(QColor fill, bool dark) { return dark ? fill.darker(118) : fill.lighter(125); }

QColor mixColors(const QColor& from, const QColor& to, double amount) {
  return QColor::fromRgbF(static_cast<float>(from.redF() + (to.redF() - from.redF()) * amount),
                          static_cast<float>(from.greenF() + (to.greenF() - from.greenF()) * amount),
                          static_cast<float>(from.blueF() + (to.blueF() - from.blueF()) * amount));
}

} // namespace

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
  QColor laneBackground = mixColors(base, ink, dark ? 0.06 : 0.035);
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
  bool raster = painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::Raster;
  LaneContext context{state, area, 0, dark, dimmed, raster, &painter, laneBackground, batchFor};

  // Every pixel of the time area is filled once: Base between the rows, the
  // lane background in them (the ruler and headers paint their own areas).
  QColor gapColor = m_palette.color(QPalette::Base);
  int filledTo = area.top();
  auto fillGapTo = [&](int y) {
    if (y > filledTo) painter.fillRect(QRect(area.left(), filledTo, area.width(), y - filledTo), gapColor);
    filledTo = std::max(filledTo, y);
  };
  for (std::size_t row = 0; row < m_layout.rows().size(); ++row) {
    const LaneRow& laneRow = m_layout.rows()[row];
    double top = rowTopPx(row, state);
    if (top + laneRow.heightPx < area.top() || top > area.bottom()) continue;
    fillGapTo(static_cast<int>(top));
    filledTo = std::max(filledTo, static_cast<int>(top + laneRow.heightPx));
    if (laneRow.idleGroup) {
      painter.fillRect(QRectF(area.left(), top, area.width(), laneRow.heightPx), gapColor);
      paintIdleRow(painter, laneRow, top, area);
      continue;
    }
    LaneIndex lane = *m_layout.laneOfRow(row);
    int y = static_cast<int>(top);
    context.y = y;
    auto range = visibleTaskRange(tr, lane, fromNs, toNs, m_index->laneMaxDurNs(lane));
    if (summariseLane(lane, range, context)) continue;
    painter.fillRect(QRect(area.left(), y, area.width(), kLaneHeightPx), laneBackground);
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
      if (run.folded) fill = foldColor(fill, dark);
      if (dimmed) fill.setAlpha(70);
      int left = static_cast<int>(std::floor(x0));
      QRect rect(QPoint(left, y + 1), QPoint(std::max(left, static_cast<int>(std::ceil(x1)) - 1), y + kLaneHeightPx - 2));
      QRgb rgb = fill.rgba();
      if (run.folded && previousFold && previousFoldRgb == rgb && previousFold->right() + 1 >= rect.left()) {
        previousFold->setRight(std::max(previousFold->right(), rect.right()));  // same colour, touching: one rectangle
        continue;
      }
      // A pixel of lane background after each slice wide enough to spare it
      // tells neighbours apart without stroking outlines.
      if (!run.folded && rect.width() >= 4) rect.setRight(rect.right() - 1);
      std::vector<QRect>& batch = batchFor(rgb);
      batch.push_back(rect);
      previousFold = run.folded ? &batch.back() : nullptr;
      previousFoldRgb = rgb;
      if (!run.folded && rect.width() >= 6) m_labelled.push_back({rect, first, fill});
    }
  }
  fillGapTo(area.bottom() + 1);
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
  int ellipsisWidth = metrics.horizontalAdvance(QChar(0x2026));
  if (font != m_textFont) {
    m_textCache.clear();
    m_textFont = font;
  }
  // Names are laid out once per (string, width in 8 px steps) and drawn as
  // static text: shaping and eliding every name every frame cost more than
  // all the rectangles.
  constexpr int kWidthStepPx = 8;
  double baseline = (kLaneHeightPx - metrics.height()) / 2.0;
  QColor lastPen;
  for (const LabelledSlice& slice : m_labelled) {
    if (slice.rect.width() <= 36) continue;
    QRect textRect = slice.rect.adjusted(4, 0, -3, 0);
    textRect.setLeft(std::max(textRect.left(), area.left() + 4));  // keep the text visible when panned
    textRect.setRight(std::min(textRect.right(), area.right() - 2));
    if (textRect.width() < 2 * ellipsisWidth) continue;
    const trace::Task& task = tr.tasks()[slice.task];
    trace::StringId id = task.label != trace::kEmptyString ? task.label : task.name;
    // Full text when it fits (one entry per string), else elided to the width step below.
    auto& full = m_textCache[static_cast<std::uint64_t>(id) << 20];
    if (full.text().isEmpty()) {
      full.setText(qtext(tr.str(id)));
      full.setTextFormat(Qt::PlainText);
      full.prepare(QTransform(), font);
    }
    const QStaticText* text = &full;
    if (full.size().width() > textRect.width()) {
      int step = textRect.width() / kWidthStepPx;
      auto& elided = m_textCache[(static_cast<std::uint64_t>(id) << 20) | static_cast<std::uint64_t>(step + 1)];
      if (elided.text().isEmpty()) {
        QString shortened = metrics.elidedText(full.text(), Qt::ElideRight, step * kWidthStepPx);
        if (shortened.size() <= 1 || shortened.startsWith(QChar(0x2026))) shortened = QStringLiteral(" ");
        elided.setText(shortened);
        elided.setTextFormat(Qt::PlainText);
        elided.prepare(QTransform(), font);
      }
      if (elided.text() == QStringLiteral(" ")) continue;
      text = &elided;
    }
    QColor pen = textOn(slice.fill);
    if (pen != lastPen) {
      painter.setPen(pen);
      lastPen = pen;
    }
    painter.drawStaticText(QPointF(textRect.left(), slice.rect.top() - 1 + baseline), *text);
  }
  painter.restore();
}

bool SwimlaneRenderer::summariseLane(LaneIndex lane, std::pair<std::size_t, std::size_t> range,
                                     const LaneContext& context) const {
  const SwimlaneCoordinates& coords = context.state.coords;
  double nsPerPx = coords.nsPerPx();
  const LaneSummary& summary = m_index->laneSummary();
  std::size_t visible = range.second - range.first;
  auto width = static_cast<std::size_t>(context.area.width());
  // Sparse: under one task per four pixels folds cheaply task by task.
  if (!m_useSummary || visible * 4 <= width) return false;
  // Columns from one pixel left of the area to one right, at whole pixels.
  QRect area = context.area;
  int firstColumn = -1;
  std::size_t columnCount = width + 2;
  double minWideNs = kMinSliceWidthPx * nsPerPx;
  if (visible <= kTasksPerColumnFromSummary * width) {
    // A few tasks per pixel: columns from the visible tasks themselves.
    columnsFromTasks(lane, range, firstColumn, columnCount, context);
  } else if (summary.resolves(lane, nsPerPx)) {
    // Many tasks per pixel: columns from the lane's pyramid, and the few
    // tasks wide enough to stand alone found in it; too many of those (a
    // lane of long tasks elsewhere) and folding is cheaper.
    if (!summary.longTasks(lane, coords.startNs(), coords.endNs(), minWideNs, 2 * width, m_wide)) return false;
    summary.columns(lane, coords.nsAt(firstColumn), nsPerPx, columnCount, context.state.colorMode, m_columns);
  } else {
    // Many tasks per pixel in a burst much denser than the lane's average
    // (its bins are wider than a pixel): folding costs per drawn item, where
    // the columns would walk every task.
    return false;
  }
  const trace::Trace& tr = m_index->trace();
  auto modeBits = static_cast<std::uint64_t>(context.state.colorMode);
  int top = context.y + 1;
  int bottom = context.y + kLaneHeightPx - 2;
  // Shade by how busy the column is, in four steps so runs stay long.
  auto busyLevel = [&](const ColumnSample& sample) {
    return std::clamp(static_cast<int>(std::ceil(sample.busyNs / nsPerPx * 4)), 1, 4);
  };
  auto columnRgb = [&](const ColumnSample& sample) {
    int level = busyLevel(sample);
    std::uint64_t cacheKey = (static_cast<std::uint64_t>(sample.key) << 8) | (modeBits << 4) |
                             (static_cast<std::uint64_t>(level) << 1) | (context.dimmed ? 1u : 0u);
    // A direct-mapped cache in front of the colour maths (a hash map lookup
    // per column showed in profiles).
    ColumnColor& slot = m_columnRgb[(cacheKey * 0x9E3779B97F4A7C15ull) >> (64 - kColumnColorBits)];
    if (slot.valid && slot.key == cacheKey) return slot.rgb;
    QColor fill = mixColors(context.laneBackground, foldColor(keyColor(sample.key, context.state.colorMode), context.dark),
                            0.25 + 0.75 * level / 4.0);
    if (context.dimmed) fill.setAlpha(70);
    slot = {cacheKey, qPremultiply(fill.rgba()), true};
    return slot.rgb;
  };
  bool opaqueRow = context.raster && !context.dimmed;
  if (opaqueRow) {
    // The image row covers the lane but its top and bottom pixel.
    context.painter->fillRect(QRect(area.left(), context.y, area.width(), 1), context.laneBackground);
    context.painter->fillRect(QRect(area.left(), bottom + 1, area.width(), 1), context.laneBackground);
  } else {
    context.painter->fillRect(QRect(area.left(), context.y, area.width(), kLaneHeightPx), context.laneBackground);
  }
  if (context.raster) {
    // One image row for the lane, stretched to its height: per-column
    // rectangles cost far more than their pixels.
    m_rowPixels.resize(columnCount);
    QRgb idle = context.dimmed ? qRgba(0, 0, 0, 0) : context.laneBackground.rgb();
    // Neighbouring columns mostly share key and shade: reuse the last colour.
    std::uint32_t lastKey = kNoColorKey;
    int lastLevel = -1;
    QRgb lastRgb = idle;
    for (std::size_t c = 0; c < columnCount; ++c) {
      const ColumnSample& sample = m_columns[c];
      if (sample.busyNs <= 0 || sample.key == kNoColorKey) {
        m_rowPixels[c] = idle;
        continue;
      }
      int level = busyLevel(sample);
      if (sample.key != lastKey || level != lastLevel) {
        lastRgb = columnRgb(sample);
        lastKey = sample.key;
        lastLevel = level;
      }
      m_rowPixels[c] = lastRgb;
    }
    QImage row(reinterpret_cast<const uchar*>(m_rowPixels.data()), static_cast<int>(columnCount), 1,
               static_cast<qsizetype>(columnCount * sizeof(QRgb)),
               context.dimmed ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB32);
    context.painter->drawImage(QRect(area.left() + firstColumn, top, static_cast<int>(columnCount), bottom - top + 1), row);
    ++m_lastItems;
  } else {
    int runStart = -1;
    QRgb runRgb = 0;
    auto flush = [&](int endColumn) {
      if (runStart < 0) return;
      context.batchFor(runRgb).push_back(QRect(QPoint(area.left() + runStart, top), QPoint(area.left() + endColumn - 1, bottom)));
      ++m_lastItems;
      runStart = -1;
    };
    for (std::size_t c = 0; c < columnCount; ++c) {
      const ColumnSample& sample = m_columns[c];
      int x = firstColumn + static_cast<int>(c);
      if (sample.busyNs <= 0 || sample.key == kNoColorKey) {
        flush(x);
        continue;
      }
      QRgb rgb = qUnpremultiply(columnRgb(sample));
      if (runStart >= 0 && rgb == runRgb) continue;
      flush(x);
      runStart = x;
      runRgb = rgb;
    }
    flush(firstColumn + static_cast<int>(columnCount));
  }
  m_lastTasks += range.second - range.first;

  // The wide tasks, whole, over the columns.
  double fromNs = coords.startNs();
  double toNs = coords.endNs();
  for (auto it = m_wide.begin(); it != m_wide.end(); ++it) {
    std::int64_t startNs = tr.taskStartNs(*it);
    std::int64_t endNs = tr.taskEndNs(*it);
    if (static_cast<double>(endNs) < fromNs || static_cast<double>(startNs) > toNs) continue;
    double x0 = std::max(coords.xOf(static_cast<double>(startNs)), -2.0) + area.left();
    double x1 = std::min(coords.xOf(static_cast<double>(endNs)), area.width() + 2.0) + area.left();
    QColor fill = taskColor(*it, context.state.colorMode);
    if (context.dimmed) fill.setAlpha(70);
    int left = static_cast<int>(std::floor(x0));
    QRect rect(QPoint(left, top), QPoint(std::max(left, static_cast<int>(std::ceil(x1)) - 1), bottom));
    if (rect.width() >= 4) rect.setRight(rect.right() - 1);
    context.batchFor(fill.rgba()).push_back(rect);
    ++m_lastItems;
    if (rect.width() >= 6) m_labelled.push_back({rect, *it, fill});
  }
  return true;
}

void SwimlaneRenderer::columnsFromTasks(LaneIndex lane, std::pair<std::size_t, std::size_t> range, int firstColumn,
                                        std::size_t columnCount, const LaneContext& context) const {
  const trace::Trace& tr = m_index->trace();
  const SwimlaneCoordinates& coords = context.state.coords;
  const auto& order = tr.lanes()[lane].tasksByStart;
  // Per column: covered pixels (tasks overlapping on the lane count once at
  // most) and up to four keys with the pixels they cover; the most covered wins.
  using Accumulator = ColumnAccumulator;
  m_accumulators.assign(columnCount, Accumulator{});
  m_wide.clear();
  Accumulator* acc = m_accumulators.data();
  double columns = static_cast<double>(columnCount);
  // The lane's own columns (LaneSummary): read in order, not scattered by TaskIndex.
  const LaneSummary& summary = m_index->laneSummary();
  const double pxPerNs = 1 / coords.nsPerPx();
  const double xAtZero = coords.xOf(0) - firstColumn;
  for (std::size_t pos = range.first; pos < range.second; ++pos) {
    std::int64_t startNs = summary.startNs(lane, pos);
    std::int64_t durNs = summary.durNs(lane, pos);
    double x0 = xAtZero + static_cast<double>(startNs) * pxPerNs;
    double x1 = x0 + static_cast<double>(durNs) * pxPerNs;
    if (x1 - x0 >= kMinSliceWidthPx) {
      m_wide.push_back(order[pos]);  // drawn whole, over the columns
      continue;
    }
    if (x1 <= 0 || x0 >= columns) continue;
    x0 = std::max(x0, 0.0);
    x1 = std::min(x1, columns);
    std::uint32_t key = summary.key(lane, pos, context.state.colorMode);
    for (auto c = static_cast<std::size_t>(x0); static_cast<double>(c) < x1; ++c) {
      auto cover = static_cast<float>(std::min(x1, static_cast<double>(c + 1)) - std::max(x0, static_cast<double>(c)));
      Accumulator& a = acc[c];
      a.coveredPx += cover;
      int slot = 0;
      while (slot < a.used && a.keys[static_cast<std::size_t>(slot)] != key) ++slot;
      if (slot == a.used) {
        if (a.used == 4) continue;  // a fifth key in one pixel: the four first ones compete
        a.keys[a.used] = key;
        a.px[a.used++] = 0;
      }
      a.px[static_cast<std::size_t>(slot)] += cover;
    }
  }
  m_columns.assign(columnCount, ColumnSample{});
  for (std::size_t c = 0; c < columnCount; ++c) {
    const Accumulator& a = acc[c];
    if (a.used == 0 || a.coveredPx <= 0) continue;
    std::size_t best = 0;
    for (std::size_t slot = 1; slot < a.used; ++slot)
      if (a.px[slot] > a.px[best]) best = slot;
    m_columns[c].busyNs = std::min(1.0f, a.coveredPx) * coords.nsPerPx();
    m_columns[c].key = a.keys[best];
  }
}

void SwimlaneRenderer::paintIdleRow(QPainter& painter, const LaneRow& row, double top, QRect area) const {
  const trace::Trace& tr = m_index->trace();
  QColor ink = m_palette.color(QPalette::PlaceholderText);
  QRectF band(area.left(), top, area.width(), row.heightPx);
  QColor hatch = m_palette.color(QPalette::Text);
  hatch.setAlpha(isDark() ? 22 : 14);
  painter.fillRect(band, QBrush(hatch, Qt::BDiagPattern));
  QString first = qtext(tr.str(tr.lanes()[m_index->laneOrder()[row.firstLane]].name));
  QString last = qtext(tr.str(tr.lanes()[m_index->laneOrder()[row.lastLane - 1]].name));
  QString text = row.laneCount() == 1
                     ? QCoreApplication::translate("SwimlaneRenderer", "%1: idle, no tasks").arg(first)
                     : QCoreApplication::translate("SwimlaneRenderer", "%1 idle %2 lanes (%3 \u2013 %4): no tasks")
                           .arg(row.laneCount())
                           .arg(qtext(trace::name(row.kind)), first, last);
  QFont font = painter.font();
  font.setPointSizeF(font.pointSizeF() * 0.8);
  painter.save();
  painter.setFont(font);
  painter.setPen(ink);
  painter.drawText(band.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
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
  QFont small = painter.font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  for (std::size_t row = 0; row < m_layout.rows().size(); ++row) {
    const LaneRow& laneRow = m_layout.rows()[row];
    double top = rowTopPx(row, state);
    if (top + laneRow.heightPx < headers.top() || top > headers.bottom()) continue;
    QColor kind = kindColor[static_cast<int>(laneRow.kind)];
    if (laneRow.idleGroup) {
      kind.setAlpha(110);
      painter.fillRect(QRectF(4, top + 2, 3, laneRow.heightPx - 4), kind);
      painter.save();
      painter.setFont(small);
      painter.setPen(m_palette.color(QPalette::PlaceholderText));
      painter.drawText(QRectF(12, top, kHeaderWidthPx - 16, laneRow.heightPx), Qt::AlignVCenter | Qt::AlignLeft,
                       QCoreApplication::translate("SwimlaneRenderer", "%1 \u00d7%2 idle")
                           .arg(qtext(trace::name(laneRow.kind)))
                           .arg(laneRow.laneCount()));
      painter.restore();
      continue;
    }
    const trace::Lane& lane = tr.lanes()[m_index->laneOrder()[laneRow.firstLane]];
    painter.fillRect(QRectF(4, top + 2, 3, kLaneHeightPx - 4), kind);
    painter.setPen(m_palette.color(QPalette::WindowText));
    painter.drawText(QRectF(12, top, kHeaderWidthPx - 16, kLaneHeightPx), Qt::AlignVCenter | Qt::AlignLeft,
                     qtext(tr.str(lane.name)));
  }
  painter.restore();
}

const std::vector<LegendEntry>& SwimlaneRenderer::cachedLegend(SwimlaneColorMode mode) const {
  auto& slot = m_legend[static_cast<std::size_t>(mode)];
  if (!slot) slot = legend(mode);
  return *slot;
}

void SwimlaneRenderer::paintLegend(QPainter& painter, QSize size, const SwimlaneState& state) const {
  const std::vector<LegendEntry>& entries = cachedLegend(state.colorMode);
  if (entries.empty()) return;
  QRect area = timeArea(size);
  QRect band(area.left(), size.height() - kLegendHeightPx, area.width(), kLegendHeightPx);
  painter.save();
  painter.fillRect(band, m_palette.color(QPalette::Window));
  painter.setPen(m_palette.color(QPalette::Mid));
  painter.drawLine(band.topLeft(), band.topRight());
  QFont font = painter.font();
  font.setPointSizeF(font.pointSizeF() * 0.85);
  painter.setFont(font);
  QFontMetrics metrics(font);
  double x = band.left() + 8;
  std::size_t shown = 0;
  for (const LegendEntry& entry : entries) {
    QString text = entry.text;
    int textWidth = metrics.horizontalAdvance(text);
    // Keep room for the "+N more" note after the last entry that fits.
    double needed = 12 + 4 + textWidth + 14;
    if (x + needed > band.right() - 70 && shown < entries.size() - 1) break;
    QRectF swatch(x, band.center().y() - 5, 12, 10);
    painter.fillRect(swatch, entry.color);
    painter.setPen(m_palette.color(QPalette::WindowText));
    painter.drawText(QRectF(x + 16, band.top(), textWidth + 2, band.height()), Qt::AlignVCenter | Qt::AlignLeft, text);
    x += needed;
    ++shown;
  }
  if (shown < entries.size()) {
    painter.setPen(m_palette.color(QPalette::PlaceholderText));
    painter.drawText(QRectF(x, band.top(), band.right() - x - 4, band.height()), Qt::AlignVCenter | Qt::AlignLeft,
                     QCoreApplication::translate("SwimlaneRenderer", "+%1 more").arg(entries.size() - shown));
  }
  painter.restore();
}

} // namespace pto::widgets
