// The run at a glance.
#include "widgets/SummaryPanel.h"

#include "widgets/Theme.h"
#include "widgets/models/TimeFormat.h"

#include <QEvent>
#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QVBoxLayout>

#include <cmath>

namespace pto::widgets {
namespace {


QString durationUs(double us) { return QString::fromStdString(formatDurationNs(us * 1000.0)); }
// Deltas always in µs, so successive runs' changes read on one scale.
QString deltaUsText(double us) { return QString::number(us, 'f', 3) + QStringLiteral(" \u00B5s"); }
QString number(double value) { return QString::number(value, 'g', 3); }
QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 1) + QLatin1Char('%'); }
QString coloured(const QString& text, const QColor& colour, bool bold = false) {
  return QStringLiteral("<span style='color:%1;%2'>%3</span>")
      .arg(colour.name(), bold ? QStringLiteral("font-weight:600") : QString(), text.toHtmlEscaped());
}

QString coreTypeName(const std::string& name) {
  if (name == "AIC") return QStringLiteral("AIC (cube)");
  if (name == "AIV") return QStringLiteral("AIV (vector)");
  return QString::fromStdString(name);
}

} // namespace

SummaryPanel::SummaryPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  m_outer = layout;
  m_scroll = new QScrollArea(this);
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  layout->addWidget(m_scroll);
  rebuild();
}

void SummaryPanel::setRun(const RunSummary& run, std::shared_ptr<const TraceIndex> trace) {
  m_run = run;
  m_trace = std::move(trace);
  m_failure.clear();
  rebuild();
}

void SummaryPanel::setTrace(std::shared_ptr<const TraceIndex> index) {
  m_run.reset();
  m_trace = std::move(index);
  m_failure.clear();
  rebuild();
}

void SummaryPanel::setRunFailed(const QString& message) {
  m_failure = message;
  rebuild();
}

QString SummaryPanel::text() const { return m_plain; }

void SummaryPanel::changeEvent(QEvent* event) {
  // Colours are baked into the labels' rich text: rebuild for a new theme.
  if (event->type() == QEvent::PaletteChange) rebuild();
  QWidget::changeEvent(event);
}

void SummaryPanel::rebuild() {
  m_plain.clear();
  // The headline (failure, makespan, delta, verdict) stays above the scroll
  // area: always visible, however small the dock.
  delete m_header;
  m_header = new QWidget(this);
  auto* header = new QVBoxLayout(m_header);
  header->setContentsMargins(10, 8, 10, 4);
  header->setSpacing(6);
  m_outer->insertWidget(0, m_header);
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(10, 0, 10, 8);
  layout->setSpacing(6);
  QLabel* failure = m_failure.isEmpty() ? nullptr : addLabel(header, coloured(m_failure, badColour(palette()), true), m_failure);
  if (m_run) {
    addHeadline(header);
    addRunDetails(layout);
    if (m_trace) addTraceDetails(layout, *m_trace, false);
  } else if (m_trace) {
    addHeadline(header);
    addTraceDetails(layout, *m_trace, true);
  } else if (m_failure.isEmpty()) {
    addLabel(layout, QStringLiteral("<i>%1</i>").arg(tr("No run yet: open a project and press Run (Ctrl+R), or open a trace.")),
             tr("No run yet"));
  }
  layout->addStretch(1);
  // A failed run keeps the previous numbers for reference, greyed out.
  content->setEnabled(m_failure.isEmpty() || !m_run);
  if (failure && m_run)
    for (QLabel* label : m_header->findChildren<QLabel*>()) label->setEnabled(label == failure);
  m_scroll->setWidget(content);  // deletes the previous content
}

QLabel* SummaryPanel::addLabel(QVBoxLayout* layout, const QString& html, const QString& plain) {
  auto* label = new QLabel(html);
  label->setTextFormat(Qt::RichText);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(label);
  m_plain += plain + QLatin1Char('\n');
  return label;
}

void SummaryPanel::addSeparator(QVBoxLayout* layout) {
  auto* line = new QFrame;
  line->setFrameShape(QFrame::HLine);
  line->setFrameShadow(QFrame::Plain);
  QPalette pal = line->palette();
  pal.setColor(QPalette::WindowText, palette().color(QPalette::Mid));
  line->setPalette(pal);
  layout->addWidget(line);
}

