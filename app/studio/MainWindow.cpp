// pto-studio's main window.
#include "app/studio/MainWindow.h"

#include "app/studio/GraphWorkbench.h"
#include "widgets/IrGraphView.h"
#include "widgets/QtText.h"

#include "analysis/simulation/CostModelOutput.h"

#include "app/studio/ProjectRunJob.h"

#include "analysis/run/RunSummary.h"
#include "analysis/simulation/TunedConfig.h"
#include "core/AtomicFile.h"
#include "core/Diagnostics.h"
#include "runtime/trace/ChromeTraceWriter.h"
#include "widgets/models/EditorDiagnostics.h"
#include "core/project/FolderTrust.h"
#include "core/project/ProjectFile.h"
#include "core/project/ProjectTemplates.h"
#include "app/studio/AdviceController.h"
#include "app/studio/EditRecoveryController.h"
#include "widgets/NoticeBar.h"
#include "widgets/AdvicePanel.h"
#include "widgets/HealthPanel.h"
#include "widgets/RunsPanel.h"
#include "app/studio/ComparisonController.h"
#include "widgets/MeasuredPanel.h"
#include "widgets/ProblemsPanel.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/TuningPanel.h"
#include "widgets/SourceEditor.h"
#include "widgets/SummaryPanel.h"
#include "widgets/SwimlanePane.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TaskDetailsPanel.h"
#include "widgets/TaskGraphView.h"
#include "widgets/models/TaskGraphLayout.h"
#include "widgets/models/TimeFormat.h"
#include "widgets/models/TraceLoading.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDateTime>
#include <QDir>
#include <QLocale>
#include <QDockWidget>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QPushButton>
#include <QStandardPaths>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QPointer>
#include <QToolBar>

#include <algorithm>
#include <cstdio>
#include <map>

