// rowTable: the read-only list tables of the docks (the measured mismatches,
// a task's dependencies) set up alike: a row is selected whole, rows carry
// no numbers, the last column takes the spare width.
#pragma once

#include <QTableView>

namespace pto::widgets {

QTableView* rowTable(QAbstractItemModel* model, QWidget* parent);

} // namespace pto::widgets
