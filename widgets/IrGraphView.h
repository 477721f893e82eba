// IrGraphView: one IR level (tensor, tile, block, exec) as laid out by
// IrGraphLayout, custom painted: subgraphs as rounded cluster boxes with
// their titles, nodes coloured by label, subgraph, program (isomorphism
// class) or core type from the palette the swimlane and the editor gutter
// use, collapsed groups as double boxes, dependency arrows, the pass
// viewer's diff marks (+ added, ~ changed), search matches and the
// selection.
//
// Input: wheel zooms about the cursor, dragging empty space (or a box under
// kMinDragPixels on screen) pans, F fits,
// Ctrl+F / n / N search, double-click toggles a group or opens a node.
// With partition editing on (tile and block levels) dragging a tile op, or a
// collapsed group of them (a subgraph's or a label's box), onto another
// subgraph proposes a move: while it hovers, the owner is asked
// (dropTargetChanged) and answers with setDropVerdict; dropping on a legal
// target emits moveRequested. A target is a subgraph's frame or a collapsed
// box whose ops all lie in one subgraph. The verdict is written beside the
// cursor, always inside the view. Text is only drawn where it is at least
// kMinTextPixels high (level of detail), and a minimap shows where the
// viewport is when the graph does not fit.
#pragma once

#include "widgets/models/IrGraphLayout.h"

#include "widgets/GraphZoom.h"

#include <QWidget>

#include <map>
#include <set>
#include <memory>
#include <vector>

namespace pto::widgets {

class IrGraphView : public QWidget {
  Q_OBJECT
public:
  enum class ColorBy { Label, Subgraph, Program, CoreType };

  explicit IrGraphView(QWidget* parent = nullptr);

  void setGraphLayout(std::shared_ptr<const IrGraphLayout> layout);
  const IrGraphLayout* graphLayout() const { return m_layout.get(); }
  // A line shown instead of the graph ("Laying out…", "The block graph exists after GraphPartition").
  void setMessage(const QString& message);
  QString message() const { return m_message; }
  void setColorBy(ColorBy mode);
  // Diff marks by node key: '+' added, '~' changed (the pass viewer).
  void setDiff(std::map<std::string, char> marks);
  void setPartitionEditing(bool on) { m_editing = on; }
  bool partitionEditing() const { return m_editing; }

  // The node (by key) the next layout keeps at its place on screen.
  void setAnchor(const std::string& nodeKey) { m_anchorKey = nodeKey; }
  // Selection by graph node (-1 clears); the item showing it is highlighted
  // and scrolled into view.
  void selectNode(int node, bool scroll = true);
  // Highlights several graph nodes (the tile ops of a task, say) without
  // emitting anything.
  void highlightNodes(const std::vector<int>& nodes);
  int selectedNode() const { return m_selectedNode; }
  // Tile ops selected to move together (Shift+drag a band, Ctrl+click);
  // dragging one of them moves them all.
  const std::set<int>& selectedNodes() const { return m_selection; }
  void selectNodes(const std::vector<int>& nodes);
  // What a drop would move: the selection when the dragged node is in it,
  // the movable ops of a dragged group, else the dragged node.
  std::vector<int> movingNodes() const;
  // The collapsed group being dragged (its title), -1 when a node is.
  int draggedGroup() const;

  // Search by title, label, kind or kernel line ("18" or "kernel.py:18");
  // returns the number of matching items and selects the first.
  int search(const QString& text);
  void searchStep(int direction);
  QString searchStatus() const;  // "3 of 12", "no match"