namespace pto::studio {
namespace {

using widgets::qtext;

constexpr int kMaxRecentFiles = 8;
constexpr int kLayoutVersion = 5;  // bump when docks change, so old saved layouts are ignored
// Auto-run pauses: a settings edit is one deliberate change; typing in the
// kernel is many, and a half-typed line should not start a run.
constexpr int kSettingsEditDelayMs = 250;
constexpr int kSourceEditDelayMs = 900;


QString projectFileName() { return QString::fromUtf8(kProjectFileName.data(), static_cast<qsizetype>(kProjectFileName.size())); }

QString formatted(const DiagnosticEngine& diags) {
  QString message;
  for (const Diagnostic& diagnostic : diags.diagnostics()) message += QString::fromStdString(diags.format(diagnostic)) + '\n';
  return message.trimmed();
}

// The source file most of a trace's tasks name, as the trace writes it
// (empty when none names one).
QString mainSourceFile(const trace::Trace& trc) {
  std::map<trace::StringId, std::size_t> counts;
  for (const trace::Task& task : trc.tasks())
    if (task.sourceFile != trace::kEmptyString) ++counts[task.sourceFile];
  auto most = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == counts.end() ? QString() : qtext(trc.str(most->first));
}

// Where `source` (as a trace names it) is on this machine: the path itself
// when absolute, else relative to the trace's folder or the nearest folder
// above it that has it (a simulator's output folder sits below the kernel's).
// Empty when not found.
QString locateTraceSource(const QString& source, const QString& traceFile) {
  QFileInfo written(source);
  if (written.isAbsolute()) return written.isFile() ? written.absoluteFilePath() : QString();
  QDir dir = QFileInfo(traceFile).absoluteDir();
  do {
    QFileInfo candidate(dir.filePath(source));
    if (candidate.isFile()) return candidate.absoluteFilePath();
  } while (dir.cdUp());
  return QString();
}

bool sameFile(const QString& a, const QString& b) {
  QString canonicalA = QFileInfo(a).canonicalFilePath();
  return !canonicalA.isEmpty() && canonicalA == QFileInfo(b).canonicalFilePath();
}

} // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("MainWindow"));
  // The two pictures of a run share the centre: its timeline and its graph.
  m_centralTabs = new QTabWidget(this);
  m_centralTabs->setDocumentMode(true);
  m_swimlanePane = new widgets::SwimlanePane(this);  // the lanes and the ReadyCount strip under them
  m_swimlane = m_swimlanePane->view();
  m_graph = new widgets::TaskGraphView(this);
  m_centralTabs->addTab(m_swimlanePane, tr("Swimlane"));
  // Decisions that must not block (recovered work, another window on the
  // project, an untrusted folder) sit in bars above the central views.
  auto* centre = new QWidget(this);
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->setSpacing(0);
  m_notices = new widgets::NoticeArea(centre);
  m_recovery = new EditRecoveryController([this] { return unsavedEdits(); }, this);
  connect(m_recovery, &EditRecoveryController::autosaveFailed, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10000); });
  centreLayout->addWidget(m_notices);
  centreLayout->addWidget(m_centralTabs, 1);
  setCentralWidget(centre);
  connect(m_graph, &widgets::TaskGraphView::taskActivated, this, [this](trace::TaskIndex task) {
    m_swimlane->selectTask(task, true);
  });
  createDocks();
  // The graphs of every IR level; the run's task graph is its execute level.
  m_workbench = new GraphWorkbench(m_graph, m_settings, this);
  m_centralTabs->addTab(m_workbench, tr("Graphs"));
  m_workbench->setRequestProvider([this]() -> std::optional<ProjectRunRequest> {
    if (!m_project || !m_projectTrusted) return std::nullopt;
    return runRequest();
  });
  connect(m_centralTabs, &QTabWidget::currentChanged, this, [this] {
    if (m_centralTabs->currentWidget() == m_workbench) m_workbench->refresh();
    updateTaskGraph();
  });
  connect(m_workbench, &GraphWorkbench::taskGraphWanted, this, [this] {
    updateTaskGraph();
    // Already laid out for this trace: say so, as a new layout would.
    if (!m_graphJobs.busy() && m_graphSerial == m_traceSerial && m_centralTabs->currentWidget() == m_workbench)
      Q_EMIT graphLaidOut();
  });
  connect(m_workbench, &GraphWorkbench::laidOut, this, &MainWindow::graphLaidOut);
  connect(m_workbench, &GraphWorkbench::lineRequested, this, [this](int line) {
    if (!m_editor->filePath().isEmpty()) m_editor->showLine(line);
  });
  connect(m_workbench, &GraphWorkbench::subgraphRequested, this, [this](std::int64_t subgraph) {
    if (!m_trace) return;
    std::vector<trace::TaskIndex> tasks;
    const auto& all = m_trace->trace().tasks();
    for (std::size_t t = 0; t < all.size(); ++t)
      if (all[t].subgraph == subgraph) tasks.push_back(static_cast<trace::TaskIndex>(t));
    if (!tasks.empty()) m_swimlane->showTasks(std::move(tasks));
  });
  connect(m_workbench, &GraphWorkbench::partitionEdited, this, &MainWindow::runProject);
  connect(m_workbench, &GraphWorkbench::statusMessage, this, [this](const QString& text) {
    statusBar()->showMessage(text, 10000);
  });
  createActions();
  createRunsDock();
  createMeasuredDock();
  createAdviceDock();
  connect(m_swimlane, &widgets::SwimlaneView::taskSelected, this, &MainWindow::onTaskSelected);
  connect(m_swimlane, &widgets::SwimlaneView::statusMessage, this, [this](const QString& text) {
    statusBar()->showMessage(text, 8000);
  });
  connect(m_details, &widgets::TaskDetailsPanel::taskActivated, this, [this](trace::TaskIndex task) {
    m_swimlane->selectTask(task, true);
  });
  // The health report's rows link to tasks (the swimlane's ids are the tasks') and kernel lines.
  connect(m_health, &widgets::HealthPanel::taskActivated, this, [this](int task) {
    if (m_trace && task >= 0 && static_cast<std::size_t>(task) < m_trace->trace().tasks().size())
      m_swimlane->selectTask(static_cast<trace::TaskIndex>(task), true);
  });
  connect(m_health, &widgets::HealthPanel::lineActivated, this, [this](const QString& file, int line) {
    if (!m_editor->filePath().isEmpty() && QFileInfo(file).fileName() == QFileInfo(m_editor->filePath()).fileName())
      m_editor->showLine(line);
  });
  connect(m_editor, &widgets::SourceEditor::lineClicked, this, &MainWindow::onEditorLineClicked);
  connect(m_editor, &QsciScintilla::modificationChanged, this, [this] {
    updateTitle();
    m_recovery->editsChanged();
  });
  connect(m_editor, &QsciScintilla::textChanged, this, [this] {
    scheduleAutoRun(kSourceEditDelayMs);
    m_recovery->editsChanged();
  });

  connect(m_problems, &widgets::ProblemsPanel::locationActivated, this, &MainWindow::onProblemActivated);
  connect(m_settings, &widgets::ProjectSettingsDocument::settingsChanged, this, &MainWindow::onSettingsChanged);
  connect(m_settings, &widgets::ProjectSettingsDocument::modifiedChanged, this, &MainWindow::setSettingsModified);
  connect(m_tuning, &widgets::TuningPanel::kernelRewriteRequested, this, &MainWindow::replaceKernelText);
  m_tuning->setKernelSourceProvider([this] { return m_editor->text(); });
  m_autoRunTimer.setSingleShot(true);
  connect(&m_autoRunTimer, &QTimer::timeout, this, &MainWindow::runProject);
  connect(&m_runJobs, &JobRunner::busyChanged, this, [this](bool busy) {
    if (!busy) Q_EMIT runStageChanged(QString());
  });
  connect(&m_traceJobs, &JobRunner::busyChanged, this, [this](bool busy) {
    if (busy) statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(m_traceFile).fileName()));
  });

  resize(1500, 900);
  m_defaultLayout = saveState(kLayoutVersion);
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kLayoutVersion);
  rebuildRecentMenu();
  updateTitle();
  statusBar()->showMessage(tr("Open a project or a swimlane trace with Ctrl+O. F1 lists the keys."));
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  setDockNestingEnabled(true);
  m_editor = new widgets::SourceEditor(this);
  m_editorDock = new QDockWidget(tr("Source"), this);
  m_editorDock->setObjectName(QStringLiteral("SourceDock"));
  m_editorDock->setWidget(m_editor);
  addDockWidget(Qt::LeftDockWidgetArea, m_editorDock);

  m_summary = new widgets::SummaryPanel(this);
  m_summaryDock = new QDockWidget(tr("Summary"), this);
  m_summaryDock->setObjectName(QStringLiteral("SummaryDock"));
  m_summaryDock->setWidget(m_summary);
  addDockWidget(Qt::RightDockWidgetArea, m_summaryDock);

  m_details = new widgets::TaskDetailsPanel(this);
  m_detailsDock = new QDockWidget(tr("Task details"), this);
  m_detailsDock->setObjectName(QStringLiteral("DetailsDock"));
  m_detailsDock->setWidget(m_details);
  addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);
  splitDockWidget(m_summaryDock, m_detailsDock, Qt::Vertical);

  // Tuning shares the right column with the task details: opening a project
  // raises it, clicking a task raises the details.
  m_settings = new widgets::ProjectSettingsDocument(this);
  m_tuning = new widgets::TuningPanel(m_settings, this);
  m_tuningDock = new QDockWidget(tr("Tuning"), this);
  m_tuningDock->setObjectName(QStringLiteral("TuningDock"));
  m_tuningDock->setWidget(m_tuning);
  addDockWidget(Qt::RightDockWidgetArea, m_tuningDock);
  tabifyDockWidget(m_detailsDock, m_tuningDock);
  m_detailsDock->raise();

  // The health report shares the summary's place: the run at a glance first,
  // why it takes that long one tab away.
  m_health = new widgets::HealthPanel(this);
  m_healthDock = new QDockWidget(tr("Health"), this);
  m_healthDock->setObjectName(QStringLiteral("HealthDock"));
  m_healthDock->setWidget(m_health);
  addDockWidget(Qt::RightDockWidgetArea, m_healthDock);
  tabifyDockWidget(m_summaryDock, m_healthDock);
  m_summaryDock->raise();

  m_problems = new widgets::ProblemsPanel(this);
  m_problemsDock = new QDockWidget(tr("Problems"), this);
  m_problemsDock->setObjectName(QStringLiteral("ProblemsDock"));
  m_problemsDock->setWidget(m_problems);
  addDockWidget(Qt::BottomDockWidgetArea, m_problemsDock);
  m_problemsDock->hide();  // shown when a run reports something
  resizeDocks({m_editorDock, m_summaryDock}, {400, 370}, Qt::Horizontal);
  resizeDocks({m_summaryDock, m_detailsDock}, {300, 540}, Qt::Vertical);
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New project from an example…"), QKeySequence::New, this, &MainWindow::newProject);
  QAction* openAction = file->addAction(tr("&Open…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Open a project or a swimlane trace"), QString(),
                                                tr("Projects and traces (*.json);;All files (*)"));
    if (!path.isEmpty()) open(path);
  });
  openAction->setShortcut(QKeySequence::Open);
  QAction* openFolder = file->addAction(tr("Open project &folder…"), this, [this] {
    QString path = QFileDialog::getExistingDirectory(this, tr("Open a project folder"));
    if (!path.isEmpty()) open(path);
  });
  openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  m_recentMenu = file->addMenu(tr("Open &recent"));
  QAction* saveAction = file->addAction(tr("&Save"), this, [this] {
    // A project file fixed in the editor: saving it is the way to open it.
    if (save() && !m_brokenProjectFile.isEmpty() && m_editor->filePath() == m_brokenProjectFile) reloadProject();
  });
  saveAction->setShortcut(QKeySequence::Save);
  m_trustAction = file->addAction(tr("&Trust this folder"), this, [this] { setProjectTrusted(!m_projectTrusted); });
  m_trustAction->setCheckable(true);
  m_trustAction->setEnabled(false);
  m_trustAction->setToolTip(tr("Whether the open project's Python may run; remembered per folder (pto trust lists them)"));
  QAction* reloadAction = file->addAction(tr("Re&load the project"), this, &MainWindow::reloadProject);
  reloadAction->setShortcut(QKeySequence(Qt::Key_F5));
  reloadAction->setToolTip(tr("Read the project file again (after fixing it, or editing it elsewhere)"));
  file->addSeparator();
  m_exportMenu = file->addMenu(tr("&Export"));
  m_exportMenu->addAction(tr("Tuned &config (JSON)…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the tuned config"), suggestedExportPath(QStringLiteral("-tuned.json")),
                                                tr("Tuned config (*.json)"));
    if (!path.isEmpty()) exportTunedConfig(path);
  });
  m_exportMenu->addAction(tr("Swimlane as P&NG…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the swimlane as PNG"), suggestedExportPath(QStringLiteral("-swimlane.png")),
                                                tr("PNG image (*.png)"));
    if (!path.isEmpty()) exportSwimlaneImage(path);
  });
  m_exportMenu->addAction(tr("Swimlane as &SVG…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the swimlane as SVG"), suggestedExportPath(QStringLiteral("-swimlane.svg")),
                                                tr("SVG image (*.svg)"));
    if (!path.isEmpty()) exportSwimlaneImage(path);
  });
  m_exportMenu->addAction(tr("&Perfetto trace (JSON)…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the swimlane for ui.perfetto.dev"),
                                                suggestedExportPath(QStringLiteral("-trace.json")), tr("Chrome/Perfetto trace (*.json)"));
    if (!path.isEmpty()) exportPerfettoTrace(path);
  });
  m_exportMenu->addAction(tr("&Graph (DOT, SVG or PNG)…"), this, [this] {
    QString level = QString::fromUtf8(name(m_workbench->level()).data());
    QString path = QFileDialog::getSaveFileName(this, tr("Export the graph as shown"),
                                                suggestedExportPath(QStringLiteral("-%1.svg").arg(level)),
                                                tr("SVG image (*.svg);;Graphviz (*.dot);;PNG image (*.png)"));
    QString error;
    if (!path.isEmpty() && !m_workbench->exportView(path, &error)) reportError(tr("Cannot export the graph"), tr("%1: %2").arg(path, error));
  });
  file->addAction(tr("&Import tuned config…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Import a tuned config into the project"),
                                                m_project ? QString::fromStdString(m_project->directory().string()) : QString(),
                                                tr("Tuned config (*.json)"));
    if (!path.isEmpty()) importTunedConfig(path);
  });
  file->addSeparator();
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  // Settings edits have their own history; the kernel editor keeps its own
  // Ctrl+Z while it has the focus (QScintilla claims the key first).
  QAction* undo = m_settings->undoStack()->createUndoAction(this, tr("&Undo settings edit"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_settings->undoStack()->createRedoAction(this, tr("&Redo settings edit"));
  redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  edit->addAction(undo);
  edit->addAction(redo);
  addAction(undo);
  addAction(redo);
  edit->addSeparator();
  edit->addAction(tr("&Find in the kernel…"), this, [this] {
    raiseEditor();
    m_editor->openFindBar(false);
  });
  edit->addAction(tr("&Write tile shapes back into the kernel"), m_tuning, &widgets::TuningPanel::writeShapesBack);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* runAction = run->addAction(tr("&Run the project"), this, &MainWindow::runProject);
  runAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
  QAction* cancelAction = run->addAction(tr("&Cancel the run"), this, &MainWindow::cancelRun);
  cancelAction->setShortcut(QKeySequence(Qt::Key_Escape));
  cancelAction->setShortcutContext(Qt::ApplicationShortcut);
  // Enabled only while a run goes on, so Esc otherwise keeps its usual
  // meaning in the widget that has the focus.
  cancelAction->setEnabled(false);
  connect(&m_runJobs, &JobRunner::busyChanged, cancelAction, &QAction::setEnabled);
  run->addSeparator();
  m_autoRunAction = run->addAction(tr("&Auto-run on edits"));
  m_autoRunAction->setCheckable(true);
  m_autoRunAction->setToolTip(tr("Rerun shortly after each settings or kernel edit"));
  m_autoRunAction->setChecked(QSettings().value(QStringLiteral("run/auto"), true).toBool());
  connect(m_autoRunAction, &QAction::toggled, this, [](bool on) { QSettings().setValue(QStringLiteral("run/auto"), on); });
  run->addSeparator();
  run->addAction(tr("Compare with a &measured trace…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("A swimlane measured on the chip"), QString(),
                                                tr("Swimlanes (*.json);;All files (*)"));
    if (!path.isEmpty()) compareWithMeasured(path);
  });
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));

  m_viewMenu = menuBar()->addMenu(tr("&View"));
  m_viewMenu->addAction(tr("&Fit the trace"), QKeySequence(Qt::Key_F), m_swimlane, &widgets::SwimlaneView::fit)
      ->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  QAction* critical = m_viewMenu->addAction(tr("&Critical path"));
  critical->setCheckable(true);
  critical->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  connect(critical, &QAction::toggled, m_swimlane, &widgets::SwimlaneView::setShowCriticalPath);
  QAction* find = m_viewMenu->addAction(tr("Find &task…"));
  find->setShortcut(QKeySequence::Find);
  m_viewMenu->addSeparator();
  for (QDockWidget* dock : {m_editorDock, m_detailsDock, m_tuningDock, m_summaryDock, m_healthDock, m_problemsDock})
    m_viewMenu->addAction(dock->toggleViewAction());
  m_viewMenu->addSeparator();
  m_viewMenu->addAction(tr("&Reset layout"), this, [this] { restoreState(m_defaultLayout, kLayoutVersion); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keys and mouse"), QKeySequence::HelpContents, this, &MainWindow::showHelp);
  help->addAction(tr("&About PTO Studio"), this, [this] {
    QMessageBox::about(this, tr("About PTO Studio"),
                       tr("<b>PTO Studio</b><br>Write and tune fused tile operators for AI accelerators."));
  });

  // The swimlane's own controls, next to it.
  QToolBar* bar = addToolBar(tr("Swimlane"));
  bar->setObjectName(QStringLiteral("SwimlaneToolBar"));
  bar->setMovable(false);
  bar->addAction(tr("Fit"), m_swimlane, &widgets::SwimlaneView::fit)->setToolTip(tr("Show the whole trace (F)"));
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Colour by "), bar));
  m_colorMode = new QComboBox(bar);
  m_colorMode->addItems({tr("semantic label"), tr("subgraph"), tr("bound type"), tr("error vs measured")});
  m_colorMode->setToolTip(tr("Bound type: the pipe group busiest inside each task (memory-in, cube, vector, memory-out, "
                             "scalar). Error vs measured: each task's measured against simulated duration, once a "
                             "measured trace is compared (Run > Compare with a measured trace)"));
  connect(m_colorMode, &QComboBox::currentIndexChanged, this, [this](int index) {
    static constexpr widgets::SwimlaneColorMode kModes[] = {widgets::SwimlaneColorMode::Label,
                                                            widgets::SwimlaneColorMode::Subgraph,
                                                            widgets::SwimlaneColorMode::Bound, widgets::SwimlaneColorMode::Error};
    m_swimlane->setColorMode(kModes[std::clamp(index, 0, 3)]);
  });
  bar->addWidget(m_colorMode);
  bar->addSeparator();
  auto* idleBox = new QCheckBox(tr("Hide idle lanes"), bar);
  idleBox->setToolTip(tr("Collapse lanes that ran no task into one row (I)"));
  idleBox->setChecked(m_swimlane->collapsesIdleLanes());
  connect(idleBox, &QCheckBox::toggled, m_swimlane, &widgets::SwimlaneView::setCollapseIdleLanes);
  connect(m_swimlane, &widgets::SwimlaneView::idleLanesCollapsedChanged, idleBox, &QCheckBox::setChecked);
  bar->addWidget(idleBox);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Arrow depth "), bar));
  m_depth = new QSpinBox(bar);
  m_depth->setRange(0, 99);
  m_depth->setValue(1);
  m_depth->setSpecialValueText(tr("all"));
  m_depth->setToolTip(tr("How many dependency steps to draw from the selected task (all = the whole cone)"));
  connect(m_depth, &QSpinBox::valueChanged, m_swimlane, &widgets::SwimlaneView::setDependencyDepth);
  bar->addWidget(m_depth);
  bar->addSeparator();
  auto* criticalBox = new QCheckBox(tr("Critical path"), bar);
  connect(criticalBox, &QCheckBox::toggled, critical, &QAction::setChecked);
  connect(critical, &QAction::toggled, criticalBox, &QCheckBox::setChecked);
  bar->addWidget(criticalBox);
  bar->addSeparator();
  m_search = new QLineEdit(bar);
  m_search->setPlaceholderText(tr("Find: label, task id or #index  (Enter: next)"));
  m_search->setClearButtonEnabled(true);
  m_search->setMaximumWidth(320);
  connect(m_search, &QLineEdit::returnPressed, this, [this] {
    if (m_swimlane->state().highlighted.empty()) m_swimlane->search(m_search->text());
    else m_swimlane->nextMatch();
  });
  connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) m_swimlane->search(QString());
  });
  connect(find, &QAction::triggered, this, [this] {
    if (m_centralTabs->currentWidget() == m_workbench) {
      m_workbench->focusSearch();
      return;
    }
    m_search->setFocus();
    m_search->selectAll();
  });
  bar->addWidget(m_search);
}

