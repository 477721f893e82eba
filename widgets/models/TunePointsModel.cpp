// Implementation of TunePointsModel.
#include "widgets/models/TunePointsModel.h"

#include <cmath>

namespace pto::widgets {
namespace {

QString microseconds(double us) { return QString::number(us, 'f', 2) + QStringLiteral(" \u00B5s"); }

} // namespace

TunePointsModel::TunePointsModel(QObject* parent)
    : TitledTableModel({tr("Makespan"), tr("vs start"), tr("Busy"), tr("Result"), tr("Settings")},
                       {tr("The simulated makespan with this point's settings"),
                        tr("Against the makespan of the settings the sweep started from"),
                        tr("Core time the tasks took (the cost side of the Pareto front)"),
                        tr("\"new\": simulated by this sweep; \"cached\": simulated before with the same kernel, "
                           "settings, machine and PTO Studio, and taken from the project's ledger"),
                        tr("The point's value of each dimension of the tuning space")},
                       parent) {}

void TunePointsModel::setResult(std::shared_ptr<const TuneResult> result, std::vector<int> rows) {
  beginResetModel();
  m_result = std::move(result);
  m_rows.clear();
  if (m_result)
    for (int point : rows)
      if (point >= 0 && static_cast<std::size_t>(point) < m_result->points.size() &&
          m_result->points[static_cast<std::size_t>(point)].status == "ok")
        m_rows.push_back(point);
  endResetModel();
}

void TunePointsModel::clear() { setResult(nullptr, {}); }

int TunePointsModel::pointAt(int row) const {
  return row >= 0 && static_cast<std::size_t>(row) < m_rows.size() ? m_rows[static_cast<std::size_t>(row)] : -1;
}

int TunePointsModel::rowOf(int point) const {
  for (std::size_t row = 0; row < m_rows.size(); ++row)
    if (m_rows[row] == point) return static_cast<int>(row);
  return -1;
}

QString TunePointsModel::settingsText(const TuneSpace& space, const std::vector<int>& choice) {
  QStringList parts;
  for (std::size_t d = 0; d < space.dimensions.size() && d < choice.size(); ++d) {
    const TuneDimension& dimension = space.dimensions[d];
    QString path = QString::fromStdString(dimension.path);
    for (const char* group : {"pass_options.", "runtime_options.", "tile_settings."})
      if (path.startsWith(QLatin1String(group))) path.remove(0, static_cast<int>(qstrlen(group)));
    const auto value = static_cast<std::size_t>(choice[d]);
    parts << QStringLiteral("%1 = %2").arg(path, value < dimension.values.size()
                                                     ? QString::fromStdString(dimension.values[value].dump())
                                                     : QStringLiteral("?"));
  }
  return parts.join(QStringLiteral(" \u00B7 "));
}

QVariant TunePointsModel::data(const QModelIndex& index, int role) const {
  if (!m_result || !index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const int pointIndex = m_rows[static_cast<std::size_t>(index.row())];
  const TunePoint& point = m_result->points[static_cast<std::size_t>(pointIndex)];
  const bool best = pointIndex == m_result->best;
  const double baseline = m_result->baselineUs;
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case MakespanColumn: return microseconds(point.makespanUs);
    case GainColumn:
      return baseline > 0 ? QStringLiteral("%1%2 %").arg(point.makespanUs <= baseline ? QStringLiteral("\u2212") : QStringLiteral("+"))
                                .arg(std::abs(100.0 * (point.makespanUs / baseline - 1.0)), 0, 'f', 1)
                          : QString();
    case BusyColumn: return microseconds(point.busyUs);
    case SourceColumn: return point.cached ? tr("cached") : tr("new");
    case SettingsColumn: return settingsText(m_result->space, point.choice);
    }
    return {};
  case Qt::ToolTipRole:
    return tr("Point %1%2: makespan %3, busy core time %4\n%5")
        .arg(pointIndex)
        .arg(best ? tr(" (the fastest)") : QString())
        .arg(microseconds(point.makespanUs), microseconds(point.busyUs), settingsText(m_result->space, point.choice));
  case Qt::TextAlignmentRole:
    return index.column() == SettingsColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  case PointIndexRole: return pointIndex;
  case MakespanUsRole: return point.makespanUs;
  case BusyUsRole: return point.busyUs;
  case IsBestRole: return best;
  }
  return {};
}

QVariant TunePointsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    if (role == Qt::DisplayRole && section >= 0 && section < rowCount()) return section + 1;
    return {};
  }
  return TitledTableModel::headerData(section, orientation, role);
}

} // namespace pto::widgets
