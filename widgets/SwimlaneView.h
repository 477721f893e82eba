// SwimlaneView: the interactive swimlane. Input → SwimlaneState → the
// SwimlaneRenderer paints. Mouse: wheel zooms about the cursor (Shift+wheel
// scrolls lanes), drag pans, Shift+drag box-zooms a time range, Alt+drag
// measures an interval, click selects, double-click zooms to a task, hover
// shows a tooltip. Keys (Perfetto's habits): W/S or +/- zoom, A/D or
// Left/Right pan, Up/Down scroll lanes, F or Home fits, Esc clears.
#pragma once

#include "widgets/SwimlaneRenderer.h"

#include <QWidget>

#include <memory>
#include <vector>

namespace pto::widgets {

class SwimlaneView : public QWidget {
  Q_OBJECT
public:
  explicit SwimlaneView(QWidget* parent = nullptr);

  // Shows a new trace (null: none), fitted, with no selection.
  void setTrace(std::shared_ptr<const TraceIndex> index);
  const std::shared_ptr<const TraceIndex>& traceIndex() const { return m_renderer.traceIndex(); }

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

  void fit();
  void zoomBy(double factor);  // about the centre
  void showRange(double fromNs, double toNs);

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
  void viewChanged();

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
  QString tooltipFor(TaskIndex task) const;

  SwimlaneRenderer m_renderer;
  SwimlaneState m_state;
  int m_depth = 1;
  Drag m_drag = Drag::None;
  QPointF m_pressPos;
  QPointF m_lastPos;
  bool m_moved = false;
  std::size_t m_matchCursor = 0;
};

} // namespace pto::widgets