bool MainWindow::open(const QString& path) {
  QFileInfo info(path);
  if (!info.exists()) {
    reportError(tr("Cannot open"), tr("%1: no such file or folder").arg(path));
    return false;
  }
  // A folder PyPTO's simulator mode (or a Python run here) wrote holds a
  // swimlane, not a project: open the swimlane.
  if (info.isDir() && !QFileInfo::exists(QDir(path).filePath(projectFileName()))) {
    if (auto swimlane = findSwimlane(path.toStdString())) {
      openTrace(QString::fromStdString(swimlane->string()));
      return true;
    }
  }
  if (info.isDir() || info.fileName() == projectFileName())
    return openProject(path);
  if (info.suffix().compare(QStringLiteral("json"), Qt::CaseInsensitive) == 0) {
    openTrace(path);
    return true;
  }
  reportError(tr("Cannot open"), tr("%1: not a project (folder or pto-project.json) or a swimlane trace (.json)").arg(path));
  return false;
}

bool MainWindow::openProject(const QString& path) {
  // A project file is small: it is read here. The kernel runs elsewhere.
  DiagnosticEngine diags;
  auto file = findProjectFile(path.toStdString(), diags);
  std::optional<OperatorProject> project = file ? loadProject(*file, diags) : std::nullopt;
  if (!project) {
    // A project file with errors is shown to be fixed; no file, or one the
    // editor cannot take, is only reported.
    if (!file || !showBrokenProject(QString::fromStdString(file->string()), diags)) reportError(tr("Cannot open"), formatted(diags));
    return false;
  }
  if (!confirmDiscardEdits()) return false;
  m_recovery->close();
  m_notices->dismiss(QStringLiteral("recovery"));
  m_notices->dismiss(QStringLiteral("recovery-problem"));
  m_notices->dismiss(QStringLiteral("instance"));
  m_brokenProjectFile.clear();
  m_projectFile = QString::fromStdString(project->file.string());
  m_project = std::move(project);
  m_previousMakespanUs = 0.0;  // a delta against another project would mislead
  m_previousRun.reset();
  m_loadingSettings = true;
  m_settings->load(*m_project);
  m_loadingSettings = false;
  m_tuning->setProject(*m_project, std::shared_ptr<const TensorGraph>());
  m_tuning->setEnabled(true);
  m_tuningDock->show();
  m_tuningDock->raise();
  m_lastRun = {};
  m_problems->setDiagnostics({});
  QString error;
  if (!m_editor->loadFile(QString::fromStdString(m_project->sourcePath().string()), &error)) {
    reportError(tr("Cannot open"), error);
    return false;
  }
  updateLineLabels();
  addRecentFile(m_projectFile);
  guardProject();
  m_projectTrusted = isFolderTrusted(m_project->directory());
  m_notices->dismiss(QStringLiteral("trust"));
  if (!m_projectTrusted) offerTrust();
  updateTrustAction();
  m_comparisons->setProject(m_project->directory());  // the runs recorded before, listed while the first run goes
  m_adviceController->setProjectOpen(true);  // the previous project's advice goes
  m_editorDock->show();
  m_workbench->invalidate();
  updateTitle();
  // Opening shows the project's swimlane at once unless the user turned
  // auto-run off (a slow kernel then waits for Ctrl+R).
  if (autoRun() && m_projectTrusted) runProject();
  else if (!m_projectTrusted) statusBar()->showMessage(tr("Opened %1 without running it: its folder is not trusted.").arg(QString::fromStdString(m_project->name)));
  else statusBar()->showMessage(tr("Opened %1; Ctrl+R runs it.").arg(QString::fromStdString(m_project->name)));
  return true;
}

bool MainWindow::showBrokenProject(const QString& file, const DiagnosticEngine& diags) {
  if (!confirmDiscardEdits()) return false;
  QString error;
  if (!m_editor->loadFile(file, &error)) return false;
  // The editor no longer holds the open project's kernel: that project goes.
  closeProject();
  m_brokenProjectFile = file;
  m_editor->setDiagnostics(widgets::editorDiagnostics(diags.diagnostics(), file.toStdString()));
  m_problems->setDiagnostics(diags.diagnostics());
  m_problemsDock->show();
  m_problemsDock->raise();
  raiseEditor();
  // The caret at the first error, the line in view.
  for (const Diagnostic& diagnostic : diags.diagnostics()) {
    if (diagnostic.severity != Severity::Error || diagnostic.location.line <= 0) continue;
    m_editor->setCursorPosition(diagnostic.location.line - 1, std::max(0, diagnostic.location.column - 1));
    m_editor->ensureLineVisible(diagnostic.location.line - 1);
    break;
  }
  addRecentFile(file);
  updateTitle();
  QString message = formatted(diags);
  std::fprintf(stderr, "pto-studio: %s\n", message.toLocal8Bit().constData());
  int errors = m_problems->errorCount();
  statusBar()->showMessage(tr("%1 has %2 (see Problems): fix it here and save (Ctrl+S) to open the project.")
                               .arg(QFileInfo(file).fileName(), errors == 1 ? tr("an error") : tr("%1 errors").arg(errors)));
  Q_EMIT openFailed(message);
  return true;
}

EditRecovery MainWindow::unsavedEdits() const {
  EditRecovery edits;
  if (m_editor->isModified() && !m_editor->filePath().isEmpty())
    edits.editor = RecoveredFile{m_editor->filePath().toStdString(), m_editor->text().toStdString()};
  if (m_project && m_settingsModified) edits.project = RecoveredFile{m_project->file, serializeProject(*m_project)};
  return edits;
}

