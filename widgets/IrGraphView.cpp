#include "widgets/IrGraphView.h"

#include "widgets/GraphEdgePainter.h"
#include "widgets/QtText.h"
#include "widgets/SwimlaneRenderer.h"

#include "widgets/models/LabelPalette.h"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <optional>

namespace pto::widgets {
namespace {

constexpr double kIrGraphMinScale = 0.01;
constexpr double kIrGraphMaxScale = 4.0;
constexpr double kIrGraphMargin = 16.0;
constexpr double kTitlePoints = 9.0;
constexpr double kDragThreshold = 6.0;
// The drop verdict: its distance from the cursor and from the view's edges,
// its widest line, and the longest reason shown (the status line has all).
constexpr double kVerdictOffset = 12.0;
constexpr double kVerdictMargin = 4.0;
constexpr double kVerdictMaxWidth = 520.0;
constexpr int kVerdictMaxChars = 400;

QRectF itemRect(const LaidOutItem& item) {
  return QRectF(item.centre.x - item.width / 2, item.centre.y - item.height / 2, item.width, item.height);
}

QRectF clusterRect(const LaidOutCluster& cluster) {
  return QRectF(cluster.left, cluster.top, cluster.width, cluster.height);
}

bool isDarkBase(const QPalette& palette) { return palette.color(QPalette::Base).lightness() < 128; }

} // namespace

IrGraphView::IrGraphView(QWidget* parent) : QWidget(parent) {
  m_zoom.minScale = kIrGraphMinScale;
  m_zoom.maxScale = kIrGraphMaxScale;
  setObjectName(QStringLiteral("IrGraphView"));
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setAutoFillBackground(true);
  setBackgroundRole(QPalette::Base);
  m_message = tr("Open a project to see its graphs.");
}

void IrGraphView::setGraphLayout(std::shared_ptr<const IrGraphLayout> layout) {
  // Keep the viewport when the new layout shows the same level (a pass step,
  // an expanded group): the anchor — the group just toggled, else the
  // selected node — stays at the same place on screen, so what the eye
  // follows does not jump even though dot moved the rest.
  bool keepView = m_layout && layout && !m_fitPending && m_layout->graph && layout->graph &&
                  m_layout->graph->level == layout->graph->level;
  auto nodeWithKey = [](const IrGraph& graph, const std::string& key) {
    for (std::size_t n = 0; n < graph.nodes.size(); ++n)
      if (graph.nodes[n].key == key) return static_cast<int>(n);
    return -1;
  };
  std::string selectedKey;
  if (keepView && m_selectedNode >= 0 && static_cast<std::size_t>(m_selectedNode) < m_layout->graph->nodes.size())
    selectedKey = m_layout->graph->nodes[static_cast<std::size_t>(m_selectedNode)].key;
  std::string anchorKey = !m_anchorKey.empty() ? m_anchorKey : selectedKey;
  std::optional<QPointF> anchorAt;
  if (keepView && !anchorKey.empty()) {
    int item = m_layout->itemOfNode(nodeWithKey(*m_layout->graph, anchorKey));
    if (item >= 0) anchorAt = widgetPosOfItem(item);
  }
  m_anchorKey.clear();
  m_selection.clear();  // node indices of the old graph
  m_layout = std::move(layout);
  m_message = m_layout && !m_layout->error.empty() ? qtext(m_layout->error) : QString();
  m_selectedNode = -1;
  m_highlighted.assign(m_layout ? m_layout->items.size() : 0, 0);
  m_clusterOfItem.assign(m_layout ? m_layout->items.size() : 0, -1);
  if (m_layout && m_layout->graph)
    for (std::size_t i = 0; i < m_clusterOfItem.size() && i < m_layout->visible.items.size(); ++i) {
      int common = -2;  // none seen yet
      for (int member : m_layout->visible.items[i].members) {
        const int cluster = m_layout->graph->nodes[static_cast<std::size_t>(member)].cluster;
        if (common == -2) common = cluster;
        else if (common != cluster) {
          common = -1;
          break;
        }
      }
      m_clusterOfItem[i] = std::max(common, -1);
    }
  m_matches.clear();
  m_match = -1;
  m_drag = Drag::None;
  m_dragItem = -1;
  if (m_layout && m_layout->graph && !selectedKey.empty()) m_selectedNode = nodeWithKey(*m_layout->graph, selectedKey);
  if (!keepView) {
    m_fitPending = true;
    fit();
  } else if (anchorAt) {
    int item = m_layout->itemOfNode(nodeWithKey(*m_layout->graph, anchorKey));
    if (item >= 0) m_zoom.offset += *anchorAt - widgetPosOfItem(item);
  }
  update();
}

void IrGraphView::setMessage(const QString& message) {
  m_message = message;
  update();
}

void IrGraphView::setColorBy(ColorBy mode) {
  m_colorBy = mode;
  update();
}

void IrGraphView::setDiff(std::map<std::string, char> marks) {
  m_diff = std::move(marks);
  update();
}

void IrGraphView::fit() {
  if (!m_layout || m_layout->items.empty() || width() <= 0) return;
  double sx = (width() - 2 * kIrGraphMargin) / std::max(1.0, m_layout->width);
  double sy = (height() - 2 * kIrGraphMargin) / std::max(1.0, m_layout->height);
  // Fit, but never blow a small graph up past its natural size. A graph a
  // little too big is shown at the smallest legible scale from its top
  // (the minimap shows the rest) rather than as unreadable specks; one far
  // too big is shown whole, in colour only, as an overview to zoom into.
  double legible = kMinTextPixels / kTitlePoints;
  double whole = std::min({sx, sy, 1.0});
  const double scale =
      std::clamp(whole >= legible * 0.2 ? std::max(whole, legible) : whole, m_zoom.minScale, m_zoom.maxScale);
  m_zoom.set(scale, QPointF(std::max(kIrGraphMargin, (width() - m_layout->width * scale) / 2),
                            std::max(kIrGraphMargin, (height() - m_layout->height * scale) / 2)));
  m_fitPending = false;
  update();
}

QPointF IrGraphView::toGraph(QPointF widgetPos) const { return m_zoom.toGraph(widgetPos); }

QPointF IrGraphView::widgetPosOfItem(int item) const {
  const LaidOutItem& laid = m_layout->items[static_cast<std::size_t>(item)];
  return m_zoom.offset + QPointF(laid.centre.x, laid.centre.y) * m_zoom.scale;
}

int IrGraphView::itemAt(QPointF widgetPos) const {
  if (!m_layout) return -1;
  QPointF p = toGraph(widgetPos);
  for (std::size_t i = 0; i < m_layout->items.size(); ++i)
    if (itemRect(m_layout->items[i]).contains(p)) return static_cast<int>(i);
  return -1;
}

int IrGraphView::clusterAt(QPointF widgetPos) const {
  if (!m_layout) return -1;
  QPointF p = toGraph(widgetPos);
  for (const LaidOutCluster& cluster : m_layout->clusters)
    if (clusterRect(cluster).contains(p)) return cluster.cluster;
  return -1;
}

QPointF IrGraphView::widgetPosOfCluster(int cluster) const {
  for (const LaidOutCluster& laid : m_layout->clusters)
    if (laid.cluster == cluster) {
      // A point inside the box but on none of its nodes: just under its title.
      return m_zoom.offset + QPointF(laid.left + laid.width / 2, laid.top + 6) * m_zoom.scale;
    }
  return {};
}

QRectF IrGraphView::widgetRectOfItem(int item) const {
  const QRectF box = itemRect(m_layout->items[static_cast<std::size_t>(item)]);
  return QRectF(m_zoom.toWidget(box.topLeft()), m_zoom.toWidget(box.bottomRight()));
}

int IrGraphView::clusterOfItem(int item) const {
  return item >= 0 && static_cast<std::size_t>(item) < m_clusterOfItem.size() ? m_clusterOfItem[static_cast<std::size_t>(item)] : -1;
}

int IrGraphView::dropTargetAt(QPointF widgetPos) const {
  const int item = itemAt(widgetPos);
  if (item >= 0 && item != m_dragItem && clusterOfItem(item) >= 0) return clusterOfItem(item);
  return clusterAt(widgetPos);
}

void IrGraphView::scrollToItem(int item) {
  if (!m_layout || item < 0) return;
  QPointF at = widgetPosOfItem(item);
  if (!rect().adjusted(40, 40, -40, -40).contains(at.toPoint())) m_zoom.offset += QPointF(width() / 2.0, height() / 2.0) - at;
}

void IrGraphView::selectNode(int node, bool scroll) {
  m_selectedNode = node;
  if (scroll && m_layout) scrollToItem(m_layout->itemOfNode(node));
  update();
}

void IrGraphView::highlightNodes(const std::vector<int>& nodes) {
  if (!m_layout) return;
  m_highlighted.assign(m_layout->items.size(), 0);
  for (int node : nodes) {
    int item = m_layout->itemOfNode(node);
    if (item >= 0) m_highlighted[static_cast<std::size_t>(item)] = 1;
  }
  update();
}

int IrGraphView::search(const QString& text) {
  m_matches.clear();
  m_match = -1;
  if (!m_layout || text.trimmed().isEmpty()) {
    update();
    return 0;
  }
  QString needle = text.trimmed();
  bool ok = false;
  int line = needle.section(':', -1).toInt(&ok);
  for (std::size_t i = 0; i < m_layout->visible.items.size(); ++i) {
    const VisibleItem& item = m_layout->visible.items[i];
    bool hit = qtext(item.title).contains(needle, Qt::CaseInsensitive) ||
               qtext(item.detail).contains(needle, Qt::CaseInsensitive);
    for (int member : item.members) {
      const IrGraphNode& node = m_layout->graph->nodes[static_cast<std::size_t>(member)];
      hit = hit || qtext(node.label).compare(needle, Qt::CaseInsensitive) == 0 || (ok && node.line == line);
    }
    if (hit) m_matches.push_back(static_cast<int>(i));
  }
  if (!m_matches.empty()) searchStep(0);
  update();
  return static_cast<int>(m_matches.size());
}

void IrGraphView::searchStep(int direction) {
  if (m_matches.empty()) return;
  int count = static_cast<int>(m_matches.size());
  m_match = m_match < 0 ? 0 : ((m_match + direction) % count + count) % count;
  int item = m_matches[static_cast<std::size_t>(m_match)];
  const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
  if (shown.node >= 0) m_selectedNode = shown.node;
  scrollToItem(item);
  update();
}

QString IrGraphView::searchStatus() const {
  if (m_matches.empty()) return tr("no match");
  return tr("%1 of %2").arg(m_match + 1).arg(m_matches.size());
}

void IrGraphView::setDropVerdict(int node, int cluster, bool legal, const QString& reason) {
  if (m_drag != Drag::Move || m_dropCluster != cluster || !m_layout) return;
  if (draggedNode() != node) return;
  m_dropKnown = true;
  m_dropLegal = legal;
  m_dropReason = reason;
  update();
}

void IrGraphView::zoomAbout(QPointF widgetPos, double factor) {
  m_zoom.zoomAbout(widgetPos, factor);
  update();
}

QColor IrGraphView::fillOf(int item) const {
  const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
  const IrGraphNode& node = m_layout->graph->nodes[static_cast<std::size_t>(shown.members.front())];
  switch (m_colorBy) {
  case ColorBy::Label: return toQColor(labelColor(node.label));
  case ColorBy::Subgraph: return toQColor(subgraphColor(static_cast<int>(node.subgraph)));
  case ColorBy::Program: return node.program < 0 ? toQColor(kUnknownColor) : toQColor(paletteColor(node.program * 7 + 3));
  case ColorBy::CoreType:
    return node.coreType == "AIC" ? QColor(192, 80, 77) : node.coreType == "AIV" ? QColor(79, 129, 189) : toQColor(kUnknownColor);
  }
  return toQColor(kUnknownColor);
}

void IrGraphView::paintGraph(QPainter& painter, const QRectF& visible, double scale) const {
  const QPalette& pal = palette();
  const bool dark = isDarkBase(pal);
  const bool text = scale * kTitlePoints >= kMinTextPixels;
  QFont titleFont = font();
  titleFont.setPointSizeF(kTitlePoints);
  titleFont.setBold(true);
  QFont detailFont = font();
  detailFont.setPointSizeF(8.0);
  // Too far out for the boxes' own text: a summary (the title alone) in a
  // screen-sized font wherever the box is big enough on screen to hold a
  // few characters, so a fitted big graph still says what its boxes are.
  QFont summaryFont = font();
  summaryFont.setPointSizeF(8.0);
  const QFontMetricsF summaryMetrics(summaryFont);
  auto drawSummary = [&](const QRectF& box, const QString& title, Qt::Alignment align) {
    const QRectF onScreen = painter.transform().mapRect(box).adjusted(3, 1, -3, -1);
    if (onScreen.width() < 4 * summaryMetrics.averageCharWidth() || onScreen.height() < summaryMetrics.height()) return;
    painter.save();
    painter.resetTransform();
    painter.setFont(summaryFont);
    painter.setPen(dark ? QColor(235, 235, 235) : QColor(20, 20, 20));
    painter.drawText(onScreen, align, summaryMetrics.elidedText(title, Qt::ElideRight, onScreen.width()));
    painter.restore();
  };

  // Clusters: subgraphs, tinted by core type, titled at the top left.
  for (const LaidOutCluster& laid : m_layout->clusters) {
    QRectF box = clusterRect(laid);
    if (!box.intersects(visible)) continue;
    const IrGraphCluster& cluster = m_layout->graph->clusters[static_cast<std::size_t>(laid.cluster)];
    QColor tint = cluster.coreType == "AIC" ? QColor(192, 80, 77) : QColor(79, 129, 189);
    bool target = m_drag == Drag::Move && laid.cluster == m_dropCluster;
    QColor fill = tint;
    fill.setAlpha(target ? 70 : dark ? 34 : 22);
    QColor border = target ? (m_dropKnown ? (m_dropLegal ? QColor(40, 170, 70) : QColor(210, 50, 40)) : pal.color(QPalette::Highlight))
                           : tint;
    painter.setPen(QPen(border, (target ? 3.0 : 1.2) / std::max(scale, 0.3), target ? Qt::SolidLine : Qt::DashLine));
    painter.setBrush(fill);
    painter.drawRoundedRect(box, 8, 8);
    if (text) {
      painter.setFont(detailFont);
      painter.setPen(pal.color(QPalette::Text));
      painter.drawText(QRectF(box.left() + 8, box.top() + 2, box.width() - 16, 16), Qt::AlignLeft | Qt::AlignVCenter,
                       qtext(cluster.title));
    } else {
      drawSummary(box, qtext(cluster.title), Qt::AlignLeft | Qt::AlignTop);
    }
  }

  // Edges under the boxes.
  QColor edgeColor = pal.color(QPalette::Text);
  edgeColor.setAlpha(110);
  for (const LaidOutEdge& edge : m_layout->edges) {
    const LaidOutItem& from = m_layout->items[static_cast<std::size_t>(edge.from)];
    const LaidOutItem& to = m_layout->items[static_cast<std::size_t>(edge.to)];
    if (!itemRect(from).united(itemRect(to)).intersects(visible)) continue;
    double width = edge.count > 1 ? 1.0 + std::log2(double(edge.count)) * 0.3 : 1.0;
    QPainterPath path = paintGraphEdge(painter, edge.route, itemRect(from), itemRect(to), QPen(edgeColor, width / std::max(scale, 0.3)));
    if (edge.count > 1 && text) {
      painter.setPen(pal.color(QPalette::Text));
      painter.drawText(path.pointAtPercent(0.5) + QPointF(4, 0), QString::number(edge.count));
    }
  }

  // Boxes: groups as double boxes; diff marks as coloured borders and badges.
  const QColor added(40, 170, 70), changed(230, 140, 20);
  int selectedItem = m_layout->itemOfNode(m_selectedNode);
  int currentMatch = m_match >= 0 ? m_matches[static_cast<std::size_t>(m_match)] : -1;
  for (std::size_t i = 0; i < m_layout->items.size(); ++i) {
    QRectF box = itemRect(m_layout->items[i]);
    if (!box.intersects(visible)) continue;
    const VisibleItem& item = m_layout->visible.items[i];
    QColor fill = fillOf(static_cast<int>(i));
    fill = dark ? fill.darker(160) : fill.lighter(125);
    if (m_drag == Drag::Move && static_cast<int>(i) == m_dragItem) fill.setAlpha(90);
    char mark = 0;
    for (int member : item.members) {
      auto found = m_diff.find(m_layout->graph->nodes[static_cast<std::size_t>(member)].key);
      if (found != m_diff.end()) mark = mark == '+' ? mark : found->second;
    }
    bool selected = static_cast<int>(i) == selectedItem;
    bool highlighted = (i < m_highlighted.size() && m_highlighted[i]) || (item.node >= 0 && m_selection.count(item.node));
    // A collapsed subgraph's box under the cursor is the drop target: marked as a frame would be.
    const bool target = m_drag == Drag::Move && m_dropCluster >= 0 && item.group >= 0 && static_cast<int>(i) != m_dragItem &&
                        clusterOfItem(static_cast<int>(i)) == m_dropCluster;
    QColor borderColor = target ? (m_dropKnown ? (m_dropLegal ? QColor(40, 170, 70) : QColor(210, 50, 40)) : pal.color(QPalette::Highlight))
                         : selected || highlighted ? pal.color(QPalette::Highlight)
                         : mark == '+'           ? added
                         : mark == '~'           ? changed
                                                 : fill.darker(170);
    double borderWidth = selected || target ? 3.0 : (highlighted || mark) ? 2.5 : 1.0;
    painter.setPen(QPen(borderColor, borderWidth / std::max(scale, 0.3)));
    painter.setBrush(fill);
    if (item.group >= 0) painter.drawRoundedRect(box.translated(3, 3), 4, 4);  // the stack behind a group
    painter.drawRoundedRect(box, 4, 4);
    if (static_cast<int>(i) == currentMatch) {
      painter.setPen(QPen(QColor(250, 200, 0), 2.0 / std::max(scale, 0.3), Qt::DashLine));
      painter.setBrush(Qt::NoBrush);
      painter.drawRoundedRect(box.adjusted(-4, -4, 4, 4), 6, 6);
    }
    if (!text) {  // too small for the box's own text: its title in a screen-sized font, if that fits
      drawSummary(box, qtext(item.title), Qt::AlignLeft | Qt::AlignVCenter);
      continue;
    }
    painter.setPen(dark ? QColor(235, 235, 235) : QColor(20, 20, 20));
    painter.setFont(titleFont);
    QRectF top(box.left() + 6, box.top() + 2, box.width() - 12, box.height() / 2);
    QFontMetricsF titleMetrics(titleFont);
    painter.drawText(top, Qt::AlignLeft | Qt::AlignBottom, titleMetrics.elidedText(qtext(item.title), Qt::ElideRight, top.width()));
    painter.setFont(detailFont);
    QRectF bottom(box.left() + 6, box.center().y() + 1, box.width() - 12, box.height() / 2 - 3);
    QFontMetricsF detailMetrics(detailFont);
    painter.drawText(bottom, Qt::AlignLeft | Qt::AlignTop, detailMetrics.elidedText(qtext(item.detail), Qt::ElideRight, bottom.width()));
    if (mark) {
      QRectF badge(box.right() - 14, box.top() - 8, 16, 16);
      painter.setPen(Qt::NoPen);
      painter.setBrush(mark == '+' ? added : changed);
      painter.drawEllipse(badge);
      painter.setPen(Qt::white);
      painter.drawText(badge, Qt::AlignCenter, QString(QChar(mark)));
    }
  }
}

QRectF IrGraphView::minimapRect() const {
  if (!m_layout || m_layout->width <= 0 || m_layout->height <= 0) return {};
  const double maxSide = 160.0;
  double k = maxSide / std::max(m_layout->width, m_layout->height);
  QSizeF size(m_layout->width * k, m_layout->height * k);
  return QRectF(QPointF(width() - size.width() - 10, height() - size.height() - 10), size);
}

void IrGraphView::paintMinimap(QPainter& painter) const {
  QRectF area = minimapRect();
  if (area.isEmpty()) return;
  // Only when the graph does not fit the window.
  QRectF shown(toGraph(QPointF(0, 0)), toGraph(QPointF(width(), height())));
  if (shown.contains(QRectF(0, 0, m_layout->width, m_layout->height))) return;
  const QPalette& pal = palette();
  double k = area.width() / m_layout->width;
  painter.setPen(pal.color(QPalette::Mid));
  QColor back = pal.color(QPalette::Window);
  back.setAlpha(220);
  painter.setBrush(back);
  painter.drawRect(area.adjusted(-2, -2, 2, 2));
  painter.setPen(Qt::NoPen);
  for (std::size_t i = 0; i < m_layout->items.size(); ++i) {
    const LaidOutItem& item = m_layout->items[i];
    painter.setBrush(fillOf(static_cast<int>(i)));
    painter.drawRect(QRectF(area.left() + (item.centre.x - item.width / 2) * k, area.top() + (item.centre.y - item.height / 2) * k,
                            std::max(1.0, item.width * k), std::max(1.0, item.height * k)));
  }
  QRectF viewport(area.left() + shown.left() * k, area.top() + shown.top() * k, shown.width() * k, shown.height() * k);
  painter.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
  painter.setBrush(Qt::NoBrush);
  painter.drawRect(viewport.intersected(area.adjusted(-1, -1, 1, 1)));
}

void IrGraphView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  const QPalette& pal = palette();
  if (!m_layout || m_layout->items.empty() || !m_message.isEmpty()) {
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(rect().adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap,
                     m_message.isEmpty() ? tr("This level has no nodes.") : m_message);
    return;
  }
  painter.save();
  m_zoom.apply(painter);
  QRectF visible = QRectF(toGraph(QPointF(0, 0)), toGraph(QPointF(width(), height()))).adjusted(-20, -20, 20, 20);
  paintGraph(painter, visible, m_zoom.scale);
  painter.restore();

