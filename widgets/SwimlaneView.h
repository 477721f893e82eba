// SwimlaneView: the interactive swimlane. Input → SwimlaneState → the
// SwimlaneRenderer paints. Mouse: wheel zooms about the cursor (Shift+wheel
// scrolls lanes), drag pans, Shift+drag box-zooms a time range, Alt+drag
// measures an interval, click selects (a click on a row of idle lanes shows
// them), double-click zooms to a task, hover shows a tooltip. Keys
// (Perfetto's habits), only while the view has focus and without
// Ctrl/Alt/Meta, so they never fire while typing elsewhere or steal
// application shortcuts: W/S or +/- zoom in/out about the mouse (the centre
// when the mouse is elsewhere), A/D or Left/Right pan, Up/Down scroll
// lanes, F or Home fits, I shows/collapses idle lanes, N/Shift+N next and
// previous match, Esc clears.
#pragma once

#include "widgets/SwimlaneRenderer.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace pto::widgets {

class SwimlaneView : public QWidget {
  Q_OBJECT
public:
  explicit SwimlaneView(QWidget* parent = nullptr);

  // The tooltip text (HTML) for a task: name, id, label, subgraph, core,
  // start, duration, kernel line, bound class with the per-pipe split.
  QString tooltipFor(TaskIndex task) const;

  // Shows a new trace (null: none), fitted, with no selection.
  void setTrace(std::shared_ptr<const TraceIndex> index);
  const std::shared_ptr<const TraceIndex>& traceIndex() const { return m_renderer.traceIndex(); }
  // What the view says while it has no trace (why, and what to do); empty
  // restores the default ("No trace loaded", open something).
  void setEmptyMessage(const QString& message);

  TaskIndex selectedTask() const { return m_state.selected; }
  // Selects `task` (kNoTask clears), shows its dependency arrows and, with
  // `reveal`, scrolls it into view. Emits taskSelected when it changes.
  void selectTask(TaskIndex task, bool reveal = true);
  // Highlights `tasks` (e.g. a source line's), selects the first one and
  // zooms to show them all.
  void showTasks(std::vector<TaskIndex> tasks);

  // Search by label, task id or "#index"; highlights the matches, selects
  // the first. Returns the number of matches. Empty text clears.
  int search(const QString& text);
  // Selects the next (or previous) highlighted task.
  void nextMatch(bool backwards = false);

  void setColorMode(SwimlaneColorMode mode);
  SwimlaneColorMode colorMode() const { return m_state.colorMode; }
  // Dependency arrows reach `depth` steps (0: all).
  void setDependencyDepth(int depth);
  int dependencyDepth() const { return m_depth; }
  void setShowCriticalPath(bool show);
  bool showsCriticalPath() const { return m_state.showCriticalPath; }

  // Lanes without tasks shrink to one thin row per run of them (default on).
  void setCollapseIdleLanes(bool collapse);
  bool collapsesIdleLanes() const { return m_renderer.collapsesIdleLanes(); }
  // Number of lanes without tasks (shown collapsed or not).
  std::size_t idleLaneCount() const;
  void setShowLegend(bool show);

  // The time span fit() shows and panning stays near: the trace's own by
  // default (setTrace resets it). Two views compared on one time axis both
  // take the union of their traces' spans, so their zoom limits and fits
  // agree (SwimlanePane's comparison). Keeps the visible range.
  void setTimeExtent(std::int64_t startNs, std::int64_t endNs);

  void fit();
  void zoomBy(double factor);  // about the centre
  void showRange(double fromNs, double toNs);
  // The visible time window [startNs, endNs) and where it is drawn: the
  // time area starts timeAreaLeftPx() from the widget's left edge.
  double visibleStartNs() const { return m_state.coords.startNs(); }
  double visibleEndNs() const { return m_state.coords.endNs(); }
  static int timeAreaLeftPx() { return SwimlaneRenderer::kHeaderWidthPx; }

  // Image exports of the swimlane as shown (time range, colours, selection,
  // arrows), all lanes from the top, through the same renderer. `size`
  // defaults to the view's width and the height of all lanes; the visible
  // time range is kept at any width. Return an empty string on success,
  // else what went wrong.
  QString exportPng(const QString& path, QSize size = QSize()) const;
  QString exportSvg(const QString& path, QSize size = QSize()) const;
  QSize exportSize() const;

  const SwimlaneState& state() const { return m_state; }
  const SwimlaneRenderer& renderer() const { return m_renderer; }
  // Widget point at the centre of the visible part of `task`, or (-1,-1).
  QPoint pointOfTask(TaskIndex task) const;
  TaskIndex taskAt(QPoint point) const { return m_renderer.taskAt(point, size(), m_state); }

  QSize sizeHint() const override { return {900, 400}; }

Q_SIGNALS:
  void taskSelected(pto::trace::TaskIndex task);  // kNoTask when cleared
  // One line for the status bar: the measured interval, the search result.
  void statusMessage(const QString& text);
  // The visible time range, the lanes' layout or the scroll changed.
  void viewChanged();
  // setTrace() was called (the new trace is traceIndex()).
  void traceChanged();
  void idleLanesCollapsedChanged(bool collapsed);
  void colorModeChanged(pto::widgets::SwimlaneColorMode mode);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  enum class Drag { None, Pan, BoxZoom, Measure };

  void updateArrows();
  void scrollBy(double dy);
  void clampScroll();
  void revealTask(TaskIndex task);
  double timeX(double widgetX) const { return widgetX - SwimlaneRenderer::kHeaderWidthPx; }
  // The state for painting an export of `size`: same time range, no scroll, no hover.
  SwimlaneState exportState(QSize size) const;
  // The x (time area) to zoom about for a key press: the mouse if over the lanes, else the centre.
  double keyZoomAnchorX() const;
  static bool isViewKey(const QKeyEvent* event);

  SwimlaneRenderer m_renderer;
  SwimlaneState m_state;
  int m_depth = 1;
  Drag m_drag = Drag::None;
  QPointF m_pressPos;
  QPointF m_lastPos;
  bool m_moved = false;
  std::optional<QPointF> m_hoverPos;  // the mouse over the view, for key zoom
  std::size_t m_matchCursor = 0;
};

} // namespace pto::widgets
