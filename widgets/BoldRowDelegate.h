// BoldRowDelegate: a table's item delegate that sets a row's text in bold
// where the model's `boldRole` holds true (the tuner's fastest point, the
// current run). Models stay QtCore-only: they say which row, this says how.
#pragma once

#include <QStyledItemDelegate>

namespace pto::widgets {

class BoldRowDelegate : public QStyledItemDelegate {
public:
  BoldRowDelegate(int boldRole, QObject* parent) : QStyledItemDelegate(parent), m_boldRole(boldRole) {}

protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    if (index.data(m_boldRole).toBool()) option->font.setBold(true);
  }

private:
  int m_boldRole;
};

} // namespace pto::widgets