  if (m_layout->visible.neighbourhood) {
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRectF(10, 6, width() - 20, 18), Qt::AlignLeft,
                     tr("Neighbourhood of the selection: %1 nodes hidden").arg(m_layout->visible.hiddenNodes));
  }
  if (m_drag == Drag::Band) {
    QColor band = pal.color(QPalette::Highlight);
    painter.setPen(QPen(band, 1, Qt::DashLine));
    band.setAlpha(40);
    painter.setBrush(band);
    painter.drawRect(QRectF(m_dragStart, m_dragPos).normalized());
  }
  paintMinimap(painter);
  if (m_drag == Drag::Move) {
    // The verdict beside the cursor, over the minimap.
    const QRectF box = dropVerdictRect();
    painter.setPen(pal.color(QPalette::ToolTipText));
    painter.setBrush(pal.color(QPalette::ToolTipBase));
    painter.drawRoundedRect(box, 4, 4);
    painter.drawText(box.adjusted(8, 4, -8, -4), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, verdictText());
  }
}

QString IrGraphView::verdictText() const {
  const VisibleItem& item = m_layout->visible.items[static_cast<std::size_t>(m_dragItem)];
  const std::size_t moving = movingNodes().size();
  const QString what = item.group >= 0 ? tr("the %1 tile ops of %2").arg(moving).arg(qtext(item.title))
                       : moving > 1    ? tr("%1 selected tile ops").arg(moving)
                                       : qtext(item.title);
  QString verdict = m_dropCluster < 0 ? tr("drop on a subgraph to move %1 there").arg(what)
                    : !m_dropKnown    ? tr("checking whether %1 can move here…").arg(what)
                    : m_dropLegal     ? (m_dropReason.isEmpty() ? tr("release to move %1 here").arg(what)
                                                                : tr("release to %1").arg(m_dropReason))
                                      : m_dropReason;
  if (verdict.size() > kVerdictMaxChars) verdict = verdict.left(kVerdictMaxChars - 1) + QChar(0x2026);
  return verdict;
}

