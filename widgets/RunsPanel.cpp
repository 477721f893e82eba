// The project's recorded runs: trend plot, table, A/B comparison summary.
#include "widgets/RunsPanel.h"

#include "widgets/BoldRowDelegate.h"
#include "widgets/PlotStyle.h"
#include "widgets/QCustomPlot.h"
#include "widgets/Theme.h"
#include "widgets/models/RunListModel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace pto::widgets {
namespace {

// Faster is good: a negative makespan delta is green, a positive one red.
QColor fasterColour(const QPalette& palette) { return isDark(palette) ? QColor(87, 199, 110) : QColor(26, 127, 55); }
QColor slowerColour(const QPalette& palette) { return isDark(palette) ? QColor(241, 96, 96) : QColor(198, 40, 40); }
QColor trendColour(const QPalette& palette) { return isDark(palette) ? QColor(110, 170, 230) : QColor(40, 100, 170); }
const QColor kCurrentColour(230, 150, 30);  // A: the current run
const QColor kComparedColour(150, 90, 200);  // B: the run compared with

QString deltaColoured(double delta, const QString& text, const QPalette& palette) {
  if (delta == 0) return text.toHtmlEscaped();
  return QStringLiteral("<span style='color:%1'>%2</span>")
      .arg((delta < 0 ? fasterColour(palette) : slowerColour(palette)).name(), text.toHtmlEscaped());
}

QString signedNumber(double value, int decimals) {
  return (value > 0 ? QStringLiteral("+") : QString()) + QString::number(value, 'f', decimals);
}

QString jsonText(const std::optional<nlohmann::ordered_json>& value) {
  if (!value) return QObject::tr("(none)");
  return QString::fromStdString(value->is_string() ? value->get<std::string>() : value->dump());
}

// Table rows: the Δ column in green or red by sign, the current run in bold.
class RunRowDelegate : public BoldRowDelegate {
public:
  explicit RunRowDelegate(QObject* parent) : BoldRowDelegate(RunListModel::CurrentRole, parent) {}

protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    BoldRowDelegate::initStyleOption(option, index);
    QVariant delta = index.data(RunListModel::DeltaUsRole);
    if (index.column() == RunListModel::DeltaColumn && delta.isValid() && delta.toDouble() != 0) {
      QColor colour = delta.toDouble() < 0 ? fasterColour(option->palette) : slowerColour(option->palette);
      option->palette.setColor(QPalette::Text, colour);  // a selected row keeps its highlight text: readable
    }
    if (!index.data(RunListModel::TraceKeptRole).toBool() && index.column() == RunListModel::RunColumn)
      option->palette.setColor(QPalette::Text, option->palette.color(QPalette::PlaceholderText));
  }
};

} // namespace

