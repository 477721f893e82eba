// The run at a glance.
#include "widgets/SummaryPanel.h"

#include "widgets/models/TimeFormat.h"

#include <QLabel>
#include <QTextDocument>
#include <QVBoxLayout>

namespace pto::widgets {

SummaryPanel::SummaryPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  m_label = new QLabel(this);
  m_label->setTextFormat(Qt::RichText);
  m_label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_label);
  layout->addStretch(1);
  setTrace(nullptr);
}

QString SummaryPanel::text() const {
  QTextDocument document;
  document.setHtml(m_label->text());
  return document.toPlainText();
}

void SummaryPanel::setTrace(std::shared_ptr<const TraceIndex> index) {
  if (!index) {
    m_label->setText(tr("<i>No trace loaded.</i>"));
    return;
  }
  double makespan = static_cast<double>(index->makespanNs());
  QString html = QStringLiteral("<div style='font-size:x-large'><b>%1</b></div><div>%2</div><br>")
                     .arg(QString::fromStdString(formatDurationNs(makespan)), tr("makespan"));
  html += QStringLiteral("<table cellspacing='0' cellpadding='2'><tr><th align='left'>%1</th><th align='right'>%2</th>"
                         "<th align='right'>%3</th><th align='right'>%4</th></tr>")
              .arg(tr("Cores"), tr("count"), tr("tasks"), tr("busy"));
  const std::pair<trace::LaneKind, QString> kinds[] = {{trace::LaneKind::Aic, QStringLiteral("AIC (cube)")},
                                                       {trace::LaneKind::Aiv, QStringLiteral("AIV (vector)")},
                                                       {trace::LaneKind::Aicpu, QStringLiteral("AICPU")},
                                                       {trace::LaneKind::Other, tr("other")}};
  std::size_t total = 0;
  for (const auto& [kind, name] : kinds) {
    const CoreKindSummary& summary = index->summary(kind);
    total += summary.tasks;
    if (summary.lanes == 0) continue;
    // Busy share: task time over (cores x makespan), the utilisation of the type.
    double busy = makespan > 0 ? 100.0 * static_cast<double>(summary.busyNs) / (summary.lanes * makespan) : 0;
    html += QStringLiteral("<tr><td>%1</td><td align='right'>%2</td><td align='right'>%3</td><td align='right'>%4%</td></tr>")
                .arg(name)
                .arg(summary.lanes)
                .arg(summary.tasks)
                .arg(busy, 0, 'f', 1);
  }
  html += QStringLiteral("</table><br>");
  html += tr("%1 tasks, %2 dependencies, critical path %3 tasks<br>")
              .arg(total)
              .arg(index->trace().edgeCount())
              .arg(index->criticalPath().size());
  html += tr("Trace in memory: %1 MB").arg(static_cast<double>(index->memoryBytes()) / 1e6, 0, 'f', 1);
  m_label->setText(html);
}

} // namespace pto::widgets