QRectF IrGraphView::dropVerdictRect() const {
  if (m_drag != Drag::Move || !m_layout || m_dragItem < 0) return {};
  const QFontMetricsF metrics(font());
  const double maxWidth = std::max(80.0, std::min(kVerdictMaxWidth, width() - 2 * kVerdictMargin));
  const QRectF text = metrics.boundingRect(QRectF(0, 0, maxWidth - 16, 1e6), Qt::AlignLeft | Qt::TextWordWrap, verdictText());
  const QSizeF size(std::ceil(text.width()) + 16, std::ceil(text.height()) + 8);
  // Below right of the cursor; to its left or above it where that would leave
  // the view (a target at the right or bottom edge), then clamped into the
  // view, so the whole verdict can always be read.
  QPointF at = m_dragPos + QPointF(kVerdictOffset, kVerdictOffset * 0.7);
  if (at.x() + size.width() > width() - kVerdictMargin) at.setX(m_dragPos.x() - kVerdictOffset - size.width());
  if (at.y() + size.height() > height() - kVerdictMargin) at.setY(m_dragPos.y() - kVerdictOffset * 0.7 - size.height());
  at.setX(std::clamp(at.x(), kVerdictMargin, std::max(kVerdictMargin, width() - kVerdictMargin - size.width())));
  at.setY(std::clamp(at.y(), kVerdictMargin, std::max(kVerdictMargin, height() - kVerdictMargin - size.height())));
  return QRectF(at, size);
}

