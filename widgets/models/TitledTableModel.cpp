// The header and counts of a flat table model.
#include "widgets/models/TitledTableModel.h"

namespace pto::widgets {

TitledTableModel::TitledTableModel(QStringList titles, QStringList toolTips, QObject* parent)
    : QAbstractTableModel(parent), m_titles(std::move(titles)), m_toolTips(std::move(toolTips)) {}

QVariant TitledTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= m_titles.size()) return {};
  if (role == Qt::DisplayRole) return m_titles[section];
  if (role == Qt::ToolTipRole && section < m_toolTips.size() && !m_toolTips[section].isEmpty()) return m_toolTips[section];
  return {};
}

} // namespace pto::widgets
