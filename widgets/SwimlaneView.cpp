// The interactive swimlane.
#include "widgets/SwimlaneView.h"

#include "widgets/QtText.h"
#include "widgets/models/BoundClass.h"
#include "widgets/models/TimeFormat.h"

#include <QDir>
#include <QFileInfo>
#include <QHelpEvent>
#include <QImage>
#include <QSvgGenerator>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace pto::widgets {
namespace {


// Per key press (auto-repeat makes a held key a smooth zoom or pan).
constexpr double kKeyZoomFactor = 1.3;
constexpr double kKeyPanFraction = 0.15;  // of the width

} // namespace

SwimlaneView::SwimlaneView(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(300, 120);
  m_renderer.setPalette(palette());
  m_state.coords.setWidthPx(SwimlaneRenderer::timeArea(size()).width());
}

void SwimlaneView::setEmptyMessage(const QString& message) {
  m_renderer.setEmptyMessage(message);
  update();
}

void SwimlaneView::setTrace(std::shared_ptr<const TraceIndex> index) {
  m_renderer.setTrace(index);
  TaskIndex previous = m_state.selected;
  m_state.selected = trace::kNoTask;
  m_state.hovered = trace::kNoTask;
  m_state.arrows.clear();
  m_state.highlighted.clear();
  m_state.measureNs.reset();
  m_state.boxZoomPx.reset();
  m_state.scrollYPx = 0;
  if (index) m_state.coords.setExtent(index->startNs(), index->endNs());
  m_state.coords.setWidthPx(SwimlaneRenderer::timeArea(size()).width());
  m_state.coords.fit();
  if (previous != trace::kNoTask) Q_EMIT taskSelected(trace::kNoTask);
  Q_EMIT traceChanged();
  Q_EMIT viewChanged();
  update();
}

void SwimlaneView::setCollapseIdleLanes(bool collapse) {
  if (collapse == m_renderer.collapsesIdleLanes()) return;
  m_renderer.setCollapseIdleLanes(collapse);
  clampScroll();
  Q_EMIT idleLanesCollapsedChanged(collapse);
  Q_EMIT viewChanged();
  update();
}

std::size_t SwimlaneView::idleLaneCount() const {
  const auto& index = traceIndex();
  if (!index) return 0;
  std::size_t idle = 0;
  for (LaneIndex lane = 0; lane < index->trace().lanes().size(); ++lane) idle += index->laneTaskCount(lane) == 0;
  return idle;
}

void SwimlaneView::setShowLegend(bool show) {
  m_state.showLegend = show;
  update();
}

QSize SwimlaneView::exportSize() const {
  return {std::max(width(), 400), SwimlaneRenderer::kRulerHeightPx + std::max(m_renderer.contentHeightPx(), 60)};
}

SwimlaneState SwimlaneView::exportState(QSize size) const {
  SwimlaneState state = m_state;
  state.hovered = trace::kNoTask;
  state.boxZoomPx.reset();
  state.scrollYPx = 0;
  double from = m_state.coords.startNs();
  double to = m_state.coords.endNs();
  state.coords.setWidthPx(SwimlaneRenderer::timeArea(size).width());
  state.coords.showRange(from, to);
  return state;
}

namespace {

QString checkWritable(const QString& path) {
  if (path.isEmpty()) return QObject::tr("no file name given");
  QFileInfo info(path);
  if (!info.absoluteDir().exists()) return QObject::tr("%1: the folder %2 does not exist").arg(path, info.absolutePath());
  return {};
}

} // namespace

QString SwimlaneView::exportPng(const QString& path, QSize size) const {
  if (QString error = checkWritable(path); !error.isEmpty()) return error;
  if (!size.isValid()) size = exportSize();
  if (size.width() < 1 || size.height() < 1 || static_cast<qint64>(size.width()) * size.height() > 400'000'000)
    return tr("%1: cannot export an image of %2 x %3 pixels").arg(path).arg(size.width()).arg(size.height());
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return tr("%1: not enough memory for a %2 x %3 image").arg(path).arg(size.width()).arg(size.height());
  {
    QPainter painter(&image);
    painter.setFont(font());
    m_renderer.paint(painter, size, exportState(size));
  }
  if (!image.save(path, "PNG")) return tr("%1: could not write the PNG file").arg(path);
  return {};
}

