// Implementation of rowTable.
#include "widgets/RowTable.h"

#include <QHeaderView>

namespace pto::widgets {

QTableView* rowTable(QAbstractItemModel* model, QWidget* parent) {
  auto* table = new QTableView(parent);
  table->setModel(model);
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->verticalHeader()->hide();
  table->horizontalHeader()->setStretchLastSection(true);
  return table;
}

} // namespace pto::widgets
