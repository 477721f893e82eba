// RunsPanel: the project's recorded runs (the run ledger, as `pto runs`
// lists them): a trend plot of makespan over the runs, oldest to newest, and
// a table, newest first, of each run's time, makespan, change from the run
// before, tasks and the settings that changed. Clicking a point selects its
// run in the table; "Compare with this run" (or a double click) asks the
// owner for an A/B comparison of the current run (A) with the chosen one (B),
// whose summary — makespan delta, per-label deltas, differing settings, the
// tasks matched by identity (analysis/ledger/RunComparison.h) — the panel then
// shows under the table.
//
// A thin view: the history and the comparison are read off the GUI thread
// by the owner (app/studio/RunHistoryJob.h) and handed in as plain data.
#pragma once

#include "analysis/ledger/RunComparison.h"
#include "analysis/ledger/RunHistory.h"

#include <QWidget>

#include <optional>

class QCustomPlot;
class QCPGraph;
class QLabel;
class QMouseEvent;
class QPushButton;
class QTextBrowser;
class QTreeView;

namespace pto::widgets {

class RunListModel;

class RunsPanel : public QWidget {
  Q_OBJECT
public:
  explicit RunsPanel(QWidget* parent = nullptr);

  // The runs to list; keeps the selected run selected when it is still listed.
  void setHistory(RunHistory history);
  const RunHistory& history() const;
  // Instead of the runs (no project, or the ledger could not be read).
  void setMessage(const QString& message);
  // The comparison of the current run (A) with run B, shown under the table.
  void setComparison(const RunComparison& comparison);
  // Shown in the comparison's place while it loads or when it failed.
  void setComparisonMessage(const QString& message);
  void clearComparison();
  bool showingComparison() const { return m_comparedId != 0; }

  std::int64_t selectedRunId() const;  // 0: none
  void selectRun(std::int64_t id);

  // The captions over the compared swimlanes (rich text): "A: current run
  // (xx µs) · run #M · n tasks" and "B: run #N (yy µs) · n tasks · B − A …",
  // each with its colour in the trend plot.
  static QString captionA(const RunComparison& comparison, int tasksA);
  static QString captionB(const RunComparison& comparison, int tasksB, bool hasSwimlane, const QPalette& palette);

  // For tests and screenshots.
  RunListModel* model() const { return m_model; }
  QTreeView* table() const { return m_table; }
  QCustomPlot* trendPlot() const { return m_plot; }
  int trendPointCount() const;
  // The trend plot's point of run `id` in plot-widget pixels (null when not plotted).
  QPointF trendPointOf(std::int64_t id) const;
  QString comparisonText() const;
  QPushButton* compareButton() const { return m_compare; }
  QPushButton* closeButton() const { return m_close; }

Q_SIGNALS:
  void compareRequested(qint64 runId);
  void closeComparisonRequested();
  void refreshRequested();

protected:
  void changeEvent(QEvent* event) override;

private:
  void rebuildPlot();
  void updateMarkers();
  void updateButtons();
  void updateHeadline();
  void onPlotClicked(QMouseEvent* event);
  void applyPalette();

  QLabel* m_headline = nullptr;
  QCustomPlot* m_plot = nullptr;
  QCPGraph* m_trend = nullptr;     // every run
  QCPGraph* m_current = nullptr;   // the current run's point
  QCPGraph* m_selected = nullptr;  // the selected run's point
  QCPGraph* m_compared = nullptr;  // B's point while comparing
  std::vector<std::int64_t> m_plotIds;  // run id per plot key, oldest first
  RunListModel* m_model = nullptr;
  QTreeView* m_table = nullptr;
  QPushButton* m_compare = nullptr;
  QPushButton* m_close = nullptr;
  QTextBrowser* m_comparison = nullptr;
  std::int64_t m_comparedId = 0;
  std::optional<RunComparison> m_shownComparison;
};

} // namespace pto::widgets