QGridLayout* SummaryPanel::addTable(QVBoxLayout* layout, const QString& title, const QStringList& headers,
                                    const QList<int>& rightAligned) {
  addSeparator(layout);
  addLabel(layout, QStringLiteral("<b>%1</b>").arg(title.toHtmlEscaped()), title);
  auto* holder = new QWidget;
  auto* grid = new QGridLayout(holder);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setHorizontalSpacing(14);
  grid->setVerticalSpacing(3);
  QColor secondary = palette().color(QPalette::PlaceholderText);
  for (int column = 0; column < headers.size(); ++column) {
    auto* header = new QLabel(coloured(headers[column], secondary));
    header->setTextFormat(Qt::RichText);
    grid->addWidget(header, 0, column, rightAligned.contains(column) ? Qt::AlignRight : Qt::AlignLeft);
  }
  // Columns keep their natural width; the last one takes the rest.
  grid->setColumnStretch(static_cast<int>(headers.size()), 1);
  layout->addWidget(holder);
  m_plain += headers.join(QLatin1Char('\t')) + QLatin1Char('\n');
  return grid;
}

void SummaryPanel::addRow(QGridLayout* table, const QList<QPair<QString, QString>>& cells, const QList<int>& rightAligned) {
  int row = table->rowCount();
  QStringList plain;
  for (int column = 0; column < cells.size(); ++column) {
    auto* cell = new QLabel(cells[column].first);
    cell->setTextFormat(Qt::RichText);
    cell->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table->addWidget(cell, row, column, rightAligned.contains(column) ? Qt::AlignRight : Qt::AlignLeft);
    plain << cells[column].second;
  }
  m_plain += plain.join(QLatin1Char('\t')) + QLatin1Char('\n');
}

void SummaryPanel::addHeadline(QVBoxLayout* layout) {
  const QPalette& pal = palette();
  QColor secondary = pal.color(QPalette::PlaceholderText);
  bool simulated = m_run && m_run->simulated;
  double makespanUs = m_run ? m_run->makespanUs : static_cast<double>(m_trace->makespanNs()) / 1000.0;
  QString makespan = durationUs(makespanUs);
  QString what = simulated ? tr("simulated makespan") : m_run ? tr("no simulation") : tr("trace span (first event to last)");

  // The makespan, big, with the delta beside it: the number a tuner watches.
  QString delta;
  QString deltaPlain;
  if (m_run && m_run->deltaUs()) {
    double d = *m_run->deltaUs();
    std::optional<double> pct = m_run->deltaPercent();
    QString pctText = pct ? QStringLiteral(" (%1%2%)").arg(*pct > 0 ? QStringLiteral("+") : QString()).arg(*pct, 0, 'f', 1) : QString();
    if (std::fabs(d) < 5e-4) {
      deltaPlain = tr("same as the previous run");
      delta = coloured(deltaPlain, secondary);
    } else {
      bool faster = d < 0;
      deltaPlain = (faster ? tr("%1 faster") : tr("%1 slower")).arg(deltaUsText(std::fabs(d))) + pctText;
      delta = coloured((faster ? QStringLiteral("\u25BC ") : QStringLiteral("\u25B2 ")) + deltaPlain,
                       faster ? goodColour(pal) : badColour(pal), true);
    }
  } else if (m_run) {
    deltaPlain = tr("no previous run to compare with");
    delta = coloured(deltaPlain, secondary);
  }
  QString html = QStringLiteral("<span style='font-size:x-large; font-weight:600'>%1</span>").arg(makespan.toHtmlEscaped());
  if (!delta.isEmpty()) html += QStringLiteral("&nbsp;&nbsp;&nbsp;") + delta;
  html += QStringLiteral("<br>") + coloured(what, secondary);
  QString plain = makespan + QStringLiteral("  ") + deltaPlain + QLatin1Char('\n') + what;
  if (m_run && m_run->deltaUs())
    plain += QStringLiteral("\n") + tr("previous %1").arg(durationUs(*m_run->previousMakespanUs)),
        html += coloured(QStringLiteral(" \u00B7 ") + tr("previous %1").arg(durationUs(*m_run->previousMakespanUs)), secondary);
  addLabel(layout, html, plain);

  if (!m_run) return;
  // The verdict, second only to the time.
  int failed = 0;
  for (const OutputSummary& output : m_run->outputs) failed += output.pass ? 0 : 1;
  int outputs = static_cast<int>(m_run->outputs.size());
  QString verdict;
  if (!m_run->precisionSkipped.empty()) verdict = tr("outputs not checked (see below)");
  else if (outputs == 0) verdict = tr("the kernel writes no outputs");
  else if (failed == 0) verdict = outputs == 1 ? tr("\u2714 the output matches the golden") : tr("\u2714 all %1 outputs match the golden").arg(outputs);
  else verdict = tr("\u2718 %1 of %2 outputs FAIL the golden check").arg(failed).arg(outputs);
  addLabel(layout, outputs == 0 ? coloured(verdict, secondary) : coloured(verdict, failed ? badColour(pal) : goodColour(pal), true),
           verdict);
}