void MainWindow::guardProject() {
  DiagnosticEngine diags;
  std::optional<EditRecovery> recovered =
      m_recovery->open(QString::fromStdString(m_project->directory().string()), diags);
  // An unreadable recovery, or one that could not be set aside, stays where
  // it is: the bar names the file and why.
  if (diags.hasErrors())
    m_notices->show(QStringLiteral("recovery-problem"), widgets::NoticeBar::Kind::Warning,
                    tr("Unsaved edits from an earlier session cannot be offered back; the file is kept for you: %1")
                        .arg(QString::fromStdString(diags.format(diags.diagnostics().front()))));
  if (!m_recovery->otherInstance().isEmpty()) {
    m_notices->show(QStringLiteral("instance"), widgets::NoticeBar::Kind::Warning,
                    tr("This project is already open in another PTO Studio (%1). Saving in both windows makes one "
                       "overwrite the other, and this window does not autosave; close one of them.")
                        .arg(m_recovery->otherInstance()));
  } else if (!m_recovery->autosaveError().isEmpty()) {
    statusBar()->showMessage(m_recovery->autosaveError(), 10000);
  }
  if (recovered) offerRecovery(*recovered);
}

void MainWindow::offerRecovery(const EditRecovery& recovered) {
  QStringList what;
  if (recovered.editor) what << QFileInfo(QString::fromStdString(recovered.editor->file.string())).fileName();
  if (recovered.project) what << tr("the settings (%1)").arg(QFileInfo(QString::fromStdString(recovered.project->file.string())).fileName());
  QString when = QString::fromStdString(recovered.writtenAt);
  QDateTime written = QDateTime::fromString(when, Qt::ISODate);
  if (written.isValid()) when = QLocale().toString(written.toLocalTime(), QLocale::ShortFormat);
  widgets::NoticeBar* bar = m_notices->show(
      QStringLiteral("recovery"), widgets::NoticeBar::Kind::Information,
      tr("PTO Studio closed with unsaved edits to %1 (autosaved %2). Restore them into the editor and settings (they "
         "stay unsaved until you save), or discard them? Until you choose they are kept in .pto/recovered/.")
          .arg(what.join(tr(" and ")), when));
  bar->addAction(tr("Restore"), [this, recovered] { restoreRecovery(recovered); });
  bar->addAction(tr("Discard"), [this] { m_recovery->offerSettled(); });
  raiseEditor();
}

bool MainWindow::restoreRecovery(const EditRecovery& recovered) {
  QStringList restored;
  QStringList failed;
  if (recovered.editor) {
    if (sameFile(QString::fromStdString(recovered.editor->file.string()), m_editor->filePath())) {
      replaceKernelText(QString::fromStdString(recovered.editor->text), QString());
      restored << QFileInfo(m_editor->filePath()).fileName();
    } else {
      failed << tr("%1 is not the file in the editor").arg(QString::fromStdString(recovered.editor->file.string()));
    }
  }
  if (recovered.project && m_project) {
    // The recovered settings become one undoable settings edit: a patch from
    // the settings as loaded to the settings as they were being edited.
    DiagnosticEngine diags;
    std::optional<OperatorProject> edited = parseProject(recovered.project->text, m_project->file, diags);
    QString error;
    if (edited) {
      nlohmann::json patch = nlohmann::json::diff(nlohmann::json(m_settings->settings()),
                                                   nlohmann::json(widgets::ProjectSettingsDocument::settingsOf(*edited)));
      if (m_settings->applyPatch(patch, tr("Restore unsaved settings"), &error))
        restored << QFileInfo(m_projectFile).fileName();
      else
        failed << error;
    } else {
      failed << formatted(diags);
    }
  }
  m_recovery->autosaveNow();  // the restored edits are the unsaved edits now
  if (failed.isEmpty()) m_recovery->offerSettled();
  else
    reportError(tr("Cannot restore the unsaved edits"),
                tr("Some recovered edits were not restored: %1. They are kept in %2.")
                    .arg(failed.join(QStringLiteral("; ")), m_recovery->offeredFile()));
  if (!restored.isEmpty())
    statusBar()->showMessage(tr("Restored the unsaved edits to %1; Ctrl+S saves them, Ctrl+Z undoes them.")
                                 .arg(restored.join(tr(" and "))),
                             10000);
  return failed.isEmpty();
}

void MainWindow::offerTrust() {
  if (!m_project || m_projectTrusted || m_notices->bar(QStringLiteral("trust"))) return;
  QString folder = QString::fromStdString(std::filesystem::absolute(m_project->directory()).lexically_normal().string());
  widgets::NoticeBar* bar = m_notices->show(
      QStringLiteral("trust"), widgets::NoticeBar::Kind::Warning,
      tr("%1 is not a trusted folder. Running the project runs its Python (%2), which can do anything your account "
         "can. Trust the folder only if you trust where it came from; until then you can read and edit it, but "
         "nothing runs.")
          .arg(folder, QString::fromStdString(m_project->source)));
  bar->addAction(tr("Trust and run"), [this] {
    if (setProjectTrusted(true)) runProject();
  });
}

bool MainWindow::setProjectTrusted(bool trusted) {
  if (!m_project) return false;
  std::string error;
  bool ok = trusted ? trustFolder(m_project->directory(), error) : revokeFolderTrust(m_project->directory(), error);
  if (!ok) {
    reportError(tr("Cannot change the folder's trust"), QString::fromStdString(error));
    updateTrustAction();
    return false;
  }
  m_projectTrusted = isFolderTrusted(m_project->directory());
  if (m_projectTrusted) m_notices->dismiss(QStringLiteral("trust"));
  else if (!trusted) {
    m_runJobs.cancel();
    m_autoRunTimer.stop();
    statusBar()->showMessage(tr("No longer trusted: the project will not run until you trust its folder again."), 8000);
  }
  if (trusted == m_projectTrusted) updateTrustAction();
  else {
    // Still trusted after a revoke: PTO_TRUST or a bundled example says so.
    statusBar()->showMessage(tr("The folder stays trusted: %1.")
                                 .arg(trustGrantedByEnvironment() ? tr("PTO_TRUST is set") : tr("it is a bundled example or inside a trusted folder")),
                             8000);
    updateTrustAction();
  }
  return m_projectTrusted == trusted;
}

void MainWindow::updateTrustAction() {
  QSignalBlocker quiet(m_trustAction);
  m_trustAction->setEnabled(m_project.has_value());
  m_trustAction->setChecked(m_project && m_projectTrusted);
  // Until the project runs, its empty swimlane says why and what to do.
  if (!m_project) m_swimlane->setEmptyMessage(QString());
  else if (m_projectTrusted)
    m_swimlane->setEmptyMessage(tr("%1 has not run yet.\nCtrl+R runs it.").arg(QString::fromStdString(m_project->name)));
  else
    m_swimlane->setEmptyMessage(tr("%1 has not run: its folder is not trusted, and running it runs its Python.\n"
                                   "Trust it in the bar above (or File > Trust this folder) to run it.")
                                    .arg(QString::fromStdString(m_project->name)));
}

void MainWindow::closeProject() {
  m_recovery->close();
  m_notices->dismiss(QStringLiteral("recovery"));
  m_notices->dismiss(QStringLiteral("recovery-problem"));
  m_notices->dismiss(QStringLiteral("instance"));
  m_notices->dismiss(QStringLiteral("trust"));
  m_projectTrusted = false;
  m_autoRunTimer.stop();
  m_runJobs.cancel();
  m_project.reset();
  updateTrustAction();
  m_projectFile.clear();
  m_brokenProjectFile.clear();
  m_lastRun = {};
  m_previousRun.reset();
  m_previousMakespanUs = 0.0;
  setSettingsModified(false);
  // The settings shown are the old project's: editing them would change nothing.
  m_tuning->setEnabled(false);
  m_comparisons->setProject(std::nullopt);
  m_adviceController->setProjectOpen(false);
  m_traceFile.clear();
  setTrace(nullptr);
  m_workbench->invalidate();
}

void MainWindow::reloadProject() {
  QString file = !m_brokenProjectFile.isEmpty() ? m_brokenProjectFile : m_projectFile;
  if (file.isEmpty()) {
    statusBar()->showMessage(tr("No project to reload: open one with Ctrl+O."), 6000);
    return;
  }
  open(file);
}

ProjectRunRequest MainWindow::runRequest() const {
  ProjectRunRequest request{*m_project, std::nullopt};
  if (m_editor->isModified()) request.sourceText = m_editor->text().toStdString();
  return request;
}

void MainWindow::runProject() {
  m_autoRunTimer.stop();
  if (!m_project) {
    if (!m_brokenProjectFile.isEmpty())
      statusBar()->showMessage(tr("Fix the errors in %1 and save it (Ctrl+S) to open the project.")
                                   .arg(QFileInfo(m_brokenProjectFile).fileName()),
                               8000);
    else
      statusBar()->showMessage(tr("Open a project to run it (Ctrl+O), or start one with Ctrl+N."), 8000);
    return;
  }
  if (!m_projectTrusted) {
    offerTrust();
    statusBar()->showMessage(tr("Not run: this folder is not trusted (see the bar above the swimlane)."), 8000);
    return;
  }
  // Progress comes from the worker thread; it is shown only while the run
  // that sent it is the current one.
  quint64 generation = m_runJobs.generation() + 1;
  QPointer<MainWindow> window(this);
  auto current = [window, generation] {
    return window && window->m_runJobs.generation() == generation && window->m_runJobs.busy();
  };
  ProjectRunProgress progress;
  progress.onStage = [window, current](std::string_view stage) {
    QString name = QString::fromUtf8(stage.data(), static_cast<qsizetype>(stage.size()));
    QMetaObject::invokeMethod(
        window.data(),
        [window, current, name] {
          if (!current()) return;
          if (!window->m_runShown)
            window->statusBar()->showMessage(
                tr("Running %1: %2… (Esc cancels)").arg(QString::fromStdString(window->m_project->name), name));
          Q_EMIT window->runStageChanged(name);
        },
        Qt::QueuedConnection);
  };
  progress.onSwimlane = [window, current](ProjectRunOutcome early) {
    QMetaObject::invokeMethod(
        window.data(),
        [window, current, early = std::move(early)] {
          if (current()) window->showRunTimeline(early);
        },
        Qt::QueuedConnection);
  };
  m_runShown = false;
  statusBar()->showMessage(tr("Running %1… (Esc cancels)").arg(QString::fromStdString(m_project->name)));
  m_runJobs.start<ProjectRunOutcome>(
      [request = runRequest(), progress](const std::atomic<bool>& cancelled) {
        return runProjectForViews(request, cancelled, progress);
      },
      [this](ProjectRunOutcome outcome) { onRunFinished(std::move(outcome)); });
}