RunsPanel::RunsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);

  auto* top = new QHBoxLayout;
  m_headline = new QLabel(this);
  m_headline->setTextFormat(Qt::RichText);
  m_headline->setWordWrap(true);
  auto* refresh = new QToolButton(this);
  refresh->setText(tr("Refresh"));
  refresh->setToolTip(tr("Read the run ledger again (runs of pto run and pto report are recorded there too)"));
  refresh->setAutoRaise(true);
  connect(refresh, &QToolButton::clicked, this, &RunsPanel::refreshRequested);
  top->addWidget(m_headline, 1);
  top->addWidget(refresh, 0, Qt::AlignTop);
  layout->addLayout(top);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  splitter->setChildrenCollapsible(false);

  // The trend: makespan per run, oldest left. Fixed margins keep the points
  // where the click handler expects them.
  m_plot = new QCustomPlot(splitter);
  m_plot->setMinimumHeight(120);
  m_plot->setToolTip(tr("Makespan of each recorded run, oldest left. Click a point to select its run; "
                        "double-click to compare with it."));
  m_plot->legend->setVisible(false);
  m_plot->xAxis2->setVisible(false);
  m_plot->yAxis2->setVisible(false);
  m_plot->yAxis->setLabel(tr("makespan µs"));
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  for (QCPAxis* axis : {m_plot->xAxis, m_plot->yAxis}) {
    axis->setTickLabelFont(small);
    axis->setLabelFont(small);
  }
  m_plot->yAxis->ticker()->setTickCount(4);
  m_trend = m_plot->addGraph();
  m_trend->setLineStyle(QCPGraph::lsLine);
  m_current = m_plot->addGraph();
  m_current->setLineStyle(QCPGraph::lsNone);
  m_compared = m_plot->addGraph();
  m_compared->setLineStyle(QCPGraph::lsNone);
  m_selected = m_plot->addGraph();
  m_selected->setLineStyle(QCPGraph::lsNone);
  connect(m_plot, &QCustomPlot::mousePress, this, &RunsPanel::onPlotClicked);
  connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent* event) {
    onPlotClicked(event);
    if (std::int64_t id = selectedRunId(); id != 0 && id != history().currentId) Q_EMIT compareRequested(id);
  });

  auto* tableBox = new QWidget(splitter);
  auto* tableLayout = new QVBoxLayout(tableBox);
  tableLayout->setContentsMargins(0, 0, 0, 0);
  tableLayout->setSpacing(4);
  m_model = new RunListModel(this);
  m_table = new QTreeView(tableBox);
  m_table->setModel(m_model);
  m_table->setRootIsDecorated(false);
  m_table->setUniformRowHeights(true);
  m_table->setAlternatingRowColors(true);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setItemDelegate(new RunRowDelegate(m_table));
  m_table->header()->setStretchLastSection(true);
  m_table->header()->setSectionResizeMode(QHeaderView::Interactive);
  connect(m_table, &QTreeView::doubleClicked, this, [this](const QModelIndex& index) {
    std::int64_t id = m_model->idAt(index.row());
    if (id != 0 && id != history().currentId) Q_EMIT compareRequested(id);
  });
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
    updateMarkers();
    updateButtons();
  });
  tableLayout->addWidget(m_table, 1);

  auto* buttons = new QHBoxLayout;
  m_compare = new QPushButton(tr("Compare with this run"), tableBox);
  m_compare->setToolTip(tr("Show this run's swimlane beneath the current one on the same time axis, and what changed"));
  connect(m_compare, &QPushButton::clicked, this, [this] {
    if (std::int64_t id = selectedRunId()) Q_EMIT compareRequested(id);
  });
  m_close = new QPushButton(tr("Close comparison"), tableBox);
  connect(m_close, &QPushButton::clicked, this, &RunsPanel::closeComparisonRequested);
  buttons->addWidget(m_compare);
  buttons->addWidget(m_close);
  buttons->addStretch(1);
  tableLayout->addLayout(buttons);

  m_comparison = new QTextBrowser(splitter);
  m_comparison->setOpenLinks(false);
  m_comparison->hide();

  splitter->addWidget(m_plot);
  splitter->addWidget(tableBox);
  splitter->addWidget(m_comparison);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setStretchFactor(2, 2);
  splitter->setSizes({150, 220, 320});
  layout->addWidget(splitter, 1);

  applyPalette();
  setMessage(tr("Open a project: each run of it is recorded, and listed here."));
}

const RunHistory& RunsPanel::history() const { return m_model->history(); }

void RunsPanel::setHistory(RunHistory history) {
  std::int64_t selected = selectedRunId();
  m_model->setHistory(std::move(history));
  for (int column = 0; column < RunListModel::ChangedColumn; ++column) m_table->resizeColumnToContents(column);
  m_table->setColumnWidth(RunListModel::ChangedColumn, std::max(m_table->columnWidth(RunListModel::ChangedColumn), 260));
  // Keep the selection; else select the newest run that is not the current one (the natural B).
  int row = m_model->rowOf(selected);
  if (row < 0)
    for (int r = 0; r < m_model->rowCount(); ++r)
      if (!m_model->index(r, 0).data(RunListModel::CurrentRole).toBool()) {
        row = r;
        break;
      }
  if (row >= 0) m_table->setCurrentIndex(m_model->index(row, 0));
  m_table->setEnabled(true);
  m_plot->setVisible(true);
  rebuildPlot();
  updateHeadline();
  updateButtons();
}

void RunsPanel::setMessage(const QString& message) {
  m_model->setHistory({});
  m_headline->setText(message.toHtmlEscaped());
  rebuildPlot();
  updateButtons();
}

void RunsPanel::updateHeadline() {
  const RunHistory& h = history();
  if (h.runs.empty()) {
    m_headline->setText(tr("No runs recorded yet: each run (Ctrl+R) is recorded in <i>%1</i>.")
                            .arg(QString::fromStdString(h.ledgerFile.filename().string()).toHtmlEscaped()));
    return;
  }
  const RunHistoryEntry* current = h.find(h.currentId);
  auto best = std::min_element(h.runs.begin(), h.runs.end(),
                               [](const RunHistoryEntry& a, const RunHistoryEntry& b) { return a.run.makespanUs < b.run.makespanUs; });
  QString text = tr("<b>%n run(s)</b> of %1", nullptr, static_cast<int>(h.runs.size()))
                     .arg(QString::fromStdString(h.runs.front().run.project).toHtmlEscaped());
  if (current) text += tr(" · current <b>#%1</b>: %2 µs").arg(current->run.id).arg(current->run.makespanUs, 0, 'f', 3);
  text += tr(" · best <b>#%1</b>: %2 µs").arg(best->run.id).arg(best->run.makespanUs, 0, 'f', 3);
  m_headline->setText(text);
}

