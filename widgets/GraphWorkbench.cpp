// The Graphs tab: its toolbar, pass list, override list, graph and listing,
// and the partition edits made by dragging in the graph.
#include "widgets/GraphWorkbench.h"

#include "core/AtomicFile.h"
#include "widgets/IrGraphView.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/QtText.h"
#include "widgets/TaskGraphView.h"
#include "widgets/models/LabelPalette.h"

#include <QApplication>
#include <QComboBox>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QSvgGenerator>
#include <QTextCharFormat>
#include <QTextCursor>
#include <QThreadPool>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace pto::widgets {
namespace {

// "6 (+6)", "7 (+1 -2 ~3)", "" for a level that does not exist yet (as `pto passes`).
QString countsText(const LevelCounts& counts) {
  if (counts.count == 0 && counts.removed == 0) return {};
  QString text = QString::number(counts.count);
  QStringList parts;
  if (counts.added) parts << QStringLiteral("+%1").arg(counts.added);
  if (counts.removed) parts << QStringLiteral("-%1").arg(counts.removed);
  if (counts.changed) parts << QStringLiteral("~%1").arg(counts.changed);
  return parts.isEmpty() ? text : text + QStringLiteral(" (") + parts.join(' ') + ')';
}

enum PassColumn { PassIndex, PassName, PassTime, PassTiles, PassSubgraphs, PassPrograms, PassTasks, PassColumns };

// A partition_overrides entry in a line: "move scale_add tile 1 → subgraph of rowsum tile 0".
QString entryText(const nlohmann::ordered_json& entry) {
  auto ops = [](const nlohmann::ordered_json& selector) {
    if (!selector.is_object()) return qtext(selector.dump());
    QStringList parts;
    if (selector.contains("label")) parts << QStringLiteral("'%1'").arg(qtext(selector["label"].get<std::string>()));
    if (selector.contains("line")) parts << QStringLiteral("line %1").arg(qtext(selector["line"].dump()));
    if (selector.contains("tensor_op")) parts << QStringLiteral("op %1").arg(qtext(selector["tensor_op"].dump()));
    if (selector.contains("tile")) parts << QStringLiteral("tile %1").arg(qtext(selector["tile"].dump()));
    if (selector.contains("tiles")) parts << QStringLiteral("tiles %1").arg(qtext(selector["tiles"].dump()));
    if (selector.contains("subgraph")) parts << QStringLiteral("sg%1").arg(qtext(selector["subgraph"].dump()));
    return parts.join(' ');
  };
  if (!entry.is_object()) return qtext(entry.dump());
  if (entry.contains("move"))
    return QObject::tr("move %1 → %2")
        .arg(ops(entry["move"]), entry.value("to", nlohmann::ordered_json()).is_string()
                                     ? QObject::tr("a new subgraph")
                                     : QObject::tr("the subgraph of %1").arg(ops(entry["to"])));
  if (entry.contains("split")) return QObject::tr("split the subgraph of %1 at %2").arg(ops(entry["split"]), ops(entry.value("at", nlohmann::ordered_json())));
  if (entry.contains("merge")) {
    QStringList parts;
    for (const auto& part : entry["merge"]) parts << ops(part);
    return QObject::tr("merge %1").arg(parts.join(QStringLiteral(" + ")));
  }
  return qtext(entry.dump());
}

} // namespace