void MainWindow::showRunTimeline(const ProjectRunOutcome& run) {
  if (m_runShown) return;
  m_runShown = true;
  m_runDelta.clear();
  if (m_previousMakespanUs > 0.0) {
    double change = run.makespanUs - m_previousMakespanUs;
    m_runDelta = tr(" (%1%2 µs, %3%4% against the previous run)")
                     .arg(change >= 0 ? "+" : "")
                     .arg(change, 0, 'f', 3)
                     .arg(change >= 0 ? "+" : "")
                     .arg(100.0 * change / m_previousMakespanUs, 0, 'f', 1);
  }
  m_previousMakespanUs = run.makespanUs;
  setTrace(run.trace, true);
  statusBar()->showMessage(tr("%1 on %2: makespan %3 µs%4; checking precision…")
                               .arg(QString::fromStdString(run.projectName), QString::fromStdString(run.machine))
                               .arg(run.makespanUs, 0, 'f', 3)
                               .arg(m_runDelta));
}

void MainWindow::onRunFinished(ProjectRunOutcome outcome) {
  m_lastRun = std::move(outcome);
  const ProjectRunOutcome& run = m_lastRun;
  m_problems->setDiagnostics(run.diagnostics);
  m_editor->setDiagnostics(widgets::editorDiagnostics(run.diagnostics, m_editor->filePath().toStdString()));
  if (m_project && run.graph) m_tuning->setProject(*m_project, run.graph);
  if (m_problems->errorCount() + m_problems->warningCount() > 0) m_problemsDock->show();
  if (!run.trace) {
    // The last good swimlane stays: while typing, a half-written kernel
    // should not blank the view. The problems say what went wrong.
    QString first = QString::fromStdString(run.problems).section('\n', 0, 0);
    statusBar()->showMessage(tr("The run failed: %1").arg(first.isEmpty() ? tr("see Problems") : first));
    std::fprintf(stderr, "pto-studio: the run failed:\n%s", run.problems.c_str());
    m_problemsDock->show();
    m_problemsDock->raise();
    // (A cancelled run never gets here: JobRunner drops its result.)
    m_summary->setRunFailed(tr("The run failed: %1").arg(first));
    m_workbench->noteRunMakespan(0.0, false);
    m_workbench->invalidate();
    Q_EMIT runFinished(false);
    Q_EMIT traceLoaded();
    return;
  }
  showRunTimeline(run);  // when the early swimlane did not arrive first
  if (run.result) {
    RunSummary summary = m_previousRun ? summarizeRun(*run.result, run.projectName, *m_previousRun)
                                       : summarizeRun(*run.result, run.projectName);
    if (run.health) addHealth(summary, *run.health);
    m_summary->setRun(summary, run.trace);
    m_previousRun = summary;
  }
  if (run.health) m_health->setReport(*run.health);
  statusBar()->showMessage(tr("%1 on %2: makespan %3 µs%4; precision %5; ran in %6 ms")
                               .arg(QString::fromStdString(run.projectName), QString::fromStdString(run.machine))
                               .arg(run.makespanUs, 0, 'f', 3)
                               .arg(m_runDelta)
                               .arg(!run.precisionChecked ? tr("not checked")
                                    : run.pass             ? tr("pass")
                                                           : tr("FAIL (%1 outputs)").arg(run.failedOutputs))
                               .arg(run.hostMs, 0, 'f', 0));
  m_workbench->noteRunMakespan(run.makespanUs, true);
  m_workbench->invalidate();  // the kernel text it compiled may have changed since
  Q_EMIT runFinished(true);
  Q_EMIT traceLoaded();
}

void MainWindow::setAutoRun(bool on) { m_autoRunAction->setChecked(on); }
bool MainWindow::autoRun() const { return m_autoRunAction->isChecked(); }

void MainWindow::scheduleAutoRun(int delayMs) {
  if (!m_project || !autoRun()) return;
  // A newer edit restarts the pause; a run in flight is superseded when the
  // timer fires, not now, so a quick typist does not cancel every run.
  m_autoRunTimer.start(delayMs);
}

void MainWindow::onSettingsChanged() {
  if (m_loadingSettings || !m_project) return;
  m_settings->applyTo(*m_project);
  setSettingsModified(m_settings->isModified());
  m_workbench->invalidate();
  scheduleAutoRun(kSettingsEditDelayMs);
}

void MainWindow::replaceKernelText(const QString& newSource, const QString& summary) {
  // One undo step in the editor, keeping the view where it was.
  int firstLine = m_editor->firstVisibleLine();
  int line = 0;
  int index = 0;
  m_editor->getCursorPosition(&line, &index);
  m_editor->beginUndoAction();
  m_editor->selectAll();
  m_editor->replaceSelectedText(newSource);
  m_editor->endUndoAction();
  m_editor->setCursorPosition(line, index);
  m_editor->setFirstVisibleLine(firstLine);
  statusBar()->showMessage(summary, 8000);
}

bool MainWindow::importTunedConfig(const QString& path) {
  if (!m_project) {
    reportError(tr("Cannot import a tuned config"), tr("Open a project to import a tuned config into."));
    return false;
  }
  OperatorProject imported = *m_project;
  DiagnosticEngine diags;
  if (!applyTunedConfigFile(path.toStdString(), imported, diags)) {
    m_problems->setDiagnostics(diags.diagnostics());
    m_problemsDock->show();
    QString message;
    for (const Diagnostic& diagnostic : diags.diagnostics()) message += QString::fromStdString(diags.format(diagnostic)) + '\n';
    reportError(tr("Cannot import the tuned config"), message.trimmed());
    return false;
  }
  // Through the settings document, as one undoable edit.
  m_settings->undoStack()->beginMacro(tr("Import %1").arg(QFileInfo(path).fileName()));
  m_settings->setMachine(QString::fromStdString(imported.machine));
  auto replaceAll = [](const nlohmann::ordered_json& now, const nlohmann::ordered_json& wanted, auto set) {
    if (now.is_object())
      for (const auto& [key, value] : now.items())
        if (!wanted.is_object() || !wanted.contains(key)) set(QString::fromStdString(key), nlohmann::ordered_json());
    if (wanted.is_object())
      for (const auto& [key, value] : wanted.items()) set(QString::fromStdString(key), value);
  };
  for (const char* section : {"vec", "cube"}) {
    QString name = QString::fromLatin1(section);
    nlohmann::ordered_json now = m_settings->tileSettings().value(section, nlohmann::ordered_json::object());
    nlohmann::ordered_json wanted = imported.tileSettings.value(section, nlohmann::ordered_json::object());
    replaceAll(now, wanted, [&](const QString& key, const nlohmann::ordered_json& value) {
      m_settings->setTileShape(name, key, value);
    });
  }
  replaceAll(m_settings->passOptions(), imported.passOptions,
             [&](const QString& key, const nlohmann::ordered_json& value) { m_settings->setPassOption(key, value); });
  replaceAll(m_settings->runtimeOptions(), imported.runtimeOptions,
             [&](const QString& key, const nlohmann::ordered_json& value) { m_settings->setRuntimeOption(key, value); });
  m_settings->undoStack()->endMacro();
  // Partition overrides are not settings-panel edits: they go in directly.
  if (imported.partitionOverrides != m_project->partitionOverrides) {
    m_project->partitionOverrides = imported.partitionOverrides;
    m_project->partitionOverrideLocations.clear();
    setSettingsModified(true);
  }
  statusBar()->showMessage(tr("Imported %1 (Ctrl+Z undoes it)").arg(path), 8000);
  return true;
}

void MainWindow::onProblemActivated(const QString& file, int line, int column) {
  if (!m_editor->filePath().isEmpty() && QFileInfo(file).fileName() == QFileInfo(m_editor->filePath()).fileName()) {
    raiseEditor();
    if (line > 0) m_editor->showLine(line);
    return;
  }
  statusBar()->showMessage(tr("%1:%2:%3").arg(file).arg(line).arg(column), 8000);
}

void MainWindow::newProject() {
  std::vector<ExampleProject> examples = availableExamples();
  if (examples.empty()) {
    reportError(tr("Cannot create a project"), tr("No bundled examples were found beside the executable (../share/pto-studio/examples) or in the "
                   "source tree; rebuild or reinstall PTO Studio, or open an existing project with Ctrl+O."));
    return;
  }
  QDialog dialog(this);
  dialog.setWindowTitle(tr("New project"));
  auto* form = new QFormLayout(&dialog);
  auto* exampleBox = new QComboBox(&dialog);
  for (const ExampleProject& example : examples)
    exampleBox->addItem(QString::fromStdString(example.name), QString::fromStdString(example.name));
  auto* description = new QLabel(&dialog);
  description->setWordWrap(true);
  auto describe = [&] {
    description->setText(QString::fromStdString(examples[static_cast<std::size_t>(exampleBox->currentIndex())].description));
  };
  connect(exampleBox, &QComboBox::currentIndexChanged, &dialog, describe);
  describe();
  QString home = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (home.isEmpty()) home = QDir::homePath();
  auto* folder = new QLineEdit(QDir(home).filePath(QStringLiteral("pto-projects/my_operator")), &dialog);
  folder->setMinimumWidth(380);
  auto* browse = new QPushButton(tr("Browse…"), &dialog);
  connect(browse, &QPushButton::clicked, &dialog, [&] {
    QString parent = QFileDialog::getExistingDirectory(&dialog, tr("Where to create the project folder"), home);
    if (!parent.isEmpty()) folder->setText(QDir(parent).filePath(QFileInfo(folder->text()).fileName()));
  });
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(folder);
  folderRow->addWidget(browse);
  form->addRow(tr("Start from"), exampleBox);
  form->addRow(QString(), description);
  form->addRow(tr("New folder"), folderRow);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Create"));
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return;
  createProject(exampleBox->currentData().toString(), folder->text());
}

