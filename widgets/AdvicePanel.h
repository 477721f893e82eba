// AdvicePanel: the Advice dock — what to change in the project's settings
// and what it buys, each change one click from being applied.
//
//   toolbar      Advise, Tune (budget, strategy), Cancel; a progress line
//                while either works
//   Suggestions  one card per advisor suggestion (analysis/advisor/Advisor.h): its
//                title, rule, evidence, baseline -> predicted makespan (µs
//                and %), the values tried, an Apply button; once applied and
//                rerun, "predicted … · obtained …"
//   Tuner        the sweep's Pareto front (widgets/models/TunePointsModel)
//                beside a scatter plot of makespan against busy core time,
//                the front highlighted; Apply best, Apply selected
//
// A thin view: the advisor and the tuner run on a worker thread
// (app/studio/AdviceController); the panel shows plain results and says
// what the user asked for through its signals.
#pragma once

#include "analysis/advisor/Advisor.h"
#include "analysis/tuner/Tuner.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QCustomPlot;
class QCPGraph;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableView;
class QToolButton;
class QVBoxLayout;

namespace pto::widgets {

class TunePointsModel;

class AdvicePanel : public QWidget {
  Q_OBJECT
public:
  explicit AdvicePanel(QWidget* parent = nullptr);
  ~AdvicePanel() override;

  // Whether there is a project to advise (the buttons need one).
  void setProjectOpen(bool open);

  // Advise.
  void setAdvice(const Advice& advice, const QString& projectName);
  void setAdviceFailed(const QString& message);
  // The settings changed since the advice: its baselines are other settings'.
  void setAdviceStale(bool stale);
  // Suggestion `index` was applied and its run started; then what it obtained.
  void setSuggestionApplied(int index);
  void setSuggestionObtained(int index, double obtainedUs);
  void setSuggestionRunFailed(int index);
  // The suggestion's outcome line ("predicted 8.66 µs · obtained 8.66 µs"), empty before one.
  QString suggestionOutcome(int index) const;
  int suggestionCount() const;
  QPushButton* applyButton(int index) const;

  // Tune.
  void setTuneResult(const TuneResult& result);
  void setTuneFailed(const QString& message);
  // Point `point` of the sweep was applied; then what it obtained.
  void setTunePointApplied(int point);
  void setTunePointObtained(int point, double obtainedUs);
  void setTunePointRunFailed(int point);
  QString tuneOutcome() const { return m_tuneOutcomeText; }
  QString tuneHeadline() const;  // the sweep's summary line, as rich text
  // The point the table's current row shows (-1: none).
  int selectedTunePoint() const;
  void selectTunePoint(int point);

  // Work going on: what, and how far ("simulated 12 of 64"; total 0: unknown).
  void setBusy(const QString& what, int done = 0, int total = 0);
  // A sweep under way: points done of the total, rate, best so far, time
  // left and where the points run.
  void setTuneProgress(const QString& project, const pto::TuneProgress& progress);
  // The points a sweep under way has delivered (summarised: best and Pareto
  // front so far; no baseline yet): the table, plot and headline show them
  // until setTuneResult gives the whole sweep. A distributed sweep's results
  // arrive over minutes or hours; the table filled only at its end.
  void setTunePointsSoFar(std::shared_ptr<const pto::TuneResult> soFar, int total);
  void setIdle(const QString& message = {});
  bool isBusy() const { return m_busy; }

  // Emits tuneRequested with the budget and strategy shown (Run > Tune).
  void requestTune();

  // Brings a section forward.
  void showSuggestions();
  void showTuner();

  QPushButton* adviseButton() const { return m_adviseButton; }
  QPushButton* tuneButton() const { return m_tuneButton; }
  QPushButton* applyBestButton() const { return m_applyBest; }
  QPushButton* applySelectedButton() const { return m_applySelected; }
  QSpinBox* budget() const { return m_budget; }
  QComboBox* strategy() const { return m_strategy; }
  // Where the tuner simulates: empty for this machine, else a Dask
  // scheduler's address (tcp://HOST:PORT).
  QString cluster() const;
  void setCluster(const QString& address);
  QLineEdit* clusterField() const { return m_cluster; }
  QTableView* paretoTable() const { return m_table; }
  TunePointsModel* paretoModel() const { return m_model; }
  QCustomPlot* plot() const { return m_plot; }

Q_SIGNALS:
  void adviseRequested();
  void tuneRequested(pto::TuneStrategy strategy, int budget);
  void cancelRequested();
  void applySuggestionRequested(int index);
  void applyTunePointRequested(int point);

protected:
  void changeEvent(QEvent* event) override;

private:
  struct Card;
  QWidget* createSuggestionsPage();
  QWidget* createTunerPage();
  void rebuildCards();
  void updateCardOutcome(int index);
  void updateButtons();
  void replot();
  void onTableSelectionChanged();
  void setTuneOutcomeText(const QString& html, const QString& text);

  // Toolbar and progress.
  QPushButton* m_adviseButton = nullptr;
  QPushButton* m_tuneButton = nullptr;
  QToolButton* m_cancelButton = nullptr;
  QSpinBox* m_budget = nullptr;
  QComboBox* m_strategy = nullptr;
  QLineEdit* m_cluster = nullptr;
  QProgressBar* m_progress = nullptr;
  QLabel* m_status = nullptr;
  QTabWidget* m_tabs = nullptr;
  bool m_busy = false;
  bool m_projectOpen = false;

  // Suggestions.
  QLabel* m_adviceHeadline = nullptr;
  QLabel* m_staleNote = nullptr;
  QVBoxLayout* m_cardsLayout = nullptr;
  QLabel* m_cardsHint = nullptr;
  std::optional<Advice> m_advice;
  QString m_projectName;
  std::vector<std::unique_ptr<Card>> m_cards;

  // Tuner.
  QLabel* m_tuneHeadline = nullptr;
  QTableView* m_table = nullptr;
  TunePointsModel* m_model = nullptr;
  QCustomPlot* m_plot = nullptr;
  QCPGraph* m_selectedGraph = nullptr;
  QPushButton* m_applyBest = nullptr;
  QPushButton* m_applySelected = nullptr;
  QLabel* m_tuneOutcome = nullptr;
  std::shared_ptr<const TuneResult> m_tune;
  bool m_tunePartial = false;  // m_tune is a sweep under way (or stopped): nothing to apply from it
  int m_appliedPoint = -1;
  QString m_tuneOutcomeText;  // plain, for tests
};

} // namespace pto::widgets
