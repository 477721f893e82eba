// Implementation of MeasuredPanel.
#include "widgets/MeasuredPanel.h"

#include "widgets/RowTable.h"

#include <QLabel>
#include <QVBoxLayout>

namespace pto::widgets {

MeasuredPanel::MeasuredPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  m_caption = new QLabel(this);
  m_caption->setWordWrap(true);
  m_caption->setTextFormat(Qt::PlainText);
  m_model = new MismatchListModel(this);
  m_table = rowTable(m_model, this);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setToolTip(tr("The ten tasks whose measured duration is furthest from the simulated one; click one to "
                         "select it in both swimlanes"));
  layout->addWidget(m_caption);
  layout->addWidget(m_table, 1);
  auto activate = [this](const QModelIndex& index) {
    if (!index.isValid()) return;
    Q_EMIT taskActivated(static_cast<trace::TaskIndex>(index.data(MismatchListModel::MeasuredTaskRole).toULongLong()),
                         static_cast<trace::TaskIndex>(index.data(MismatchListModel::SimulatedTaskRole).toULongLong()));
  };
  connect(m_table, &QTableView::clicked, this, activate);
  connect(m_table, &QTableView::activated, this, activate);
  setMessage(tr("Run the project, then Run > Compare with a measured trace: PyPTO's merged_swimlane.json or "
                "tilefwk_L1_prof_data*.json beside the run, each task coloured by its error."));
}

void MeasuredPanel::setComparison(const QString& caption, std::vector<MismatchRow> rows) {
  m_caption->setText(caption);
  m_model->setRows(std::move(rows));
  m_table->resizeColumnsToContents();
  m_table->show();
}

void MeasuredPanel::setMessage(const QString& message) {
  m_caption->setText(message);
  m_model->clear();
  m_table->hide();
}

} // namespace pto::widgets
