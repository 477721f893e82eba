// The ReadyCount step plot under the swimlane.
#include "widgets/ReadyCountStrip.h"

#include "widgets/QCustomPlot.h"

#include <QEvent>
#include <QVBoxLayout>

#include <algorithm>

namespace pto::widgets {
namespace {

struct Series {
  const char* counter;
  const char* legend;
  QColor color;
};

// AIC and AIV in the lane-header kind colours, the total in neutral grey.
const Series kSeries[] = {
    {"ReadyCount_AIC", "ready AIC", QColor(214, 96, 77)},
    {"ReadyCount_AIV", "ready AIV", QColor(67, 147, 195)},
    {"ReadyCount_Total", "ready total", QColor(130, 130, 130)},
};

} // namespace

ReadyCountStrip::ReadyCountStrip(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  m_plot = new QCustomPlot(this);
  layout->addWidget(m_plot);
  setMinimumHeight(60);
  // Margins are fixed so the plot's x axis starts where the swimlane's time
  // area starts: QCustomPlot's automatic margins would move it.
  m_plot->axisRect()->setAutoMargins(QCP::msNone);
  m_plot->axisRect()->setMargins(QMargins(m_leftMarginPx, 4, 0, 4));
  m_plot->xAxis->setTickLabels(false);
  m_plot->xAxis->setTicks(false);
  m_plot->xAxis2->setVisible(false);
  m_plot->yAxis->setLabel(QString());
  m_plot->yAxis->ticker()->setTickCount(3);
  m_plot->yAxis->setPadding(0);
  m_plot->legend->setVisible(true);
  m_plot->legend->setRowSpacing(0);
  m_plot->legend->setIconSize(14, 8);
  m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->setToolTip(tr("Tasks ready to run but waiting for a core, per core type"));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  m_plot->legend->setFont(small);
  m_plot->yAxis->setTickLabelFont(small);
  applyPalette();
}

void ReadyCountStrip::setTrace(const std::shared_ptr<const TraceIndex>& index) {
  m_plot->clearGraphs();
  m_hasData = false;
  double maxValue = 1;
  if (index) {
    const trace::Trace& tr = index->trace();
    for (const Series& series : kSeries) {
      auto counter = std::find_if(tr.counters().begin(), tr.counters().end(),
                                  [&](const trace::Counter& c) { return tr.str(c.name) == series.counter; });
      if (counter == tr.counters().end() || counter->samples.empty()) continue;
      std::vector<trace::CounterSample> samples = counter->samples;
      std::stable_sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.tsNs < b.tsNs; });
      QVector<double> keys;
      QVector<double> values;
      keys.reserve(static_cast<qsizetype>(samples.size()) + 1);
      values.reserve(static_cast<qsizetype>(samples.size()) + 1);
      for (const auto& sample : samples) {
        keys.push_back(static_cast<double>(sample.tsNs));
        values.push_back(sample.value);
        maxValue = std::max(maxValue, sample.value);
      }
      // Hold the last value to the end of the trace.
      if (static_cast<double>(index->endNs()) > keys.back()) {
        keys.push_back(static_cast<double>(index->endNs()));
        values.push_back(values.back());
      }
      QCPGraph* graph = m_plot->addGraph();
      graph->setName(QString::fromUtf8(series.legend));
      graph->setLineStyle(QCPGraph::lsStepLeft);
      graph->setPen(QPen(series.color, 1.4));
      QColor fill = series.color;
      fill.setAlpha(series.counter == std::string_view("ReadyCount_Total") ? 0 : 40);
      graph->setBrush(fill);
      graph->setData(keys, values, true);
      graph->setAdaptiveSampling(true);
      m_hasData = true;
    }
  }
  m_plot->yAxis->setRange(0, maxValue * 1.15);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ReadyCountStrip::setTimeRange(double fromNs, double toNs) {
  m_plot->xAxis->setRange(fromNs, toNs);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ReadyCountStrip::setLeftMarginPx(int px) {
  m_leftMarginPx = px;
  m_plot->axisRect()->setMargins(QMargins(px, 4, 0, 4));
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int ReadyCountStrip::seriesCount() const { return m_plot->graphCount(); }

void ReadyCountStrip::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) applyPalette();
  QWidget::changeEvent(event);
}

void ReadyCountStrip::applyPalette() {
  QPalette pal = palette();
  m_plot->setBackground(pal.color(QPalette::Base));
  m_plot->axisRect()->setBackground(pal.color(QPalette::Base));
  QColor ink = pal.color(QPalette::WindowText);
  QColor grid = pal.color(QPalette::Text);
  grid.setAlpha(30);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    axis->setBasePen(QPen(pal.color(QPalette::Mid)));
    axis->setTickPen(QPen(pal.color(QPalette::Mid)));
    axis->setSubTickPen(QPen(pal.color(QPalette::Mid)));
    axis->setTickLabelColor(ink);
    axis->setLabelColor(ink);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
  }
  m_plot->legend->setBrush(QBrush(pal.color(QPalette::Window)));
  m_plot->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
  m_plot->legend->setTextColor(ink);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace pto::widgets