GraphWorkbench::GraphWorkbench(TaskGraphView* taskGraph, ProjectSettingsDocument* settings, QWidget* parent)
    : QWidget(parent), m_settings(settings), m_taskGraph(taskGraph) {
  setObjectName(QStringLiteral("GraphWorkbench"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->setSpacing(2);

  // Toolbar.
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(6, 4, 6, 0);
  m_levelBox = new QComboBox(this);
  m_levelBox->setObjectName(QStringLiteral("GraphLevel"));
  m_levelBox->addItem(tr("Tensor graph"), static_cast<int>(GraphLevel::Tensor));
  m_levelBox->addItem(tr("Tile graph"), static_cast<int>(GraphLevel::Tile));
  m_levelBox->addItem(tr("Block graph"), static_cast<int>(GraphLevel::Block));
  m_levelBox->addItem(tr("Execute graph"), static_cast<int>(GraphLevel::Execute));
  m_levelBox->setCurrentIndex(1);
  m_levelBox->setToolTip(tr("The IR level to show (1-4)"));
  m_groupBox = new QComboBox(this);
  m_groupBox->setObjectName(QStringLiteral("GraphGrouping"));
  m_groupBox->addItem(tr("Group: automatic"), -1);
  m_groupBox->addItem(tr("Group: none"), static_cast<int>(GraphGrouping::None));
  m_groupBox->addItem(tr("Group: subgraph"), static_cast<int>(GraphGrouping::Subgraph));
  m_groupBox->addItem(tr("Group: tensor op"), static_cast<int>(GraphGrouping::TensorOp));
  m_groupBox->addItem(tr("Group: loop scope"), static_cast<int>(GraphGrouping::Scope));
  m_groupBox->addItem(tr("Group: label"), static_cast<int>(GraphGrouping::Label));
  m_groupBox->addItem(tr("Group: label › subgraph › op"), static_cast<int>(GraphGrouping::Structure));
  m_groupBox->setToolTip(tr("Collapse nodes into groups; double-click a group to expand it"));
  m_colorBox = new QComboBox(this);
  m_colorBox->addItem(tr("Colour: label"), static_cast<int>(IrGraphView::ColorBy::Label));
  m_colorBox->addItem(tr("Colour: subgraph"), static_cast<int>(IrGraphView::ColorBy::Subgraph));
  m_colorBox->addItem(tr("Colour: program"), static_cast<int>(IrGraphView::ColorBy::Program));
  m_colorBox->addItem(tr("Colour: core type"), static_cast<int>(IrGraphView::ColorBy::CoreType));
  m_search = new QLineEdit(this);
  m_search->setPlaceholderText(tr("Find node: name, label or line"));
  m_search->setClearButtonEnabled(true);
  m_search->setMaximumWidth(260);
  m_searchStatus = new QLabel(this);
  m_editButton = new QToolButton(this);
  m_editButton->setText(tr("Edit partition"));
  m_editButton->setCheckable(true);
  m_editButton->setChecked(true);
  m_editButton->setToolTip(tr("Drag a tile op onto another subgraph to move it there (tile and block graphs)"));
  auto* fitButton = new QToolButton(this);
  fitButton->setText(tr("Fit"));
  fitButton->setToolTip(tr("Show the whole graph (F)"));
  bar->addWidget(m_levelBox);
  bar->addWidget(m_groupBox);
  bar->addWidget(m_colorBox);
  bar->addSpacing(8);
  bar->addWidget(m_search);
  bar->addWidget(m_searchStatus);
  bar->addStretch(1);
  bar->addWidget(m_editButton);
  bar->addWidget(fitButton);
  outer->addLayout(bar);

  // Left: passes over overrides; centre: the graph over the program listing.
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* left = new QSplitter(Qt::Vertical, split);
  auto* passPane = new QWidget(left);
  auto* passLayout = new QVBoxLayout(passPane);
  passLayout->setContentsMargins(4, 0, 0, 0);
  m_passHeader = new QLabel(tr("Passes"), passPane);
  passLayout->addWidget(m_passHeader);
  m_passes = new QTreeWidget(passPane);
  m_passes->setObjectName(QStringLiteral("PassList"));
  m_passes->setRootIsDecorated(false);
  m_passes->setUniformRowHeights(true);
  m_passes->setColumnCount(PassColumns);
  m_passes->setHeaderLabels({tr("#"), tr("Pass"), tr("ms"), tr("Tile ops"), tr("Subgraphs"), tr("Programs"), tr("Tasks")});
  m_passes->header()->setStretchLastSection(false);
  m_passes->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_passes->setToolTip(tr("The IR after each pass; j/k step, the graph marks what the pass added (+) or changed (~)"));
  passLayout->addWidget(m_passes);
  auto* overridePane = new QWidget(left);
  auto* overrideLayout = new QVBoxLayout(overridePane);
  overrideLayout->setContentsMargins(4, 0, 0, 0);
  overrideLayout->addWidget(new QLabel(tr("Partition overrides"), overridePane));
  m_overrides = new QListWidget(overridePane);
  m_overrides->setObjectName(QStringLiteral("OverrideList"));
  m_overrides->setWordWrap(true);
  overrideLayout->addWidget(m_overrides);
  auto* deleteButton = new QPushButton(tr("Delete"), overridePane);
  deleteButton->setToolTip(tr("Remove the selected override (undoable)"));
  overrideLayout->addWidget(deleteButton, 0, Qt::AlignRight);
  left->addWidget(passPane);
  left->addWidget(overridePane);
  left->setStretchFactor(0, 3);
  left->setStretchFactor(1, 1);

  auto* centre = new QSplitter(Qt::Vertical, split);
  m_stack = new QStackedWidget(centre);
  m_view = new IrGraphView(m_stack);
  m_view->setPartitionEditing(true);
  m_stack->addWidget(m_view);
  m_stack->addWidget(m_taskGraph);
  m_listing = new QPlainTextEdit(centre);
  m_listing->setObjectName(QStringLiteral("ProgramListing"));
  m_listing->setReadOnly(true);
  m_listing->setLineWrapMode(QPlainTextEdit::NoWrap);
  m_listing->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_listing->setPlaceholderText(tr("Double-click a node to list the PTO program of its subgraph."));
  centre->addWidget(m_stack);
  centre->addWidget(m_listing);
  centre->setStretchFactor(0, 4);
  centre->setStretchFactor(1, 1);
  centre->setCollapsible(0, false);
  // The listing opens when a node is double-clicked (showListing).
  centre->setSizes({1000, 0});
  m_centreSplit = centre;
  split->addWidget(left);
  split->addWidget(centre);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 1);
  // The passes' names and counts fit in 250 px; the graph gets the rest.
  split->setSizes({250, 1000});
  split->setCollapsible(1, false);
  outer->addWidget(split, 1);

  connect(m_levelBox, &QComboBox::currentIndexChanged, this, [this] {
    setLevel(static_cast<GraphLevel>(m_levelBox->currentData().toInt()));
  });
  connect(m_groupBox, &QComboBox::currentIndexChanged, this, [this] {
    m_expanded.clear();
    m_expandAll = false;
    m_view->fitNextLayout();
    layoutCurrent();
  });
  connect(m_colorBox, &QComboBox::currentIndexChanged, this, [this] {
    m_view->setColorBy(static_cast<IrGraphView::ColorBy>(m_colorBox->currentData().toInt()));
  });
  connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
    int count = m_view->search(text);
    m_searchStatus->setText(text.isEmpty() ? QString() : count ? m_view->searchStatus() : tr("no match"));
  });
  connect(m_search, &QLineEdit::returnPressed, this, [this] {
    m_view->searchStep(QApplication::keyboardModifiers() & Qt::ShiftModifier ? -1 : 1);
    m_searchStatus->setText(m_view->searchStatus());
  });
  connect(fitButton, &QToolButton::clicked, this, [this] {
    if (m_stack->currentWidget() == m_view) m_view->fit();
    else m_taskGraph->fit();
  });
  connect(m_editButton, &QToolButton::toggled, m_view, &IrGraphView::setPartitionEditing);
  connect(m_passes, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!item) return;
    int step = item->data(PassIndex, Qt::UserRole).toInt();
    if (step != m_step) {
      m_step = step;
      layoutCurrent();
    }
  });
  connect(deleteButton, &QPushButton::clicked, this, [this] {
    int row = m_overrides->currentRow();
    if (row >= 0) m_settings->removePartitionOverride(static_cast<std::size_t>(row));
  });
  connect(m_settings, &ProjectSettingsDocument::settingsChanged, this, &GraphWorkbench::fillOverrideList);
  connect(m_settings->undoStack(), &QUndoStack::indexChanged, this, &GraphWorkbench::onUndoIndexChanged);
  connect(m_view, &IrGraphView::nodeActivated, this, &GraphWorkbench::onNodeActivated);
  connect(m_view, &IrGraphView::nodeOpened, this, &GraphWorkbench::onNodeOpened);
  connect(m_view, &IrGraphView::groupToggled, this, [this](const std::string& key) {
    if (m_expandAll) {
      m_expandAll = false;
      m_groupBox->setCurrentIndex(0);
    }
    if (!m_expanded.erase(key)) m_expanded.insert(key);
    layoutCurrent();
  });
  connect(m_view, &IrGraphView::dropTargetChanged, this, &GraphWorkbench::onDropTarget);
  connect(m_view, &IrGraphView::moveRequested, this, &GraphWorkbench::onMoveRequested);
  connect(m_view, &IrGraphView::moveToNewSubgraphRequested, this, &GraphWorkbench::onMoveToNew);
  connect(m_view, &IrGraphView::splitRequested, this, &GraphWorkbench::onSplit);
  connect(m_view, &IrGraphView::newSubgraphFromSelectionRequested, this, &GraphWorkbench::onNewSubgraphFromSelection);
  connect(m_view, &IrGraphView::mergeRequested, this, &GraphWorkbench::onMerge);
  connect(m_taskGraph, &TaskGraphView::subgraphOpened, this, [this](int subgraph) {
    // From a task to its subgraph: the block graph, the subgraph's ops selected, its program listed.
    m_pendingSubgraph = subgraph;
    m_levelBox->setCurrentIndex(static_cast<int>(GraphLevel::Block));
    showListing(subgraph);
  });

  // j/k step through the passes and 1-4 switch levels while a graph view
  // (the IR graph or the task graph) or the pass list has the focus (not
  // the search field, where they are text).
  m_view->installEventFilter(this);
  m_taskGraph->installEventFilter(this);
  m_passes->installEventFilter(this);
  m_view->setMessage(tr("Open a project to see its tensor, tile, block and execute graphs."));
}

