// MeasuredPanel: a measured trace compared with the current run — a line
// saying what was compared and how far apart they are, and the ten largest
// mismatches (MismatchListModel), each of which selects its task in both
// swimlanes when clicked. The window does the comparison off the GUI thread
// (analysis/Calibration's compareWithMeasured) and hands the rows in.
#pragma once

#include "widgets/models/MismatchListModel.h"

#include <QWidget>

class QLabel;
class QTableView;

namespace pto::widgets {

class MeasuredPanel : public QWidget {
  Q_OBJECT
public:
  explicit MeasuredPanel(QWidget* parent = nullptr);

  void setComparison(const QString& caption, std::vector<MismatchRow> rows);
  // A message instead of a comparison (loading, a failure, nothing compared).
  void setMessage(const QString& message);

  MismatchListModel* model() const { return m_model; }
  QTableView* table() const { return m_table; }
  QLabel* caption() const { return m_caption; }

Q_SIGNALS:
  // A row was clicked: its task in the measured swimlane and in the run's.
  void taskActivated(trace::TaskIndex measuredTask, trace::TaskIndex simulatedTask);

private:
  QLabel* m_caption = nullptr;
  QTableView* m_table = nullptr;
  MismatchListModel* m_model = nullptr;
};

} // namespace pto::widgets