void SummaryPanel::addRunDetails(QVBoxLayout* layout) {
  const RunSummary& run = *m_run;
  const QPalette& pal = palette();
  QColor secondary = pal.color(QPalette::PlaceholderText);
  if (run.simulated) {
    QString facts = tr("%1 \u00B7 %2 mode \u00B7 %3 GHz \u00B7 %4 cycles")
                        .arg(QString::fromStdString(run.machine), QString::fromStdString(run.mode))
                        .arg(run.clockGHz, 0, 'g', 3)
                        .arg(run.makespanCycles);
    addLabel(layout, coloured(tr("machine ") , secondary) + QStringLiteral("<b>%1</b>").arg(facts.toHtmlEscaped()),
             tr("machine ") + facts);

    const QList<int> right = {1, 2, 3};
    QGridLayout* cores = addTable(layout, tr("Cores"), {tr("type"), tr("cores"), tr("tasks"), tr("utilisation")}, right);
    for (const CoreTypeSummary& type : run.coreTypes) {
      if (type.cores == 0 && type.tasks == 0) continue;
      addRow(cores,
             {{coreTypeName(type.name), coreTypeName(type.name)},
              {QString::number(type.cores), QString::number(type.cores)},
              {QString::number(type.tasks), QString::number(type.tasks)},
              {percent(type.utilization), percent(type.utilization)}},
             right);
    }
    QString counts = tr("%1 tasks from %2 subgraphs (%3), %4 dependencies")
                         .arg(run.tasks)
                         .arg(run.subgraphs)
                         .arg(run.programs == 1 ? tr("1 program") : tr("%1 programs").arg(run.programs))
                         .arg(run.dependencies);
    addLabel(layout, coloured(counts, secondary), counts);
    if (!run.bound.empty()) {
      // What bounds the run, and where its critical path's time went (the Health tab has the rest).
      QStringList waits;
      for (const auto& [cause, us] : run.pathWaitsUs) waits << tr("%1 %2").arg(QString::fromStdString(cause), durationUs(us));
      const QString path = tr("critical path: running %1; waiting %2")
                               .arg(durationUs(run.pathRunningUs), waits.isEmpty() ? tr("not at all") : waits.join(QStringLiteral(", ")));
      const QString bound = QString::fromStdString(run.bound);
      auto* label = addLabel(layout,
                             QStringLiteral("<b>%1</b> ").arg(tr("%1-bound").arg(bound).toHtmlEscaped()) +
                                 coloured(path, secondary),
                             tr("%1-bound; %2").arg(bound, path));
      label->setWordWrap(true);
    }
  }

  if (!run.precisionSkipped.empty()) {
    QString skipped = tr("Precision not checked: %1. Check it with pto run --check, or run in functional mode.")
                          .arg(QString::fromStdString(run.precisionSkipped));
    auto* label = addLabel(layout, coloured(skipped.toHtmlEscaped(), secondary), skipped);
    label->setWordWrap(true);
  }
  if (!run.outputs.empty()) {
    // Four columns fit a docked panel; the tolerance and the golden's source
    // go on a second, quieter line under each output.
    const QList<int> right = {2, 3};
    QGridLayout* outputs =
        addTable(layout, tr("Precision"), {tr("output"), tr("result"), tr("max abs err"), tr("max rel err")}, right);
    for (const OutputSummary& output : run.outputs) {
      QString result = output.pass ? tr("pass") : tr("FAIL");
      QString resultHtml = coloured(result, output.pass ? goodColour(pal) : badColour(pal), true);
      if (!output.pass) {
        QString mismatches = tr("%1 of %2 off").arg(output.mismatches).arg(output.elements);
        resultHtml += QStringLiteral(" ") + coloured(mismatches, secondary);
        result += QStringLiteral(" (") + mismatches + QLatin1Char(')');
      }
      // A summary made elsewhere (a recorded run) may not say which rule judged it: then it was allclose.
      const QString tolerance = output.judgement.empty()
                                    ? tr("rtol %1, atol %2").arg(number(output.rtol), number(output.atol))
                                    : QString::fromStdString(output.judgement);
      QString golden = QString::fromStdString(output.goldenSource);
      QString name = QString::fromStdString(output.name);
      int row = outputs->rowCount();
      const QString cells[] = {QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped()), resultHtml,
                               number(output.maxAbsError), number(output.maxRelError)};
      for (int column = 0; column < 4; ++column) {
        auto* cell = new QLabel(cells[column]);
        cell->setTextFormat(Qt::RichText);
        cell->setTextInteractionFlags(Qt::TextSelectableByMouse);
        outputs->addWidget(cell, row, column, right.contains(column) ? Qt::AlignRight : Qt::AlignLeft);
      }
      auto* detail = new QLabel(coloured(tr("%1 \u00B7 golden: %2").arg(tolerance, golden), secondary));
      detail->setTextFormat(Qt::RichText);
      detail->setWordWrap(true);
      detail->setToolTip(tr("allclose: |out - golden| <= atol + rtol * |golden| for every element; exact: equal; "
                            "quantized: integers cast from floats within one step; topk: each row's indices as "
                            "a set. A staged golden judges each stage on what the kernel's earlier stages "
                            "wrote (docs/cli.md)"));
      outputs->addWidget(detail, row + 1, 1, 1, 4);
      m_plain += QStringList{name, result, number(output.maxAbsError), number(output.maxRelError), tolerance, golden}
                     .join(QLatin1Char('\t')) +
                 QLatin1Char('\n');
    }
    if (!run.outputsFrom.empty()) {
      QString from = run.outputsFrom == "tiles"
                         ? tr("outputs from the tile graph on the CPU (timing mode)")
                         : tr("outputs from the simulated PTO programs (functional mode)");
      addLabel(layout, coloured(from, secondary), from);
    }
  }

  // Host time: one wrapped line; it matters less than the simulated numbers.
  const HostTimes& t = run.hostTimes;
  addSeparator(layout);
  const std::pair<QString, double> stages[] = {{tr("trace"), t.traceMs},       {tr("golden"), t.goldenMs},
                                               {tr("compile"), t.compileMs},   {tr("simulate"), t.simulateMs},
                                               {tr("execute"), t.executeMs}};
  QStringList parts;
  for (const auto& [stage, ms] : stages) parts << tr("%1 %2").arg(stage, QString::number(ms, 'f', 1));
  QString total = QString::number(t.totalMs(), 'f', 1);
  QString hostPlain = tr("host time %1 ms: %2 ms").arg(total, parts.join(QStringLiteral(", ")));
  addLabel(layout,
           QStringLiteral("<b>%1</b> ").arg(tr("Host time")) + total.toHtmlEscaped() + QStringLiteral(" ms ") +
               coloured(QStringLiteral("(") + parts.join(QStringLiteral(" \u00B7 ")) + QStringLiteral(" ms)"), secondary),
           hostPlain);
}

