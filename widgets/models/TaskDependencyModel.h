// TaskDependencyModel: the producers and consumers of one task as a table,
// with their times and the gap to the selected task (how long the consumer
// waited after the producer ended). Thin adapter over a TraceIndex; paints
// nothing. Rows: all producers (by end time), then all consumers (by start).
#pragma once

#include "widgets/models/TitledTableModel.h"
#include "widgets/models/TraceIndex.h"

#include <memory>
#include <vector>

namespace pto::widgets {

class TaskDependencyModel : public TitledTableModel {
  Q_OBJECT
public:
  enum Column { RelationColumn, TaskColumn, LabelColumn, LaneColumn, StartColumn, EndColumn, GapColumn, ColumnCount };
  enum Role { TaskIndexRole = Qt::UserRole + 1, SortRole };

  explicit TaskDependencyModel(QObject* parent = nullptr);

  // Shows the dependencies of `task` (kNoTask or a null index: empty).
  void setTask(std::shared_ptr<const TraceIndex> index, TaskIndex task);
  TaskIndex task() const { return m_task; }
  int producerCount() const { return m_producerCount; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
  int tableRows() const override { return static_cast<int>(m_rows.size()); }

  std::shared_ptr<const TraceIndex> m_index;
  TaskIndex m_task = trace::kNoTask;
  std::vector<TaskIndex> m_rows;
  int m_producerCount = 0;
};

} // namespace pto::widgets