void IrGraphView::renderWhole(QPainter& painter, double scale) const {
  if (!m_layout) return;
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing);
  painter.scale(scale, scale);
  paintGraph(painter, QRectF(0, 0, m_layout->width, m_layout->height).adjusted(-20, -20, 20, 20), std::max(scale, 1.0));
  painter.restore();
}

void IrGraphView::wheelEvent(QWheelEvent* event) {
  m_zoom.wheel(*event);
  update();
  event->accept();
}

void IrGraphView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !m_layout) return;
  setFocus();
  // The minimap: a click centres the view there.
  QRectF map = minimapRect();
  if (map.contains(event->position()) && m_layout->width > 0) {
    double k = map.width() / m_layout->width;
    QPointF graphPoint = (event->position() - map.topLeft()) / k;
    m_zoom.offset = QPointF(width() / 2.0, height() / 2.0) - graphPoint * m_zoom.scale;
    update();
    return;
  }
  int item = itemAt(event->position());
  m_dragStart = event->position();
  m_dragItem = -1;
  if (item >= 0) {
    const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
    if (event->modifiers() & Qt::ControlModifier) {
      // Ctrl+click adds a tile op to the selection that moves together (or takes it out).
      if (isMovable(shown.node)) {
        // The node selected by a plain click before joins the first Ctrl+click.
        if (m_selection.empty() && m_selectedNode >= 0 && m_selectedNode != shown.node && isMovable(m_selectedNode))
          m_selection.insert(m_selectedNode);
        if (!m_selection.erase(shown.node)) m_selection.insert(shown.node);
        Q_EMIT selectionChanged();
      }
      update();
      return;
    }
    if (shown.node >= 0) {
      if (!m_selection.count(shown.node) && !m_selection.empty()) {
        m_selection.clear();
        Q_EMIT selectionChanged();
      }
      m_selectedNode = shown.node;
      Q_EMIT nodeActivated(shown.node);
    }
    update();
    // Only tile ops move between subgraphs (a node, or a collapsed group of
    // them), and only a box big enough on screen to see what it is: at a
    // fitted zoom a big graph's ops are specks a few pixels wide, a press
    // meant to pan lands on one, and the drop would move an op nobody chose.
    // A press on a speck pans, as on empty space; zoom in or open the group
    // to drag it.
    const QRectF onScreen = widgetRectOfItem(item);
    if (isMovableItem(item) && std::min(onScreen.width(), onScreen.height()) >= kMinDragPixels) {
      m_dragItem = item;
      m_drag = Drag::PendingMove;
      return;
    }
  }
  if (item < 0 && (event->modifiers() & Qt::ShiftModifier)) {
    // Shift+drag on empty space: a rubber band selecting the tile ops inside it.
    m_drag = Drag::Band;
    m_dragPos = event->position();
    return;
  }
  m_drag = Drag::Pan;
  m_offsetAtDragStart = m_zoom.offset;
  setCursor(Qt::ClosedHandCursor);
}

