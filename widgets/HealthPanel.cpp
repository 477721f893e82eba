// The run's health report as a linked tree.
#include "widgets/HealthPanel.h"

#include "analysis/pypto/PyptoArtifacts.h"

#include "widgets/RooflinePlot.h"
#include "widgets/models/TimeFormat.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

namespace pto::widgets {
namespace {

// What a row links to (Qt::UserRole): nothing, a task or a kernel line.
enum LinkKind { kNoLink = 0, kTaskLink = 1, kLineLink = 2 };
// A subgraph group's row also names its first subgraph, whose roofline point it rings.
constexpr int kLinkKindRole = Qt::UserRole;
constexpr int kLinkTaskRole = Qt::UserRole + 1;
constexpr int kLinkFileRole = Qt::UserRole + 2;
constexpr int kLinkLineRole = Qt::UserRole + 3;
constexpr int kSubgraphRole = Qt::UserRole + 4;

QString roundPercent(double share) { return QString::number(100.0 * share, 'f', 0) + QStringLiteral(" %"); }

// "kernel.py:54" -> ("kernel.py", 54); line 0 when there is none.
std::pair<QString, int> fileAndLine(const std::string& source) {
  const auto colon = source.rfind(':');
  if (colon == std::string::npos) return {QString::fromStdString(source), 0};
  return {QString::fromStdString(source.substr(0, colon)), std::atoi(source.c_str() + colon + 1)};
}

} // namespace

HealthPanel::HealthPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  m_headline = new QLabel(this);
  m_headline->setWordWrap(true);
  m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_headline);
  m_tree = new QTreeWidget(this);
  m_tree->setColumnCount(2);
  m_tree->setHeaderLabels({tr("Figure"), tr("Value")});
  m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  m_tree->setUniformRowHeights(true);
  m_tree->setWordWrap(false);
  auto* splitter = new QSplitter(Qt::Vertical, this);
  // Collapsible, so that the dock it shares a column with can still take the room a view asks for.
  splitter->addWidget(m_tree);
  m_roofline = new RooflinePlot(splitter);
  splitter->addWidget(m_roofline);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 2);
  layout->addWidget(splitter, 1);
  connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) { activate(item); });
  connect(m_roofline, &RooflinePlot::subgraphActivated, this, &HealthPanel::onRooflinePointActivated);
  clear();
}

void HealthPanel::clear() {
  m_report.reset();
  m_groupRowOf.clear();
  m_tree->clear();
  m_roofline->clear();
  m_headline->setText(tr("No run yet: the health report appears after a run."));
}

QTreeWidgetItem* HealthPanel::addRow(QTreeWidgetItem* parent, const QString& figure, const QString& value,
                                     const QString& tooltip) {
  auto* item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_tree);
  item->setText(0, figure);
  item->setText(1, value);
  if (!tooltip.isEmpty()) {
    item->setToolTip(0, tooltip);
    item->setToolTip(1, tooltip);
  }
  return item;
}

void HealthPanel::setPyptoReport(const PyptoHealthReport& report) {
  m_report.reset();
  m_groupRowOf.clear();
  m_tree->clear();
  m_roofline->clear();
  QStringList headline;
  for (const std::string& figure : report.headline) headline << QString::fromStdString(figure);
  m_headline->setText(tr("<b>PyPTO %1 health report</b> &mdash; %2%3")
                          .arg(QString::fromStdString(std::string(name(report.kind))),
                               QString::fromStdString(report.file.filename().string()).toHtmlEscaped(),
                               headline.isEmpty() ? QString() : QStringLiteral("<br>") + headline.join(QStringLiteral("; "))));
  // Sections as the file has them; top-level figures first (the reader puts them there).
  std::map<std::string, QTreeWidgetItem*> sections;
  for (const PyptoHealthRow& row : report.rows) {
    QTreeWidgetItem* parent = nullptr;
    if (!row.section.empty()) {
      auto [found, added] = sections.try_emplace(row.section, nullptr);
      if (added) found->second = addRow(nullptr, QString::fromStdString(row.section), QString());
      parent = found->second;
    }
    addRow(parent, QString::fromStdString(row.key.empty() ? row.section : row.key), QString::fromStdString(row.value));
  }
  m_tree->expandAll();
  m_roofline->hide();  // PyPTO's reports hold no roofline; a run's report shows it again
}

