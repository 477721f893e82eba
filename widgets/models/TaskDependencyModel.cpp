// The producers and consumers of one task as a table.
#include "widgets/models/TaskDependencyModel.h"

#include "widgets/models/TimeFormat.h"

#include <algorithm>

namespace pto::widgets {

TaskDependencyModel::TaskDependencyModel(QObject* parent)
    : TitledTableModel({tr("Relation"), tr("Task id"), tr("Label"), tr("Core"), tr("Start"), tr("End"), tr("Wait")}, {}, parent) {}

void TaskDependencyModel::setTask(std::shared_ptr<const TraceIndex> index, TaskIndex task) {
  beginResetModel();
  m_index = std::move(index);
  m_task = task;
  m_rows.clear();
  m_producerCount = 0;
  if (m_index && task < m_index->trace().tasks().size()) {
    const auto& tasks = m_index->trace().tasks();
    auto preds = m_index->trace().predecessors(task);
    m_rows.assign(preds.begin(), preds.end());
    std::sort(m_rows.begin(), m_rows.end(), [&](TaskIndex a, TaskIndex b) {
      return tasks[a].endNs != tasks[b].endNs ? tasks[a].endNs > tasks[b].endNs : a < b;
    });
    m_producerCount = static_cast<int>(m_rows.size());
    auto succs = m_index->successors(task);
    std::size_t firstConsumer = m_rows.size();
    m_rows.insert(m_rows.end(), succs.begin(), succs.end());
    std::sort(m_rows.begin() + static_cast<std::ptrdiff_t>(firstConsumer), m_rows.end(), [&](TaskIndex a, TaskIndex b) {
      return tasks[a].startNs != tasks[b].startNs ? tasks[a].startNs < tasks[b].startNs : a < b;
    });
  } else {
    m_task = trace::kNoTask;
  }
  endResetModel();
}

QVariant TaskDependencyModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const trace::Trace& tr = m_index->trace();
  TaskIndex other = m_rows[static_cast<std::size_t>(index.row())];
  const trace::Task& task = tr.tasks()[other];
  const trace::Task& selected = tr.tasks()[m_task];
  bool producer = index.row() < m_producerCount;
  // Producer rows: how long the selected task started after this producer
  // ended; consumer rows: how long this consumer started after the selected
  // task ended.
  std::int64_t gapNs = producer ? selected.startNs - task.endNs : task.startNs - selected.endNs;
  if (role == TaskIndexRole) return QVariant::fromValue<quint32>(other);
  if (role == Qt::TextAlignmentRole) {
    if (index.column() >= StartColumn) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (role == SortRole) {
    switch (index.column()) {
    case TaskColumn: return QVariant::fromValue<qlonglong>(task.id);
    case StartColumn: return QVariant::fromValue<qlonglong>(task.startNs);
    case EndColumn: return QVariant::fromValue<qlonglong>(task.endNs);
    case GapColumn: return QVariant::fromValue<qlonglong>(gapNs);
    default: break;
    }
    role = Qt::DisplayRole;
  }
  if (role == Qt::ToolTipRole) return QString::fromUtf8(tr.str(task.name).data(), static_cast<int>(tr.str(task.name).size()));
  if (role != Qt::DisplayRole) return {};
  auto text = [](std::string_view view) { return QString::fromUtf8(view.data(), static_cast<int>(view.size())); };
  switch (index.column()) {
  case RelationColumn: return producer ? QObject::tr("producer") : QObject::tr("consumer");
  case TaskColumn: return QString::number(task.id);
  case LabelColumn: return text(tr.str(task.label));
  case LaneColumn: return text(tr.str(tr.lanes()[task.lane].name));
  case StartColumn: return QString::fromStdString(formatDurationNs(static_cast<double>(task.startNs)));
  case EndColumn: return QString::fromStdString(formatDurationNs(static_cast<double>(task.endNs)));
  case GapColumn: return QString::fromStdString(formatDurationNs(static_cast<double>(gapNs)));
  default: return {};
  }
}

} // namespace pto::widgets
