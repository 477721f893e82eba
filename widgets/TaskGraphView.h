// TaskGraphView: the run's task graph as Graphviz laid it out (see
// TaskGraphLayout), custom painted: boxes coloured by semantic label,
// dependency arrows, the critical path in bold. Wheel zooms about the
// cursor, drag pans. The first picture is readable (see readableViewport:
// a graph too big to fit legibly shows its top at a legible scale); F fits
// that way again, and F once more shows the whole graph however small.
// Clicking a box selects its task in every view, and a task selected
// elsewhere is highlighted and scrolled into view.
#pragma once

#include "widgets/models/TaskGraphLayout.h"

#include "widgets/GraphZoom.h"

#include <QWidget>

#include <memory>

namespace pto::widgets {

class TaskGraphView : public QWidget {
  Q_OBJECT
public:
  explicit TaskGraphView(QWidget* parent = nullptr);

  // The layout and the trace it was made from; null clears the view.
  void setGraph(std::shared_ptr<const TaskGraphLayout> layout, std::shared_ptr<const TraceIndex> index);
  // A line shown instead of the graph ("Laying out…", an error).
  void setMessage(const QString& message);
  const TaskGraphLayout* graph() const { return m_layout.get(); }
  void selectTask(trace::TaskIndex task);
  int selectedNode() const { return m_selectedNode; }
  // The readable first picture; fitWhole() the overview.
  void fit();
  void fitWhole();
  double scale() const { return m_zoom.scale; }
  // The node under a widget position, or -1 (for tests and clicks).
  int nodeAt(QPointF widgetPos) const;
  QPointF widgetPosOfNode(int node) const;

Q_SIGNALS:
  void taskActivated(trace::TaskIndex task);
  // Double-click on a box: its subgraph's block graph and PTO program.
  void subgraphOpened(int subgraph);

protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  bool event(QEvent* event) override;

private:
  QPointF toGraph(QPointF widgetPos) const;
  void zoomAbout(QPointF widgetPos, double factor);
  void applyViewport(const GraphViewport& viewport);
  void pan(QPointF delta);
  // F and a double click on the background: the readable fit, or the
  // whole graph when the readable fit is already shown.
  void toggleFit();

  std::shared_ptr<const TaskGraphLayout> m_layout;
  std::shared_ptr<const TraceIndex> m_index;
  QString m_message;
  GraphZoom m_zoom;
  int m_selectedNode = -1;
  bool m_fitPending = true;
  enum class Framing { Free, Readable, Whole };
  Framing m_framing = Framing::Free;  // what the user last asked for; Free once they zoom or pan
  bool m_dragging = false;
  QPointF m_dragStart;
  QPointF m_offsetAtDragStart;
};

} // namespace pto::widgets
