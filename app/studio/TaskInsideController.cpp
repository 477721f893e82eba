// Implementation of TaskInsideController.
#include "app/studio/TaskInsideController.h"

#include "analysis/report/TaskInside.h"
#include "analysis/run/ProjectRun.h"
#include "widgets/TaskInsideView.h"

#include <sstream>

namespace pto::studio {
namespace {

// A task's inside, or why there is none.
struct InsideResult {
  std::shared_ptr<const TaskInside> inside;
  QString message;
};

} // namespace

TaskInsideController::TaskInsideController(widgets::TaskInsideView* view, QObject* parent)
    : QObject(parent), m_view(view), m_jobs(this) {}

void TaskInsideController::setRunProvider(std::function<std::shared_ptr<const ProjectRunResult>()> provider) {
  m_run = std::move(provider);
}

void TaskInsideController::runChanged() {
  std::shared_ptr<const ProjectRunResult> run = m_run ? m_run() : nullptr;
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
  std::shared_ptr<const ProjectRunResult> run = m_run ? m_run() : nullptr;
  if (task < 0 || !run || !run->compiled || !run->simulation || !run->machine) {
    m_jobs.cancel();
    m_view->setMessage(!run || !run->compiled
                           ? tr("The inside of a task comes from a run's simulation: run the project (Ctrl+R). A "
                                "swimlane file has no instructions.")
                           : tr("Select a task in the swimlane to see its instructions on each pipe."));
    Q_EMIT taskShown();
    return;
  }
  // The run is immutable and shared: the worker simulates it again while the window goes on.
  m_jobs.start<InsideResult>(
      [run, task](const std::atomic<bool>&) {
        InsideResult result;
        DiagnosticEngine diags;
        std::optional<TaskInside> inside =
            insideTask(run->compiled->compilation, *run->simulation, *run->machine, run->runtime, task, diags);
        if (inside) {
          result.inside = std::make_shared<const TaskInside>(std::move(*inside));
        } else {
          std::ostringstream text;
          diags.print(text);
          result.message = tr("No view inside task %1: %2").arg(task).arg(QString::fromStdString(text.str()));
        }
        return result;
      },
      [this](InsideResult result) {
        if (result.inside) m_view->setInside(std::move(result.inside));
        else m_view->setMessage(result.message);
        Q_EMIT taskShown();
      });
}

} // namespace pto::studio
