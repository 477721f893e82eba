// RunListModel: the Runs panel's table, one row per recorded run of the
// project (analysis/ledger/RunHistory.h), newest first: id, time, makespan, its
// change from the run before, tasks, and the settings that changed from the
// run before and that differ from the current run. A thin adapter (setHistory
// resets it); the panel's delegate colours rows from the roles.
#pragma once

#include "analysis/ledger/RunHistory.h"
#include "widgets/models/TitledTableModel.h"

namespace pto::widgets {

class RunListModel : public TitledTableModel {
  Q_OBJECT
public:
  enum Column { RunColumn, TimeColumn, MakespanColumn, DeltaColumn, TasksColumn, ChangedColumn, AgainstCurrentColumn, ColumnCount };
  enum Roles {
    RunIdRole = Qt::UserRole + 1,  // qint64
    MakespanUsRole,                // double
    CurrentRole,                   // bool: the run the swimlane shows
    DeltaUsRole,                   // double from the run before; invalid for the first run
    TraceKeptRole,                 // bool: its task table is kept (it can be shown as a swimlane)
  };

  explicit RunListModel(QObject* parent = nullptr);

  void setHistory(RunHistory history);
  const RunHistory& history() const { return m_history; }
  // The row of run `id`, -1 when not listed.
  int rowOf(std::int64_t id) const;
  std::int64_t idAt(int row) const;

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

  // "vec_nbuffer_setting.softmax 1 → 8": a difference in a few words (the
  // pointer's last two steps); `full` keeps the whole pointer.
  static QString differenceText(const SettingDifference& difference, bool full = false);
  // A list of differences in a few words: the first `shown`, then "+N more".
  static QString differencesText(const std::vector<SettingDifference>& differences, int shown = 2);
  // The recorded UTC time as local time ("14:03:27", or "3 Mar 14:03" when not today).
  static QString localTimeText(const std::string& timeUtc);

private:
  int tableRows() const override { return static_cast<int>(m_history.runs.size()); }

  RunHistory m_history;
};

} // namespace pto::widgets
