// AdviceController: what the Advice dock does. Runs the advisor or the tuner
// (app/studio/AdviceJob) on a JobRunner — one job at a time, a new request
// supersedes the one in flight, Cancel drops it — applies a suggestion or a
// tuner point to the settings document (or, for a loop barrier, the kernel in
// the editor) as one undoable edit, starts the run
// that checks it, and when that run finishes shows predicted against
// obtained. The panel (widgets/AdvicePanel) only shows; the window provides
// the project snapshot and the run.
#pragma once

#include "analysis/advisor/Advisor.h"
#include "analysis/tuner/Tuner.h"
#include "app/studio/JobRunner.h"
#include "app/studio/ProjectRunJob.h"

#include <QObject>

#include <functional>
#include <optional>

namespace pto::widgets {
class AdvicePanel;
class ProjectSettingsDocument;
} // namespace pto::widgets

namespace pto::studio {

class AdviceController : public QObject {
  Q_OBJECT
public:
  AdviceController(widgets::AdvicePanel* panel, widgets::ProjectSettingsDocument* settings, QObject* parent = nullptr);

  // What to advise on: the project with its unsaved settings and kernel text
  // (nullopt: no project open).
  void setRequestProvider(std::function<std::optional<ProjectRunRequest>()> provider);
  // Starts a run of the project as it now stands and returns its generation
  // (0 when none started); the run's end comes back through noteRunFinished.
  void setRunStarter(std::function<quint64()> starter);
  // The kernel as the editor holds it, and how to replace it as one undo
  // step (with a status line): for suggestions that edit the kernel.
  void setKernelEditor(std::function<QString()> text, std::function<void(const QString&, const QString&)> replace);

  void advise();
  // On this machine, or on the Dask cluster whose scheduler the panel names.
  void tune(TuneStrategy strategy, int budget);
  // Where tune() simulates: empty for this machine, else a Dask scheduler's address.
  void setCluster(const QString& address);
  void cancel();
  bool busy() const { return m_jobs.busy(); }

  // Applies suggestion `index` of the advice shown / point `point` of the
  // sweep shown, as one undo step named after it, and reruns. False (and
  // nothing changed) when the change cannot be made; the panel says why.
  bool applySuggestion(int index);
  bool applyTunePoint(int point);

  // The window's run `generation` finished; its makespan when it succeeded.
  void noteRunFinished(quint64 generation, bool ok, double makespanUs);
  // A project opened (or none is open): the old project's advice goes.
  void setProjectOpen(bool open);

  const std::optional<Advice>& advice() const { return m_advice; }
  const std::optional<TuneResult>& tuneResult() const { return m_tune; }
  // The last apply's makespan as simulated before and as the rerun obtained
  // (nullopt until that run finished).
  std::optional<double> lastPredictedUs() const { return m_lastPredictedUs; }
  std::optional<double> lastObtainedUs() const { return m_lastObtainedUs; }

Q_SIGNALS:
  void adviceFinished(bool ok);
  void tuneFinished(bool ok);
  // The run after an apply finished: its prediction and what it obtained.
  void applyChecked(double predictedUs, double obtainedUs);
  void statusMessage(const QString& text);

private:
  // The change waiting for its run: which row, and what it predicted.
  struct PendingCheck {
    enum class Kind { Suggestion, TunePoint } kind = Kind::Suggestion;
    int index = -1;
    double predictedUs = 0.0;
    quint64 generation = 0;
  };
  bool applyPatch(const nlohmann::json& patch, const QString& undoText);
  bool applyKernelEdit(const KernelEdit& edit, const QString& undoText);
  void startCheck(PendingCheck check);
  // A poster for worker threads: runs what it is given on the GUI thread
  // while the job about to start is still the current one.
  std::function<void(std::function<void(AdviceController&)>)> whileCurrent();
  // The tuner's progress, for the panel: see tuneProgressFor in the .cpp.
  std::function<void(const TuneProgress&)> tuneProgressFor(const QString& name, TuneStrategy strategy);

  widgets::AdvicePanel* m_panel = nullptr;
  widgets::ProjectSettingsDocument* m_settings = nullptr;
  std::function<std::optional<ProjectRunRequest>()> m_requestProvider;
  std::function<quint64()> m_runStarter;
  std::function<QString()> m_kernelText;
  std::function<void(const QString&, const QString&)> m_replaceKernel;
  JobRunner m_jobs;
  std::optional<Advice> m_advice;
  std::optional<TuneResult> m_tune;
  std::optional<OperatorProject> m_tunedProject;  // what the sweep's patches are diffs of
  std::optional<PendingCheck> m_pending;
  std::optional<double> m_lastPredictedUs, m_lastObtainedUs;
};

} // namespace pto::studio