GraphWorkbench::~GraphWorkbench() = default;

bool GraphWorkbench::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::KeyPress && (watched == m_view || watched == m_taskGraph || watched == m_passes)) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier)) return false;
    switch (key->key()) {
    case Qt::Key_J: selectStep(m_step + 1); return true;
    case Qt::Key_K: selectStep(m_step - 1); return true;
    case Qt::Key_1:
    case Qt::Key_2:
    case Qt::Key_3:
    case Qt::Key_4:
      m_levelBox->setCurrentIndex(key->key() - Qt::Key_1);
      // The level on show may be in the other view (the task graph shows the
      // execute level): the focus goes with it, so the next key works too.
      if (watched != m_passes) m_stack->currentWidget()->setFocus();
      return true;
    default: break;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void GraphWorkbench::focusSearch() {
  m_search->setFocus();
  m_search->selectAll();
}

void GraphWorkbench::setOverridesChecker(std::function<std::string(const nlohmann::ordered_json&)> checker) {
  m_overridesChecker = std::move(checker);
}

bool GraphWorkbench::showingTaskGraph() const { return m_stack->currentWidget() == m_taskGraph; }

void GraphWorkbench::invalidate() {
  m_stale = true;
  if (isVisible()) refresh();
}

void GraphWorkbench::refresh() {
  fillOverrideList();
  if (m_stale) Q_EMIT compileRequested();
  else if (m_level == GraphLevel::Execute && !m_history) Q_EMIT taskGraphWanted();
}

void GraphWorkbench::setLevel(GraphLevel level) {
  // The selection follows to the new level by its kernel line (a tensor op,
  // its tile ops, their copies and tasks all carry it).
  if (m_graph && m_view->selectedNode() >= 0 && static_cast<std::size_t>(m_view->selectedNode()) < m_graph->nodes.size())
    m_pendingLine = m_graph->nodes[static_cast<std::size_t>(m_view->selectedNode())].line;
  m_level = level;
  int index = static_cast<int>(level);
  if (m_levelBox->currentIndex() != index) {
    QSignalBlocker block(m_levelBox);
    m_levelBox->setCurrentIndex(index);
  }
  m_expanded.clear();
  m_expandAll = false;
  m_focusNode = -1;
  layoutCurrent();
}

void GraphWorkbench::showWithoutProject() {
  m_stale = false;
  m_history.reset();
  m_passes->clear();
  m_passHeader->setText(tr("Passes: open the trace's project to step through its compilation"));
  if (m_level != GraphLevel::Execute) {
    m_stack->setCurrentWidget(m_view);
    m_view->setGraphLayout(nullptr);
    m_view->setMessage(tr("A trace file holds tasks only: the Execute graph shows them. Open the project to see "
                          "the tensor, tile and block graphs."));
    Q_EMIT laidOut();
  } else {
    m_stack->setCurrentWidget(m_taskGraph);
    Q_EMIT taskGraphWanted();
  }
}

void GraphWorkbench::showCompiling(const QString& projectName) {
  m_stale = false;
  m_view->setMessage(tr("Compiling %1 pass by pass…").arg(projectName));
}

void GraphWorkbench::setHistory(std::shared_ptr<const PassHistory> history, int partitionStep) {
  // Keep the selected pass by name across recompiles (the last when new).
  std::string stepName = m_history && m_step >= 0 && m_step < static_cast<int>(m_history->steps.size())
                             ? m_history->steps[static_cast<std::size_t>(m_step)].name
                             : std::string();
  bool wasLast = !m_history || m_step == static_cast<int>(m_history->steps.size()) - 1;
  // A big kernel's snapshots take a while to free: not on the GUI thread.
  if (m_history) QThreadPool::globalInstance()->start([old = std::move(m_history)]() mutable { old.reset(); });
  m_history = std::move(history);
  m_step = static_cast<int>(m_history->steps.size()) - 1;
  // Pass verify stopped somewhere: show that pass, its wrong op selected.
  if (m_history->divergedAt >= 0) {
    m_step = m_history->divergedAt;
    wasLast = true;
    Q_EMIT statusMessage(qtext(m_history->divergence));
  }
  if (!wasLast)
    for (std::size_t i = 0; i < m_history->steps.size(); ++i)
      if (m_history->steps[i].name == stepName) m_step = static_cast<int>(i);
  // The run's final IR comes first, without the passes' IR: the partition
  // a drop applies to exists once every pass's IR follows.
  int partition = m_history->finalOnly ? -1 : partitionStep;
  m_partitionGraph = partition >= 0 ? std::make_shared<const IrGraph>(buildIrGraph(
                                          GraphLevel::Tile, m_history->tensor, *m_history->steps[static_cast<std::size_t>(partition)].snapshot))
                                    : nullptr;
  m_partitionNodeOfKey.clear();
  if (m_partitionGraph)
    for (std::size_t n = 0; n < m_partitionGraph->nodes.size(); ++n) m_partitionNodeOfKey.emplace(m_partitionGraph->nodes[n].key, static_cast<int>(n));
  // PyPTO's dumps hold the levels each pass dumped: show one the pass has.
  if (!m_history->importedFrom.empty() && m_step >= 0) {
    const auto& graphs = m_history->steps[static_cast<std::size_t>(m_step)].graphs;
    if (!graphs[static_cast<std::size_t>(m_level)])
      for (GraphLevel level : {GraphLevel::Tile, GraphLevel::Block, GraphLevel::Execute, GraphLevel::Tensor})
        if (graphs[static_cast<std::size_t>(level)]) {
          m_level = level;
          QSignalBlocker block(m_levelBox);
          m_levelBox->setCurrentIndex(static_cast<int>(level));
          break;
        }
  }
  fillPassList();
  if (m_history->steps.empty() && !m_history->tensor.is_null() && m_level == GraphLevel::Tensor) {
    layoutCurrent();
    return;
  }
  if (m_history->steps.empty() && m_level != GraphLevel::Tensor) {
    QString first = qtext(m_history->problems).section('\n', 0, 0);
    m_view->setGraphLayout(nullptr);
    m_view->setMessage(first.isEmpty() ? tr("The kernel did not compile.") : tr("The kernel did not compile:\n%1").arg(first));
    m_stack->setCurrentWidget(m_view);
    Q_EMIT laidOut();
    return;
  }
  layoutCurrent();
}

void GraphWorkbench::fillPassList() {
  QSignalBlocker block(m_passes);
  m_passes->clear();
  if (!m_history) return;
  double total = 0;
  for (std::size_t i = 0; i < m_history->steps.size(); ++i) {
    const PassStep& step = m_history->steps[i];
    total += step.milliseconds;
    auto* item = new QTreeWidgetItem(m_passes);
    item->setData(PassIndex, Qt::UserRole, static_cast<int>(i));
    item->setText(PassIndex, QString::number(i + 1));
    item->setText(PassName, qtext(step.name));
    item->setText(PassTime, !m_history->importedFrom.empty() ? QStringLiteral("–")  // PyPTO's dumps carry no times
                            : step.skipped ? tr("off")
                                           : QString::number(step.milliseconds, 'f', step.milliseconds < 10 ? 2 : 0));
    item->setTextAlignment(PassTime, Qt::AlignRight | Qt::AlignVCenter);
    for (int level = 0; level < 4; ++level) item->setText(PassTiles + level, countsText(step.counts[static_cast<std::size_t>(level)]));
    QString tip = step.skipped ? tr("disabled by disable_pass") : step.changed ? tr("changed the IR") : tr("changed nothing");
    if (!step.skipped && !step.changed) {
      for (int column = 0; column < PassColumns; ++column) item->setForeground(column, m_passes->palette().color(QPalette::Disabled, QPalette::Text));
    }
    if (step.diverged) {
      tip = tr("pass verify: %1").arg(qtext(m_history->divergence));
      for (int column = 0; column < PassColumns; ++column) item->setForeground(column, QColor(210, 50, 40));
      item->setText(PassName, qtext(step.name) + tr("  ✗ diverges"));
    }
    for (int column = 0; column < PassColumns; ++column) item->setToolTip(column, tip);
  }
  m_passHeader->setText(!m_history->importedFrom.empty()
                            ? tr("PyPTO's pass dumps: %1 passes from %2 (j/k step)")
                                  .arg(m_history->steps.size())
                                  .arg(QFileInfo(qtext(m_history->importedFrom)).fileName())
                        : !m_history->complete ? tr("Passes: stopped after %1 — see Problems").arg(m_history->steps.size())
                        : m_history->finalOnly ? tr("Passes: %1 in %2 ms; making the IR after each…").arg(m_history->steps.size()).arg(total, 0, 'f', 1)
                                               : tr("Passes: %1 in %2 ms (j/k step)").arg(m_history->steps.size()).arg(total, 0, 'f', 1));
  if (m_step >= 0) m_passes->setCurrentItem(m_passes->topLevelItem(m_step));
}

void GraphWorkbench::selectStep(int step) {
  if (!m_history || step < 0 || step >= static_cast<int>(m_history->steps.size())) return;
  m_passes->setCurrentItem(m_passes->topLevelItem(step));  // lays out through currentItemChanged
}

void GraphWorkbench::layoutCurrent() {
  const bool imported = m_history && !m_history->importedFrom.empty();  // PyPTO's dumps: graphs, no run
  if (m_level == GraphLevel::Execute && !imported &&
      (!m_history || m_step == static_cast<int>(m_history->steps.size()) - 1)) {
    // The final execute graph is the run's: timings and the critical path.
    m_stack->setCurrentWidget(m_taskGraph);
    Q_EMIT taskGraphWanted();
    return;
  }
  m_stack->setCurrentWidget(m_view);
  if (!m_history) {
    if (!m_stale) Q_EMIT laidOut();
    return;
  }
  if (m_history->finalOnly && m_step != static_cast<int>(m_history->steps.size()) - 1) {
    m_view->setGraphLayout(nullptr);
    m_view->setMessage(tr("Making the IR after each pass…"));
    return;
  }
  std::shared_ptr<const IrJson> snapshot =
      m_step >= 0 ? m_history->steps[static_cast<std::size_t>(m_step)].snapshot : std::shared_ptr<const IrJson>();
  // Diff marks against the pass before (the tensor graph does not change).
  std::map<std::string, char> marks;
  if (m_level != GraphLevel::Tensor && m_step > 0)
    for (const NodeChange& change : m_history->steps[static_cast<std::size_t>(m_step)].changes)
      if (change.kind != '-') marks[change.key] = change.kind;
  int chosen = m_groupBox->currentData().toInt();
  std::optional<GraphGrouping> grouping =
      chosen >= 0 ? std::optional<GraphGrouping>(static_cast<GraphGrouping>(chosen)) : std::nullopt;
  VisibleGraphOptions options;
  options.expanded = m_expanded;
  options.expandAll = m_expandAll;
  options.focusNode = m_focusNode;
  QString stepName = m_step >= 0 ? qtext(m_history->steps[static_cast<std::size_t>(m_step)].name) : tr("tracing");
  m_view->setMessage(m_view->graphLayout() ? QString() : tr("Laying out…"));
  m_layoutMarks = std::move(marks);
  m_layoutStepName = stepName;
  IrLevelRequest request;
  request.level = m_level;
  request.tensor = std::shared_ptr<const IrJson>(m_history, &m_history->tensor);
  request.snapshot = std::move(snapshot);
  if (imported && m_step >= 0) {
    request.graph = m_history->steps[static_cast<std::size_t>(m_step)].graphs[static_cast<std::size_t>(m_level)];
    if (!request.graph) {
      auto none = std::make_shared<IrGraph>();
      none->level = m_level;
      none->missing = "PyPTO dumped no " + std::string(name(m_level)) + " graph in this pass's folder";
      request.graph = std::move(none);
    }
  }
  request.grouping = grouping;
  request.options = std::move(options);
  Q_EMIT layoutRequested(request);
}

void GraphWorkbench::showLayout(std::shared_ptr<const IrGraphLayout> layout) {
  std::map<std::string, char> marks = std::move(m_layoutMarks);
  const QString& stepName = m_layoutStepName;
  m_graph = layout->graph;
  if (!m_graph->missing.empty()) {
    m_view->setGraphLayout(nullptr);
    m_view->setMessage(tr("No %1 graph after %2: %3")
                           .arg(qtext(std::string(name(m_graph->level))), stepName, qtext(m_graph->missing)));
    Q_EMIT laidOut();
    return;
  }
  m_view->setMessage(QString());
  m_view->setDiff(std::move(marks));
  m_view->setGraphLayout(layout);
  if (!m_search->text().isEmpty()) {
    m_view->search(m_search->text());
    m_searchStatus->setText(m_view->searchStatus());
  }
  const VisibleGraph& shown = layout->visible;
  QString grouped = shown.items.size() < layout->graph->nodes.size()
                        ? tr(" in %1 boxes (double-click a group to expand it)").arg(shown.items.size())
                        : QString();
  Q_EMIT statusMessage(tr("%1: %2 nodes%3; laid out in %4 ms")
                           .arg(m_levelBox->currentText())
                           .arg(layout->graph->nodes.size())
                           .arg(grouped)
                           .arg(layout->layoutMs, 0, 'f', 0));
  if (m_history && m_step == m_history->divergedAt && m_history->divergenceLine > 0) showLine(m_history->divergenceLine);
  if (m_pendingSubgraph >= 0) showSubgraph(std::exchange(m_pendingSubgraph, -1));
  else if (m_pendingLine > 0) showLine(std::exchange(m_pendingLine, 0));
  Q_EMIT laidOut();
}

void GraphWorkbench::onNodeActivated(int node) {
  if (!m_graph || node < 0) return;
  const IrGraphNode& picked = m_graph->nodes[static_cast<std::size_t>(node)];
  m_focusNode = node;
  if (picked.line > 0) Q_EMIT lineRequested(picked.line);
  if (picked.subgraph >= 0) Q_EMIT subgraphRequested(picked.subgraph);
  // The node's relatives: the same tensor op's other tiles, the same subgraph.
  std::vector<int> related;
  for (std::size_t i = 0; i < m_graph->nodes.size(); ++i) {
    const IrGraphNode& other = m_graph->nodes[i];
    if (static_cast<int>(i) != node && ((picked.tensorOp >= 0 && other.tensorOp == picked.tensorOp && picked.kind == other.kind) ||
                                        (m_level == GraphLevel::Execute && other.subgraph == picked.subgraph)))
      related.push_back(static_cast<int>(i));
  }
  m_view->highlightNodes(related);
  Q_EMIT statusMessage(tr("%1 — %2").arg(qtext(picked.title), qtext(picked.detail)));
}

void GraphWorkbench::onNodeOpened(int node) {
  if (!m_graph || node < 0) return;
  const IrGraphNode& picked = m_graph->nodes[static_cast<std::size_t>(node)];
  if (picked.subgraph < 0) return;
  showListing(picked.subgraph);
}

void GraphWorkbench::showListing(std::int64_t subgraph) {
  if (!m_history || m_history->steps.empty() || !m_history->steps.back().snapshot) return;
  std::vector<ListingLine> lines = pto::programListing(*m_history->steps.back().snapshot, subgraph);
  if (lines.empty()) {
    m_listing->setPlainText(tr("; subgraph %1 has no PTO program yet (they exist after the last pass)").arg(subgraph));
    return;
  }
  // Lines keep the editor's label colours: the kernel line's label, as the gutter shows it.
  std::map<int, std::string> labelOfLine;
  if (m_graph)
    for (const IrGraphNode& node : m_graph->nodes)
      if (node.line > 0 && !node.label.empty()) labelOfLine.emplace(node.line, node.label);
  m_listing->clear();
  QTextCursor cursor(m_listing->document());
  bool dark = palette().color(QPalette::Base).lightness() < 128;
  for (const ListingLine& line : lines) {
    QTextCharFormat format;
    auto label = labelOfLine.find(line.line);
    if (line.line > 0 && label != labelOfLine.end()) {
      Rgb rgb = labelColor(label->second);
      QColor colour(rgb.r, rgb.g, rgb.b);
      format.setBackground(dark ? colour.darker(250) : colour.lighter(170));
    }
    cursor.insertText(qtext(line.text) + '\n', format);
  }
  m_listing->moveCursor(QTextCursor::Start);
  QList<int> sizes = m_centreSplit->sizes();
  if (sizes.size() == 2 && sizes[1] < 60) {
    int total = sizes[0] + sizes[1];
    m_centreSplit->setSizes({total * 2 / 3, total - total * 2 / 3});
  }
}

void GraphWorkbench::showSubgraph(std::int64_t subgraph) {
  if (!m_graph || m_stack->currentWidget() != m_view) return;
  std::vector<int> nodes;
  for (std::size_t i = 0; i < m_graph->nodes.size(); ++i)
    if (m_graph->nodes[i].subgraph == subgraph) nodes.push_back(static_cast<int>(i));
  m_view->highlightNodes(nodes);
  // A node of that subgraph already selected (the click that led here) stays.
  int selected = m_view->selectedNode();
  bool inside = selected >= 0 && static_cast<std::size_t>(selected) < m_graph->nodes.size() &&
                m_graph->nodes[static_cast<std::size_t>(selected)].subgraph == subgraph;
  if (!nodes.empty() && !inside) m_view->selectNode(nodes.front());
}

void GraphWorkbench::showLine(int line) {
  if (!m_graph || m_stack->currentWidget() != m_view) return;
  std::vector<int> nodes;
  for (std::size_t i = 0; i < m_graph->nodes.size(); ++i)
    if (m_graph->nodes[i].line == line) nodes.push_back(static_cast<int>(i));
  m_view->highlightNodes(nodes);
  if (!nodes.empty()) m_view->selectNode(nodes.front());
}

std::optional<nlohmann::ordered_json> GraphWorkbench::selectorAtPartition(int node, QString& why) const {
  if (!m_graph || node < 0) return std::nullopt;
  const IrGraphNode& picked = m_graph->nodes[static_cast<std::size_t>(node)];
  if (picked.tileIndex < 0) {
    why = tr("only tile ops move between subgraphs; %1 is made by the compiler").arg(qtext(picked.title));
    return std::nullopt;
  }
  if (!m_partitionGraph) {
    why = m_history && m_history->finalOnly ? tr("the IR after each pass is still being made; drop again in a moment")
                                            : tr("this kernel never reached ApplyPartitionOverrides");
    return std::nullopt;
  }
  // Tile indices as ApplyPartitionOverrides counts them: in the IR it sees.
  auto found = m_partitionNodeOfKey.find(picked.key);
  if (found != m_partitionNodeOfKey.end()) return tileOpSelector(*m_partitionGraph, found->second);
  why = tr("%1 is made after partitioning by a later pass; move the tile op it comes from").arg(qtext(picked.title));
  return std::nullopt;
}

std::optional<nlohmann::ordered_json> GraphWorkbench::subgraphSelector(int cluster, QString& why) const {
  // A subgraph is named by its first tile op (the form ApplyPartitionOverrides
  // resolves to "the subgraph holding it").
  for (int member : m_graph->clusters[static_cast<std::size_t>(cluster)].nodes)
    if (m_graph->nodes[static_cast<std::size_t>(member)].tileIndex >= 0) return selectorAtPartition(member, why);
  why = tr("this subgraph has no tile op to name it by");
  return std::nullopt;
}

QString GraphWorkbench::movedOpsText(const nlohmann::ordered_json& selector) const {
  // What the selector names at ApplyPartitionOverrides: every tensor op on
  // that label and line moves its tile of that index (muls and add of one
  // fused line move together).
  QStringList kinds;
  if (m_partitionGraph)
    for (const IrGraphNode& node : m_partitionGraph->nodes) {
      bool match = (!selector.contains("label") || selector["label"] == node.label) &&
                   (!selector.contains("line") || selector["line"] == node.line) &&
                   (!selector.contains("tensor_op") || selector["tensor_op"] == node.tensorOp) &&
                   (!selector.contains("tile") || selector["tile"] == node.tileIndex);
      if (match && !kinds.contains(qtext(node.kind))) kinds << qtext(node.kind);
    }
  QString where = selector.contains("line") ? tr(" (line %1)").arg(qtext(selector["line"].dump())) : QString();
  return tr("%1 tile %2%3").arg(kinds.join(QStringLiteral(" + ")), qtext(selector.value("tile", nlohmann::ordered_json(0)).dump()), where);
}

std::optional<nlohmann::ordered_json> GraphWorkbench::moveEntries(const std::vector<int>& nodes, int cluster,
                                                                   QString& why) const {
  // Into the subgraph named by its first tile op; ops already there stay.
  auto target = subgraphSelector(cluster, why);
  if (!target) return std::nullopt;
  std::vector<int> leaving;
  for (int node : nodes)
    if (m_graph->nodes[static_cast<std::size_t>(node)].cluster != cluster) leaving.push_back(node);
  // Several ops (a dragged subgraph or label, a selection): a subgraph (as
  // ApplyPartitionOverrides sees it) all of whose tile ops leave joins the
  // target whole, in one merge entry, rather than a move entry per op: a
  // label's box of a thousand ops is a short, readable override. Ops a later
  // pass made (no tile index at partitioning) follow their subgraph.
  const bool many = leaving.size() > 1;
  std::set<int> whole;  // m_partitionGraph clusters
  if (many && m_partitionGraph) {
    std::map<int, std::size_t> leavingIn;
    for (int node : leaving) {
      auto found = m_partitionNodeOfKey.find(m_graph->nodes[static_cast<std::size_t>(node)].key);
      if (found == m_partitionNodeOfKey.end()) continue;
      const IrGraphNode& at = m_partitionGraph->nodes[static_cast<std::size_t>(found->second)];
      if (at.cluster >= 0 && at.tileIndex >= 0) ++leavingIn[at.cluster];
    }
    for (const auto& [partitionCluster, count] : leavingIn) {
      const auto& members = m_partitionGraph->clusters[static_cast<std::size_t>(partitionCluster)].nodes;
      std::size_t tileOps = static_cast<std::size_t>(std::count_if(members.begin(), members.end(), [this](int member) {
        return m_partitionGraph->nodes[static_cast<std::size_t>(member)].tileIndex >= 0;
      }));
      if (count == tileOps) whole.insert(partitionCluster);
    }
  }
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  if (!whole.empty()) {
    nlohmann::ordered_json merged = nlohmann::ordered_json::array({*target});
    for (int partitionCluster : whole)
      for (int member : m_partitionGraph->clusters[static_cast<std::size_t>(partitionCluster)].nodes)
        if (m_partitionGraph->nodes[static_cast<std::size_t>(member)].tileIndex >= 0) {
          merged.push_back(tileOpSelector(*m_partitionGraph, member));
          break;
        }
    entries.push_back({{"merge", merged}});
  }
  // The rest: one move entry per distinct selector (MulS and Add of one fused line share one).
  std::set<std::string> seen;
  for (int node : leaving) {
    auto found = m_partitionNodeOfKey.find(m_graph->nodes[static_cast<std::size_t>(node)].key);
    if (found != m_partitionNodeOfKey.end() && whole.count(m_partitionGraph->nodes[static_cast<std::size_t>(found->second)].cluster)) continue;
    QString reason;
    auto moved = selectorAtPartition(node, reason);
    if (!moved) {
      if (many && found == m_partitionNodeOfKey.end()) continue;
      why = reason;
      return std::nullopt;
    }
    if (seen.insert(moved->dump()).second) entries.push_back({{"move", *moved}, {"to", *target}});
  }
  if (entries.empty()) {
    why = tr("everything selected is in that subgraph already");
    return std::nullopt;
  }
  return entries;
}

QString GraphWorkbench::movingText(const nlohmann::ordered_json& entries) const {
  const int group = m_view->draggedGroup();
  const IrGraphLayout* layout = m_view->graphLayout();
  if (group >= 0 && layout) {
    QString text = tr("the %1 tile ops of %2")
                       .arg(m_view->movingNodes().size())
                       .arg(qtext(layout->visible.groups[static_cast<std::size_t>(group)].title));
    std::size_t merged = 0, moves = 0;
    for (const auto& entry : entries) entry.contains("merge") ? merged += entry["merge"].size() - 1 : ++moves;
    QStringList how;
    if (merged) how << tr("%n subgraph(s) whole", nullptr, static_cast<int>(merged));
    if (moves) how << tr("%n op selector(s)", nullptr, static_cast<int>(moves));
    return how.isEmpty() ? text : tr("%1 (%2)").arg(text, how.join(QStringLiteral(" + ")));
  }
  QStringList what;
  for (const auto& entry : entries)
    if (entry.contains("move")) what << movedOpsText(entry["move"]);
  constexpr int kNamedAtMost = 3;
  if (what.size() > kNamedAtMost) {
    const auto more = what.size() - kNamedAtMost;
    what = what.mid(0, kNamedAtMost);
    what << tr("%1 more").arg(more);
  }
  return what.join(QStringLiteral(", "));
}

void GraphWorkbench::onDropTarget(int node, int cluster) {
  if (node < 0 || cluster < 0 || !m_graph || !m_history || !m_history->traced) {
    Q_EMIT dropCheckCancelled();
    return;
  }
  QString why;
  std::vector<int> moving = m_view->movingNodes();
  auto entries = moveEntries(moving, cluster, why);
  if (!entries) {
    m_view->setDropVerdict(node, cluster, false, why);
    return;
  }
  nlohmann::ordered_json overrides = m_settings->partitionOverrides();
  for (const auto& entry : *entries) overrides.push_back(entry);
  Q_EMIT dropCheckRequested(node, cluster, overrides, movingText(*entries));
}

void GraphWorkbench::showDropCheck(int node, int cluster, const std::string& problem, const QString& what) {
  // "partition_overrides[2] (move): would ..." -> "would ...": the entry is the one being dragged.
  std::size_t colon = problem.find("): ");
  QString reason = qtext(colon != std::string::npos && problem.rfind("partition_overrides[", 0) == 0 ? problem.substr(colon + 3) : problem);
  if (problem.empty()) reason = tr("move %1 into sg%2").arg(what).arg(m_graph->clusters[static_cast<std::size_t>(cluster)].id);
  else if (!what.isEmpty()) reason = tr("%1 cannot move here: %2").arg(what, reason);  // what, then why not
  m_view->setDropVerdict(node, cluster, problem.empty(), reason);
}

void GraphWorkbench::onMoveRequested(int node, int cluster) {
  QString why;
  auto entries = moveEntries(m_view->movingNodes(), cluster, why);
  if (!entries) {
    Q_EMIT statusMessage(why);
    return;
  }
  const IrGraphNode& picked = m_graph->nodes[static_cast<std::size_t>(node)];
  const IrGraphCluster& into = m_graph->clusters[static_cast<std::size_t>(cluster)];
  QString what = m_view->draggedGroup() >= 0 ? movingText(*entries)
                 : entries->size() > 1       ? tr("%1 tile op groups").arg(entries->size())
                                             : qtext(picked.title);
  commitEdit(*entries, tr("Move %1 into sg%2").arg(what).arg(into.id),
             tr("Moved %1 into sg%2 '%3'; rerunning… (Ctrl+Z undoes)").arg(what).arg(into.id).arg(qtext(into.label)));
}

void GraphWorkbench::onNewSubgraphFromSelection() {
  QString why;
  std::vector<int> nodes(m_view->selectedNodes().begin(), m_view->selectedNodes().end());
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::optional<nlohmann::ordered_json> first;
  std::set<std::string> seen;
  for (int node : nodes) {
    auto moved = selectorAtPartition(node, why);
    if (!moved) {
      Q_EMIT statusMessage(why);
      return;
    }
    if (!seen.insert(moved->dump()).second) continue;
    if (!first) {
      first = moved;
      entries.push_back({{"move", *moved}, {"to", "new"}});
    } else {
      entries.push_back({{"move", *moved}, {"to", *first}});
    }
  }
  if (entries.empty()) return;
  addEdit(entries, tr("New subgraph from %1 tile ops").arg(nodes.size()));
}

void GraphWorkbench::onMoveToNew(int node) {
  QString why;
  auto moved = selectorAtPartition(node, why);
  if (!moved) {
    Q_EMIT statusMessage(why);
    return;
  }
  addEdit({{"move", *moved}, {"to", "new"}},
          tr("Move %1 into a new subgraph").arg(qtext(m_graph->nodes[static_cast<std::size_t>(node)].title)));
}

void GraphWorkbench::onSplit(int node) {
  QString why;
  auto at = selectorAtPartition(node, why);
  if (!at) {
    Q_EMIT statusMessage(why);
    return;
  }
  const IrGraphNode& picked = m_graph->nodes[static_cast<std::size_t>(node)];
  addEdit({{"split", *at}, {"at", *at}},
          tr("Split sg%1 at %2").arg(picked.subgraph).arg(qtext(picked.title)));
}

void GraphWorkbench::onMerge(int cluster, int other) {
  QString why;
  auto first = subgraphSelector(cluster, why);
  auto second = first ? subgraphSelector(other, why) : std::nullopt;
  if (!first || !second) {
    Q_EMIT statusMessage(why);
    return;
  }
  addEdit({{"merge", nlohmann::ordered_json::array({*first, *second})}},
          tr("Merge sg%1 and sg%2")
              .arg(m_graph->clusters[static_cast<std::size_t>(cluster)].id)
              .arg(m_graph->clusters[static_cast<std::size_t>(other)].id));
}

void GraphWorkbench::addEdit(const nlohmann::ordered_json& edit, const QString& text) {
  // One entry or an array of them (one undo step). Checked with the
  // compiler's rules first: an illegal edit is refused with its reason and
  // never reaches the project.
  const nlohmann::ordered_json entries = edit.is_array() ? edit : nlohmann::ordered_json::array({edit});
  std::string problem;
  if (m_history && m_history->traced && m_overridesChecker) {
    nlohmann::ordered_json overrides = m_settings->partitionOverrides();
    for (const auto& entry : entries) overrides.push_back(entry);
    problem = m_overridesChecker(overrides);
  }
  if (!problem.empty()) {
    Q_EMIT statusMessage(tr("%1: not possible: %2").arg(text, qtext(problem)));
    return;
  }
  commitEdit(entries, text, tr("%1; rerunning… (Ctrl+Z undoes)").arg(text));
}

void GraphWorkbench::commitEdit(const nlohmann::ordered_json& entries, const QString& text, const QString& status) {
  m_pendingEffect = entries.back().dump();
  m_makespanBefore = m_lastMakespan;
  m_settings->addPartitionOverrides(entries, text);
  // Remembered so that its undo and redo rerun too (onUndoIndexChanged).
  QUndoStack* stack = m_settings->undoStack();
  if (stack->index() > 0) m_editCommands.emplace_back(stack->command(stack->index() - 1), stack->command(stack->index() - 1)->text());
  Q_EMIT statusMessage(status);
  Q_EMIT partitionEdited();
}

void GraphWorkbench::onUndoIndexChanged(int index) {
  // The command undone (the index went down by one) or redone (up by one);
  // a push moves the index too, but its command is not yet remembered.
  QUndoStack* stack = m_settings->undoStack();
  const int previous = std::exchange(m_undoIndex, index);
  const QUndoCommand* changed = index == previous - 1 ? stack->command(index) : index == previous + 1 ? stack->command(previous) : nullptr;
  // Commands the stack dropped (undone, then a new edit) are forgotten.
  std::erase_if(m_editCommands, [stack](const std::pair<const QUndoCommand*, QString>& edit) {
    for (int i = 0; i < stack->count(); ++i)
      if (stack->command(i) == edit.first) return stack->command(i)->text() != edit.second;
    return true;
  });
  if (!changed) return;
  for (const auto& [command, text] : m_editCommands)
    if (command == changed && changed->text() == text) {
      m_pendingEffect.clear();
      Q_EMIT statusMessage(index < previous ? tr("Undid \"%1\"; rerunning…").arg(text) : tr("Redid \"%1\"; rerunning…").arg(text));
      Q_EMIT partitionEdited();
      return;
    }
}

void GraphWorkbench::noteRunMakespan(double makespanUs, bool ok) {
  if (!m_pendingEffect.empty() && ok && m_makespanBefore > 0) {
    double delta = makespanUs - m_makespanBefore;
    m_effects[m_pendingEffect] = tr("makespan %1 → %2 µs (%3%4%)")
                                     .arg(m_makespanBefore, 0, 'f', 3)
                                     .arg(makespanUs, 0, 'f', 3)
                                     .arg(delta >= 0 ? "+" : "")
                                     .arg(100.0 * delta / m_makespanBefore, 0, 'f', 1);
  }
  m_pendingEffect.clear();
  if (ok) m_lastMakespan = makespanUs;
  fillOverrideList();
}

void GraphWorkbench::fillOverrideList() {
  const nlohmann::ordered_json& entries = m_settings->partitionOverrides();
  int row = m_overrides->currentRow();
  m_overrides->clear();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    QString text = QStringLiteral("%1. %2").arg(i + 1).arg(entryText(entries[i]));
    auto effect = m_effects.find(entries[i].dump());
    if (effect != m_effects.end()) text += QStringLiteral("\n    ") + effect->second;
    else if (entries[i].is_object() && entries[i].contains("note")) text += QStringLiteral("\n    ") + qtext(entries[i]["note"].dump());
    auto* item = new QListWidgetItem(text, m_overrides);
    item->setToolTip(qtext(entries[i].dump(2)));
  }
  if (entries.empty()) {
    auto* item = new QListWidgetItem(tr("None. Drag a tile op onto another subgraph in the tile or block graph."), m_overrides);
    item->setFlags(Qt::NoItemFlags);
  }
  if (row >= 0 && row < m_overrides->count()) m_overrides->setCurrentRow(row);
}