bool MainWindow::createProject(const QString& example, const QString& folder) {
  if (!confirmDiscardEdits()) return false;
  DiagnosticEngine diags;
  auto projectFile = createProjectFromExample(example.toStdString(), folder.toStdString(), diags);
  if (!projectFile) {
    QString message;
    for (const Diagnostic& diagnostic : diags.diagnostics()) message += QString::fromStdString(diags.format(diagnostic)) + '\n';
    reportError(tr("Cannot create the project"), message.trimmed());
    return false;
  }
  return open(QString::fromStdString(projectFile->string()));
}

void MainWindow::cancelRun() {
  if (!m_runJobs.busy()) return;
  m_runJobs.cancel();
  statusBar()->showMessage(tr("Run cancelled."), 5000);
}

void MainWindow::openTrace(const QString& path) {
  // The file the user asked for wins over a run still in flight.
  m_runJobs.cancel();
  m_traceFile = path;
  addRecentFile(path);
  std::string file = path.toStdString();
  m_traceJobs.start<widgets::TraceLoadResult>(
      [file](const std::atomic<bool>& cancelled) { return widgets::loadTraceFile(file, &cancelled); },
      [this, path](widgets::TraceLoadResult result) {
        if (!result.index) {
          reportError(tr("Cannot open the trace"), QString::fromStdString(result.error));
          return;
        }
        setTrace(result.index);
        QString note = showTraceSource(path);
        statusBar()->showMessage(tr("%1: %2 tasks on %3 lanes, read in %4 ms%5")
                                     .arg(QFileInfo(path).fileName())
                                     .arg(result.index->trace().tasks().size())
                                     .arg(result.index->trace().lanes().size())
                                     .arg(result.parseMs + result.indexMs, 0, 'f', 0)
                                     .arg(note.isEmpty() ? QString() : QStringLiteral("; ") + note),
                                 15000);
        Q_EMIT traceLoaded();
      });
  updateTitle();
}

QString MainWindow::showTraceSource(const QString& traceFile) {
  QString source = m_trace ? mainSourceFile(m_trace->trace()) : QString();
  QString found = source.isEmpty() ? QString() : locateTraceSource(source, traceFile);
  QString editorFile = m_editor->filePath();
  if (m_project) {
    // Most likely this project's run: the project keeps its kernel (and the
    // gutter links them by file name, as traces often name it bare).
    bool linked = found.isEmpty() ? QFileInfo(source).fileName() == QFileInfo(editorFile).fileName() : sameFile(found, editorFile);
    if (linked || source.isEmpty()) return QString();
    return tr("its tasks come from %1, not from the project's %2").arg(source, QFileInfo(editorFile).fileName());
  }
  if (!found.isEmpty() && sameFile(found, editorFile)) {
    updateLineLabels();
    return QString();
  }
  if (!confirmDiscardEdits()) return tr("its kernel is not shown: the editor has unsaved changes");
  m_brokenProjectFile.clear();
  QString error;
  if (!found.isEmpty() && m_editor->loadFile(found, &error, true)) {
    updateLineLabels();
    updateTitle();
    return tr("kernel %1 (read-only)").arg(QDir::toNativeSeparators(found));
  }
  QString traceName = QFileInfo(traceFile).fileName();
  QString folder = QDir::toNativeSeparators(QFileInfo(traceFile).absolutePath());
  QString text;
  // One paragraph a line: the editor wraps a placeholder to its width.
  if (source.isEmpty()) {
    text = tr("# No source to show.\n#\n# The tasks of %1 name no source file, so there is no kernel line to show "
              "beside the swimlane.\n").arg(traceName);
  } else if (!error.isEmpty()) {
    text = tr("# The kernel of this trace cannot be shown.\n#\n# %1 refers to %2, found as %3 but not readable: %4\n")
               .arg(traceName, source, found, error);
  } else {
    text = tr("# The kernel of this trace was not found.\n#\n# %1 refers to %2, which was not found: %3.\n#\n"
              "# Open the project it was run from (Ctrl+O), or put the file there, to see its lines beside the swimlane.\n")
               .arg(traceName, source,
                    QFileInfo(source).isAbsolute() ? tr("there is no such file")
                                                   : tr("it is not beside the trace (in %1) nor in a folder above").arg(folder));
  }
  m_editor->showPlaceholder(text);
  updateLineLabels();
  updateTitle();
  if (source.isEmpty()) return tr("its tasks name no source file");
  return error.isEmpty() ? tr("its kernel %1 was not found").arg(source) : error;
}

void MainWindow::setTrace(std::shared_ptr<const widgets::TraceIndex> index, bool fromRun) {
  m_trace = std::move(index);
  ++m_traceSerial;
  m_swimlane->setTrace(m_trace);
  m_details->setTrace(m_trace);
  // A run's summary comes from the run (simulated makespan, precision);
  // a trace file's from the trace.
  if (!fromRun) m_summary->setTrace(m_trace);
  updateTaskGraph();
  updateLineLabels();
  updateTitle();
}

bool MainWindow::busy() const {
  return m_traceJobs.busy() || m_runJobs.busy() || m_graphJobs.busy() || m_workbench->busy() ||
         m_adviceController->busy();
}

bool MainWindow::settling() const {
  return busy() || m_comparisons->busy();
}

void MainWindow::showGraphLevel(GraphLevel level) {
  m_workbench->setLevel(level);
  showView(View::Graph);
}

void MainWindow::updateTaskGraph() {
  if (m_centralTabs->currentWidget() != m_workbench || !m_workbench->showingTaskGraph() ||
      m_graphSerial == m_traceSerial)
    return;
  m_graphSerial = m_traceSerial;
  if (!m_trace) {
    m_graphJobs.cancel();
    m_graph->setGraph(nullptr, nullptr);
    return;
  }
  m_graph->setMessage(tr("Laying out %1 tasks…").arg(m_trace->trace().tasks().size()));
  m_graphJobs.start<std::shared_ptr<const widgets::TaskGraphLayout>>(
      [index = m_trace](const std::atomic<bool>& cancelled) {
        return std::make_shared<const widgets::TaskGraphLayout>(widgets::layoutTaskGraph(*index, 300, &cancelled));
      },
      [this, index = m_trace](std::shared_ptr<const widgets::TaskGraphLayout> layout) {
        m_graph->setGraph(layout, index);
        if (m_swimlane->state().selected != trace::kNoTask) m_graph->selectTask(m_swimlane->state().selected);
        if (layout->grouped)
          statusBar()->showMessage(tr("Task graph: %1 tasks grouped into %2 boxes by label and subgraph")
                                       .arg(index->trace().tasks().size())
                                       .arg(layout->nodes.size()),
                                   8000);
        Q_EMIT graphLaidOut();
      });
}

void MainWindow::showView(View view) {
  switch (view) {
  case View::Swimlane:
    m_centralTabs->setCurrentWidget(m_swimlanePane);
    m_swimlane->setFocus();
    break;
  case View::Graph:
    m_centralTabs->setCurrentWidget(m_workbench);
    if (m_workbench->showingTaskGraph()) m_graph->setFocus();
    else m_workbench->view()->setFocus();
    break;
  case View::Editor:
    raiseEditor();
    break;
  case View::Summary:
    m_summaryDock->show();
    m_summaryDock->raise();
    break;
  case View::Health:
    m_healthDock->show();
    m_healthDock->raise();
    break;
  case View::Runs:
    m_runsDock->show();
    m_runsDock->raise();
    break;
  case View::Advice:
    m_adviceDock->show();
    m_adviceDock->raise();
    break;
  case View::Tuning:
    m_tuningDock->show();
    m_tuningDock->raise();
    break;
  }
  arrangeDocks(view);
}

void MainWindow::raiseEditor() {
  m_editorDock->show();
  m_editorDock->raise();
  m_editor->setFocus();
}