void RunsPanel::rebuildPlot() {
  const RunHistory& h = history();
  m_plotIds.clear();
  QVector<double> keys, values;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  // Oldest left; a label for every run while they fit, else every k-th.
  const int count = static_cast<int>(h.runs.size());
  const int every = std::max(1, count / 12 + (count % 12 ? 1 : 0));
  double low = 0, high = 1;
  for (int i = 0; i < count; ++i) {
    const RunRow& run = h.runs[static_cast<std::size_t>(count - 1 - i)].run;
    m_plotIds.push_back(run.id);
    keys.push_back(i + 1);
    values.push_back(run.makespanUs);
    if (i % every == 0 || i == count - 1) ticker->addTick(i + 1, QStringLiteral("#%1").arg(run.id));
    low = i == 0 ? run.makespanUs : std::min(low, run.makespanUs);
    high = i == 0 ? run.makespanUs : std::max(high, run.makespanUs);
  }
  m_trend->setData(keys, values, true);
  m_plot->xAxis->setTicker(ticker);
  m_plot->xAxis->setRange(0.5, std::max(count, 1) + 0.5);
  // Zero-based when the runs are close together would flatten the story:
  // pad the range around the values instead.
  double pad = std::max((high - low) * 0.15, std::max(high * 0.02, 0.001));
  m_plot->yAxis->setRange(std::max(0.0, low - pad), high + pad);
  updateMarkers();
}

