// TaskDetailsPanel: everything about the selected task — name, ids, label,
// core, times (dispatch delay included), kernel line, inputs and outputs,
// a per-pipe busy breakdown, and its producers and consumers with the wait
// on each (double-click one to select it).
#pragma once

#include "widgets/models/TaskDependencyModel.h"
#include "widgets/models/TraceIndex.h"

#include <QWidget>

#include <memory>

class QLabel;
class QTableView;

namespace pto::widgets {

class PipeBreakdownView;

class TaskDetailsPanel : public QWidget {
  Q_OBJECT
public:
  explicit TaskDetailsPanel(QWidget* parent = nullptr);

  void setTrace(std::shared_ptr<const TraceIndex> index);
  void showTask(TaskIndex task);  // kNoTask: the empty state
  TaskIndex task() const { return m_task; }
  const TaskDependencyModel& dependencyModel() const { return *m_dependencies; }

Q_SIGNALS:
  // The user asked to go to another task (a producer or consumer).
  void taskActivated(pto::trace::TaskIndex task);

private:
  std::shared_ptr<const TraceIndex> m_index;
  TaskIndex m_task = trace::kNoTask;
  QLabel* m_summary = nullptr;
  PipeBreakdownView* m_pipes = nullptr;
  QTableView* m_table = nullptr;
  TaskDependencyModel* m_dependencies = nullptr;
};

} // namespace pto::widgets