bool GraphWorkbench::exportView(const QString& path, QString* error) {
  const IrGraphLayout* layout = m_view->graphLayout();
  if (!layout || !layout->graph) {
    if (error) *error = tr("there is no graph to export");
    return false;
  }
  QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("dot") || suffix == QLatin1String("gv")) {
    std::string reason;
    if (!writeFileAtomically(path.toStdString(), visibleGraphToDot(*layout->graph, layout->visible), reason)) {
      if (error) *error = qtext(reason);
      return false;
    }
    return true;
  }
  const double scale = 1.0;
  QSize size(static_cast<int>(layout->width * scale) + 40, static_cast<int>(layout->height * scale) + 40);
  if (suffix == QLatin1String("svg")) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    QPainter painter(&generator);
    painter.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Base));
    painter.translate(20, 20);
    m_view->renderWhole(painter, scale);
    return painter.end();
  }
  QImage image(size.boundedTo(QSize(16000, 16000)), QImage::Format_ARGB32);
  image.fill(palette().color(QPalette::Base));
  QPainter painter(&image);
  painter.translate(20, 20);
  m_view->renderWhole(painter, scale);
  painter.end();
  if (!image.save(path)) {
    if (error) *error = tr("cannot write %1").arg(path);
    return false;
  }
  return true;
}

} // namespace pto::widgets
