// MismatchListModel: the tasks whose measured duration is furthest from the
// simulated one (analysis/Calibration's taskMismatches, largest first), as
// the table beside a run compared with a measured trace. One row per task:
// label, error, measured and simulated duration, the measured task's lane. The roles give the
// task's index in the measured swimlane and in the run's, so a view can
// select it. Plain rows in, nothing painted.
#pragma once

#include "runtime/trace/Trace.h"
#include "widgets/models/TitledTableModel.h"

#include <string>
#include <vector>

namespace pto::widgets {

struct MismatchRow {
  trace::TaskIndex measuredTask = trace::kNoTask;   // in the measured swimlane
  trace::TaskIndex simulatedTask = trace::kNoTask;  // in the run's swimlane (= its task id)
  std::string label;
  std::string lane;   // the measured task's lane
  double measuredUs = 0.0, simulatedUs = 0.0;
  double error = 0.0;  // measured / simulated - 1
};

class MismatchListModel : public TitledTableModel {
  Q_OBJECT
public:
  enum Columns { LabelColumn, ErrorColumn, MeasuredColumn, SimulatedColumn, LaneColumn, ColumnCount };
  enum Roles {
    MeasuredTaskRole = Qt::UserRole,  // TaskIndex in the measured swimlane
    SimulatedTaskRole,                // TaskIndex in the run's swimlane
    ErrorRole,                        // measured / simulated - 1, as a double
  };

  explicit MismatchListModel(QObject* parent = nullptr);

  void setRows(std::vector<MismatchRow> rows);
  void clear() { setRows({}); }
  const std::vector<MismatchRow>& rows() const { return m_rows; }

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;

private:
  int tableRows() const override { return static_cast<int>(m_rows.size()); }

  std::vector<MismatchRow> m_rows;
};

} // namespace pto::widgets
