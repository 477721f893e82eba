// TitledTableModel: what the flat table models here share — no children, a
// fixed list of columns, each with its title (and, where it helps, a tooltip)
// in the horizontal header. A subclass says how many rows it has and fills
// data(); its `enum Columns` and the titles it passes are in the same order.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>

namespace pto::widgets {

class TitledTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  int rowCount(const QModelIndex& parent = {}) const final { return parent.isValid() ? 0 : tableRows(); }
  int columnCount(const QModelIndex& parent = {}) const final {
    return parent.isValid() ? 0 : static_cast<int>(m_titles.size());
  }
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

protected:
  // One title per column; tooltips likewise, fewer or empty where a column has none.
  TitledTableModel(QStringList titles, QStringList toolTips, QObject* parent);
  virtual int tableRows() const = 0;

private:
  QStringList m_titles;
  QStringList m_toolTips;
};

} // namespace pto::widgets
