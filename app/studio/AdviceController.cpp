// The Advice dock's jobs, applies and checks.
#include "app/studio/AdviceController.h"

#include "app/studio/AdviceJob.h"
#include "widgets/AdvicePanel.h"
#include "widgets/ProjectSettingsDocument.h"

#include <QFileInfo>
#include <QPointer>
#include <QSpinBox>
#include <QSettings>
#include <QThread>

#include <algorithm>
#include <chrono>
#include <memory>

#include <cstdio>

namespace pto::studio {
namespace {

QString firstLine(const std::string& problems, const QString& otherwise) {
  const QString first = QString::fromStdString(problems).section(QLatin1Char('\n'), 0, 0);
  return first.isEmpty() ? otherwise : first;
}

} // namespace

AdviceController::AdviceController(widgets::AdvicePanel* panel, widgets::ProjectSettingsDocument* settings, QObject* parent)
    : QObject(parent), m_panel(panel), m_settings(settings) {
  connect(m_panel, &widgets::AdvicePanel::adviseRequested, this, &AdviceController::advise);
  connect(m_panel, &widgets::AdvicePanel::tuneRequested, this, &AdviceController::tune);
  connect(m_panel, &widgets::AdvicePanel::cancelRequested, this, &AdviceController::cancel);
  connect(m_panel, &widgets::AdvicePanel::applySuggestionRequested, this, &AdviceController::applySuggestion);
  connect(m_panel, &widgets::AdvicePanel::applyTunePointRequested, this, &AdviceController::applyTunePoint);
  m_panel->setCluster(QSettings().value(QStringLiteral("tuner/cluster")).toString());
  // Any settings edit (an apply, an undo, a hand edit) changes the baseline
  // the advice was measured on.
  connect(m_settings, &widgets::ProjectSettingsDocument::settingsChanged, this, [this] {
    if (m_advice) m_panel->setAdviceStale(true);
  });
}

void AdviceController::setRequestProvider(std::function<std::optional<ProjectRunRequest>()> provider) {
  m_requestProvider = std::move(provider);
}

void AdviceController::setRunStarter(std::function<quint64()> starter) { m_runStarter = std::move(starter); }

void AdviceController::setKernelEditor(std::function<QString()> text,
                                       std::function<void(const QString&, const QString&)> replace) {
  m_kernelText = std::move(text);
  m_replaceKernel = std::move(replace);
}

void AdviceController::setProjectOpen(bool open) {
  m_jobs.cancel();
  m_advice.reset();
  m_tune.reset();
  m_tunedProject.reset();
  m_pending.reset();
  m_panel->setIdle();
  m_panel->setProjectOpen(open);
}

std::function<void(std::function<void(AdviceController&)>)> AdviceController::whileCurrent() {
  // Progress comes from worker threads; it is shown only while the job that
  // sent it is the current one.
  const quint64 generation = m_jobs.generation() + 1;  // the job about to start
  QPointer<AdviceController> self(this);
  return [self, generation](std::function<void(AdviceController&)> show) {
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, show = std::move(show)] {
          if (self && self->m_jobs.generation() == generation && self->m_jobs.busy()) show(*self);
        },
        Qt::QueuedConnection);
  };
}

void AdviceController::advise() {
  std::optional<ProjectRunRequest> request = m_requestProvider ? m_requestProvider() : std::nullopt;
  if (!request) {
    Q_EMIT statusMessage(tr("Open a project to advise on it."));
    return;
  }
  m_panel->showSuggestions();
  const QString name = QString::fromStdString(request->project.name);
  const QString what = tr("Advising on %1").arg(name);
  auto progress = [post = whileCurrent(), what](int started) {
    post([what, started](AdviceController& self) { self.m_panel->setBusy(what, started); });
  };
  m_jobs.start<AdviceOutcome>(
      [request = std::move(*request), progress](const std::atomic<bool>& cancelled) {
        return adviseForViews(request, cancelled, progress);
      },
      [this, name](AdviceOutcome outcome) {
        if (!outcome.advice) {
          const QString reason = firstLine(outcome.problems, tr("no reason given"));
          std::fprintf(stderr, "pto-studio: the advisor failed:\n%s", outcome.problems.c_str());
          m_panel->setAdviceFailed(reason);
          m_panel->setIdle();
          Q_EMIT adviceFinished(false);
          return;
        }
        m_advice = std::move(outcome.advice);
        m_panel->setAdvice(*m_advice, name);
        m_panel->setIdle();
        Q_EMIT statusMessage(tr("Advice for %1: %2 suggestion(s) in %3 s")
                                 .arg(name)
                                 .arg(m_advice->suggestions.size())
                                 .arg(outcome.hostMs / 1000.0, 0, 'f', 1));
        Q_EMIT adviceFinished(true);
      });
  m_panel->setBusy(tr("Advising on %1: tracing, then simulating each candidate change").arg(name));
}

