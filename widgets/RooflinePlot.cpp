// The roofline plot of the Health tab.
#include "widgets/RooflinePlot.h"

#include "widgets/PlotStyle.h"
#include "widgets/QCustomPlot.h"

#include <QFontMetricsF>
#include <QLabel>
#include <QPolygonF>
#include <QTransform>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pto::widgets {
namespace {

// Core types keep their colours across the plot: ceilings and points alike.
QColor coreColour(const std::string& coreType) {
  return coreType == "AIC" ? QColor(0xd9, 0x7a, 0x1f) : QColor(0x2f, 0x7f, 0xd8);
}

constexpr double kClickRadiusPx = 10.0;

QString rate(double gops) {
  if (gops >= 1000.0) return QString::number(gops / 1000.0, 'f', 2) + QStringLiteral(" TOP/s");
  return QString::number(gops, 'f', gops >= 10.0 ? 1 : 2) + QStringLiteral(" GOP/s");
}

} // namespace

RooflinePlot::RooflinePlot(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  m_plot = new QCustomPlot(this);
  // Readable as it opens: a few decades on each axis and the ceilings' labels apart.
  m_plot->setMinimumHeight(220);
  m_plotTip = tr("Roofline: each subgraph's operations per GM byte it loads against what one core achieved. "
                 "Lines are the machine's ceilings. Click a point to select its subgraph's longest task.");
  m_plot->setToolTip(m_plotTip);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
    ticker->setLogBase(10);
    ticker->setSubTickCount(0);
    axis->setTicker(ticker);
    axis->setNumberFormat(QStringLiteral("gb"));
    axis->setNumberPrecision(0);
  }
  m_plot->xAxis->setLabel(tr("ops per GM byte loaded"));
  m_plot->yAxis->setLabel(tr("GOP/s per core"));
  m_plot->xAxis2->setVisible(false);
  m_plot->yAxis2->setVisible(false);
  layout->addWidget(m_plot, 1);
  m_caption = new QLabel(this);
  m_caption->setWordWrap(true);
  m_caption->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_caption);
  connect(m_plot, &QCustomPlot::mousePress, this, &RooflinePlot::onPlotClicked);
  connect(m_plot, &QCustomPlot::afterLayout, this, &RooflinePlot::placeSlopeLabels);
  clear();
}

void RooflinePlot::clear() {
  m_roofline.reset();
  m_selected = kNoId;
  rebuild();
}

void RooflinePlot::setRoofline(const Roofline& roofline) {
  m_roofline = roofline;
  if (m_selected != kNoId &&
      (static_cast<std::size_t>(m_selected) >= roofline.points.size() ||
       !roofline.points[static_cast<std::size_t>(m_selected)].plottable()))
    m_selected = kNoId;
  rebuild();
}

int RooflinePlot::plottedCount() const {
  if (!m_roofline) return 0;
  return static_cast<int>(std::count_if(m_roofline->points.begin(), m_roofline->points.end(),
                                        [](const RooflinePoint& point) { return point.plottable(); }));
}

