// RooflinePlot: the run's roofline (analysis/report/Roofline.h) on log-log axes,
// operations per GM byte loaded against GOP/s per core, one point per
// subgraph coloured by core type, under the machine's ceilings: per core
// type the copy-in slope rising to the highest compute peak (solid), the
// chip's GM shared by all cores of the type and the other dtypes' peaks
// (dashed). Labels never overlap: a memory ceiling's label moves along its
// line, shortens to its rate or is left out (the tooltip lists every
// ceiling). Clicking a point selects its subgraph: the caption below gives
// its figures and subgraphActivated() lets the Health tab select its longest
// task and kernel line. A thin view over the plain struct.
#pragma once

#include "analysis/report/Roofline.h"

#include <QPointF>
#include <QPolygonF>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QLabel;
class QMouseEvent;

namespace pto::widgets {

class RooflinePlot : public QWidget {
  Q_OBJECT
public:
  explicit RooflinePlot(QWidget* parent = nullptr);

  void setRoofline(const Roofline& roofline);
  void clear();

  // Rings a subgraph's point and describes it in the caption; false when it
  // has no point (it does no arithmetic, loads nothing or never ran).
  bool selectSubgraph(SubgraphId subgraph);
  SubgraphId selectedSubgraph() const { return m_selected; }

  // For tests: where a subgraph's point is drawn, in widget pixels of plot(); nullopt when not plotted.
  std::optional<QPointF> pointPosition(SubgraphId subgraph) const;
  int plottedCount() const;
  QCustomPlot* plot() const { return m_plot; }
  // For tests: the compute ceilings' labels, as placed.
  std::vector<QCPItemText*> flatLabels() const;
  // For tests: the memory ceilings' labels (hidden when no spot fits) and
  // every shown label's box, as drawn, in plot pixels.
  std::vector<QCPItemText*> slopeLabels() const;
  std::vector<QPolygonF> shownLabelOutlines() const;
  QString caption() const;

Q_SIGNALS:
  void subgraphActivated(int subgraph);

protected:
  void changeEvent(QEvent* event) override;

private:
  void rebuild();
  void onPlotClicked(QMouseEvent* event);
  void updateCaption();
  void placeSlopeLabels();

  // A memory ceiling's label, kept along its line: the line's visible span
  // and slope, its text, and the rate alone for when the text finds no room.
  struct SlopeLabel {
    QCPItemText* label = nullptr;
    double fromX = 0.0, toX = 0.0, gbPerSecond = 0.0;
    QString text, shortText;
  };
  // A label's box as drawn, in plot pixels (turned with the label), grown by `marginPx`.
  QPolygonF labelOutline(const QCPItemText* label, double marginPx) const;
  QString m_plotTip;
  std::vector<SlopeLabel> m_slopeLabels;
  // A compute ceiling's label: where it would go, above the line's right end.
  struct FlatLabel {
    QCPItemText* label = nullptr;
    double x = 0.0, y = 0.0;
  };
  std::vector<FlatLabel> m_flatLabels;

  QCustomPlot* m_plot = nullptr;
  QLabel* m_caption = nullptr;
  QCPGraph* m_ring = nullptr;
  std::optional<Roofline> m_roofline;
  SubgraphId m_selected = kNoId;
};

} // namespace pto::widgets
