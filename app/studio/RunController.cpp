// The IDE's Run: start, supersede, cancel, auto-run, and where its results go.
#include "app/studio/RunController.h"

#include "widgets/HealthPanel.h"
#include "widgets/ProblemsPanel.h"
#include "widgets/SourceEditor.h"
#include "widgets/SummaryPanel.h"
#include "widgets/TuningPanel.h"
#include "widgets/models/EditorDiagnostics.h"

#include <QAction>
#include <QPointer>
#include <QSettings>

#include <cstdio>

namespace pto::studio {
namespace {

// Auto-run pauses: a settings edit is one deliberate change; typing in the
// kernel is many, and a half-typed line should not start a run.
constexpr int kSettingsEditDelayMs = 250;
constexpr int kSourceEditDelayMs = 900;

} // namespace

RunController::RunController(const Views& views, QObject* parent) : QObject(parent), m_views(views) {
  m_autoRunTimer.setSingleShot(true);
  connect(&m_autoRunTimer, &QTimer::timeout, this, &RunController::run);
  connect(&m_jobs, &JobRunner::busyChanged, this, &RunController::busyChanged);
  connect(&m_jobs, &JobRunner::busyChanged, this, [this](bool busy) {
    if (!busy) Q_EMIT stageChanged(QString());
  });
  m_autoRunAction = new QAction(tr("&Auto-run on edits"), this);
  m_autoRunAction->setCheckable(true);
  m_autoRunAction->setToolTip(tr("Rerun shortly after each settings or kernel edit"));
  m_autoRunAction->setChecked(QSettings().value(QStringLiteral("run/auto"), true).toBool());
  connect(m_autoRunAction, &QAction::toggled, this, [](bool on) { QSettings().setValue(QStringLiteral("run/auto"), on); });
}

void RunController::setProjectProvider(std::function<std::optional<ProjectRunRequest>()> request,
                                       std::function<const OperatorProject*()> project) {
  m_request = std::move(request);
  m_project = std::move(project);
}

void RunController::run() { start(true); }
void RunController::runUnrecorded() { start(false); }

bool RunController::recordRunInFlight() {
  if (!m_jobs.busy() || !m_recordInFlight) return false;
  m_recordInFlight->store(true);
  return true;
}

void RunController::start(bool recorded) {
  m_autoRunTimer.stop();
  std::optional<ProjectRunRequest> request = m_request ? m_request() : std::nullopt;
  if (!request) return;
  m_recordInFlight = std::make_shared<std::atomic<bool>>(recorded);
  request->recordInLedger = m_recordInFlight;
  request->passStages = m_passStages;
  if (recorded) request->recordBefore = m_openingRun;
  const QString name = QString::fromStdString(request->project.name);
  // Progress comes from the worker thread; it is shown only while the run
  // that sent it is the current one.
  quint64 generation = m_jobs.generation() + 1;
  QPointer<RunController> self(this);
  auto current = [self, generation] { return self && self->m_jobs.generation() == generation && self->m_jobs.busy(); };
  ProjectRunProgress progress;
  progress.onStage = [self, current, name](std::string_view stage) {
    QString stageName = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
    QMetaObject::invokeMethod(
        self.data(),
        [self, current, name, stageName] {
          if (!current()) return;
          if (!self->m_swimlaneShown) Q_EMIT self->statusMessage(tr("Running %1: %2… (Esc cancels)").arg(name, stageName), 0);
          Q_EMIT self->stageChanged(stageName);
        },
        Qt::QueuedConnection);
  };
  progress.onSwimlane = [self, current](ProjectRunOutcome early) {
    QMetaObject::invokeMethod(
        self.data(),
        [self, current, early = std::move(early)] {
          if (current()) self->showSwimlane(early);
        },
        Qt::QueuedConnection);
  };
  m_swimlaneShown = false;
  Q_EMIT statusMessage(tr("Running %1… (Esc cancels)").arg(name), 0);
  m_jobs.start<ProjectRunOutcome>(
      [request = std::move(*request), progress](const std::atomic<bool>& cancelled) {
        return runProjectForViews(request, cancelled, progress);
      },
      [this](ProjectRunOutcome outcome) { onFinished(std::move(outcome)); });
}

void RunController::cancel() {
  if (!m_jobs.busy()) return;
  m_jobs.cancel();
  Q_EMIT statusMessage(tr("Run cancelled."), 5000);
}

void RunController::stop() {
  m_autoRunTimer.stop();
  m_jobs.cancel();
}

void RunController::forgetPreviousRuns() {
  m_lastRun = {};
  m_openingRun.reset();
  m_passStages->clear();  // another project's stages would only take memory
  m_previousRun.reset();
  m_previousMakespanUs = 0.0;  // a delta against another project would mislead
}

void RunController::settingsEdited() { schedule(kSettingsEditDelayMs); }
void RunController::kernelEdited() { schedule(kSourceEditDelayMs); }

void RunController::schedule(int delayMs) {
  if (!m_project || !m_project() || !m_autoRunAction->isChecked()) return;
  // A newer edit restarts the pause; a run in flight is superseded when the
  // timer fires, not now, so a quick typist does not cancel every run.
  m_autoRunTimer.start(delayMs);
}

void RunController::showSwimlane(const ProjectRunOutcome& run) {
  if (m_swimlaneShown) return;
  m_swimlaneShown = true;
  m_delta.clear();
  if (m_previousMakespanUs > 0.0) {
    double change = run.makespanUs - m_previousMakespanUs;
    m_delta = tr(" (%1%2 µs, %3%4% against the previous run)")
                  .arg(change >= 0 ? "+" : "")
                  .arg(change, 0, 'f', 3)
                  .arg(change >= 0 ? "+" : "")
                  .arg(100.0 * change / m_previousMakespanUs, 0, 'f', 1);
  }
  m_previousMakespanUs = run.makespanUs;
  Q_EMIT swimlaneReady(run.trace);
  Q_EMIT statusMessage(tr("%1 on %2: makespan %3 µs%4; checking precision…")
                           .arg(QString::fromStdString(run.projectName), QString::fromStdString(run.machine))
                           .arg(run.makespanUs, 0, 'f', 3)
                           .arg(m_delta),
                       0);
}

void RunController::onFinished(ProjectRunOutcome outcome) {
  m_lastRun = std::move(outcome);
  const ProjectRunOutcome& run = m_lastRun;
  if (run.unrecorded) m_openingRun = run.unrecorded;
  else if (run.recorded) m_openingRun.reset();  // recorded before it, or repeated by it
  m_views.problems->setDiagnostics(run.diagnostics);
  m_views.editor->setDiagnostics(widgets::editorDiagnostics(run.diagnostics, m_views.editor->filePath().toStdString()));
  const OperatorProject* project = m_project ? m_project() : nullptr;
  if (project && run.graph) m_views.tuning->setProject(*project, run.graph);
  if (m_views.problems->errorCount() + m_views.problems->warningCount() > 0) Q_EMIT problemsWanted(false);
  if (!run.trace) {
    // The last good swimlane stays: while typing, a half-written kernel
    // should not blank the view. The problems say what went wrong.
    QString first = QString::fromStdString(run.problems).section('\n', 0, 0);
    Q_EMIT statusMessage(tr("The run failed: %1").arg(first.isEmpty() ? tr("see Problems") : first), 0);
    std::fprintf(stderr, "pto-studio: the run failed:\n%s", run.problems.c_str());
    Q_EMIT problemsWanted(true);
    // (A cancelled run never gets here: JobRunner drops its result.)
    m_views.summary->setRunFailed(tr("The run failed: %1").arg(first));
    Q_EMIT finished(false);
    return;
  }
  showSwimlane(run);  // when the early swimlane did not arrive first
  if (run.result) {
    RunSummary summary = m_previousRun ? summarizeRun(*run.result, run.projectName, *m_previousRun)
                                       : summarizeRun(*run.result, run.projectName);
    if (run.health) addHealth(summary, *run.health);
    m_views.summary->setRun(summary, run.trace);
    m_previousRun = summary;
  }
  if (run.health) m_views.health->setReport(*run.health);
  if (run.lineCost) m_views.editor->setLineCosts(run.lineCost);
  Q_EMIT statusMessage(tr("%1 on %2: makespan %3 µs%4; precision %5; ran in %6 ms (%7)")
                           .arg(QString::fromStdString(run.projectName), QString::fromStdString(run.machine))
                           .arg(run.makespanUs, 0, 'f', 3)
                           .arg(m_delta)
                           .arg(!run.precisionChecked ? tr("not checked")
                                : run.pass             ? tr("pass")
                                                       : tr("FAIL (%1 outputs)").arg(run.failedOutputs))
                           .arg(run.hostMs, 0, 'f', 0)
                           .arg(QString::fromStdString(run.passesRan)) +
                           (m_recordInFlight && m_recordInFlight->load() ? QString()
                            : run.ledgerRunId != 0 ? tr(" (not recorded again: the same as run #%1)").arg(run.ledgerRunId)
                                                   : tr(" (not recorded: Ctrl+R runs and records)")),
                       0);
  Q_EMIT finished(true);
}

} // namespace pto::studio