bool IrGraphView::isMovable(int node) const {
  if (!m_layout || !m_editing || node < 0 || static_cast<std::size_t>(node) >= m_layout->graph->nodes.size()) return false;
  const IrGraphNode& n = m_layout->graph->nodes[static_cast<std::size_t>(node)];
  return n.tileIndex >= 0 && n.cluster >= 0;
}

bool IrGraphView::isMovableItem(int item) const {
  if (!m_layout || item < 0 || static_cast<std::size_t>(item) >= m_layout->visible.items.size()) return false;
  const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
  if (shown.group < 0) return isMovable(shown.node);
  return std::any_of(shown.members.begin(), shown.members.end(), [this](int node) { return isMovable(node); });
}

int IrGraphView::draggedGroup() const {
  if (!m_layout || m_dragItem < 0 || static_cast<std::size_t>(m_dragItem) >= m_layout->visible.items.size()) return -1;
  return m_layout->visible.items[static_cast<std::size_t>(m_dragItem)].group;
}

int IrGraphView::draggedNode() const {
  if (!m_layout || m_dragItem < 0 || static_cast<std::size_t>(m_dragItem) >= m_layout->visible.items.size()) return -1;
  const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(m_dragItem)];
  if (shown.group < 0) return shown.node;
  for (int member : shown.members)
    if (isMovable(member)) return member;
  return -1;
}

