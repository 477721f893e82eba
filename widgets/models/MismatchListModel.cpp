// Implementation of MismatchListModel.
#include "widgets/models/MismatchListModel.h"

namespace pto::widgets {
namespace {

QString durationText(double us) { return QString::number(us, 'f', 3) + QStringLiteral(" \u00B5s"); }

} // namespace

MismatchListModel::MismatchListModel(QObject* parent)
    : TitledTableModel({tr("Label"), tr("Error"), tr("Measured"), tr("Simulated"), tr("Lane (chip)")}, {}, parent) {}

void MismatchListModel::setRows(std::vector<MismatchRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

QVariant MismatchListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const MismatchRow& row = m_rows[static_cast<std::size_t>(index.row())];
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case LabelColumn: return QString::fromStdString(row.label.empty() ? std::string("(no label)") : row.label);
    case LaneColumn: return QString::fromStdString(row.lane);
    case MeasuredColumn: return durationText(row.measuredUs);
    case SimulatedColumn: return durationText(row.simulatedUs);
    case ErrorColumn: return QStringLiteral("%1%2 %").arg(row.error >= 0 ? QStringLiteral("+") : QString()).arg(100.0 * row.error, 0, 'f', 1);
    }
    return {};
  case Qt::TextAlignmentRole:
    return index.column() != LabelColumn && index.column() != LaneColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  case MeasuredTaskRole: return static_cast<qulonglong>(row.measuredTask);
  case SimulatedTaskRole: return static_cast<qulonglong>(row.simulatedTask);
  case ErrorRole: return row.error;
  }
  return {};
}

} // namespace pto::widgets
