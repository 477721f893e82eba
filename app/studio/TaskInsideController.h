// TaskInsideController: the Inside task dock's work. The task selected in the
// swimlane is simulated again with a step recorder from the current run's
// compilation (analysis/report/TaskInside.h, as `pto report --task N`) on a
// JobRunner, never on the GUI thread, and handed to widgets/TaskInsideView.
#pragma once

#include "app/studio/JobRunner.h"

#include <QObject>

#include <functional>
#include <memory>

namespace pto {
struct ProjectRunResult;
} // namespace pto

namespace pto::widgets {
class TaskInsideView;
} // namespace pto::widgets

namespace pto::studio {

class TaskInsideController : public QObject {
  Q_OBJECT
public:
  explicit TaskInsideController(widgets::TaskInsideView* view, QObject* parent = nullptr);

  // The finished run whose swimlane is on screen (null: none, a trace file,
  // or a run still going). Its task ids are the swimlane's.
  void setRunProvider(std::function<std::shared_ptr<const ProjectRunResult>()> provider);

  // The swimlane's selection (-1: none).
  void showTask(int task);
  // A run finished or the swimlane changed: the run's longest task is shown
  // until another is selected.
  void runChanged();

  bool busy() const { return m_jobs.busy(); }
  void cancel() { m_jobs.cancel(); }

Q_SIGNALS:
  // A task (or the reason there is none) is on the view.
  void taskShown();

private:
  widgets::TaskInsideView* m_view;
  std::function<std::shared_ptr<const ProjectRunResult>()> m_run;
  JobRunner m_jobs;
};

} // namespace pto::studio
