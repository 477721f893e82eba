// The selected task's details.
#include "widgets/TaskDetailsPanel.h"

#include "widgets/QtText.h"
#include "widgets/RowTable.h"
#include "widgets/models/TimeFormat.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QTableView>
#include <QVBoxLayout>

#include <map>

namespace pto::widgets {
namespace {


} // namespace

// Per-pipe busy time inside the task, as horizontal bars against the task's
// duration, with each pipe's intervals drawn on a mini timeline.
class PipeBreakdownView : public QWidget {
public:
  explicit PipeBreakdownView(QWidget* parent) : QWidget(parent) {}

  void setTask(const TraceIndex* index, TaskIndex task) {
    m_rows.clear();
    if (index && task != trace::kNoTask) {
      const trace::Trace& trc = index->trace();
      m_task = trc.tasks()[task];
      std::map<std::string, std::vector<trace::PipeInterval>> byPipe;
      for (const trace::PipeInterval& interval : trc.pipes(task)) byPipe[std::string(trc.str(interval.pipe))].push_back(interval);
      for (auto& [pipe, intervals] : byPipe) m_rows.push_back({QString::fromStdString(pipe), std::move(intervals)});
    }
    setFixedHeight(m_rows.empty() ? 0 : static_cast<int>(m_rows.size()) * kRowPx + 6);
    setVisible(!m_rows.empty());
    update();
  }

protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    const int nameWidth = 62, busyWidth = 120;
    int barLeft = nameWidth, barWidth = std::max(40, width() - nameWidth - busyWidth - 6);
    double durNs = std::max<double>(1, static_cast<double>(m_task.durNs()));
    QColor track = palette().color(QPalette::AlternateBase);
    QColor bar = palette().color(QPalette::Highlight);
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
      int y = 3 + static_cast<int>(i) * kRowPx;
      painter.setPen(palette().color(QPalette::WindowText));
      painter.drawText(QRect(0, y, nameWidth - 6, kRowPx), Qt::AlignVCenter | Qt::AlignRight, m_rows[i].pipe);
      painter.fillRect(QRect(barLeft, y + 3, barWidth, kRowPx - 6), track);
      std::int64_t busyNs = 0;
      for (const trace::PipeInterval& interval : m_rows[i].intervals) {
        busyNs += interval.endNs - interval.startNs;
        double x0 = barLeft + barWidth * static_cast<double>(interval.startNs - m_task.startNs) / durNs;
        double x1 = barLeft + barWidth * static_cast<double>(interval.endNs - m_task.startNs) / durNs;
        painter.fillRect(QRectF(x0, y + 3, std::max(1.0, x1 - x0), kRowPx - 6), bar);
      }
      painter.setPen(palette().color(QPalette::WindowText));
      painter.drawText(QRect(barLeft + barWidth + 6, y, busyWidth, kRowPx), Qt::AlignVCenter | Qt::AlignLeft,
                       QStringLiteral("%1  %2%").arg(qtime(static_cast<double>(busyNs)))
                           .arg(100.0 * static_cast<double>(busyNs) / durNs, 0, 'f', 0));
    }
  }

private:
  static constexpr int kRowPx = 18;
  struct Row {
    QString pipe;
    std::vector<trace::PipeInterval> intervals;
  };
  trace::Task m_task;
  std::vector<Row> m_rows;
};

TaskDetailsPanel::TaskDetailsPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);
  m_summary = new QLabel(this);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->setWordWrap(true);
  m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  layout->addWidget(m_summary);
  auto* pipesTitle = new QLabel(tr("<b>Pipes</b> (busy time, share of the task)"), this);
  pipesTitle->setObjectName(QStringLiteral("pipesTitle"));
  layout->addWidget(pipesTitle);
  m_pipes = new PipeBreakdownView(this);
  layout->addWidget(m_pipes);
  layout->addWidget(new QLabel(tr("<b>Dependencies</b> (double-click to go there)"), this));
  m_dependencies = new TaskDependencyModel(this);
  m_table = rowTable(m_dependencies, this);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 4);
  m_table->setAlternatingRowColors(true);
  m_table->setWordWrap(false);
  layout->addWidget(m_table, 1);
  connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    Q_EMIT taskActivated(index.data(TaskDependencyModel::TaskIndexRole).value<quint32>());
  });
  connect(m_dependencies, &QAbstractItemModel::modelReset, this, [this] { m_table->resizeColumnsToContents(); });
  showTask(trace::kNoTask);
}

void TaskDetailsPanel::setTrace(std::shared_ptr<const TraceIndex> index) {
  m_index = std::move(index);
  showTask(trace::kNoTask);
}

void TaskDetailsPanel::showTask(TaskIndex task) {
  if (!m_index || task >= m_index->trace().tasks().size()) task = trace::kNoTask;
  m_task = task;
  m_dependencies->setTask(m_index, task);
  m_pipes->setTask(m_index.get(), task);
  findChild<QLabel*>(QStringLiteral("pipesTitle"))->setVisible(task != trace::kNoTask && m_pipes->isVisibleTo(this));
  if (task == trace::kNoTask) {
    m_summary->setText(m_index ? tr("<i>Click a task in the swimlane to see its details.</i>") : tr("<i>No trace loaded.</i>"));
    return;
  }
  const trace::Trace& trc = m_index->trace();
  const trace::Task& t = trc.tasks()[task];
  QString html = QStringLiteral("<b style='font-size:large'>%1</b><table cellspacing='0' cellpadding='1'>")
                     .arg(qtext(trc.str(t.name)).toHtmlEscaped());
  auto row = [&](const QString& key, const QString& value) {
    html += QStringLiteral("<tr><td style='padding-right:10px'><i>%1</i></td><td>%2</td></tr>").arg(key, value);
  };
  auto esc = [](std::string_view text) { return qtext(text).toHtmlEscaped(); };
  row(tr("Task"), QStringLiteral("id %1 &nbsp; seq %2 &nbsp; index #%3").arg(t.id).arg(t.seq).arg(task));
  if (t.label != trace::kEmptyString) row(tr("Label"), esc(trc.str(t.label)));
  row(tr("Subgraph"), t.subgraph >= 0 ? QString::number(t.subgraph) : tr("unknown"));
  row(tr("Core"), esc(trc.str(trc.lanes()[t.lane].name)));
  row(tr("Start → end"), QStringLiteral("%1 → %2").arg(qtime(static_cast<double>(t.startNs)), qtime(static_cast<double>(t.endNs))));
  row(tr("Duration"), QStringLiteral("<b>%1</b>").arg(qtime(static_cast<double>(t.durNs()))));
  if (t.dispatchNs != t.startNs) row(tr("Dispatch delay"), qtime(static_cast<double>(t.startNs - t.dispatchNs)));
  if (t.sourceLine > 0) row(tr("Kernel line"), QStringLiteral("%1:%2").arg(esc(trc.str(t.sourceFile))).arg(t.sourceLine));
  if (t.inputs != trace::kEmptyString) row(tr("Inputs"), QStringLiteral("<code>%1</code>").arg(esc(trc.str(t.inputs))));
  if (t.outputs != trace::kEmptyString) row(tr("Outputs"), QStringLiteral("<code>%1</code>").arg(esc(trc.str(t.outputs))));
  if (m_index->onCriticalPath(task)) row(tr("Critical path"), tr("on the critical path"));
  for (const trace::TaskArg& arg : trc.args(task)) row(esc(trc.str(arg.key)), esc(trc.str(arg.value)));
  html += QStringLiteral("</table>");
  m_summary->setText(html);
}

} // namespace pto::widgets