void RooflinePlot::rebuild() {
  m_plot->clearGraphs();
  m_plot->clearItems();
  m_slopeLabels.clear();
  m_flatLabels.clear();
  m_ring = nullptr;
  stylePlot(m_plot, palette());
  if (!m_roofline || plottedCount() == 0) {
    m_plot->xAxis->setRange(0.01, 100);
    m_plot->yAxis->setRange(0.1, 10000);
    m_plot->setToolTip(m_plotTip);
    updateCaption();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  const Roofline& roof = *m_roofline;
  const double ghz = roof.clockGHz > 0 ? roof.clockGHz : 1.0;

  // Ranges: every point, and the knees where the ceilings meet.
  double xLow = std::numeric_limits<double>::max(), xHigh = 0.0, yLow = std::numeric_limits<double>::max(), yHigh = 0.0;
  for (const RooflinePoint& point : roof.points) {
    if (!point.plottable()) continue;
    xLow = std::min(xLow, point.intensity);
    xHigh = std::max(xHigh, point.intensity);
    yLow = std::min(yLow, point.achievedOpsPerCycle * ghz);
    yHigh = std::max(yHigh, point.achievedOpsPerCycle * ghz);
  }
  struct TypeCeilings {
    double peak = 0.0;       // highest compute ceiling, ops/cycle
    double copyIn = 0.0;     // highest memory ceiling, bytes/cycle
  };
  std::map<std::string, TypeCeilings> byType;
  for (const RooflineCeiling& ceiling : roof.ceilings) {
    TypeCeilings& type = byType[ceiling.coreType];
    if (ceiling.compute) type.peak = std::max(type.peak, ceiling.opsPerCycle);
    else type.copyIn = std::max(type.copyIn, ceiling.bytesPerCycle);
  }
  for (const auto& [coreType, type] : byType) {
    yHigh = std::max(yHigh, type.peak * ghz);
    if (type.copyIn > 0 && type.peak > 0) {
      xLow = std::min(xLow, type.peak / type.copyIn);
      xHigh = std::max(xHigh, type.peak / type.copyIn);
    }
  }
  xLow /= 4.0, xHigh *= 4.0, yLow /= 4.0, yHigh *= 3.0;
  m_plot->xAxis->setRange(xLow, xHigh);
  m_plot->yAxis->setRange(yLow, yHigh);

  // Ceilings: slopes up to their type's peak, flats from where the copy-in slope meets them.
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  QStringList ceilingNames;
  for (const RooflineCeiling& ceiling : roof.ceilings) {
    const TypeCeilings& type = byType[ceiling.coreType];
    QCPGraph* line = m_plot->addGraph();
    line->setSelectable(QCP::stNone);
    const bool main = ceiling.compute ? ceiling.opsPerCycle >= type.peak : ceiling.bytesPerCycle >= type.copyIn;
    line->setPen(QPen(coreColour(ceiling.coreType), main ? 2.0 : 1.2, main ? Qt::SolidLine : Qt::DashLine));
    auto* label = new QCPItemText(m_plot);
    label->setFont(small);
    label->setColor(coreColour(ceiling.coreType));
    label->setClipToAxisRect(true);
    if (ceiling.compute) {
      const double y = ceiling.opsPerCycle * ghz;
      const double from = type.copyIn > 0 ? std::max(xLow, ceiling.opsPerCycle / type.copyIn) : xLow;
      line->setData({from, xHigh}, {y, y});
      label->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
      label->setText(QString::fromStdString(ceiling.name) + QStringLiteral("  ") + rate(y));
      ceilingNames << label->text();
      m_flatLabels.push_back({label, xHigh / 1.1, y * 1.05});  // placed by placeSlopeLabels
    } else {
      const double slope = ceiling.bytesPerCycle * ghz;  // GB/s: GOP/s per op/byte
      const double to = type.peak > 0 ? std::min(xHigh, type.peak / ceiling.bytesPerCycle) : xHigh;
      line->setData({xLow, to}, {slope * xLow, slope * to});
      // Along the line, at the middle of its visible part; placeSlopeLabels turns it once the axes are laid out.
      label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      const QString gbPerSecond = QString::number(slope, 'f', 0) + QStringLiteral(" GB/s");
      const QString text = QString::fromStdString(ceiling.name) + QStringLiteral("  ") + gbPerSecond;
      label->setText(text);
      m_slopeLabels.push_back({label, xLow, to, slope, text, gbPerSecond});
      ceilingNames << text;
    }
  }

  // Every ceiling in the tooltip: a label that found no room is dropped or shortened.
  m_plot->setToolTip(m_plotTip + tr("\nCeilings: %1.").arg(ceilingNames.join(QStringLiteral("; "))));

  // Points, one graph per core type.
  for (const std::string coreType : {"AIC", "AIV"}) {
    QVector<double> xs, ys;
    for (const RooflinePoint& point : roof.points)
      if (point.plottable() && point.coreType == coreType) {
        xs.push_back(point.intensity);
        ys.push_back(point.achievedOpsPerCycle * ghz);
      }
    if (xs.isEmpty()) continue;
    QCPGraph* points = m_plot->addGraph();
    points->setSelectable(QCP::stNone);
    points->setLineStyle(QCPGraph::lsNone);
    QColor fill = coreColour(coreType);
    fill.setAlpha(150);
    points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QPen(coreColour(coreType)), fill, 7));
    points->setData(xs, ys, true);
  }
  m_ring = m_plot->addGraph();
  m_ring->setSelectable(QCP::stNone);
  m_ring->setLineStyle(QCPGraph::lsNone);
  m_ring->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(palette().color(QPalette::WindowText), 1.8), Qt::NoBrush, 16));
  if (!selectSubgraph(m_selected)) updateCaption();
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RooflinePlot::placeSlopeLabels() {
  // Flat ceilings close in rate (one per dtype) would write their labels
  // over each other: each goes at least a line below the one above it.
  std::vector<std::pair<double, const FlatLabel*>> flats;
  for (const FlatLabel& flat : m_flatLabels) {
    flat.label->position->setCoords(flat.x, flat.y);
    flats.emplace_back(flat.label->position->pixelPosition().y(), &flat);
  }
  std::sort(flats.begin(), flats.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double below = -std::numeric_limits<double>::max();
  for (auto& [bottom, flat] : flats) {
    const double lineHeight = QFontMetricsF(flat->label->font()).height();
    bottom = std::max(bottom, below + lineHeight);
    flat->label->position->setPixelPosition({flat->label->position->pixelPosition().x(), bottom});
    below = bottom;
  }

  // Memory ceilings of near slopes run side by side, and their labels at
  // the middle of each line would be written over each other (DIA's four):
  // each label tries spots along its line, then its rate alone, and is
  // dropped when nothing fits; the plot's tooltip names every ceiling.
  const QRectF inside = m_plot->axisRect()->rect();
  std::vector<QPolygonF> taken;
  // A slope label keeps a pixel or two from every other label; flats touch
  // (they are stacked a text line apart).
  for (const FlatLabel& flat : m_flatLabels) taken.push_back(labelOutline(flat.label, 0.0));
  for (const SlopeLabel& slope : m_slopeLabels) {
    const double dx = m_plot->xAxis->coordToPixel(slope.toX) - m_plot->xAxis->coordToPixel(slope.fromX);
    const double dy = m_plot->yAxis->coordToPixel(slope.gbPerSecond * slope.toX) -
                      m_plot->yAxis->coordToPixel(slope.gbPerSecond * slope.fromX);
    slope.label->setRotation(dx != 0.0 ? std::atan2(dy, dx) * 180.0 / M_PI : 0.0);
    bool placed = false;
    for (const QString& text : {slope.text, slope.shortText}) {
      slope.label->setText(text);
      for (double along : {0.5, 0.35, 0.65, 0.2, 0.8}) {
        const double x = slope.fromX * std::pow(slope.toX / slope.fromX, along);  // log axis
        slope.label->position->setCoords(x, slope.gbPerSecond * x);
        const QPolygonF outline = labelOutline(slope.label, 1.5);
        const bool fits = inside.contains(outline.boundingRect()) &&
                          std::none_of(taken.begin(), taken.end(),
                                       [&](const QPolygonF& other) { return other.intersects(outline); });
        if (fits) {
          taken.push_back(outline);
          placed = true;
          break;
        }
      }
      if (placed) break;
    }
    slope.label->setVisible(placed);
  }
}

QPolygonF RooflinePlot::labelOutline(const QCPItemText* label, double marginPx) const {
  // QCPItemText draws its text's box aligned at the position and turned
  // about it: the same box here, in plot pixels, `marginPx` wider each way.
  const QFontMetricsF metrics(label->font());
  const QSizeF size = metrics.size(0, label->text());
  const Qt::Alignment align = label->positionAlignment();
  const double left = align & Qt::AlignLeft ? 0.0 : align & Qt::AlignRight ? -size.width() : -size.width() / 2;
  const double top = align & Qt::AlignTop ? 0.0 : align & Qt::AlignBottom ? -size.height() : -size.height() / 2;
  QTransform turn;
  turn.translate(label->position->pixelPosition().x(), label->position->pixelPosition().y());
  turn.rotate(label->rotation());
  return turn.map(QPolygonF(QRectF(left, top, size.width(), size.height()).adjusted(-marginPx, -marginPx, marginPx, marginPx)));
}

std::vector<QCPItemText*> RooflinePlot::flatLabels() const {
  std::vector<QCPItemText*> labels;
  for (const FlatLabel& flat : m_flatLabels) labels.push_back(flat.label);
  return labels;
}

std::vector<QCPItemText*> RooflinePlot::slopeLabels() const {
  std::vector<QCPItemText*> labels;
  for (const SlopeLabel& slope : m_slopeLabels) labels.push_back(slope.label);
  return labels;
}

std::vector<QPolygonF> RooflinePlot::shownLabelOutlines() const {
  std::vector<QPolygonF> outlines;
  // A hair inside the text's box: labels a text line apart touch, not overlap.
  for (const FlatLabel& flat : m_flatLabels) outlines.push_back(labelOutline(flat.label, -0.5));
  for (const SlopeLabel& slope : m_slopeLabels)
    if (slope.label->visible()) outlines.push_back(labelOutline(slope.label, -0.5));
  return outlines;
}

bool RooflinePlot::selectSubgraph(SubgraphId subgraph) {
  const RooflinePoint* point = nullptr;
  if (m_roofline && subgraph >= 0 && static_cast<std::size_t>(subgraph) < m_roofline->points.size() &&
      m_roofline->points[static_cast<std::size_t>(subgraph)].plottable())
    point = &m_roofline->points[static_cast<std::size_t>(subgraph)];
  m_selected = point ? subgraph : kNoId;
  if (m_ring) {
    if (point) m_ring->setData({point->intensity}, {point->achievedOpsPerCycle * m_roofline->clockGHz});
    else m_ring->data()->clear();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
  }
  updateCaption();
  return point != nullptr;
}

std::optional<QPointF> RooflinePlot::pointPosition(SubgraphId subgraph) const {
  if (!m_roofline || subgraph < 0 || static_cast<std::size_t>(subgraph) >= m_roofline->points.size()) return std::nullopt;
  const RooflinePoint& point = m_roofline->points[static_cast<std::size_t>(subgraph)];
  if (!point.plottable()) return std::nullopt;
  return QPointF(m_plot->xAxis->coordToPixel(point.intensity),
                 m_plot->yAxis->coordToPixel(point.achievedOpsPerCycle * m_roofline->clockGHz));
}

void RooflinePlot::onPlotClicked(QMouseEvent* event) {
  if (!m_roofline) return;
  // The nearest point within a few pixels; many subgraphs share a spot, and the first of them stands for all.
  SubgraphId nearest = kNoId;
  double best = kClickRadiusPx * kClickRadiusPx;
  for (const RooflinePoint& point : m_roofline->points) {
    const std::optional<QPointF> at = pointPosition(point.subgraph);
    if (!at) continue;
    const QPointF d = *at - event->position();
    const double distance = d.x() * d.x() + d.y() * d.y();
    if (distance < best) best = distance, nearest = point.subgraph;
  }
  if (nearest == kNoId) return;
  selectSubgraph(nearest);
  Q_EMIT subgraphActivated(nearest);
}

QString RooflinePlot::caption() const { return m_caption->text(); }

void RooflinePlot::updateCaption() {
  if (!m_roofline) {
    m_caption->setText(tr("No run yet: the roofline appears after a run."));
    return;
  }
  const int plotted = plottedCount();
  const int idle = static_cast<int>(m_roofline->points.size()) - plotted;
  if (m_selected == kNoId) {
    QString text = tr("%n subgraph(s) on the plot", nullptr, plotted);
    if (idle > 0) text += tr("; %n more do no arithmetic or load nothing from GM", nullptr, idle);
    m_caption->setText(text + tr(". Click a point to select its subgraph."));
    return;
  }
  const RooflinePoint& point = m_roofline->points[static_cast<std::size_t>(m_selected)];
  const double ghz = m_roofline->clockGHz;
  m_caption->setText(tr("<b>sg %1 %2</b> (%3%4): %5 ops/B, %6 of its %7 roof (%8): %9 %; %n task(s)", nullptr, point.tasks)
                         .arg(point.subgraph)
                         .arg(QString::fromStdString(point.label).toHtmlEscaped(), QString::fromStdString(point.coreType),
                              point.source.empty() ? QString() : QStringLiteral(", ") + QString::fromStdString(point.source).toHtmlEscaped(),
                              QString::number(point.intensity, 'g', 3), rate(point.achievedOpsPerCycle * ghz),
                              rate(point.roofOpsPerCycle * ghz), QString::fromStdString(point.limitedBy))
                         .arg(100.0 * point.roofShare, 0, 'f', 0));
}

void RooflinePlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) rebuild();
  QWidget::changeEvent(event);
}

} // namespace pto::widgets