std::vector<int> IrGraphView::movingNodes() const {
  if (draggedGroup() >= 0) {
    std::vector<int> nodes;
    for (int member : m_layout->visible.items[static_cast<std::size_t>(m_dragItem)].members)
      if (isMovable(member)) nodes.push_back(member);
    return nodes;
  }
  int dragged = draggedNode();
  if (dragged >= 0 && m_selection.count(dragged)) return {m_selection.begin(), m_selection.end()};
  return dragged >= 0 ? std::vector<int>{dragged} : std::vector<int>{};
}

void IrGraphView::selectNodes(const std::vector<int>& nodes) {
  m_selection.clear();
  for (int node : nodes)
    if (isMovable(node)) m_selection.insert(node);
  Q_EMIT selectionChanged();
  update();
}

void IrGraphView::mouseMoveEvent(QMouseEvent* event) {
  if (m_drag == Drag::Band) {
    m_dragPos = event->position();
    update();
    return;
  }
  if (m_drag == Drag::Pan) {
    m_zoom.offset = m_offsetAtDragStart + (event->position() - m_dragStart);
    update();
    return;
  }
  if (m_drag == Drag::PendingMove && QLineF(event->position(), m_dragStart).length() > kDragThreshold) {
    m_drag = Drag::Move;
    m_dropCluster = -1;
    setCursor(Qt::DragMoveCursor);
  }
  if (m_drag != Drag::Move) return;
  m_dragPos = event->position();
  int cluster = dropTargetAt(event->position());
  // The subgraph everything moving is in already is no target.
  const std::vector<int> moving = movingNodes();
  if (cluster >= 0 && std::all_of(moving.begin(), moving.end(), [&](int node) {
        return m_layout->graph->nodes[static_cast<std::size_t>(node)].cluster == cluster;
      }))
    cluster = -1;
  if (cluster != m_dropCluster) {
    m_dropCluster = cluster;
    m_dropKnown = false;
    m_dropReason.clear();
    Q_EMIT dropTargetChanged(draggedNode(), cluster);
  }
  update();
}

