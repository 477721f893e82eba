// TaskInsideController: the Inside task dock's work. The task selected in the
// swimlane is simulated again with a step recorder from the current run's
// compilation (analysis/report/TaskInside.h, as `pto report --task N`) on a
// JobRunner, never on the GUI thread, and handed to widgets/TaskInsideView.
#pragma once

#include "app/studio/RunViewController.h"

namespace pto::widgets {
class TaskInsideView;
} // namespace pto::widgets

namespace pto::studio {

class TaskInsideController : public RunViewController {
  Q_OBJECT
public:
  explicit TaskInsideController(widgets::TaskInsideView* view, QObject* parent = nullptr);

  // The swimlane's selection (-1: none).
  void showTask(int task);
  // A run finished or the swimlane changed: the run's longest task is shown
  // until another is selected.
  void runChanged();

private:
  widgets::TaskInsideView* m_view;
};

} // namespace pto::studio