void HealthPanel::setReport(const HealthReport& report) {
  m_report = report;
  m_groupRowOf.clear();
  m_tree->clear();
  m_roofline->show();
  m_roofline->setRoofline(report.roofline);
  const double ghz = report.clockGHz > 0 ? report.clockGHz : 1.0;
  auto time = [&](double cycles) { return QString::fromStdString(formatDurationNs(cycles / ghz)); };
  auto linkTask = [](QTreeWidgetItem* item, TaskId task) {
    item->setData(0, kLinkKindRole, kTaskLink);
    item->setData(0, kLinkTaskRole, task);
  };
  auto linkLine = [](QTreeWidgetItem* item, const std::string& source) {
    const auto [file, line] = fileAndLine(source);
    if (line <= 0) return;
    item->setData(0, kLinkKindRole, kLineLink);
    item->setData(0, kLinkFileRole, file);
    item->setData(0, kLinkLineRole, line);
  };

  m_headline->setText(tr("<b>%1-bound</b> &mdash; %2")
                          .arg(QString::fromStdString(report.bound.kind),
                               QString::fromStdString(report.bound.evidence).toHtmlEscaped()));

  // The critical path: its running by class, its waits by cause, its tasks linked.
  const CriticalPathHealth& path = report.criticalPath;
  auto share = [&](std::int64_t cycles) {
    return tr("%1 (%2)").arg(time(static_cast<double>(cycles)),
                             roundPercent(path.lengthCycles > 0 ? static_cast<double>(cycles) / path.lengthCycles : 0.0));
  };
  QTreeWidgetItem* pathItem =
      addRow(nullptr, tr("Critical path"),
             tr("%1 tasks: running %2, waiting %3 of %4")
                 .arg(path.tasks.size())
                 .arg(time(static_cast<double>(path.busyCycles)), time(static_cast<double>(path.waitCycles)),
                      time(static_cast<double>(path.lengthCycles))),
             tr("Walked back from the last task to end, each time through what its start waited for last: the "
                "producer that made it ready, or the task that held the core it got. Every cycle of the makespan "
                "counts once: as a path task running or as a wait with its cause."));
  QTreeWidgetItem* running = addRow(pathItem, tr("Running"), share(path.busyCycles), tr("By the tasks' bound class."));
  for (const auto& [kind, cycles] : path.runningCyclesByClass)
    addRow(running, QString::fromStdString(kind), share(cycles));
  const std::map<std::string, QString> causeTips = {
      {"core", tr("Ready, but no core of its type free for it (all busy, or the free ones due to older ready tasks): "
                  "the tasks outnumber the cores; fewer or evener waves help.")},
      {"scheduling", tr("Ready with a core free for it while the dispatcher was busy, a finished core's completion, "
                        "a dispatch landing: fewer, larger tasks help.")},
      {"data", tr("A producer's end until the scheduler resolved its completion and its consumers became ready.")},
      {"submission", tr("Waiting for its device task to arrive from the host (or behind a loop barrier).")}};
  QTreeWidgetItem* waiting = addRow(pathItem, tr("Waiting"), share(path.waitCycles), tr("By cause."));
  for (const auto& [cause, cycles] : path.waitCyclesByCause) {
    auto tip = causeTips.find(cause);
    addRow(waiting, QString::fromStdString(cause), share(cycles), tip != causeTips.end() ? tip->second : QString());
  }
  running->setExpanded(true);
  waiting->setExpanded(true);
  QTreeWidgetItem* pathTasks = addRow(pathItem, tr("Tasks"), tr("%1, first to last (activate to select)").arg(path.tasks.size()));
  for (const CriticalPathStep& step : path.steps) {
    const Bound& bound = report.taskBounds.at(static_cast<std::size_t>(step.task));
    QString waits;
    for (const auto& [cause, cycles] : step.waitCycles)
      waits += (waits.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(cause) + QLatin1Char(' ') +
               time(static_cast<double>(cycles));
    const QString after = step.after == kNoId ? QString() : tr(" (task %1)").arg(step.after);
    linkTask(addRow(pathTasks, tr("task %1").arg(step.task),
                    tr("%1, running %2; waited for %3%4%5")
                        .arg(QString::fromStdString(bound.kind), time(static_cast<double>(step.runningCycles)),
                             QString::fromStdString(step.waitedFor), after,
                             waits.isEmpty() ? QString() : QStringLiteral(": ") + waits),
                    QString::fromStdString(bound.evidence)),
             step.task);
  }
  pathTasks->setExpanded(path.steps.size() <= 8);  // a short path's causes are worth reading at once
  pathItem->setExpanded(true);

  // Core types.
  QTreeWidgetItem* cores = addRow(nullptr, tr("Cores"), QString());
  for (const CoreTypeHealth& type : report.coreTypes) {
    if (type.tasks == 0) continue;
    QTreeWidgetItem* row =
        addRow(cores, QString::fromStdString(type.coreType),
               tr("%1 tasks on %2 cores: busy %3, idle while tasks were ready %4, idle while none were %5")
                   .arg(type.tasks)
                   .arg(type.cores)
                   .arg(roundPercent(type.utilization), roundPercent(type.idleWhileReady), roundPercent(type.idleWhileNoneReady)),
               tr("Idle while tasks were ready: the scheduler was behind (fewer, larger tasks help). Idle while "
                  "none were: the cores waited for data."));
    addRow(row, tr("Ready to start"),
           tr("%1 mean, %2 max").arg(time(type.meanDispatchLatency), time(static_cast<double>(type.maxDispatchLatency))));
    addRow(row, tr("Scheduler round"), time(static_cast<double>(type.schedulerRoundCycles)),
           tr("Tasks shorter than this are scheduling-bound: the scheduler cannot refill the cores as fast as they end."));
  }
  cores->setExpanded(true);

  // Waves per label.
  QTreeWidgetItem* waves = addRow(nullptr, tr("Waves"), tr("per label, most busy time first"));
  for (const WaveHealth& wave : report.waves)
    addRow(waves, QString::fromStdString(wave.label.empty() ? "(no label)" : wave.label),
           tr("%1 %2 tasks on %3 cores: %4 waves, last wave %5/%3 busy")
               .arg(QString::fromStdString(wave.coreType))
               .arg(wave.tasks)
               .arg(wave.cores)
               .arg(wave.waves, 0, 'f', 2)
               .arg(wave.lastWaveTasks));
  waves->setExpanded(true);

  // Subgraph groups (label, program, line), most task time first; linked to the line.
  const std::vector<SubgraphGroup> ordered = subgraphGroups(report);
  QTreeWidgetItem* subgraphs =
      addRow(nullptr, tr("Subgraphs"), tr("%1 in %2 groups, most task time first").arg(report.subgraphs.size()).arg(ordered.size()));
  std::map<std::tuple<std::string, int, std::string>, QTreeWidgetItem*> groupRows;  // as subgraphGroups keys them
  for (const SubgraphGroup& group : ordered) {
    const SubgraphHealth& subgraph = *group.representative;
    QTreeWidgetItem* row = addRow(
        subgraphs,
        tr("%1 %2").arg(QString::fromStdString(subgraph.label.empty() ? "(no label)" : subgraph.label),
                        QString::fromStdString(subgraph.coreType)),
        // A subgraph no task ran (its loop ran no iteration at this shape) has no time and no bound.
        group.tasks == 0 ? tr("no task ran at this shape")
                         : tr("%1-bound; %2 tasks, %3 each (pipes alone %4)")
                               .arg(QString::fromStdString(subgraph.bound.kind))
                               .arg(group.tasks)
                               .arg(time(subgraph.meanCycles), time(subgraph.meanBoundCycles)),
        QString::fromStdString(subgraph.bound.evidence));
    linkLine(row, subgraph.source);
    row->setData(0, kSubgraphRole, subgraph.id);
    groupRows[{subgraph.label, subgraph.programId, subgraph.source}] = row;
    if (!subgraph.source.empty()) addRow(row, tr("Kernel line"), QString::fromStdString(subgraph.source));
    addRow(row, tr("Subgraphs"), tr("%1 (first: sg %2, program %3)").arg(group.subgraphs).arg(subgraph.id).arg(subgraph.programId));
    for (const PipeBusy& pipe : subgraph.pipes)
      addRow(row, tr("Pipe %1").arg(QString::fromStdString(pipe.pipe)), tr("busy %1 of its task time").arg(roundPercent(pipe.share)));
    for (const auto& [memory, use] : subgraph.buffers)
      addRow(row, tr("Buffer %1").arg(QString::fromStdString(memory)),
             tr("%1 of %2 bytes (%3)").arg(use[0]).arg(use[1]).arg(roundPercent(use[1] > 0 ? static_cast<double>(use[0]) / use[1] : 0.0)));
    addRow(row, tr("Overlap"), QString::fromStdString(subgraph.overlap));
  }

  for (const SubgraphHealth& member : report.subgraphs)
    m_groupRowOf[member.id] = groupRows.at({member.label, member.programId, member.source});

  // The graphs.
  const ExecuteGraphHealth& execute = report.executeGraph;
  QTreeWidgetItem* executeItem =
      addRow(nullptr, tr("Execute graph"),
             tr("%1 tasks, %2 subgraphs, %3 programs, %4 dependencies")
                 .arg(execute.tasks).arg(execute.subgraphs).arg(execute.programs).arg(execute.dependencies));
  addRow(executeItem, tr("Isomorphic subgraphs"), roundPercent(execute.isomorphicRate),
         tr("Subgraphs that share their compiled program with another."));
  addRow(executeItem, tr("Task time"),
         tr("%1 / %2 / %3 (min / mean / max)")
             .arg(time(static_cast<double>(execute.minTaskCycles)), time(execute.meanTaskCycles),
                  time(static_cast<double>(execute.maxTaskCycles))));
  addRow(executeItem, tr("GM workspace peak"), tr("%1 bytes").arg(execute.gmWorkspacePeakBytes));
  const TileGraphHealth& tiles = report.tileGraph;
  QTreeWidgetItem* tileItem = addRow(nullptr, tr("Tile graph"),
                                     tr("%1 tile ops, %2 edges; depth %3, width %4")
                                         .arg(tiles.tileOps).arg(tiles.edges).arg(tiles.depth).arg(tiles.width));
  addRow(tileItem, tr("Fan-in"), tr("max %1 (tile op #%2), mean %3").arg(tiles.maxFanIn).arg(tiles.maxFanInOp).arg(tiles.meanFanIn, 0, 'f', 1));
  addRow(tileItem, tr("Fan-out"), tr("max %1 (tile op #%2), mean %3").arg(tiles.maxFanOut).arg(tiles.maxFanOutOp).arg(tiles.meanFanOut, 0, 'f', 1));
  m_tree->resizeColumnToContents(0);
}

void HealthPanel::activate(QTreeWidgetItem* item) {
  if (!item) return;
  if (item->data(0, kSubgraphRole).isValid()) m_roofline->selectSubgraph(item->data(0, kSubgraphRole).toInt());
  switch (item->data(0, kLinkKindRole).toInt()) {
    case kTaskLink: Q_EMIT taskActivated(item->data(0, kLinkTaskRole).toInt()); break;
    case kLineLink:
      Q_EMIT lineActivated(item->data(0, kLinkFileRole).toString(), item->data(0, kLinkLineRole).toInt());
      break;
    default: break;
  }
}

void HealthPanel::onRooflinePointActivated(int subgraph) {
  if (!m_report || subgraph < 0 || static_cast<std::size_t>(subgraph) >= m_report->roofline.points.size()) return;
  const RooflinePoint& point = m_report->roofline.points[static_cast<std::size_t>(subgraph)];
  auto row = m_groupRowOf.find(subgraph);
  if (row != m_groupRowOf.end()) {
    m_tree->setCurrentItem(row->second);
    m_tree->scrollToItem(row->second);
  }
  if (point.longestTask != kNoId) Q_EMIT taskActivated(point.longestTask);
  const auto [file, line] = fileAndLine(point.source);
  if (line > 0) Q_EMIT lineActivated(file, line);
}

QString HealthPanel::text() const {
  QString out = m_headline->text() + QLatin1Char('\n');
  std::function<void(QTreeWidgetItem*, int)> walk = [&](QTreeWidgetItem* item, int depth) {
    out += QString(depth * 2, QLatin1Char(' ')) + item->text(0) + QLatin1Char('\t') + item->text(1) + QLatin1Char('\n');
    for (int i = 0; i < item->childCount(); ++i) walk(item->child(i), depth + 1);
  };
  for (int i = 0; i < m_tree->topLevelItemCount(); ++i) walk(m_tree->topLevelItem(i), 0);
  return out;
}

} // namespace pto::widgets