void MainWindow::arrangeDocks(View view) {
  if (view == View::Swimlane || view == View::Graph) return;  // the centre already has the room
  // Fractions of the window, so each view reads the same at any size. The
  // right column's width goes through the summary (its top dock).
  int width = this->width();
  // Below the summary: task details and tuning, as tabs; the one showing.
  QDockWidget* lower = m_tuningDock->isVisible() ? m_tuningDock : m_detailsDock;
  int columnHeight = m_summaryDock->height() + lower->height();
  std::map<QDockWidget*, int> widths;
  std::map<QDockWidget*, int> heights;
  switch (view) {
  case View::Editor:
    // The kernel gets half the window; the swimlane stays beside it.
    widths = {{m_editorDock, width * 50 / 100}, {m_summaryDock, width * 25 / 100}};
    break;
  case View::Summary:
  case View::Health:  // it shares the summary's place
    widths = {{m_editorDock, width * 20 / 100}, {m_summaryDock, width * 45 / 100}};
    heights = {{m_summaryDock, columnHeight * 70 / 100}, {lower, columnHeight * 30 / 100}};
    break;
  case View::Advice:  // it shares the summary's place; cards and the Pareto plot want the height
    widths = {{m_editorDock, width * 18 / 100}, {m_summaryDock, width * 47 / 100}};
    heights = {{m_summaryDock, columnHeight * 85 / 100}, {lower, columnHeight * 15 / 100}};
    break;
  case View::Runs:  // it shares the summary's place; the A/B swimlanes keep the centre
    widths = {{m_editorDock, width * 15 / 100}, {m_summaryDock, width * 42 / 100}};
    heights = {{m_summaryDock, columnHeight * 80 / 100}, {lower, columnHeight * 20 / 100}};
    break;
  case View::Tuning:
    widths = {{m_editorDock, width * 20 / 100}, {m_summaryDock, width * 45 / 100}};
    heights = {{m_summaryDock, columnHeight * 25 / 100}, {m_tuningDock, columnHeight * 75 / 100}};
    break;
  case View::Swimlane:
  case View::Graph:
    break;
  }
  auto resize = [this](const std::map<QDockWidget*, int>& sizes, Qt::Orientation orientation) {
    QList<QDockWidget*> docks;
    QList<int> pixels;
    for (const auto& [dock, size] : sizes) {
      if (dock->isFloating() || !dock->isVisible()) continue;  // not in the layout
      docks << dock;
      pixels << size;
    }
    if (!docks.isEmpty()) resizeDocks(docks, pixels, orientation);
  };
  resize(widths, Qt::Horizontal);
  resize(heights, Qt::Vertical);
}

void MainWindow::reportError(const QString& title, const QString& message) {
  statusBar()->showMessage(message.section('\n', 0, 0), 15000);
  std::fprintf(stderr, "pto-studio: %s\n", message.toLocal8Bit().constData());
  Q_EMIT openFailed(message);
  if (isVisible() && !QApplication::arguments().contains(QStringLiteral("--exit")))
    QMessageBox::warning(this, title, message);
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
  QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kMaxRecentFiles) recent.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& path : recent) m_recentMenu->addAction(path, this, [this, path] { open(path); });
  m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::onTaskSelected(trace::TaskIndex task) {
  m_details->showTask(task);
  if (task != trace::kNoTask && !m_detailsDock->isFloating()) m_detailsDock->raise();
  if (m_graph->graph()) m_graph->selectTask(task);
  if (!m_trace || task == trace::kNoTask) {
    m_editor->showLine(0);  // the mark is the selected task's line
    return;
  }
  const trace::Trace& trc = m_trace->trace();
  const trace::Task& t = trc.tasks()[task];
  if (t.subgraph >= 0) m_workbench->showSubgraph(t.subgraph);
  QString message = tr("%1 on %2: %3 from %4")
                        .arg(qtext(trc.str(t.name)), qtext(trc.str(trc.lanes()[t.lane].name)),
                             QString::fromStdString(widgets::formatDurationNs(static_cast<double>(t.durNs()))),
                             QString::fromStdString(widgets::formatDurationNs(static_cast<double>(t.startNs))));
  QString editorFile = QFileInfo(m_editor->filePath()).fileName();
  if (t.sourceLine > 0 && !editorFile.isEmpty() && widgets::fileNameOf(trc.str(t.sourceFile)) == editorFile.toStdString()) {
    m_editor->showLine(t.sourceLine, trc.str(t.label));
    message += tr(" — %1:%2").arg(editorFile).arg(t.sourceLine);
  } else {
    // The mark of the previous task would point at the wrong line.
    m_editor->showLine(0);
    if (t.sourceLine <= 0)
      message += tr(" — the trace gives this task no source line");
    else if (editorFile.isEmpty())
      message += tr(" — from %1:%2, which is not open").arg(qtext(trc.str(t.sourceFile))).arg(t.sourceLine);
    else
      message += tr(" — no line in %1: it comes from %2:%3").arg(editorFile, qtext(trc.str(t.sourceFile))).arg(t.sourceLine);
  }
  statusBar()->showMessage(message);
}

void MainWindow::onEditorLineClicked(int line) {
  if (m_editor->filePath().isEmpty()) return;  // a placeholder has no lines of code
  m_workbench->showLine(line);
  if (!m_trace) return;
  std::vector<trace::TaskIndex> tasks = m_trace->tasksAtLine(m_editor->filePath().toStdString(), line);
  if (tasks.empty()) {
    statusBar()->showMessage(tr("Line %1 ran no task in this trace").arg(line), 6000);
    return;
  }
  std::size_t count = tasks.size();
  m_swimlane->showTasks(std::move(tasks));
  statusBar()->showMessage(tr("Line %1: %2 tasks (N: next)").arg(line).arg(count), 8000);
}

void MainWindow::updateLineLabels() {
  std::map<int, std::string> labels;
  if (m_trace && !m_editor->filePath().isEmpty()) {
    std::string name = QFileInfo(m_editor->filePath()).fileName().toStdString();
    const trace::Trace& trc = m_trace->trace();
    for (const trace::Task& t : trc.tasks())
      if (t.sourceLine > 0 && !labels.count(t.sourceLine) && widgets::fileNameOf(trc.str(t.sourceFile)) == name)
        labels[t.sourceLine] = std::string(trc.str(t.label));
  }
  m_editor->setLineLabels(labels, m_trace ? m_trace->labelColors() : widgets::LabelColors());
}

void MainWindow::updateTitle() {
  QStringList parts;
  if (!m_projectFile.isEmpty()) parts << QFileInfo(m_projectFile).dir().dirName();
  else if (!m_brokenProjectFile.isEmpty())
    parts << tr("%1 (%2 has errors)").arg(QFileInfo(m_brokenProjectFile).dir().dirName(), QFileInfo(m_brokenProjectFile).fileName());
  if (!m_traceFile.isEmpty()) parts << QFileInfo(m_traceFile).fileName();
  QString title = parts.isEmpty() ? tr("PTO Studio") : parts.join(QStringLiteral(" — ")) + tr(" — PTO Studio");
  setWindowTitle((m_editor->isModified() || m_settingsModified ? QStringLiteral("*") : QString()) + title);
}

bool MainWindow::save() {
  bool ok = true;
  QStringList saved;
  if (m_editor->isModified()) {
    QString error;
    if (m_editor->save(&error)) saved << QFileInfo(m_editor->filePath()).fileName();
    else {
      reportError(tr("Cannot save"), error);
      ok = false;
    }
  }
  if (m_project && m_settingsModified) {
    DiagnosticEngine diags;
    if (saveProject(*m_project, diags)) {
      saved << QFileInfo(m_projectFile).fileName();
      m_settings->markSaved();
      setSettingsModified(false);
    } else {
      QString message;
      for (const Diagnostic& diagnostic : diags.diagnostics()) message += QString::fromStdString(diags.format(diagnostic)) + '\n';
      reportError(tr("Cannot save"), message.trimmed());
      ok = false;
    }
  }
  if (!saved.isEmpty()) statusBar()->showMessage(tr("Saved %1").arg(saved.join(QStringLiteral(", "))), 5000);
  updateTitle();
  // What was saved leaves the recovery file (all of it: the file goes); after
  // a failed save the edits stay in it.
  if (ok) m_recovery->autosaveNow();
  return ok;
}

QString MainWindow::suggestedExportPath(const QString& suffix) const {
  QString base = m_project ? QString::fromStdString(m_project->name) : QFileInfo(m_traceFile).completeBaseName();
  QString folder = m_project ? QString::fromStdString(m_project->directory().string()) : QFileInfo(m_traceFile).absolutePath();
  return QDir(folder).filePath((base.isEmpty() ? QStringLiteral("pto") : base) + suffix);
}

bool MainWindow::exportTunedConfig(const QString& path) {
  if (!m_project) {
    reportError(tr("Cannot export the tuned config"), tr("Open a project to export its tuned config."));
    return false;
  }
  std::optional<TunedConfigMeasurement> measured;
  if (m_lastRun.trace) measured = TunedConfigMeasurement{m_lastRun.makespanUs, m_lastRun.machine, "timing"};
  std::string error;
  if (!writeFileAtomically(path.toStdString(), tunedConfig(*m_project, measured).dump(2) + "\n", error)) {
    reportError(tr("Cannot export the tuned config"), tr("Cannot write %1: %2").arg(path, QString::fromStdString(error)));
    return false;
  }
  statusBar()->showMessage(tr("Exported the tuned config to %1").arg(path), 8000);
  return true;
}

bool MainWindow::exportSwimlaneImage(const QString& path) {
  if (!m_trace) {
    reportError(tr("Cannot export the swimlane"), tr("Run a project or open a trace first: there is no swimlane to export."));
    return false;
  }
  bool svg = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
  QString error = svg ? m_swimlane->exportSvg(path) : m_swimlane->exportPng(path);
  if (!error.isEmpty()) {
    reportError(tr("Cannot export the swimlane"), error);
    return false;
  }
  statusBar()->showMessage(tr("Exported the swimlane to %1").arg(path), 8000);
  return true;
}

bool MainWindow::exportPerfettoTrace(const QString& path) {
  if (!m_trace) {
    reportError(tr("Cannot export the swimlane"), tr("Run a project or open a trace first: there is no swimlane to export."));
    return false;
  }
  std::string error;
  if (!trace::writeChromeTraceFile(m_trace->trace(), path.toStdString(), error)) {
    reportError(tr("Cannot export the swimlane"), tr("Cannot write %1: %2").arg(path, QString::fromStdString(error)));
    return false;
  }
  statusBar()->showMessage(tr("Exported the swimlane to %1 (open it in ui.perfetto.dev)").arg(path), 8000);
  return true;
}