QString SwimlaneView::exportSvg(const QString& path, QSize size) const {
  if (QString error = checkWritable(path); !error.isEmpty()) return error;
  if (!size.isValid()) size = exportSize();
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(size);
  generator.setViewBox(QRect(QPoint(0, 0), size));
  // Fonts at the view's resolution, so text has the size it has on screen
  // relative to the lanes (the generator's default is 72 dpi).
  generator.setResolution(logicalDpiY());
  generator.setTitle(tr("Swimlane"));
  const auto& index = traceIndex();
  generator.setDescription(index ? QString::fromStdString(index->sourceName()) : QString());
  QPainter painter;
  if (!painter.begin(&generator)) return tr("%1: could not write the SVG file").arg(path);
  painter.setFont(font());
  m_renderer.paint(painter, size, exportState(size));
  if (!painter.end()) return tr("%1: could not finish the SVG file").arg(path);
  if (QFileInfo(path).size() == 0) return tr("%1: the SVG file is empty").arg(path);
  return {};
}

void SwimlaneView::selectTask(TaskIndex task, bool reveal) {
  const auto& index = traceIndex();
  if (!index || task >= index->trace().tasks().size()) task = trace::kNoTask;
  bool changed = task != m_state.selected;
  m_state.selected = task;
  updateArrows();
  if (reveal && task != trace::kNoTask) revealTask(task);
  update();
  if (changed) Q_EMIT taskSelected(task);
}

void SwimlaneView::showTasks(std::vector<TaskIndex> tasks) {
  const auto& index = traceIndex();
  if (!index) return;
  std::sort(tasks.begin(), tasks.end());
  m_state.highlighted = std::move(tasks);
  m_matchCursor = 0;
  if (m_state.highlighted.empty()) {
    update();
    return;
  }
  const auto& all = index->trace().tasks();
  std::int64_t from = all[m_state.highlighted.front()].startNs;
  std::int64_t to = all[m_state.highlighted.front()].endNs;
  TaskIndex earliest = m_state.highlighted.front();
  for (TaskIndex t : m_state.highlighted) {
    from = std::min(from, all[t].startNs);
    to = std::max(to, all[t].endNs);
    if (all[t].startNs < all[earliest].startNs) earliest = t;
  }
  double margin = static_cast<double>(to - from) * 0.05 + 1;
  m_state.coords.showRange(static_cast<double>(from) - margin, static_cast<double>(to) + margin);
  selectTask(earliest, false);
  revealTask(earliest);
  Q_EMIT viewChanged();
}

int SwimlaneView::search(const QString& text) {
  const auto& index = traceIndex();
  if (!index || text.trimmed().isEmpty()) {
    m_state.highlighted.clear();
    update();
    Q_EMIT statusMessage(QString());
    return 0;
  }
  std::vector<TaskIndex> found = index->find(text.toStdString());
  int count = static_cast<int>(found.size());
  m_state.highlighted = std::move(found);
  m_matchCursor = 0;
  if (count > 0) {
    selectTask(m_state.highlighted.front(), true);
  }
  update();
  Q_EMIT statusMessage(count ? tr("%n task(s) match \"%1\"", nullptr, count).arg(text) : tr("No task matches \"%1\"").arg(text));
  return count;
}

void SwimlaneView::nextMatch(bool backwards) {
  if (m_state.highlighted.empty()) return;
  std::size_t n = m_state.highlighted.size();
  m_matchCursor = backwards ? (m_matchCursor + n - 1) % n : (m_matchCursor + 1) % n;
  selectTask(m_state.highlighted[m_matchCursor], true);
  Q_EMIT statusMessage(tr("Match %1 of %2").arg(m_matchCursor + 1).arg(n));
}

void SwimlaneView::setColorMode(SwimlaneColorMode mode) {
  bool changed = mode != m_state.colorMode;
  m_state.colorMode = mode;
  update();
  if (changed) Q_EMIT colorModeChanged(mode);
}

void SwimlaneView::setTimeExtent(std::int64_t startNs, std::int64_t endNs) {
  double from = m_state.coords.startNs();
  double to = m_state.coords.endNs();
  m_state.coords.setExtent(startNs, endNs);
  m_state.coords.showRange(from, to);
  Q_EMIT viewChanged();
  update();
}

void SwimlaneView::setDependencyDepth(int depth) {
  m_depth = std::max(depth, 0);
  updateArrows();
  update();
}

void SwimlaneView::setShowCriticalPath(bool show) {
  m_state.showCriticalPath = show;
  update();
}

void SwimlaneView::fit() {
  m_state.coords.fit();
  m_state.scrollYPx = 0;
  Q_EMIT viewChanged();
  update();
}

void SwimlaneView::zoomBy(double factor) {
  m_state.coords.zoomAbout(m_state.coords.widthPx() / 2, factor);
  Q_EMIT viewChanged();
  update();
}

