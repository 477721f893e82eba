#include "widgets/PlotStyle.h"

#include "widgets/QCustomPlot.h"

namespace pto::widgets {

void stylePlot(QCustomPlot* plot, const QPalette& palette, QPalette::ColorRole margin) {
  plot->setBackground(palette.color(margin));
  plot->axisRect()->setBackground(palette.color(QPalette::Base));
  const QColor ink = palette.color(QPalette::WindowText);
  QColor grid = palette.color(QPalette::Text);
  grid.setAlpha(30);
  for (QCPAxis* axis : {plot->xAxis, plot->yAxis}) {
    axis->setBasePen(QPen(palette.color(QPalette::Mid)));
    axis->setTickPen(QPen(palette.color(QPalette::Mid)));
    axis->setSubTickPen(QPen(Qt::NoPen));
    axis->setTickLabelColor(ink);
    axis->setLabelColor(ink);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
}

} // namespace pto::widgets
