// Implementation of MismatchListModel.
#include "widgets/models/MismatchListModel.h"

namespace pto::widgets {
namespace {

QString durationText(double us) { return QString::number(us, 'f', 3) + QStringLiteral(" \u00B5s"); }

} // namespace

MismatchListModel::MismatchListModel(QObject* parent) : QAbstractTableModel(parent) {}

void MismatchListModel::setRows(std::vector<MismatchRow> rows) {
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

int MismatchListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MismatchListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

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

QVariant MismatchListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case LabelColumn: return tr("Label");
  case LaneColumn: return tr("Lane (chip)");
  case MeasuredColumn: return tr("Measured");
  case SimulatedColumn: return tr("Simulated");
  case ErrorColumn: return tr("Error");
  }
  return {};
}

} // namespace pto::widgets