void SwimlaneView::showRange(double fromNs, double toNs) {
  m_state.coords.showRange(fromNs, toNs);
  Q_EMIT viewChanged();
  update();
}

QPoint SwimlaneView::pointOfTask(TaskIndex task) const {
  QRectF rect = m_renderer.taskRect(task, size(), m_state);
  QRectF visible = rect.intersected(QRectF(SwimlaneRenderer::timeArea(size())));
  if (visible.isEmpty()) return {-1, -1};
  return visible.center().toPoint();
}

void SwimlaneView::updateArrows() {
  const auto& index = traceIndex();
  m_state.arrows.clear();
  if (index && m_state.selected != trace::kNoTask) m_state.arrows = index->dependencyEdges(m_state.selected, m_depth);
}

void SwimlaneView::clampScroll() {
  double maxScroll = std::max(0.0, static_cast<double>(m_renderer.contentHeightPx() - SwimlaneRenderer::timeArea(size()).height()));
  m_state.scrollYPx = std::clamp(m_state.scrollYPx, 0.0, maxScroll);
}

void SwimlaneView::scrollBy(double dy) {
  m_state.scrollYPx += dy;
  clampScroll();
  update();
}

void SwimlaneView::revealTask(TaskIndex task) {
  const auto& index = traceIndex();
  if (!index || task == trace::kNoTask) return;
  const trace::Task& t = index->trace().tasks()[task];
  const SwimlaneCoordinates& c = m_state.coords;
  double start = static_cast<double>(t.startNs);
  double end = static_cast<double>(t.endNs);
  if (end < c.startNs() || start > c.endNs()) m_state.coords.centreOn((start + end) / 2);
  // Zoom in when the task would be too small to see as itself.
  if ((end - start) / m_state.coords.nsPerPx() < 2 && end > start)
    m_state.coords.showRange(start - (end - start) * 20, end + (end - start) * 20);
  if (auto row = m_renderer.rowOfLane(t.lane)) {
    double top = m_renderer.rowTopPx(*row, m_state);
    QRect area = SwimlaneRenderer::timeArea(size());
    if (top < area.top()) m_state.scrollYPx -= area.top() - top + 8;
    else if (top + SwimlaneRenderer::kLaneHeightPx > area.bottom())
      m_state.scrollYPx += top + SwimlaneRenderer::kLaneHeightPx - area.bottom() + 8;
    clampScroll();
  }
  Q_EMIT viewChanged();
}

QString SwimlaneView::tooltipFor(TaskIndex task) const {
  const trace::Trace& trc = traceIndex()->trace();
  const trace::Task& t = trc.tasks()[task];
  QString html = QStringLiteral("<b>%1</b><table>").arg(qtext(trc.str(t.name)).toHtmlEscaped());
  auto row = [&](const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td style='padding-right:8px'>%1</td><td>%2</td></tr>").arg(key, value.toHtmlEscaped());
  };
  row(tr("Task id"), QString::number(t.id));
  if (t.label != trace::kEmptyString) row(tr("Label"), qtext(trc.str(t.label)));
  if (t.subgraph >= 0) row(tr("Subgraph"), QString::number(t.subgraph));
  row(tr("Core"), qtext(trc.str(trc.lanes()[t.lane].name)));
  row(tr("Start"), qtime(static_cast<double>(t.startNs)));
  row(tr("Duration"), qtime(static_cast<double>(t.durNs())));
  row(tr("Kernel line"), t.sourceLine > 0 ? QStringLiteral("%1:%2").arg(qtext(trc.str(t.sourceFile))).arg(t.sourceLine)
                                           : tr("unknown"));
  // The bound class with each class's share of the task, busiest first.
  BoundClass bound = traceIndex()->boundClass(task);
  QString boundText = qtext(name(bound));
  auto busy = boundBusyNs(trc, task);
  double duration = static_cast<double>(std::max<std::int64_t>(t.durNs(), 1));
  std::vector<std::pair<std::int64_t, int>> shares;
  for (int c = 1; c < kBoundClassCount; ++c)
    if (busy[static_cast<std::size_t>(c)] > 0) shares.emplace_back(busy[static_cast<std::size_t>(c)], c);
  std::sort(shares.rbegin(), shares.rend());
  QStringList parts;
  for (auto [ns, c] : shares)
    parts << QStringLiteral("%1 %2%").arg(qtext(name(static_cast<BoundClass>(c)))).arg(std::lround(100.0 * static_cast<double>(ns) / duration));
  if (!parts.isEmpty()) boundText += QStringLiteral(" (") + parts.join(QStringLiteral(", ")) + QStringLiteral(")");
  row(tr("Bound"), boundText);
  if (traceIndex()->onCriticalPath(task)) row(tr("Critical path"), tr("yes"));
  html += QStringLiteral("</table>");
  return html;
}