  void fit();
  // The next layout is fitted instead of keeping the viewport (a new
  // grouping: the old zoom belongs to another picture).
  void fitNextLayout() { m_fitPending = true; }
  double scale() const { return m_zoom.scale; }
  // Geometry for tests and clicks: the item under a widget position (-1),
  // the widget position of an item's centre, the cluster under a position.
  int itemAt(QPointF widgetPos) const;
  QPointF widgetPosOfItem(int item) const;
  int clusterAt(QPointF widgetPos) const;
  QPointF widgetPosOfCluster(int cluster) const;
  QRectF widgetRectOfItem(int item) const;
  // The subgraph (graph cluster) every node an item shows lies in, -1 when
  // none or several: a collapsed subgraph's box is a drop target too.
  int clusterOfItem(int item) const;

  // The owner's answer to dropTargetChanged: whether moving `node` into
  // `cluster` is legal and, when not, why.
  void setDropVerdict(int node, int cluster, bool legal, const QString& reason);
  // The verdict on the current drop target (tests, the status line).
  bool dropVerdictKnown() const { return m_dropKnown; }
  bool dropLegal() const { return m_dropLegal; }
  QString dropReason() const { return m_dropReason; }
  // Where the verdict is drawn now (widget coordinates; empty when no move is dragged).
  QRectF dropVerdictRect() const;
  // Renders the whole graph (not just the viewport) for export.
  void renderWhole(QPainter& painter, double scale) const;

  static constexpr double kMinTextPixels = 7.0;
  // The smallest on-screen box (both sides, px) a drag can pick up to move;
  // a press on a smaller one pans (see mousePressEvent).
  static constexpr double kMinDragPixels = 10.0;

Q_SIGNALS:
  void nodeActivated(int node);            // a click selected a graph node
  void nodeOpened(int node);               // double-click on a node
  void groupToggled(const std::string& key);  // double-click on a collapsed or expanded group
  void dropTargetChanged(int node, int cluster);  // dragging `node` over `cluster` (-1: none)
  void moveRequested(int node, int cluster);      // dropped on a legal cluster
  void moveToNewSubgraphRequested(int node);
  void newSubgraphFromSelectionRequested();
  void selectionChanged();
  void splitRequested(int node);                 // the node's subgraph splits before it
  void mergeRequested(int cluster, int other);   // two subgraphs become one

protected:
  void paintEvent(QPaintEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool event(QEvent* event) override;

private:
  QPointF toGraph(QPointF widgetPos) const;
  void zoomAbout(QPointF widgetPos, double factor);
  void scrollToItem(int item);
  QColor fillOf(int item) const;
  void paintGraph(QPainter& painter, const QRectF& visibleGraphRect, double scale) const;
  void paintMinimap(QPainter& painter) const;
  QRectF minimapRect() const;

  std::shared_ptr<const IrGraphLayout> m_layout;
  QString m_message;
  ColorBy m_colorBy = ColorBy::Label;
  std::map<std::string, char> m_diff;
  bool m_editing = false;
  GraphZoom m_zoom;
  int m_selectedNode = -1;
  std::vector<char> m_highlighted;  // by item
  std::set<int> m_selection;        // graph nodes
  std::vector<int> m_matches;       // items
  int m_match = -1;
  bool m_fitPending = true;
  std::string m_anchorKey;  // node key kept in place across the next layout
  std::vector<int> m_clusterOfItem;  // by item: clusterOfItem

  bool isMovable(int node) const;
  bool isMovableItem(int item) const;
  // The graph node a drag stands for in the owner's signals: the dragged
  // node, or a dragged group's first movable op.
  int draggedNode() const;
  // The drop target under a widget position: a cluster frame, or the
  // subgraph of a collapsed box (clusterOfItem), -1 when none.
  int dropTargetAt(QPointF widgetPos) const;
  QString verdictText() const;

  enum class Drag { None, Pan, PendingMove, Move, Band };
  Drag m_drag = Drag::None;
  QPointF m_dragStart;
  QPointF m_dragPos;
  QPointF m_offsetAtDragStart;
  int m_dragItem = -1;
  int m_dropCluster = -1;
  bool m_dropKnown = false;
  bool m_dropLegal = false;
  QString m_dropReason;
};

} // namespace pto::widgets
