#include "widgets/ProblemsPanel.h"

#include "core/Diagnostics.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QStyle>

namespace pto::widgets {
namespace {

enum Role { FileRole = Qt::UserRole, LineRole, ColumnRole };

QString locationText(const SourceLocation& location) {
  if (location.file.empty()) return {};
  QString text = QFileInfo(QString::fromStdString(location.file)).fileName();
  if (location.line > 0) text += QStringLiteral(":%1").arg(location.line);
  if (location.column > 0) text += QStringLiteral(":%1").arg(location.column);
  return text;
}

QTreeWidgetItem* makeItem(const Diagnostic& diagnostic, const QStyle* style) {
  auto* item = new QTreeWidgetItem;
  QStyle::StandardPixmap icon = QStyle::SP_MessageBoxInformation;
  QString severity = QObject::tr("note");
  if (diagnostic.severity == Severity::Error) {
    icon = QStyle::SP_MessageBoxCritical;
    severity = QObject::tr("error");
  } else if (diagnostic.severity == Severity::Warning) {
    icon = QStyle::SP_MessageBoxWarning;
    severity = QObject::tr("warning");
  }
  item->setIcon(0, style->standardIcon(icon));
  item->setText(0, severity);
  item->setText(1, locationText(diagnostic.location));
  item->setToolTip(1, QString::fromStdString(diagnostic.location.file));
  // The first line in the row, the whole message in the tooltip.
  QString message = QString::fromStdString(diagnostic.message);
  item->setText(2, message.section('\n', 0, 0));
  item->setToolTip(2, message);
  item->setData(0, FileRole, QString::fromStdString(diagnostic.location.file));
  item->setData(0, LineRole, diagnostic.location.line);
  item->setData(0, ColumnRole, diagnostic.location.column);
  for (const Diagnostic& note : diagnostic.notes) item->addChild(makeItem(note, style));
  return item;
}

} // namespace

ProblemsPanel::ProblemsPanel(QWidget* parent) : QTreeWidget(parent) {
  setObjectName(QStringLiteral("ProblemsPanel"));
  setColumnCount(3);
  setHeaderLabels({tr("Severity"), tr("Where"), tr("Message")});
  setRootIsDecorated(true);
  setUniformRowHeights(true);
  setAlternatingRowColors(true);
  header()->setStretchLastSection(true);
  header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    QString file = item->data(0, FileRole).toString();
    if (!file.isEmpty()) Q_EMIT locationActivated(file, item->data(0, LineRole).toInt(), item->data(0, ColumnRole).toInt());
  });
}

void ProblemsPanel::setDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  clear();
  m_errors = 0;
  m_warnings = 0;
  for (const Diagnostic& diagnostic : diagnostics) {
    m_errors += diagnostic.severity == Severity::Error ? 1 : 0;
    m_warnings += diagnostic.severity == Severity::Warning ? 1 : 0;
    addTopLevelItem(makeItem(diagnostic, style()));
  }
  expandAll();
}

} // namespace pto::widgets