void IrGraphView::mouseReleaseEvent(QMouseEvent*) {
  if (m_drag == Drag::Band) {
    QRectF band = QRectF(toGraph(m_dragStart), toGraph(m_dragPos)).normalized();
    m_selection.clear();
    for (std::size_t i = 0; i < m_layout->items.size(); ++i) {
      int node = m_layout->visible.items[i].node;
      if (isMovable(node) && band.contains(itemRect(m_layout->items[i]).center())) m_selection.insert(node);
    }
    m_drag = Drag::None;
    Q_EMIT selectionChanged();
    update();
    return;
  }
  if (m_drag == Drag::Move && m_dropCluster >= 0 && m_dropKnown && m_dropLegal) {
    int node = draggedNode();
    int cluster = m_dropCluster;
    m_drag = Drag::None;
    unsetCursor();
    update();
    Q_EMIT moveRequested(node, cluster);
    return;
  }
  if (m_drag == Drag::Move) Q_EMIT dropTargetChanged(-1, -1);
  m_drag = Drag::None;
  m_dropCluster = -1;
  unsetCursor();
  update();
}

void IrGraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  if (!m_layout) return;
  int item = itemAt(event->position());
  if (item < 0) {
    int cluster = clusterAt(event->position());
    // Double-clicking a subgraph's frame collapses the subgraph back into its group.
    if (cluster >= 0) {
      std::string key = m_layout->graph->clusters[static_cast<std::size_t>(cluster)].key;
      for (const VisibleItem& shown : m_layout->visible.items)
        if (shown.cluster == cluster && !shown.openGroup.empty()) {
          key = shown.openGroup;
          break;
        }
      Q_EMIT groupToggled(key);
      return;
    }
    fit();
    return;
  }
  const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
  if (shown.group >= 0) {
    // The group's first node takes the group's place when it opens.
    m_anchorKey = m_layout->graph->nodes[static_cast<std::size_t>(shown.members.front())].key;
    Q_EMIT groupToggled(m_layout->visible.groups[static_cast<std::size_t>(shown.group)].key);
  } else {
    Q_EMIT nodeOpened(shown.node);
  }
}

