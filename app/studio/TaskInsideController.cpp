// Implementation of TaskInsideController.
#include "app/studio/TaskInsideController.h"

#include "analysis/report/TaskInside.h"
#include "analysis/run/ProjectRun.h"
#include "widgets/TaskInsideView.h"

#include <sstream>

namespace pto::studio {

TaskInsideController::TaskInsideController(widgets::TaskInsideView* view, QObject* parent)
    : RunViewController(parent), m_view(view) {}

void TaskInsideController::runChanged() {
  std::shared_ptr<const ProjectRunResult> run = currentRun();
  int longest = -1;
  std::int64_t longestCycles = -1;
  if (run && run->simulation)
    for (const TaskRecord& record : run->simulation->schedule.tasks)
      if (record.endCycle - record.startCycle > longestCycles) {
        longestCycles = record.endCycle - record.startCycle;
        longest = record.task;
      }
  showTask(longest);
}

void TaskInsideController::showTask(int task) {
  auto showMessage = [view = m_view](const QString& message) { view->setMessage(message); };
  std::shared_ptr<const ProjectRunResult> run = currentRun();
  if (task < 0 || !run || !run->compiled || !run->simulation || !run->machine) {
    showNow(showMessage, !run || !run->compiled
                             ? tr("The inside of a task comes from a run's simulation: run the project (Ctrl+R). A "
                                  "swimlane file has no instructions.")
                             : tr("Select a task in the swimlane to see its instructions on each pipe."));
    return;
  }
  // The run is immutable and shared: the worker simulates it again while the window goes on.
  startJob<TaskInside>(
      [run, task](const std::atomic<bool>&) {
        Outcome<TaskInside> outcome;
        DiagnosticEngine diags;
        std::optional<TaskInside> inside =
            insideTask(run->compiled->compilation, *run->simulation, *run->machine, run->runtime, task, diags);
        if (inside) {
          outcome.result = std::make_shared<const TaskInside>(std::move(*inside));
        } else {
          std::ostringstream text;
          diags.print(text);
          outcome.message = tr("No view inside task %1: %2").arg(task).arg(QString::fromStdString(text.str()));
        }
        return outcome;
      },
      [view = m_view](std::shared_ptr<const TaskInside> inside) { view->setInside(std::move(inside)); }, showMessage);
}

} // namespace pto::studio
