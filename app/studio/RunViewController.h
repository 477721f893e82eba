// RunViewController: what the docks that draw one thing from the current run
// share (the Memory dock, the Inside task dock): where the run comes from, a
// JobRunner so their work never runs on the GUI thread, and a job that ends
// in a result for the view or in the reason there is none.
#pragma once

#include "app/studio/JobRunner.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace pto {
struct ProjectRunResult;
} // namespace pto

namespace pto::studio {

class RunViewController : public QObject {
  Q_OBJECT
public:
  // The finished run whose swimlane is on screen (null: none, a trace file,
  // or a run still going). Its task ids are the swimlane's.
  void setRunProvider(std::function<std::shared_ptr<const ProjectRunResult>()> provider) {
    m_run = std::move(provider);
  }

  bool busy() const { return m_jobs.busy(); }
  void cancel() { m_jobs.cancel(); }

Q_SIGNALS:
  // A result (or the reason there is none) is on the view.
  void shown();

protected:
  explicit RunViewController(QObject* parent) : QObject(parent), m_jobs(this) {}

  std::shared_ptr<const ProjectRunResult> currentRun() const { return m_run ? m_run() : nullptr; }

  // What a job hands back: a result, or (null) the message that says why not.
  template <typename T>
  struct Outcome {
    std::shared_ptr<const T> result;
    QString message;
  };

  // Shows `message` at once and drops any job still going.
  template <typename ShowMessage>
  void showNow(ShowMessage showMessage, const QString& message) {
    m_jobs.cancel();
    showMessage(message);
    Q_EMIT shown();
  }

  // Runs `work` (returning Outcome<T>) on the job runner, then shows its
  // result or its message on the GUI thread.
  template <typename T, typename ShowResult, typename ShowMessage>
  void startJob(std::function<Outcome<T>(const std::atomic<bool>&)> work, ShowResult showResult,
                ShowMessage showMessage) {
    m_jobs.start<Outcome<T>>(std::move(work), [this, showResult, showMessage](Outcome<T> outcome) {
      if (outcome.result) showResult(std::move(outcome.result));
      else showMessage(outcome.message);
      Q_EMIT shown();
    });
  }

private:
  std::function<std::shared_ptr<const ProjectRunResult>()> m_run;
  JobRunner m_jobs;
};

} // namespace pto::studio
