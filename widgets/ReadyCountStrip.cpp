// The ReadyCount step plot under the swimlane.
#include "widgets/ReadyCountStrip.h"

#include "widgets/PlotStyle.h"
#include "widgets/QCustomPlot.h"
#include "widgets/models/TimeFormat.h"

#include <QEvent>
#include <QLabel>
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
    {"ReadyCount_AIC", "AIC", QColor(214, 96, 77)},
    {"ReadyCount_AIV", "AIV", QColor(67, 147, 195)},
    {"ReadyCount_Total", "total", QColor(130, 130, 130)},
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
  m_ticker = QSharedPointer<QCPAxisTickerFixed>::create();
  m_ticker->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  m_plot->xAxis->setTicker(m_ticker);
  m_plot->xAxis2->setVisible(false);
  m_plot->yAxis->setLabel(QString());
  m_plot->yAxis->ticker()->setTickCount(3);
  m_plot->yAxis->setPadding(0);
  // The key sits in the margin under the lane headers, off the data.
  m_plot->legend->setVisible(false);
  m_key = new QLabel(this);
  m_key->setTextFormat(Qt::RichText);
  m_key->move(6, 2);
  m_plot->setNoAntialiasingOnDrag(true);
  m_plot->setToolTip(tr("Tasks ready to run but waiting for a core, per core type"));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.8);
  m_key->setFont(small);
  m_plot->yAxis->setTickLabelFont(small);
  applyPalette();
}

void ReadyCountStrip::setTrace(const std::shared_ptr<const TraceIndex>& index) {
  m_plot->clearGraphs();
  m_hasData = false;
  QString key = QStringLiteral("<b>%1</b>").arg(tr("Ready"));
  double maxValue = 1;
  double minValue = 0;
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
        minValue = std::min(minValue, sample.value);
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
      key += QStringLiteral("<br><span style='color:%1'>\u25a0</span> %2").arg(series.color.name(), QString::fromUtf8(series.legend));
    }
  }
  m_key->setText(key);
  m_key->adjustSize();
  m_key->raise();
  m_plot->yAxis->setRange(minValue, maxValue * 1.15);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void ReadyCountStrip::setTimeRange(double fromNs, double toNs) {
  m_plot->xAxis->setRange(fromNs, toNs);
  // Grid lines where the swimlane ruler has its ticks (a label every
  // >= 110 px, see SwimlaneRenderer::paintRuler).
  double widthPx = std::max(1, m_plot->axisRect()->width());
  m_ticker->setTickStep(niceStepNs((toNs - fromNs) / widthPx * 110));
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
  // The margin left of the plot continues the lane headers' column.
  stylePlot(m_plot, pal, QPalette::Window);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace pto::widgets