void RunsPanel::updateMarkers() {
  auto point = [this](std::int64_t id, QVector<double>& keys, QVector<double>& values) {
    auto at = std::find(m_plotIds.begin(), m_plotIds.end(), id);
    if (id == 0 || at == m_plotIds.end()) return;
    const RunHistoryEntry* entry = history().find(id);
    keys.push_back(static_cast<double>(at - m_plotIds.begin()) + 1);
    values.push_back(entry->run.makespanUs);
  };
  QVector<double> k, v;
  point(history().currentId, k, v);
  m_current->setData(k, v, true);
  k.clear(), v.clear();
  point(m_comparedId, k, v);
  m_compared->setData(k, v, true);
  k.clear(), v.clear();
  point(selectedRunId(), k, v);
  m_selected->setData(k, v, true);
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void RunsPanel::updateButtons() {
  std::int64_t id = selectedRunId();
  const RunHistoryEntry* entry = history().find(id);
  bool comparable = entry && !entry->current && history().currentId != 0;
  m_compare->setEnabled(comparable);
  if (!entry) m_compare->setToolTip(tr("Select a run in the table or the plot"));
  else if (entry->current) m_compare->setToolTip(tr("This is the current run: select another one"));
  else if (history().currentId == 0) m_compare->setToolTip(tr("Run the project first (Ctrl+R): the comparison is with the current run"));
  else m_compare->setToolTip(tr("Show run #%1's swimlane beneath the current one on the same time axis, and what changed").arg(id));
  m_close->setEnabled(m_comparedId != 0);
}

std::int64_t RunsPanel::selectedRunId() const {
  QModelIndex index = m_table->currentIndex();
  return index.isValid() ? m_model->idAt(index.row()) : 0;
}

void RunsPanel::selectRun(std::int64_t id) {
  int row = m_model->rowOf(id);
  if (row >= 0) m_table->setCurrentIndex(m_model->index(row, 0));
}

int RunsPanel::trendPointCount() const { return m_trend->dataCount(); }

QPointF RunsPanel::trendPointOf(std::int64_t id) const {
  auto at = std::find(m_plotIds.begin(), m_plotIds.end(), id);
  const RunHistoryEntry* entry = history().find(id);
  if (at == m_plotIds.end() || !entry) return {};
  double key = static_cast<double>(at - m_plotIds.begin()) + 1;
  return {m_plot->xAxis->coordToPixel(key), m_plot->yAxis->coordToPixel(entry->run.makespanUs)};
}

void RunsPanel::onPlotClicked(QMouseEvent* event) {
  // The nearest point within a few pixels (QCustomPlot's own selection
  // would need the point exactly under the mouse).
  std::int64_t nearest = 0;
  double best = 14.0;
  for (std::int64_t id : m_plotIds) {
    QPointF at = trendPointOf(id);
    double distance = std::hypot(at.x() - event->position().x(), at.y() - event->position().y());
    if (distance < best) {
      best = distance;
      nearest = id;
    }
  }
  if (nearest != 0) selectRun(nearest);
}

void RunsPanel::setComparison(const RunComparison& comparison) {
  m_comparedId = comparison.idB;
  m_shownComparison = comparison;
  const QPalette pal = palette();
  // Cycles to µs at the runs' clock (both ran on the machine in their settings).
  double usPerCycle = comparison.makespanCyclesA > 0 ? comparison.makespanUsA / static_cast<double>(comparison.makespanCyclesA)
                      : comparison.makespanCyclesB > 0 ? comparison.makespanUsB / static_cast<double>(comparison.makespanCyclesB)
                                                       : 0.0;
  auto us = [usPerCycle](double cycles) { return cycles * usPerCycle; };
  QString html = QStringLiteral("<style>td, th { padding: 1px 8px 1px 0; } th { text-align: left; font-weight: 600; }"
                                " td.n { text-align: right; } h4 { margin: 10px 0 4px 0; }</style>");
  html += tr("<div><span style='color:%1'>&#9632;</span> <b>A</b>: current run #%2, %3 µs &nbsp; "
             "<span style='color:%4'>&#9632;</span> <b>B</b>: run #%5, %6 µs</div>")
              .arg(kCurrentColour.name())
              .arg(comparison.idA)
              .arg(comparison.makespanUsA, 0, 'f', 3)
              .arg(kComparedColour.name())
              .arg(comparison.idB)
              .arg(comparison.makespanUsB, 0, 'f', 3);
  html += tr("<div style='font-size:large; margin-top:4px'>Makespan B − A: <b>%1</b></div>")
              .arg(deltaColoured(comparison.deltaUs,
                                 tr("%1 µs (%2%)").arg(signedNumber(comparison.deltaUs, 3), signedNumber(comparison.deltaPercent, 1)),
                                 pal));
  QStringList notes;
  if (comparison.kernelChanged) notes << tr("the kernel differs");
  if (comparison.modeChanged) notes << tr("the mode differs");
  if (!notes.isEmpty()) html += QStringLiteral("<div><i>%1</i></div>").arg(notes.join(QStringLiteral("; ")).toHtmlEscaped());

  html += tr("<h4>Settings that differ (A → B)</h4>");
  if (comparison.settings.empty()) {
    html += tr("<div>None: the same settings%1.</div>").arg(comparison.kernelChanged ? tr(" (the kernel changed)") : QString());
  } else {
    html += tr("<table><tr><th>setting</th><th>A</th><th>B</th></tr>");
    for (const SettingDifference& difference : comparison.settings) {
      QString where = RunListModel::differenceText(difference, true).section(QLatin1Char(' '), 0, 0);
      html += QStringLiteral("<tr><td>%1</td><td>%2</td><td>%3</td></tr>")
                  .arg(where.toHtmlEscaped(), jsonText(difference.a).toHtmlEscaped(), jsonText(difference.b).toHtmlEscaped());
    }
    html += QStringLiteral("</table>");
  }

  html += tr("<h4>Per label (busy time = summed task durations)</h4>");
  html += tr("<table><tr><th>label</th><th>tasks A</th><th>tasks B</th><th>busy A µs</th><th>busy B µs</th>"
             "<th>Δ busy µs</th><th>ends A µs</th><th>ends B µs</th></tr>");
  for (const LabelDelta& label : comparison.labels) {
    double delta = us(static_cast<double>(label.busyCyclesB - label.busyCyclesA));
    auto end = [&](std::int64_t cycles) { return cycles < 0 ? QStringLiteral("—") : QString::number(us(static_cast<double>(cycles)), 'f', 3); };
    html += QStringLiteral("<tr><td><b>%1</b></td><td class=n>%2</td><td class=n>%3</td><td class=n>%4</td><td class=n>%5</td>"
                           "<td class=n>%6</td><td class=n>%7</td><td class=n>%8</td></tr>")
                .arg(QString::fromStdString(label.label.empty() ? std::string("(none)") : label.label).toHtmlEscaped())
                .arg(label.tasksA)
                .arg(label.tasksB)
                .arg(us(static_cast<double>(label.busyCyclesA)), 0, 'f', 3)
                .arg(us(static_cast<double>(label.busyCyclesB)), 0, 'f', 3)
                .arg(deltaColoured(delta, signedNumber(delta, 3), pal))
                .arg(end(label.lastEndA), end(label.lastEndB));
  }
  html += QStringLiteral("</table>");

  const TaskMatching& tasks = comparison.tasks;
  html += tr("<h4>Tasks matched by identity</h4>");
  if (!tasks.compared) {
    html += tr("<div>Not compared: a run's task table was pruned from the ledger.</div>");
  } else {
    html += tr("<div>%1 in both, %2 only in A, %3 only in B.</div>").arg(tasks.matched).arg(tasks.onlyInA).arg(tasks.onlyInB);
    if (!tasks.largestEndShifts.empty()) {
      html += tr("<table><tr><th>task (largest end shifts)</th><th>ends A µs</th><th>ends B µs</th><th>Δ µs</th></tr>");
      for (std::size_t i = 0; i < tasks.largestEndShifts.size() && i < 5; ++i) {
        const TaskShift& shift = tasks.largestEndShifts[i];
        double delta = us(static_cast<double>(shift.endB - shift.endA));
        html += QStringLiteral("<tr><td>%1</td><td class=n>%2</td><td class=n>%3</td><td class=n>%4</td></tr>")
                    .arg(QString::fromStdString(shift.key).toHtmlEscaped())
                    .arg(us(static_cast<double>(shift.endA)), 0, 'f', 3)
                    .arg(us(static_cast<double>(shift.endB)), 0, 'f', 3)
                    .arg(deltaColoured(delta, signedNumber(delta, 3), pal));
      }
      html += QStringLiteral("</table>");
    }
  }
  m_comparison->setHtml(html);
  m_comparison->show();
  selectRun(comparison.idB);  // the table and the plot point at B
  updateMarkers();
  updateButtons();
}

QString RunsPanel::captionA(const RunComparison& comparison, int tasksA) {
  return tr("<span style='color:%1'>&#9632;</span> <b>A: current run (%2 µs)</b> &nbsp;·&nbsp; run #%3 &nbsp;·&nbsp; %4 tasks")
      .arg(kCurrentColour.name())
      .arg(comparison.makespanUsA, 0, 'f', 3)
      .arg(comparison.idA)
      .arg(tasksA);
}

QString RunsPanel::captionB(const RunComparison& comparison, int tasksB, bool hasSwimlane, const QPalette& palette) {
  QString text = tr("<span style='color:%1'>&#9632;</span> <b>B: run #%2 (%3 µs)</b> &nbsp;·&nbsp; %4 tasks &nbsp;·&nbsp; B − A ")
                     .arg(kComparedColour.name())
                     .arg(comparison.idB)
                     .arg(comparison.makespanUsB, 0, 'f', 3)
                     .arg(tasksB);
  text += QStringLiteral("<b>%1</b>").arg(deltaColoured(
      comparison.deltaUs, tr("%1 µs (%2%)").arg(signedNumber(comparison.deltaUs, 3), signedNumber(comparison.deltaPercent, 1)), palette));
  if (!comparison.settings.empty())
    text += QStringLiteral(" &nbsp;·&nbsp; ") +
            RunListModel::differencesText(comparison.settings, 2).toHtmlEscaped().replace(QStringLiteral("→"), QStringLiteral("&rarr;"));
  if (!hasSwimlane) text += tr(" &nbsp;·&nbsp; <i>its task table was pruned from the ledger: no swimlane</i>");
  return text;
}

void RunsPanel::setComparisonMessage(const QString& message) {
  m_comparison->setPlainText(message);
  m_comparison->show();
}

void RunsPanel::clearComparison() {
  m_comparedId = 0;
  m_shownComparison.reset();
  m_comparison->clear();
  m_comparison->hide();
  updateMarkers();
  updateButtons();
}

QString RunsPanel::comparisonText() const { return m_comparison->isHidden() ? QString() : m_comparison->toPlainText(); }

void RunsPanel::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    applyPalette();
    if (m_shownComparison) setComparison(*m_shownComparison);  // its colours are baked into the HTML
  }
  QWidget::changeEvent(event);
}

void RunsPanel::applyPalette() {
  const QPalette pal = palette();
  stylePlot(m_plot, pal);
  const QColor ink = pal.color(QPalette::WindowText);
  m_plot->xAxis->grid()->setVisible(false);
  QColor trend = trendColour(pal);
  m_trend->setPen(QPen(trend, 1.6));
  QColor fill = trend;
  fill.setAlpha(28);
  m_trend->setBrush(fill);
  m_trend->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, trend, pal.color(QPalette::Base), 6));
  m_current->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, kCurrentColour, kCurrentColour, 11));
  m_compared->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, kComparedColour, kComparedColour, 11));
  m_selected->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(ink, 1.6), Qt::NoBrush, 15));
  m_plot->replot(QCustomPlot::rpQueuedReplot);
}

} // namespace pto::widgets