void SwimlaneView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  m_renderer.paint(painter, size(), m_state);
}

void SwimlaneView::resizeEvent(QResizeEvent*) {
  // The same time range, stretched: a trace fitted before the window was
  // laid out stays fitted, and resizing never hides part of what was shown.
  double from = m_state.coords.startNs();
  double to = m_state.coords.endNs();
  m_state.coords.setWidthPx(SwimlaneRenderer::timeArea(size()).width());
  if (traceIndex()) m_state.coords.showRange(from, to);
  clampScroll();
  Q_EMIT viewChanged();
}

void SwimlaneView::changeEvent(QEvent* event) {
  // Follow the system's light/dark palette when it changes.
  if (event->type() == QEvent::PaletteChange) {
    m_renderer.setPalette(palette());
    update();
  }
  QWidget::changeEvent(event);
}

void SwimlaneView::wheelEvent(QWheelEvent* event) {
  QPoint angle = event->angleDelta();
  if (event->modifiers() & Qt::ShiftModifier) {
    // Shift swaps the axes on some platforms: take whichever is set.
    scrollBy(-(angle.y() ? angle.y() : angle.x()) / 120.0 * SwimlaneRenderer::kLaneHeightPx * 2);
  } else if (std::abs(angle.x()) > std::abs(angle.y())) {
    m_state.coords.panPx(-angle.x() / 120.0 * 60);
    Q_EMIT viewChanged();
  } else if (angle.y() != 0) {
    double x = std::clamp(timeX(event->position().x()), 0.0, m_state.coords.widthPx());
    m_state.coords.zoomAbout(x, std::pow(1.25, angle.y() / 120.0));
    Q_EMIT viewChanged();
  }
  update();
  event->accept();
}

void SwimlaneView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  m_pressPos = m_lastPos = event->position();
  m_moved = false;
  if (event->modifiers() & Qt::AltModifier) {
    m_drag = Drag::Measure;
    double ns = m_state.coords.nsAt(timeX(event->position().x()));
    m_state.measureNs = std::make_pair(ns, ns);
  } else if (event->modifiers() & Qt::ShiftModifier) {
    m_drag = Drag::BoxZoom;
    double x = timeX(event->position().x());
    m_state.boxZoomPx = std::make_pair(x, x);
  } else {
    m_drag = Drag::Pan;
    setCursor(Qt::ClosedHandCursor);
  }
  update();
}

void SwimlaneView::mouseMoveEvent(QMouseEvent* event) {
  QPointF pos = event->position();
  m_hoverPos = pos;
  if (m_drag == Drag::None) {
    TaskIndex hovered = taskAt(pos.toPoint());
    if (hovered != m_state.hovered) {
      m_state.hovered = hovered;
      update();
    }
    return;
  }
  if ((pos - m_pressPos).manhattanLength() > 3) m_moved = true;
  if (m_drag == Drag::Pan) {
    m_state.coords.panPx(-(pos.x() - m_lastPos.x()));
    m_state.scrollYPx -= pos.y() - m_lastPos.y();
    clampScroll();
    Q_EMIT viewChanged();
  } else if (m_drag == Drag::Measure) {
    m_state.measureNs->second = m_state.coords.nsAt(timeX(pos.x()));
    double length = std::fabs(m_state.measureNs->second - m_state.measureNs->first);
    Q_EMIT statusMessage(tr("Measured %1").arg(qtime(length)));
  } else if (m_drag == Drag::BoxZoom) {
    m_state.boxZoomPx->second = std::clamp(timeX(pos.x()), 0.0, m_state.coords.widthPx());
  }
  m_lastPos = pos;
  update();
}

void SwimlaneView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || m_drag == Drag::None) return QWidget::mouseReleaseEvent(event);
  Drag drag = m_drag;
  m_drag = Drag::None;
  unsetCursor();
  if (drag == Drag::BoxZoom) {
    auto [a, b] = *m_state.boxZoomPx;
    m_state.boxZoomPx.reset();
    if (std::fabs(b - a) >= 4) {
      m_state.coords.showRange(m_state.coords.nsAt(std::min(a, b)), m_state.coords.nsAt(std::max(a, b)));
      Q_EMIT viewChanged();
    }
  } else if (drag == Drag::Measure) {
    if (!m_moved) m_state.measureNs.reset();
  } else if (!m_moved) {
    // A click, not a drag: a row of idle lanes opens; else select what is
    // under it (nothing clears).
    auto row = m_renderer.rowAt(event->position().y(), m_state);
    if (row && m_renderer.layout().rows()[*row].idleGroup) setCollapseIdleLanes(false);
    else selectTask(taskAt(event->position().toPoint()), false);
  }
  update();
}