bool MainWindow::confirmDiscardEdits() {
  if (!m_editor->isModified() && !m_settingsModified) return true;
  if (!isVisible()) return true;  // headless (tests, --exit): nothing to ask
  QStringList what;
  if (m_editor->isModified()) what << QFileInfo(m_editor->filePath()).fileName();
  if (m_settingsModified) what << QFileInfo(m_projectFile).fileName();
  auto answer = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(what.join(tr(" and "))),
                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (answer == QMessageBox::Cancel) return false;
  if (answer == QMessageBox::Save) return save();
  m_recovery->discard();
  return true;
}

void MainWindow::setSettingsModified(bool modified) {
  m_settingsModified = modified;
  m_recovery->editsChanged();
  updateTitle();
}

void MainWindow::showHelp() {
  QMessageBox box(this);
  box.setWindowTitle(tr("Keys and mouse"));
  box.setTextFormat(Qt::RichText);
  box.setText(tr("<h3>Swimlane</h3><table cellpadding='2'>"
                 "<tr><td><b>Wheel</b>, <b>W</b>/<b>S</b>, <b>+</b>/<b>-</b></td><td>zoom (about the mouse)</td></tr>"
                 "<tr><td><b>Drag</b>, <b>A</b>/<b>D</b>, arrows</td><td>pan; Shift+wheel scrolls the lanes</td></tr>"
                 "<tr><td><b>Shift+drag</b></td><td>zoom to a time range</td></tr>"
                 "<tr><td><b>Alt+drag</b></td><td>measure an interval (Esc clears)</td></tr>"
                 "<tr><td><b>F</b>, <b>Home</b></td><td>fit the whole trace</td></tr>"
                 "<tr><td><b>Click</b> / <b>double-click</b></td><td>select a task / zoom to it</td></tr>"
                 "<tr><td><b>Ctrl+F</b>, then Enter or <b>N</b></td><td>find by label, task id or #index; next match</td></tr>"
                 "<tr><td><b>Ctrl+P</b></td><td>critical path</td></tr>"
                 "<tr><td><b>I</b></td><td>show or collapse the idle lanes</td></tr></table>"
                 "<h3>Task graph</h3>Wheel zooms, drag pans, F fits; click a box to select its task everywhere."
                 "<h3>Tuning</h3>Edit a tile shape (the buffer check updates as you type), an option or the machine; "
                 "the run follows. <b>Ctrl+Z</b> / <b>Ctrl+Shift+Z</b> undo and redo settings edits (in the kernel "
                 "editor they undo text). Edit &gt; Write tile shapes back puts the shapes into the kernel's calls."
                 "<h3>Source</h3>Click a line to select the tasks it produced; selecting a task shows its line."
                 "<h3>Run</h3><b>Ctrl+R</b> run (the editor's text and unsaved settings), <b>Esc</b> cancel. "
                 "With Run &gt; Auto-run on, an edit reruns after a short pause; a failed run keeps the last "
                 "swimlane and lists its problems."
                 "<h3>Files</h3><b>Ctrl+N</b> new project from an example, <b>Ctrl+O</b> open a project or trace, "
                 "<b>Ctrl+S</b> save the kernel and the project, <b>Ctrl+Q</b> quit."));
  box.exec();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!confirmDiscardEdits()) return event->ignore();
  m_recovery->close();
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState(kLayoutVersion));
  m_traceJobs.cancel();
  m_runJobs.cancel();
  m_graphJobs.cancel();
  event->accept();
}

// --- The Runs dock: recorded runs, the makespan trend, the A/B comparison ---

QDockWidget* MainWindow::addDockBeside(QDockWidget* beside, QWidget* content, const QString& title, const QString& name) {
  auto* dock = new QDockWidget(title, this);
  dock->setObjectName(name);
  dock->setWidget(content);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(beside, dock);
  m_summaryDock->raise();
  m_viewMenu->insertAction(m_viewMenu->actions().value(m_viewMenu->actions().indexOf(beside->toggleViewAction()) + 1),
                           dock->toggleViewAction());
  return dock;
}

void MainWindow::createRunsDock() {
  // Beside the summary and the health report: the run at a glance, why it
  // takes that long, and how it got there.
  m_runs = new widgets::RunsPanel(this);
  m_runsDock = addDockBeside(m_healthDock, m_runs, tr("Runs"), QStringLiteral("RunsDock"));
}

// --- The Measured dock: a trace measured on the chip against the current run ---

void MainWindow::createMeasuredDock() {
  m_measured = new widgets::MeasuredPanel(this);
  m_measuredDock = addDockBeside(m_runsDock, m_measured, tr("Measured"), QStringLiteral("MeasuredDock"));

  // What both docks do: the ledger's runs and the comparisons beneath the run.
  m_comparisons = new ComparisonController(m_runs, m_measured, m_swimlanePane, this);
  m_comparisons->setRunProvider([this]() -> const ProjectRunOutcome& { return m_lastRun; }, [this] { return m_trace; });
  connect(this, &MainWindow::runFinished, m_comparisons, &ComparisonController::noteRunFinished);
  connect(m_comparisons, &ComparisonController::runsLoaded, this, &MainWindow::runsLoaded);
  connect(m_comparisons, &ComparisonController::comparisonShown, this, &MainWindow::comparisonShown);
  connect(m_comparisons, &ComparisonController::statusMessage, this,
          [this](const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); });
  connect(m_comparisons, &ComparisonController::swimlaneWanted, this,
          [this] { m_centralTabs->setCurrentWidget(m_swimlanePane); });
  connect(m_comparisons, &ComparisonController::measuredDockWanted, this, [this] { m_measuredDock->raise(); });
  connect(m_comparisons, &ComparisonController::errorColoursWanted, this, [this](bool on) {
    constexpr int kErrorColours = 3;  // "error vs measured" in the colour box
    if (on) m_colorMode->setCurrentIndex(kErrorColours);
    else if (m_colorMode->currentIndex() == kErrorColours) m_colorMode->setCurrentIndex(0);
  });
  connect(m_comparisons, &ComparisonController::runTraceWanted, this,
          [this](std::shared_ptr<const widgets::TraceIndex> trace) { setTrace(std::move(trace), true); });
}

void MainWindow::refreshRuns() { m_comparisons->refreshRuns(); }
bool MainWindow::compareWithRun(std::int64_t runId) { return m_comparisons->compareWithRun(runId); }
void MainWindow::closeRunComparison() { m_comparisons->closeComparison(); }
bool MainWindow::compareWithMeasured(const QString& file) { return m_comparisons->compareWithMeasured(file); }
std::int64_t MainWindow::comparedRunId() const { return m_comparisons->comparedRunId(); }

// --- The Advice dock: the advisor's suggestions and the tuner, applied as undoable edits ---

void MainWindow::createAdviceDock() {
  // With the summary, the health report and the runs: what the run is, why,
  // and what to change.
  m_advicePanel = new widgets::AdvicePanel(this);
  m_adviceDock = new QDockWidget(tr("Advice"), this);
  m_adviceDock->setObjectName(QStringLiteral("AdviceDock"));
  // In a scroll area: the cards and the Pareto plot want room, but the dock
  // shares its column with docks that do not, and must not widen the column
  // (or keep it tall) when another view asks for the room.
  auto* adviceScroll = new QScrollArea(m_adviceDock);
  adviceScroll->setWidgetResizable(true);
  adviceScroll->setFrameShape(QFrame::NoFrame);
  adviceScroll->setMinimumSize(120, 100);
  adviceScroll->setWidget(m_advicePanel);
  m_adviceDock->setWidget(adviceScroll);
  addDockWidget(Qt::RightDockWidgetArea, m_adviceDock);
  tabifyDockWidget(m_runsDock ? m_runsDock : m_healthDock, m_adviceDock);
  m_summaryDock->raise();
  m_viewMenu->insertAction(m_viewMenu->actions().value(m_viewMenu->actions().indexOf(m_healthDock->toggleViewAction()) + 1),
                           m_adviceDock->toggleViewAction());

  m_adviceController = new AdviceController(m_advicePanel, m_settings, this);
  m_adviceController->setRequestProvider([this]() -> std::optional<ProjectRunRequest> {
    if (!m_project || !m_projectTrusted) {
      if (m_project) offerTrust();
      return std::nullopt;
    }
    return runRequest();
  });
  // An apply runs at once (auto-run or not) and is checked against that run.
  m_adviceController->setRunStarter([this]() -> quint64 {
    runProject();
    return m_runJobs.busy() ? m_runJobs.generation() : 0;
  });
  m_adviceController->setKernelEditor([this] { return m_editor->text(); },
                                      [this](const QString& source, const QString& summary) {
                                        replaceKernelText(source, summary);
                                      });
  // Only the current run's result arrives (JobRunner drops superseded ones),
  // so the run that finished is the current generation.
  connect(this, &MainWindow::runFinished, m_adviceController, [this](bool ok) {
    m_adviceController->noteRunFinished(m_runJobs.generation(), ok, m_lastRun.makespanUs);
  });
  connect(m_adviceController, &AdviceController::statusMessage, this, [this](const QString& text) {
    statusBar()->showMessage(text, 10000);
  });
  m_advicePanel->setProjectOpen(false);

  // Run > Advise / Tune, beside Run and Cancel (the menu is found by its title).
  for (QAction* action : menuBar()->actions()) {
    if (!action->menu() || action->menu()->title() != tr("&Run")) continue;
    QMenu* run = action->menu();
    run->addSeparator();
    QAction* advise = run->addAction(tr("A&dvise"), this, [this] {
      showView(View::Advice);
      m_adviceController->advise();
    });
    advise->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    advise->setToolTip(tr("Suggest settings changes, each simulated before it is proposed"));
    QAction* tune = run->addAction(tr("&Tune…"), this, [this] {
      showView(View::Advice);
      m_advicePanel->requestTune();
    });
    tune->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    tune->setToolTip(tr("Search the tuning space with the Advice panel's budget and strategy"));
    break;
  }
}

} // namespace pto::studio
