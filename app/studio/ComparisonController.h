// ComparisonController: what the Runs and Measured docks do. Lists the open
// project's recorded runs (its ledger, read on a JobRunner), and puts beneath
// the current run (A), on one time axis, either a recorded run (B, from the
// ledger) or a trace measured on a chip (coloured by each task's error
// against its twin, the ten largest mismatches in the Measured dock). After
// each run the comparison on screen is made again against the new A. The
// panels only show; the window says which project is open and which run
// finished, and carries out the signals (status bar, tabs, docks, colours).
#pragma once

#include "app/studio/JobRunner.h"
#include "app/studio/ProjectRunJob.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

namespace pto::widgets {
class MeasuredPanel;
class RunsPanel;
class SwimlanePane;
class TraceIndex;
} // namespace pto::widgets

namespace pto::studio {

class ComparisonController : public QObject {
  Q_OBJECT
public:
  ComparisonController(widgets::RunsPanel* runs, widgets::MeasuredPanel* measured, widgets::SwimlanePane* swimlane,
                       QObject* parent = nullptr);

  // The last run that finished (the window's), and the trace on screen as A.
  void setRunProvider(std::function<const ProjectRunOutcome&()> lastRun,
                      std::function<std::shared_ptr<const widgets::TraceIndex>()> shownTrace);

  // The project whose runs are listed (nullopt: none open): the comparison
  // closes, no run is current, and the ledger is read again.
  void setProject(std::optional<std::filesystem::path> folder);
  // A run finished (lastRun() holds it): it becomes A when it succeeded, the
  // ledger is read again and the comparison on screen is made against it.
  void noteRunFinished(bool ok);

  void refreshRuns();
  bool compareWithRun(std::int64_t runId);
  bool compareWithMeasured(const QString& file);
  // Closes the comparison beneath the run, a recorded run's or a measured trace's.
  void closeComparison();

  std::int64_t comparedRunId() const { return m_comparedRunId; }
  bool busy() const { return m_historyJobs.busy() || m_comparisonJobs.busy() || m_measuredJobs.busy(); }

Q_SIGNALS:
  void runsLoaded();
  void comparisonShown();
  void statusMessage(const QString& text, int timeoutMs);
  void swimlaneWanted();       // the comparison is on screen: show the swimlane
  void measuredDockWanted();   // the Measured dock has something to say
  // Colour the swimlane by each task's error against the measured trace (or stop doing so).
  void errorColoursWanted(bool on);
  // Show `trace` as the run's swimlane (the run's own, or with the error classes of a measured comparison).
  void runTraceWanted(std::shared_ptr<const widgets::TraceIndex> trace);

private:
  // Forgets the measured trace compared with each run (its dock says so) and
  // gives the run's swimlane its own colours back; nothing when none is compared.
  void dropMeasuredComparison();

  widgets::RunsPanel* m_runs;
  widgets::MeasuredPanel* m_measured;
  widgets::SwimlanePane* m_swimlane;
  std::function<const ProjectRunOutcome&()> m_lastRun;
  std::function<std::shared_ptr<const widgets::TraceIndex>()> m_shownTrace;
  std::optional<std::filesystem::path> m_folder;
  JobRunner m_historyJobs;
  JobRunner m_comparisonJobs;
  JobRunner m_measuredJobs;
  std::int64_t m_currentRunId = 0;   // the ledger id of the run whose swimlane is shown (A); 0: none
  std::int64_t m_comparedRunId = 0;  // B of the comparison on screen or loading; 0: none
  QString m_measuredFile;            // the measured trace compared with each run; empty: none
};

} // namespace pto::studio