void SummaryPanel::addTraceDetails(QVBoxLayout* layout, const TraceIndex& trace, bool traceOnly) {
  QColor secondary = palette().color(QPalette::PlaceholderText);
  double makespan = static_cast<double>(trace.makespanNs());
  std::size_t total = 0;
  if (traceOnly) {
    const QList<int> right = {1, 2, 3};
    QGridLayout* table = addTable(layout, tr("Lanes"), {tr("type"), tr("lanes"), tr("tasks"), tr("busy")}, right);
    const std::pair<trace::LaneKind, QString> kinds[] = {{trace::LaneKind::Aic, QStringLiteral("AIC (cube)")},
                                                         {trace::LaneKind::Aiv, QStringLiteral("AIV (vector)")},
                                                         {trace::LaneKind::Aicpu, QStringLiteral("AICPU")},
                                                         {trace::LaneKind::Other, tr("other")}};
    for (const auto& [kind, name] : kinds) {
      const CoreKindSummary& summary = trace.summary(kind);
      total += summary.tasks;
      if (summary.lanes == 0) continue;
      // Busy share: task time over (lanes x span), the utilisation of the type.
      double busy = makespan > 0 ? static_cast<double>(summary.busyNs) / (summary.lanes * makespan) : 0;
      addRow(table,
             {{name, name},
              {QString::number(summary.lanes), QString::number(summary.lanes)},
              {QString::number(summary.tasks), QString::number(summary.tasks)},
              {percent(busy), percent(busy)}},
             right);
    }
  } else {
    addSeparator(layout);
    for (trace::LaneKind kind : {trace::LaneKind::Aic, trace::LaneKind::Aiv, trace::LaneKind::Aicpu, trace::LaneKind::Other})
      total += trace.summary(kind).tasks;
  }
  QString facts = tr("%1 tasks, %2 dependencies, critical path %3 tasks")
                      .arg(total)
                      .arg(trace.trace().edgeCount())
                      .arg(trace.criticalPath().size());
  addLabel(layout, traceOnly ? facts.toHtmlEscaped() : coloured(facts, secondary), facts);
  QString memory = tr("trace in memory: %1 MB").arg(static_cast<double>(trace.memoryBytes()) / 1e6, 0, 'f', 1);
  addLabel(layout, coloured(memory, secondary), memory);
}

} // namespace pto::widgets