void AdviceController::tune(TuneStrategy strategy, int budget) {
  std::optional<ProjectRunRequest> request = m_requestProvider ? m_requestProvider() : std::nullopt;
  if (!request) {
    Q_EMIT statusMessage(tr("Open a project to tune it."));
    return;
  }
  m_panel->showTuner();
  // The panel shows what runs, also when the sweep was asked for elsewhere (pto-studio --tune).
  m_panel->budget()->setValue(budget);
  TuneOptions options;
  options.strategy = strategy;
  options.budget = budget;
  // Leave a core to the GUI and the other jobs.
  options.threads = std::max(1, QThread::idealThreadCount() - 1);
  const QString cluster = m_panel->cluster();
  QSettings().setValue(QStringLiteral("tuner/cluster"), cluster);
  const QString name = QString::fromStdString(request->project.name);
  options.progress = tuneProgressFor(name, strategy);
  m_jobs.start<TuneOutcome>(
      [request = std::move(*request), options, cluster = cluster.toStdString()](const std::atomic<bool>& cancelled) {
        return tuneForViews(request, options, cancelled, cluster);
      },
      [this, name](TuneOutcome outcome) {
        if (!outcome.result) {
          std::fprintf(stderr, "pto-studio: the tuner failed:\n%s", outcome.problems.c_str());
          m_panel->setTuneFailed(firstLine(outcome.problems, tr("no reason given")));
          m_panel->setIdle();
          Q_EMIT tuneFinished(false);
          return;
        }
        m_tune = std::move(outcome.result);
        m_tunedProject = std::move(outcome.project);
        m_panel->setTuneResult(*m_tune);
        m_panel->showTuner();
        m_panel->setIdle();
        const QString where = QString::fromStdString(m_tune->where);
        Q_EMIT statusMessage((m_tune->cached > 0
                                 ? tr("Tuned %1: %2 points (%3 simulated, %4 from the result cache) in %5 s")
                                       .arg(name)
                                       .arg(m_tune->evaluated)
                                       .arg(m_tune->evaluated - m_tune->cached)
                                       .arg(m_tune->cached)
                                       .arg(m_tune->seconds, 0, 'f', 1)
                                 : tr("Tuned %1: %2 points simulated in %3 s")
                                       .arg(name)
                                       .arg(m_tune->evaluated)
                                       .arg(m_tune->seconds, 0, 'f', 1)) +
                             tr(" on %1").arg(where));
        Q_EMIT tuneFinished(true);
      });
  m_panel->setBusy(cluster.isEmpty() ? tr("Tuning %1: tracing").arg(name)
                                     : tr("Tuning %1: tracing, then connecting to the Dask cluster at %2").arg(name, cluster));
}

void AdviceController::setCluster(const QString& address) { m_panel->setCluster(address); }

std::function<void(const TuneProgress&)> AdviceController::tuneProgressFor(const QString& name, TuneStrategy strategy) {
  // Results arrive on the sweep's threads (one call at a time), up to
  // hundreds a second: each point is kept here as it comes, and the panel
  // hears of them at most every 100 ms (and of the last one always), with
  // every point so far, so that its table fills while the sweep runs.
  struct SoFar {
    std::chrono::steady_clock::time_point shown;
    TuneResult result;
  };
  auto soFar = std::make_shared<SoFar>();
  soFar->result.strategy = strategy;
  return [post = whileCurrent(), name, soFar](const TuneProgress& progress) {
    if (progress.point) {
      if (soFar->result.space.dimensions.empty() && progress.space) soFar->result.space = *progress.space;
      soFar->result.points.push_back(*progress.point);
    }
    const auto now = std::chrono::steady_clock::now();
    if (progress.done < progress.total && now - soFar->shown < std::chrono::milliseconds(100)) return;
    soFar->shown = now;
    auto shown = std::make_shared<TuneResult>(soFar->result);
    shown->where = progress.where;
    summarise(*shown);
    TuneProgress counts = progress;
    counts.point = nullptr;  // valid only during this call
    counts.space = nullptr;
    post([name, counts, shown = std::shared_ptr<const TuneResult>(std::move(shown))](AdviceController& self) {
      self.m_panel->setTuneProgress(name, counts);
      self.m_panel->setTunePointsSoFar(shown, counts.total);
    });
  };
}

void AdviceController::cancel() {
  if (!m_jobs.busy()) return;
  m_jobs.cancel();
  m_panel->setIdle(tr("Cancelled; nothing was applied."));
}

