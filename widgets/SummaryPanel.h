// SummaryPanel: the run at a glance. At the top, always: the makespan the
// simulator computed and its change against the previous run (green when
// faster, red when slower) and whether every output passed. Below: machine
// and mode, tasks and utilisation per core type, each output's precision
// against its tolerance and golden, and the host time of each stage.
// With only a trace file open (no run), it shows the trace's span, labelled
// so, and what the trace itself tells (tasks and busy share per lane kind).
#pragma once

#include "widgets/models/RunSummary.h"
#include "widgets/models/TraceIndex.h"

#include <QWidget>

#include <memory>
#include <optional>

class QGridLayout;
class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace pto::widgets {

class SummaryPanel : public QWidget {
  Q_OBJECT
public:
  explicit SummaryPanel(QWidget* parent = nullptr);

  // Shows a run (analysis/run/RunSummary.h: summarizeRun fills it, with the
  // previous run for the delta). `trace`, when given, adds what only the
  // trace knows: the critical path and the trace's memory.
  void setRun(const RunSummary& run, std::shared_ptr<const TraceIndex> trace = nullptr);
  // Shows a trace opened without a run (nullptr: nothing loaded).
  void setTrace(std::shared_ptr<const TraceIndex> index);
  // A run that did not finish: `message` (one line, e.g. "compile error:
  // see the diagnostics") above the last good run's numbers, greyed.
  void setRunFailed(const QString& message);
  void clear() { setTrace(nullptr); }

  QString text() const;  // the shown text, plain, one row per line (for tests)

protected:
  void changeEvent(QEvent* event) override;

private:
  void rebuild();
  // Builders; each appends to the content and to the plain text.
  void addHeadline(QVBoxLayout* layout);
  void addRunDetails(QVBoxLayout* layout);
  void addTraceDetails(QVBoxLayout* layout, const TraceIndex& trace, bool traceOnly);
  QLabel* addLabel(QVBoxLayout* layout, const QString& html, const QString& plain);
  QGridLayout* addTable(QVBoxLayout* layout, const QString& title, const QStringList& headers,
                        const QList<int>& rightAligned);
  void addRow(QGridLayout* table, const QList<QPair<QString, QString>>& cells, const QList<int>& rightAligned);
  void addSeparator(QVBoxLayout* layout);

  QVBoxLayout* m_outer = nullptr;
  QWidget* m_header = nullptr;
  QScrollArea* m_scroll = nullptr;
  std::optional<RunSummary> m_run;
  std::shared_ptr<const TraceIndex> m_trace;
  QString m_failure;
  QString m_plain;
};

} // namespace pto::widgets