void SwimlaneView::mouseDoubleClickEvent(QMouseEvent* event) {
  TaskIndex task = taskAt(event->position().toPoint());
  if (task == trace::kNoTask) return;
  const trace::Task& t = traceIndex()->trace().tasks()[task];
  double pad = std::max<double>(static_cast<double>(t.durNs()) * 0.25, 10);
  showRange(static_cast<double>(t.startNs) - pad, static_cast<double>(t.endNs) + pad);
  selectTask(task, false);
}

bool SwimlaneView::isViewKey(const QKeyEvent* event) {
  // Ctrl/Alt/Meta chords belong to the application (Ctrl+S saves, not zooms).
  if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
  switch (event->key()) {
  case Qt::Key_W: case Qt::Key_S: case Qt::Key_A: case Qt::Key_D:
  case Qt::Key_Plus: case Qt::Key_Equal: case Qt::Key_Minus:
  case Qt::Key_Left: case Qt::Key_Right: case Qt::Key_Up: case Qt::Key_Down:
  case Qt::Key_F: case Qt::Key_Home: case Qt::Key_I: case Qt::Key_N: case Qt::Key_Escape:
    return true;
  default: return false;
  }
}

double SwimlaneView::keyZoomAnchorX() const {
  if (m_hoverPos && m_hoverPos->x() >= timeAreaLeftPx()) return timeX(m_hoverPos->x());
  return m_state.coords.widthPx() / 2;
}

void SwimlaneView::keyPressEvent(QKeyEvent* event) {
  if (!isViewKey(event)) return QWidget::keyPressEvent(event);
  double panPx = m_state.coords.widthPx() * kKeyPanFraction;
  auto zoom = [&](double factor) {
    m_state.coords.zoomAbout(keyZoomAnchorX(), factor);
    Q_EMIT viewChanged();
    update();
  };
  auto pan = [&](double dx) {
    m_state.coords.panPx(dx);
    Q_EMIT viewChanged();
    update();
  };
  switch (event->key()) {
  case Qt::Key_W:
  case Qt::Key_Plus:
  case Qt::Key_Equal: zoom(kKeyZoomFactor); break;
  case Qt::Key_S:
  case Qt::Key_Minus: zoom(1 / kKeyZoomFactor); break;
  case Qt::Key_A:
  case Qt::Key_Left: pan(-panPx); break;
  case Qt::Key_D:
  case Qt::Key_Right: pan(panPx); break;
  case Qt::Key_Up: scrollBy(-SwimlaneRenderer::kLaneHeightPx * 2); break;
  case Qt::Key_Down: scrollBy(SwimlaneRenderer::kLaneHeightPx * 2); break;
  case Qt::Key_F:
  case Qt::Key_Home: fit(); break;
  case Qt::Key_I: setCollapseIdleLanes(!collapsesIdleLanes()); break;
  case Qt::Key_N: nextMatch(event->modifiers() & Qt::ShiftModifier); break;
  case Qt::Key_Escape:
    if (m_state.measureNs) m_state.measureNs.reset();
    else if (!m_state.highlighted.empty()) m_state.highlighted.clear();
    else selectTask(trace::kNoTask);
    update();
    break;
  default: break;
  }
  event->accept();
}

void SwimlaneView::leaveEvent(QEvent* event) {
  m_hoverPos.reset();
  if (m_state.hovered != trace::kNoTask) {
    m_state.hovered = trace::kNoTask;
    update();
  }
  QWidget::leaveEvent(event);
}

bool SwimlaneView::event(QEvent* event) {
  // The view's plain keys win over single-key window shortcuts while it has
  // focus (the event only reaches the focused widget). Esc is left to the
  // window (it cancels a run); the view gets it when nothing else wants it.
  auto* key = event->type() == QEvent::ShortcutOverride ? static_cast<QKeyEvent*>(event) : nullptr;
  if (key && isViewKey(key) && key->key() != Qt::Key_Escape) {
    event->accept();
    return true;
  }
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    TaskIndex task = traceIndex() ? taskAt(help->pos()) : trace::kNoTask;
    if (task == trace::kNoTask)
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), tooltipFor(task), this);
    return true;
  }
  return QWidget::event(event);
}

} // namespace pto::widgets