void IrGraphView::keyPressEvent(QKeyEvent* event) {
  QPointF centre(width() / 2.0, height() / 2.0);
  switch (event->key()) {
  case Qt::Key_F:
  case Qt::Key_Home: fit(); break;
  case Qt::Key_Plus:
  case Qt::Key_Equal: zoomAbout(centre, 1.25); break;
  case Qt::Key_Minus: zoomAbout(centre, 0.8); break;
  case Qt::Key_N: searchStep(event->modifiers() & Qt::ShiftModifier ? -1 : 1); break;
  case Qt::Key_Left: m_zoom.offset += QPointF(width() * 0.15, 0); update(); break;
  case Qt::Key_Right: m_zoom.offset -= QPointF(width() * 0.15, 0); update(); break;
  case Qt::Key_Up: m_zoom.offset += QPointF(0, height() * 0.15); update(); break;
  case Qt::Key_Down: m_zoom.offset -= QPointF(0, height() * 0.15); update(); break;
  case Qt::Key_Escape:
    if (m_drag == Drag::Move) {
      m_drag = Drag::None;
      m_dropCluster = -1;
      unsetCursor();
      update();
      break;
    }
    [[fallthrough]];
  default: QWidget::keyPressEvent(event); return;
  }
}

void IrGraphView::resizeEvent(QResizeEvent*) {
  if (m_fitPending) fit();
}

void IrGraphView::contextMenuEvent(QContextMenuEvent* event) {
  if (!m_layout || !m_editing) return;
  int item = itemAt(event->pos());
  if (item < 0) return;
  const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
  if (shown.node < 0 || m_layout->graph->nodes[static_cast<std::size_t>(shown.node)].tileIndex < 0) return;
  QMenu menu(this);
  int node = shown.node;
  const IrGraph& graph = *m_layout->graph;
  const IrGraphNode& picked = graph.nodes[static_cast<std::size_t>(node)];
  menu.addAction(tr("Move into a new subgraph"), this, [this, node] { Q_EMIT moveToNewSubgraphRequested(node); });
  if (m_selection.size() > 1 && m_selection.count(node))
    menu.addAction(tr("New subgraph from the %1 selected tile ops").arg(m_selection.size()), this,
                   [this] { Q_EMIT newSubgraphFromSelectionRequested(); });
  if (picked.cluster >= 0) {
    menu.addAction(tr("Split the subgraph here (this op and the ones after it leave)"), this,
                   [this, node] { Q_EMIT splitRequested(node); });
    // Merging with another subgraph of the same core type (the compiler says
    // whether the order and the buffers allow it).
    QMenu* merge = menu.addMenu(tr("Merge this subgraph with"));
    const IrGraphCluster& own = graph.clusters[static_cast<std::size_t>(picked.cluster)];
    for (std::size_t c = 0; c < graph.clusters.size(); ++c) {
      const IrGraphCluster& other = graph.clusters[c];
      if (static_cast<int>(c) == picked.cluster || other.coreType != own.coreType) continue;
      int from = picked.cluster, to = static_cast<int>(c);
      merge->addAction(qtext(other.title), this, [this, from, to] { Q_EMIT mergeRequested(from, to); });
    }
    merge->setEnabled(!merge->isEmpty());
  }
  menu.exec(event->globalPos());
}

bool IrGraphView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && m_layout) {
    auto* help = static_cast<QHelpEvent*>(event);
    int item = itemAt(help->pos());
    if (item < 0) {
      QToolTip::hideText();
      return true;
    }
    const VisibleItem& shown = m_layout->visible.items[static_cast<std::size_t>(item)];
    QString text = QStringLiteral("<b>%1</b><br>%2").arg(qtext(shown.title).toHtmlEscaped(), qtext(shown.detail).toHtmlEscaped());
    if (shown.node >= 0) {
      const IrGraphNode& node = m_layout->graph->nodes[static_cast<std::size_t>(shown.node)];
      if (!node.label.empty()) text += tr("<br>label '%1'").arg(qtext(node.label).toHtmlEscaped());
      if (node.subgraph >= 0) text += tr("<br>subgraph %1 · %2 · program %3").arg(node.subgraph).arg(qtext(node.coreType)).arg(node.program);
      auto mark = m_diff.find(node.key);
      if (mark != m_diff.end()) text += mark->second == '+' ? tr("<br><b>added by this pass</b>") : tr("<br><b>changed by this pass</b>");
      if (m_editing && node.tileIndex >= 0) text += tr("<br><i>drag onto another subgraph to move it there</i>");
    } else {
      text += tr("<br><i>double-click to expand</i>");
    }
    QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

} // namespace pto::widgets
