// RunController: the project's run on a JobRunner (a new run supersedes the
// one in flight; Esc cancels), auto-run after edits, and handing a run's
// results to the views (swimlane, problems, editor marks, tile sites,
// summary with its change from the previous run, health report).
#pragma once

#include "analysis/run/RunSummary.h"
#include "app/studio/JobRunner.h"
#include "app/studio/ProjectRunJob.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QAction;

namespace pto::widgets {
class HealthPanel;
class ProblemsPanel;
class SourceEditor;
class SummaryPanel;
class TraceIndex;
class TuningPanel;
} // namespace pto::widgets

namespace pto::studio {

class RunController : public QObject {
  Q_OBJECT
public:
  // The views a run's results go to.
  struct Views {
    widgets::SourceEditor* editor = nullptr;
    widgets::ProblemsPanel* problems = nullptr;
    widgets::SummaryPanel* summary = nullptr;
    widgets::HealthPanel* health = nullptr;
    widgets::TuningPanel* tuning = nullptr;
  };

  RunController(const Views& views, QObject* parent = nullptr);

  // What a run runs: the open project with its unsaved edits, or nullopt
  // when nothing may run now (the provider tells the user why); and the open
  // project as it now stands (null: none), whose tile sites a run lists.
  void setProjectProvider(std::function<std::optional<ProjectRunRequest>()> request,
                          std::function<const OperatorProject*()> project);

  // Runs the project; the completed run is recorded in its run ledger.
  void run();
  // The run opening a project makes: shown like any other, but not recorded
  // (a plain open adds no row to the Runs panel) unless recordRunInFlight()
  // asks for it before it completes. When no recorded run repeats it, the
  // next recorded run that differs from it records it first (UnrecordedRun).
  void runUnrecorded();
  // The run in flight is recorded after all (pto-studio --run, when opening
  // already started one). False when no run is in flight.
  bool recordRunInFlight();
  // Esc: stops the run in flight and says so.
  void cancel();
  // The project closed or lost its trust: no run goes on and none is pending.
  void stop();
  // The run in flight is dropped (a file the user opened wins over it); an
  // auto-run still pending stays.
  void dropRun() { m_jobs.cancel(); }
  // Another project opened: no last run, and its first run has no change to show.
  void forgetPreviousRuns();
  // An edit happened: with auto-run on, rerun after a pause (settings edits
  // are deliberate, kernel typing is not: it waits longer).
  void settingsEdited();
  void kernelEdited();

  // Run > Auto-run on edits (checkable; remembered across sessions).
  QAction* autoRunAction() const { return m_autoRunAction; }
  bool busy() const { return m_jobs.busy(); }
  // The generation of the run in flight or last started.
  quint64 generation() const { return m_jobs.generation(); }
  // The last run that finished (not cancelled or superseded), failed or not.
  const ProjectRunOutcome& lastRun() const { return m_lastRun; }

Q_SIGNALS:
  void busyChanged(bool busy);
  void stageChanged(const QString& stage);
  // Show this run's swimlane (as soon as it exists, before the run finishes).
  void swimlaneReady(std::shared_ptr<const widgets::TraceIndex> trace);
  // A run finished (lastRun() holds it); not emitted for cancelled or superseded runs.
  void finished(bool ok);
  // The run reported problems: show the Problems dock (and raise it).
  void problemsWanted(bool raise);
  void statusMessage(const QString& text, int timeoutMs);

private:
  void start(bool recorded);
  void schedule(int delayMs);
  void onFinished(ProjectRunOutcome outcome);
  // Shows a run's swimlane and its makespan delta, once per run (the early
  // swimlane or, when none came, the finished run's).
  void showSwimlane(const ProjectRunOutcome& run);

  Views m_views;
  std::function<std::optional<ProjectRunRequest>()> m_request;
  std::function<const OperatorProject*()> m_project;
  JobRunner m_jobs;
  QTimer m_autoRunTimer;
  QAction* m_autoRunAction = nullptr;
  std::shared_ptr<std::atomic<bool>> m_recordInFlight;  // the run in flight's ProjectRunRequest::recordInLedger
  std::shared_ptr<UnrecordedRun> m_openingRun;          // the opening run to record before the next recorded one
  ProjectRunOutcome m_lastRun;
  // Compile stages of recent runs (two compilations' worth), so that an edit
  // reruns only the passes it invalidates; used on the worker threads.
  std::shared_ptr<PassResultCache> m_passStages = std::make_shared<PassResultCache>(10, true);
  double m_previousMakespanUs = 0.0;        // of the last successful run, for the delta
  std::optional<RunSummary> m_previousRun;  // the last finished run of this project, for the summary's delta
  bool m_swimlaneShown = false;             // the current run's swimlane is on screen
  QString m_delta;                          // its makespan change against the previous run, as text
};

} // namespace pto::studio
