// Implementation of ComparisonController.
#include "app/studio/ComparisonController.h"

#include "app/studio/MeasuredComparisonJob.h"
#include "app/studio/RunHistoryJob.h"
#include "widgets/MeasuredPanel.h"
#include "widgets/RunsPanel.h"
#include "widgets/SwimlanePane.h"

namespace pto::studio {
namespace {
constexpr int kListedRuns = 500;  // the ledger keeps every row; the panel lists the newest
constexpr int kMessageMs = 8000;
constexpr int kResultMs = 10000;
} // namespace

ComparisonController::ComparisonController(widgets::RunsPanel* runs, widgets::MeasuredPanel* measured,
                                           widgets::SwimlanePane* swimlane, QObject* parent)
    : QObject(parent), m_runs(runs), m_measured(measured), m_swimlane(swimlane) {
  connect(m_runs, &widgets::RunsPanel::compareRequested, this, [this](qint64 id) { compareWithRun(id); });
  connect(m_runs, &widgets::RunsPanel::closeComparisonRequested, this, &ComparisonController::closeComparison);
  connect(m_runs, &widgets::RunsPanel::refreshRequested, this, &ComparisonController::refreshRuns);
  connect(m_swimlane, &widgets::SwimlanePane::closeComparisonRequested, this, &ComparisonController::closeComparison);
  // A row of the Measured dock selects its task in the measured swimlane; the pane selects the twin in the run's.
  connect(m_measured, &widgets::MeasuredPanel::taskActivated, this,
          [this](trace::TaskIndex measuredTask, trace::TaskIndex) {
            m_swimlane->comparisonView()->selectTask(measuredTask, true);
          });
}

void ComparisonController::setRunProvider(std::function<const ProjectRunOutcome&()> lastRun,
                                          std::function<std::shared_ptr<const widgets::TraceIndex>()> shownTrace) {
  m_lastRun = std::move(lastRun);
  m_shownTrace = std::move(shownTrace);
}

void ComparisonController::setProject(std::optional<std::filesystem::path> folder) {
  closeComparison();
  m_folder = std::move(folder);
  m_currentRunId = 0;
  refreshRuns();  // the runs recorded before, listed while the first run goes
}

void ComparisonController::noteRunFinished(bool ok) {
  // A finished run is in the ledger by now (ProjectRunJob records it, or for
  // a project's opening run names the recorded run it repeats, if any): list
  // it, and compare the new current run with the same B.
  if (ok) m_currentRunId = m_lastRun().ledgerRunId;
  refreshRuns();
  if (ok && m_comparedRunId != 0) {
    if (m_currentRunId != 0 && m_currentRunId != m_comparedRunId) compareWithRun(m_comparedRunId);
    else closeComparison();
  }
  if (ok && !m_measuredFile.isEmpty()) compareWithMeasured(m_measuredFile);
}

void ComparisonController::refreshRuns() {
  if (!m_folder) {
    m_historyJobs.cancel();
    m_runs->setMessage(tr("Open a project: each run of it is recorded, and listed here."));
    return;
  }
  m_historyJobs.start<RunHistoryOutcome>(
      [folder = *m_folder, current = m_currentRunId](const std::atomic<bool>&) {
        return loadRunHistory(folder, current, kListedRuns);
      },
      [this](RunHistoryOutcome outcome) {
        if (outcome.history) m_runs->setHistory(std::move(*outcome.history));
        else m_runs->setMessage(tr("The run ledger could not be read: %1").arg(QString::fromStdString(outcome.error)));
        Q_EMIT runsLoaded();
      });
}

bool ComparisonController::compareWithRun(std::int64_t runId) {
  if (!m_folder || m_currentRunId == 0 || !m_shownTrace()) {
    Q_EMIT statusMessage(tr("Run the project first (Ctrl+R): a recorded run is compared with the current one."),
                         kMessageMs);
    return false;
  }
  if (runId == m_currentRunId) {
    Q_EMIT statusMessage(tr("Run #%1 is the current run: choose another one to compare with.").arg(runId), kMessageMs);
    return false;
  }
  dropMeasuredComparison();  // a recorded run takes the measured trace's place beneath the current one
  m_comparedRunId = runId;
  m_runs->setComparisonMessage(tr("Loading run #%1 from the ledger…").arg(runId));
  m_comparisonJobs.start<RunComparisonOutcome>(
      [folder = *m_folder, idA = m_currentRunId, runId](const std::atomic<bool>& cancelled) {
        return loadRunComparison(folder, idA, runId, cancelled);
      },
      [this](RunComparisonOutcome outcome) {
        if (outcome.idB != m_comparedRunId) return;  // closed or replaced meanwhile
        if (!outcome.comparison) {
          m_comparedRunId = 0;
          m_runs->setComparisonMessage(
              tr("Cannot compare with run #%1: %2").arg(outcome.idB).arg(QString::fromStdString(outcome.error)));
          Q_EMIT comparisonShown();
          return;
        }
        const RunComparison& comparison = *outcome.comparison;
        const auto shown = m_shownTrace();
        const int tasksA = shown ? static_cast<int>(shown->trace().tasks().size()) : 0;
        m_swimlane->showComparison(outcome.traceB, widgets::RunsPanel::captionA(comparison, tasksA),
                                   widgets::RunsPanel::captionB(comparison, outcome.tasksB, outcome.traceB != nullptr,
                                                                m_swimlane->palette()));
        m_swimlane->setComparisonMatches(std::move(outcome.inBOfA), std::move(outcome.inAOfB));
        m_runs->setComparison(comparison);
        Q_EMIT swimlaneWanted();
        Q_EMIT statusMessage(tr("A: current run #%1 (%2 µs) above, B: run #%3 (%4 µs) below, on one time axis; "
                                "B − A %5 µs")
                                 .arg(comparison.idA)
                                 .arg(comparison.makespanUsA, 0, 'f', 3)
                                 .arg(comparison.idB)
                                 .arg(comparison.makespanUsB, 0, 'f', 3)
                                 .arg(comparison.deltaUs, 0, 'f', 3),
                             kResultMs);
        Q_EMIT comparisonShown();
      });
  return true;
}

void ComparisonController::closeComparison() {
  m_comparedRunId = 0;
  m_comparisonJobs.cancel();
  m_swimlane->closeComparison();
  m_runs->clearComparison();
  dropMeasuredComparison();
}

void ComparisonController::dropMeasuredComparison() {
  if (m_measuredFile.isEmpty()) return;
  m_measuredFile.clear();
  m_measuredJobs.cancel();
  m_measured->setMessage(tr("No measured trace compared (Run > Compare with a measured trace)."));
  Q_EMIT errorColoursWanted(false);
  // The run's swimlane without the error classes.
  if (m_lastRun().trace) Q_EMIT runTraceWanted(m_lastRun().trace);
}

bool ComparisonController::compareWithMeasured(const QString& file) {
  const ProjectRunOutcome& run = m_lastRun();
  if (!run.result || !run.trace || !m_folder) {
    Q_EMIT statusMessage(tr("Run the project first (Ctrl+R): a measured trace is compared with the current run."),
                         kMessageMs);
    return false;
  }
  // A recorded run beneath the current one gives way to the measured trace.
  if (m_comparedRunId != 0) {
    m_comparedRunId = 0;
    m_comparisonJobs.cancel();
    m_runs->clearComparison();
  }
  m_measuredFile = file;
  m_measured->setMessage(tr("Comparing %1 with the run…").arg(file));
  m_measuredJobs.start<MeasuredComparisonOutcome>(
      [path = file.toStdString(), result = run.result, runTrace = run.trace,
       name = run.projectName](const std::atomic<bool>&) { return compareRunWithMeasured(path, *result, runTrace, name); },
      [this](MeasuredComparisonOutcome outcome) {
        if (QString::fromStdString(outcome.file.string()) != m_measuredFile) return;  // closed or replaced meanwhile
        if (!outcome.ok) {
          m_measuredFile.clear();
          m_measured->setMessage(tr("Cannot compare: %1").arg(QString::fromStdString(outcome.error).trimmed()));
          Q_EMIT measuredDockWanted();
          Q_EMIT comparisonShown();
          return;
        }
        Q_EMIT runTraceWanted(outcome.traceA);
        const QString fileName = QString::fromStdString(outcome.file.filename().string());
        m_swimlane->showComparison(
            outcome.traceB,
            tr("A: the run, simulated (%1 µs); colours: each task's error against its measured twin")
                .arg(outcome.simulatedMakespanUs, 0, 'f', 3),
            tr("B: %1, measured on the chip (%2 µs), shifted to start with A")
                .arg(fileName)
                .arg(outcome.measuredMakespanUs, 0, 'f', 3));
        m_swimlane->setComparisonMatches(std::move(outcome.inBOfA), std::move(outcome.inAOfB));
        Q_EMIT errorColoursWanted(true);
        m_measured->setComparison(QString::fromStdString(outcome.summary), std::move(outcome.largest));
        Q_EMIT measuredDockWanted();
        Q_EMIT swimlaneWanted();
        Q_EMIT statusMessage(QString::fromStdString(outcome.summary), kResultMs);
        Q_EMIT comparisonShown();
      });
  return true;
}

} // namespace pto::studio