bool AdviceController::applyPatch(const nlohmann::json& patch, const QString& undoText) {
  QString error;
  if (!m_settings->applyPatch(patch, undoText, &error)) {
    m_panel->setIdle(tr("Cannot apply: %1").arg(error));
    std::fprintf(stderr, "pto-studio: cannot apply %s: %s\n", qPrintable(undoText), qPrintable(error));
    return false;
  }
  return true;
}

bool AdviceController::applyKernelEdit(const KernelEdit& edit, const QString& undoText) {
  if (!m_kernelText || !m_replaceKernel) return false;
  const std::optional<std::string> edited = pto::applyKernelEdit(m_kernelText().toStdString(), edit);
  if (!edited) {
    const QString where = QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(edit.file)).fileName()).arg(edit.line);
    m_panel->setIdle(tr("Cannot apply: %1 no longer says \u201C%2\u201D; advise again.")
                         .arg(where, QString::fromStdString(edit.before)));
    return false;
  }
  m_replaceKernel(QString::fromStdString(*edited), undoText);
  return true;
}

void AdviceController::startCheck(PendingCheck check) {
  m_lastPredictedUs = check.predictedUs;
  m_lastObtainedUs.reset();
  // Run now rather than after the auto-run pause (or with auto-run off): an
  // apply asks to see its effect.
  check.generation = m_runStarter ? m_runStarter() : 0;
  m_pending = check;
}

bool AdviceController::applySuggestion(int index) {
  if (!m_advice || index < 0 || static_cast<std::size_t>(index) >= m_advice->suggestions.size()) return false;
  const Suggestion& suggestion = m_advice->suggestions[static_cast<std::size_t>(index)];
  const QString undoText = tr("Apply advice: %1").arg(QString::fromStdString(suggestion.title));
  if (suggestion.kernelEdit ? !applyKernelEdit(*suggestion.kernelEdit, undoText) : !applyPatch(suggestion.patch, undoText))
    return false;
  m_panel->setSuggestionApplied(index);
  m_panel->setIdle(tr("Applied \u201C%1\u201D (Ctrl+Z in the %2 undoes it); running to check the prediction")
                       .arg(QString::fromStdString(suggestion.title),
                            suggestion.kernelEdit ? tr("editor") : tr("settings")));
  startCheck({PendingCheck::Kind::Suggestion, index, suggestion.predictedUs, 0});
  return true;
}

bool AdviceController::applyTunePoint(int point) {
  if (!m_tune || !m_tunedProject || point < 0 || static_cast<std::size_t>(point) >= m_tune->points.size()) return false;
  const TunePoint& chosen = m_tune->points[static_cast<std::size_t>(point)];
  if (chosen.status != "ok") return false;
  const nlohmann::json patch = tunePatch(*m_tunedProject, m_tune->space, chosen.choice);
  const QString text = point == m_tune->best ? tr("Apply the tuner's best point (%1)").arg(QString::number(chosen.makespanUs, 'f', 2) + QStringLiteral(" \u00B5s"))
                                             : tr("Apply tuner point %1 (%2)").arg(point).arg(QString::number(chosen.makespanUs, 'f', 2) + QStringLiteral(" \u00B5s"));
  if (!applyPatch(patch, text)) return false;
  m_panel->setTunePointApplied(point);
  m_panel->setIdle(tr("%1 (Ctrl+Z undoes it); running to check it").arg(text));
  startCheck({PendingCheck::Kind::TunePoint, point, chosen.makespanUs, 0});
  return true;
}

void AdviceController::noteRunFinished(quint64 generation, bool ok, double makespanUs) {
  if (!m_pending || m_pending->generation == 0) return;
  if (generation != m_pending->generation) {
    // A later run (another edit since): it does not measure the change.
    if (generation > m_pending->generation) m_pending.reset();
    return;
  }
  const PendingCheck check = *m_pending;
  m_pending.reset();
  const bool suggestion = check.kind == PendingCheck::Kind::Suggestion;
  if (!ok) {
    if (suggestion) m_panel->setSuggestionRunFailed(check.index);
    else m_panel->setTunePointRunFailed(check.index);
    m_panel->setIdle(tr("The run after the apply failed: see Problems."));
    return;
  }
  m_lastObtainedUs = makespanUs;
  if (suggestion) m_panel->setSuggestionObtained(check.index, makespanUs);
  else m_panel->setTunePointObtained(check.index, makespanUs);
  m_panel->setIdle(tr("Predicted %1 \u00B5s, obtained %2 \u00B5s").arg(check.predictedUs, 0, 'f', 2).arg(makespanUs, 0, 'f', 2));
  Q_EMIT applyChecked(check.predictedUs, makespanUs);
}

} // namespace pto::studio
