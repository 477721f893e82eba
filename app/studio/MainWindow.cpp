// pto-studio's main window: the views, the controllers that own each
// concern, and the links between the views.
#include "app/studio/MainWindow.h"

#include "analysis/pypto/PyptoArtifacts.h"
#include "analysis/simulation/CostModelOutput.h"
#include "app/studio/AdviceController.h"
#include "app/studio/ComparisonController.h"
#include "app/studio/DiagnosticText.h"
#include "app/studio/DockLayoutController.h"
#include "app/studio/EditRecoveryController.h"
#include "app/studio/GraphsController.h"
#include "app/studio/MemoryMapController.h"
#include "app/studio/TaskInsideController.h"
#include "app/studio/ProjectController.h"
#include "app/studio/RecentFilesController.h"
#include "app/studio/RunController.h"
#include "app/studio/SourceFiles.h"
#include "core/project/ProjectFile.h"
#include "runtime/trace/ChromeTraceWriter.h"
#include "widgets/AdvicePanel.h"
#include "widgets/GraphWorkbench.h"
#include "widgets/HealthPanel.h"
#include "widgets/IrGraphView.h"
#include "widgets/MemoryMapView.h"
#include "widgets/TraceLoadBar.h"
#include "widgets/TaskInsideView.h"
#include "widgets/MeasuredPanel.h"
#include "widgets/NoticeBar.h"
#include "widgets/ProblemsPanel.h"
#include "widgets/ProjectSettingsDocument.h"
#include "widgets/QtText.h"
#include "widgets/RunsPanel.h"
#include "widgets/SourceEditor.h"
#include "widgets/SummaryPanel.h"
#include "widgets/SwimlanePane.h"
#include "widgets/SwimlaneToolBar.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TaskDetailsPanel.h"
#include "widgets/TaskGraphView.h"
#include "widgets/TuningPanel.h"
#include "widgets/models/EditorDiagnostics.h"
#include "widgets/models/TimeFormat.h"
#include "widgets/models/TraceLoading.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdio>
#include <map>

namespace pto::studio {
namespace {

using widgets::qtext;
using Dock = DockLayoutController::Dock;

QString projectFileName() { return QString::fromUtf8(kProjectFileName.data(), static_cast<qsizetype>(kProjectFileName.size())); }

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
  centreLayout->addWidget(m_notices);
  centreLayout->addWidget(m_centralTabs, 1);
  setCentralWidget(centre);

  m_editor = new widgets::SourceEditor(this);
  m_summary = new widgets::SummaryPanel(this);
  m_details = new widgets::TaskDetailsPanel(this);
  m_settings = new widgets::ProjectSettingsDocument(this);
  m_tuning = new widgets::TuningPanel(m_settings, this);
  m_health = new widgets::HealthPanel(this);
  m_problems = new widgets::ProblemsPanel(this);
  m_runs = new widgets::RunsPanel(this);
  m_measured = new widgets::MeasuredPanel(this);
  m_advicePanel = new widgets::AdvicePanel(this);
  m_memoryView = new widgets::MemoryMapView(this);
  m_insideView = new widgets::TaskInsideView(this);
  m_docks = new DockLayoutController(this, {m_editor, m_summary, m_details, m_tuning, m_health, m_problems, m_runs,
                                            m_measured, m_advicePanel, m_memoryView, m_insideView});
  // The graphs of every IR level; the run's task graph is its execute level.
  m_workbench = new widgets::GraphWorkbench(m_graph, m_settings, this);
  m_centralTabs->addTab(m_workbench, tr("Graphs"));

  createControllers();
  createActions();
  connectViews();

  resize(1500, 900);
  m_docks->restoreSaved();
  updateTitle();
  statusBar()->showMessage(tr("Open a project or a swimlane trace with Ctrl+O. F1 lists the keys."));
}

MainWindow::~MainWindow() = default;

void MainWindow::createControllers() {
  m_recovery = new EditRecoveryController([this] { return m_projects->unsavedEdits(); }, this);
  m_projects = new ProjectController({this, m_editor, m_settings, m_swimlane, m_notices, m_recovery}, this);
  m_recovery->setNotices(m_notices, [this](const EditRecovery& recovered, QStringList& restored, QStringList& failed) {
    m_projects->restoreEdits(recovered, restored, failed);
  });
  connect(m_recovery, &EditRecoveryController::autosaveFailed, this, [this](const QString& message) { showStatus(message, 10000); });
  connect(m_recovery, &EditRecoveryController::statusMessage, this, &MainWindow::showStatus);
  connect(m_recovery, &EditRecoveryController::restoreFailed, this, &MainWindow::reportError);
  connect(m_recovery, &EditRecoveryController::editorWanted, this, &MainWindow::raiseEditor);

  connect(m_projects, &ProjectController::titleChanged, this, &MainWindow::updateTitle);
  connect(m_projects, &ProjectController::statusMessage, this, &MainWindow::showStatus);
  connect(m_projects, &ProjectController::errorReported, this, &MainWindow::reportError);
  connect(m_projects, &ProjectController::problemsFound, this, [this](const std::vector<Diagnostic>& diagnostics) {
    m_problems->setDiagnostics(diagnostics);
    m_docks->dock(Dock::Problems)->show();
  });
  connect(m_projects, &ProjectController::runWanted, this, &MainWindow::runProject);

  m_graphs = new GraphsController(m_workbench, m_graph, m_swimlane, this);
  m_graphs->setRequestProvider([this] { return m_projects->trustedRequest(); });
  connect(m_graphs, &GraphsController::taskGraphLaidOut, this, &MainWindow::graphLaidOut);
  connect(m_graphs, &GraphsController::statusMessage, this, &MainWindow::showStatus);

  m_runner = new RunController({m_editor, m_problems, m_summary, m_health, m_tuning}, this);
  m_runner->setProjectProvider([this] { return m_projects->runnableRequest(); }, [this] { return m_projects->project(); });
  connect(m_projects, &ProjectController::settingsEdited, this, [this] {
    m_graphs->invalidate();
    m_runner->settingsEdited();
  });
  connect(m_projects, &ProjectController::trustRevoked, m_runner, &RunController::stop);
  connect(m_runner, &RunController::stageChanged, this, &MainWindow::runStageChanged);
  connect(m_runner, &RunController::statusMessage, this, &MainWindow::showStatus);
  connect(m_runner, &RunController::swimlaneReady, this,
          [this](std::shared_ptr<const widgets::TraceIndex> trace) { setTrace(std::move(trace), true); });
  connect(m_runner, &RunController::problemsWanted, this, [this](bool raise) {
    if (raise) m_docks->raise(Dock::Problems);
    else m_docks->dock(Dock::Problems)->show();
  });
  connect(m_runner, &RunController::finished, this, [this](bool ok) {
    m_workbench->noteRunMakespan(ok ? m_runner->lastRun().makespanUs : 0.0, ok);
    m_graphs->useRun(m_runner->lastRun());  // the kernel text it compiled may have changed since
    Q_EMIT runFinished(ok);
    Q_EMIT traceLoaded();
  });

  // The Memory dock's maps come from the finished run whose swimlane is on screen.
  m_memory = new MemoryMapController(m_memoryView, this);
  m_memory->setRunProvider([this]() -> std::shared_ptr<const ProjectRunResult> {
    const ProjectRunOutcome& run = m_runner->lastRun();
    return run.trace && run.trace == m_trace ? run.result : nullptr;
  });
  connect(this, &MainWindow::runFinished, m_memory, &MemoryMapController::runChanged);
  m_inside = new TaskInsideController(m_insideView, this);
  m_inside->setRunProvider([this]() -> std::shared_ptr<const ProjectRunResult> {
    const ProjectRunOutcome& run = m_runner->lastRun();
    return run.trace && run.trace == m_trace ? run.result : nullptr;
  });
  connect(this, &MainWindow::runFinished, m_inside, &TaskInsideController::runChanged);

  // What the Runs and Measured docks do: the ledger's runs and the comparisons beneath the run.
  m_comparisons = new ComparisonController(m_runs, m_measured, m_swimlanePane, this);
  m_comparisons->setRunProvider([this]() -> const ProjectRunOutcome& { return m_runner->lastRun(); }, [this] { return m_trace; });
  connect(this, &MainWindow::runFinished, m_comparisons, &ComparisonController::noteRunFinished);
  connect(m_comparisons, &ComparisonController::runsLoaded, this, &MainWindow::runsLoaded);
  connect(m_comparisons, &ComparisonController::comparisonShown, this, &MainWindow::comparisonShown);
  connect(m_comparisons, &ComparisonController::statusMessage, this, &MainWindow::showStatus);
  connect(m_comparisons, &ComparisonController::swimlaneWanted, this,
          [this] { m_centralTabs->setCurrentWidget(m_swimlanePane); });
  connect(m_comparisons, &ComparisonController::measuredDockWanted, this, [this] { m_docks->dock(Dock::Measured)->raise(); });
  connect(m_comparisons, &ComparisonController::errorColoursWanted, this, [this](bool on) { m_swimlaneBar->showErrorColours(on); });
  connect(m_comparisons, &ComparisonController::runTraceWanted, this,
          [this](std::shared_ptr<const widgets::TraceIndex> trace) { setTrace(std::move(trace), true); });

  // The Advice dock: suggestions and the tuner, applied as undoable edits and checked by a run.
  m_adviceController = new AdviceController(m_advicePanel, m_settings, this);
  m_adviceController->setRequestProvider([this] {
    std::optional<ProjectRunRequest> request = m_projects->trustedRequest();
    if (!request && m_projects->project()) m_projects->offerTrust();
    return request;
  });
  // An apply runs at once (auto-run or not) and is checked against that run.
  m_adviceController->setRunStarter([this]() -> quint64 {
    runProject();
    return m_runner->busy() ? m_runner->generation() : 0;
  });
  m_adviceController->setKernelEditor([this] { return m_editor->text(); },
                                      [this](const QString& source, const QString& summary) {
                                        m_projects->replaceKernelText(source, summary);
                                      });
  // Only the current run's result arrives (JobRunner drops superseded ones),
  // so the run that finished is the current generation.
  connect(this, &MainWindow::runFinished, m_adviceController, [this](bool ok) {
    m_adviceController->noteRunFinished(m_runner->generation(), ok, m_runner->lastRun().makespanUs);
  });
  connect(m_adviceController, &AdviceController::statusMessage, this, [this](const QString& text) { showStatus(text, 10000); });
  m_advicePanel->setProjectOpen(false);
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New project from an example…"), QKeySequence::New, this, [this] {
    if (auto chosen = m_projects->askForNewProject()) createProject(chosen->example, chosen->folder);
  });
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
  m_recent = new RecentFilesController(file->addMenu(tr("Open &recent")), this);
  connect(m_recent, &RecentFilesController::openRequested, this, [this](const QString& path) { open(path); });
  QAction* saveAction = file->addAction(tr("&Save"), this, [this] {
    // A project file fixed in the editor: saving it is the way to open it.
    const QString& broken = m_projects->brokenProjectFile();
    if (save() && !broken.isEmpty() && m_editor->filePath() == broken) reloadProject();
  });
  saveAction->setShortcut(QKeySequence::Save);
  file->addAction(m_projects->trustAction());
  QAction* reloadAction = file->addAction(tr("Re&load the project"), this, &MainWindow::reloadProject);
  reloadAction->setShortcut(QKeySequence(Qt::Key_F5));
  reloadAction->setToolTip(tr("Read the project file again (after fixing it, or editing it elsewhere)"));
  file->addSeparator();
  QMenu* exportMenu = file->addMenu(tr("&Export"));
  exportMenu->addAction(tr("Tuned &config (JSON)…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the tuned config"), suggestedExportPath(QStringLiteral("-tuned.json")),
                                                tr("Tuned config (*.json)"));
    if (!path.isEmpty()) exportTunedConfig(path);
  });
  exportMenu->addAction(tr("Swimlane as P&NG…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the swimlane as PNG"), suggestedExportPath(QStringLiteral("-swimlane.png")),
                                                tr("PNG image (*.png)"));
    if (!path.isEmpty()) exportSwimlaneImage(path);
  });
  exportMenu->addAction(tr("Swimlane as &SVG…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the swimlane as SVG"), suggestedExportPath(QStringLiteral("-swimlane.svg")),
                                                tr("SVG image (*.svg)"));
    if (!path.isEmpty()) exportSwimlaneImage(path);
  });
  exportMenu->addAction(tr("&Perfetto trace (JSON)…"), this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export the swimlane for ui.perfetto.dev"),
                                                suggestedExportPath(QStringLiteral("-trace.json")), tr("Chrome/Perfetto trace (*.json)"));
    if (!path.isEmpty()) exportPerfettoTrace(path);
  });
  exportMenu->addAction(tr("&Graph (DOT, SVG or PNG)…"), this, [this] {
    QString level = QString::fromUtf8(name(m_workbench->level()).data());
    QString path = QFileDialog::getSaveFileName(this, tr("Export the graph as shown"),
                                                suggestedExportPath(QStringLiteral("-%1.svg").arg(level)),
                                                tr("SVG image (*.svg);;Graphviz (*.dot);;PNG image (*.png)"));
    QString error;
    if (!path.isEmpty() && !m_workbench->exportView(path, &error)) 
      reportError(tr("Cannot export the graph"), tr("%1: %2").arg(path, error));
  });
  file->addAction(tr("&Import tuned config…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("Import a tuned config into the project"),
                                                m_projects->project() ? QString::fromStdString(m_projects->project()->directory().string()) : QString(),
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
  connect(m_runner, &RunController::busyChanged, cancelAction, &QAction::setEnabled);
  run->addSeparator();
  run->addAction(m_runner->autoRunAction());
  run->addSeparator();
  run->addAction(tr("Compare with a &measured trace…"), this, [this] {
    QString path = QFileDialog::getOpenFileName(this, tr("A swimlane measured on the chip"), QString(),
                                                tr("Swimlanes (*.json);;All files (*)"));
    if (!path.isEmpty()) compareWithMeasured(path);
  });
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
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("&Fit the trace"), QKeySequence(Qt::Key_F), m_swimlane, &widgets::SwimlaneView::fit)
      ->setShortcutContext(Qt::WidgetWithChildrenShortcut);
  QAction* critical = view->addAction(tr("&Critical path"));
  critical->setCheckable(true);
  critical->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
  connect(critical, &QAction::toggled, m_swimlane, &widgets::SwimlaneView::setShowCriticalPath);
  view->addAction(m_editor->costHeatmapAction());
  QAction* find = view->addAction(tr("Find &task…"));
  find->setShortcut(QKeySequence::Find);
  view->addSeparator();
  view->addActions(m_docks->toggleActions());
  view->addSeparator();
  view->addAction(tr("&Reset layout"), m_docks, &DockLayoutController::resetToDefault);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&Keys and mouse"), QKeySequence::HelpContents, this, &MainWindow::showHelp);
  help->addAction(tr("&About PTO Studio"), this, [this] {
    QMessageBox::about(this, tr("About PTO Studio"),
                       tr("<b>PTO Studio</b><br>Write and tune fused tile operators for AI accelerators."));
  });

  // The swimlane's own controls, next to it.
  m_swimlaneBar = new widgets::SwimlaneToolBar(m_swimlane, critical, this);
  addToolBar(m_swimlaneBar);
  connect(find, &QAction::triggered, this, [this] {
    if (m_centralTabs->currentWidget() == m_workbench) m_workbench->focusSearch();
    else m_swimlaneBar->focusSearch();
  });
}

void MainWindow::connectViews() {
  connect(m_graph, &widgets::TaskGraphView::taskActivated, this, [this](trace::TaskIndex task) { m_swimlane->selectTask(task, true); });
  connect(m_centralTabs, &QTabWidget::currentChanged, this, [this] {
    if (m_centralTabs->currentWidget() == m_workbench) m_workbench->refresh();
    updateTaskGraph();
  });
  connect(m_workbench, &widgets::GraphWorkbench::taskGraphWanted, this, [this] {
    updateTaskGraph();
    // Already laid out for this trace: say so, as a new layout would.
    if (m_graphs->taskGraphCurrent() && m_centralTabs->currentWidget() == m_workbench) Q_EMIT graphLaidOut();
  });
  connect(m_workbench, &widgets::GraphWorkbench::laidOut, this, &MainWindow::graphLaidOut);
  connect(m_workbench, &widgets::GraphWorkbench::lineRequested, this, [this](int line) {
    if (!m_editor->filePath().isEmpty()) m_editor->showLine(line);
  });
  connect(m_workbench, &widgets::GraphWorkbench::subgraphRequested, this, [this](std::int64_t subgraph) {
    if (!m_trace) return;
    std::vector<trace::TaskIndex> tasks;
    const auto& all = m_trace->trace().tasks();
    for (std::size_t t = 0; t < all.size(); ++t)
      if (all[t].subgraph == subgraph) tasks.push_back(static_cast<trace::TaskIndex>(t));
    if (!tasks.empty()) m_swimlane->showTasks(std::move(tasks));
    m_memory->showSubgraph(static_cast<int>(subgraph));
  });
  connect(m_workbench, &widgets::GraphWorkbench::partitionEdited, this, &MainWindow::runProject);
  connect(m_workbench, &widgets::GraphWorkbench::statusMessage, this, [this](const QString& text) { showStatus(text, 10000); });
  connect(m_swimlane, &widgets::SwimlaneView::taskSelected, this, &MainWindow::onTaskSelected);
  connect(m_swimlane, &widgets::SwimlaneView::statusMessage, this, [this](const QString& text) { showStatus(text, 8000); });
  connect(m_details, &widgets::TaskDetailsPanel::taskActivated, this, [this](trace::TaskIndex task) { m_swimlane->selectTask(task, true); });
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
    m_runner->kernelEdited();
    m_recovery->editsChanged();
  });
  connect(m_problems, &widgets::ProblemsPanel::locationActivated, this, &MainWindow::onProblemActivated);
  connect(m_tuning, &widgets::TuningPanel::kernelRewriteRequested, m_projects, &ProjectController::replaceKernelText);
  m_tuning->setKernelSourceProvider([this] { return m_editor->text(); });
  m_traceLoadBar = new widgets::TraceLoadBar(this);
  statusBar()->addPermanentWidget(m_traceLoadBar);
  connect(m_traceLoadBar, &widgets::TraceLoadBar::cancelRequested, this, &MainWindow::cancelTraceLoad);
  connect(&m_traceJobs, &JobRunner::busyChanged, this, [this](bool busy) {
    if (busy) statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(m_traceFile).fileName()));
    else m_traceLoadBar->finish();
  });
}

bool MainWindow::open(const QString& path) {
  QFileInfo info(path);
  if (!info.exists()) {
    reportError(tr("Cannot open"), tr("%1: no such file or folder").arg(path));
    return false;
  }
  // PyPTO's own pass dumps, health reports and core traces (its swimlane
  // opens as every trace does, below).
  if (auto kind = pyptoArtifactKind(path.toStdString()); kind && *kind != PyptoArtifactKind::ChipSwimlane) {
    openPyptoArtifact(path);
    return true;
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
    if (!file || !showBrokenProject(QString::fromStdString(file->string()), diags)) reportError(tr("Cannot open"), diagnosticsText(diags));
    return false;
  }
  if (!m_projects->confirmDiscardEdits()) return false;
  m_recovery->close();
  m_projects->setProject(std::move(*project));
  m_graphs->showImported(nullptr);  // PyPTO's pass dumps give way to the project's passes
  const OperatorProject& opened = *m_projects->project();
  m_runner->forgetPreviousRuns();
  m_tuning->setProject(opened, std::shared_ptr<const TensorGraph>());
  m_tuning->setEnabled(true);
  m_docks->raise(Dock::Tuning);
  m_problems->setDiagnostics({});
  QString error;
  if (!m_editor->loadFile(QString::fromStdString(opened.sourcePath().string()), &error)) {
    reportError(tr("Cannot open"), error);
    return false;
  }
  updateLineLabels();
  m_recent->add(m_projects->projectFile());
  // Its lock and what a crashed session left unsaved, then whether it may run.
  m_recovery->guard(QString::fromStdString(opened.directory().string()));
  m_projects->checkTrust();
  m_comparisons->setProject(opened.directory());  // the runs recorded before, listed while the first run goes
  m_adviceController->setProjectOpen(true);  // the previous project's advice goes
  m_docks->dock(Dock::Source)->show();
  m_graphs->invalidate();
  updateTitle();
  // Opening shows the project's swimlane at once unless the user turned
  // auto-run off (a slow kernel then waits for Ctrl+R). That run is not
  // recorded: only a run the user asked for adds a row to the ledger.
  QString name = QString::fromStdString(opened.name);
  if (autoRun() && m_projects->trusted()) m_runner->runUnrecorded();
  else if (!m_projects->trusted()) statusBar()->showMessage(tr("Opened %1 without running it: its folder is not trusted.").arg(name));
  else statusBar()->showMessage(tr("Opened %1; Ctrl+R runs it.").arg(name));
  return true;
}

bool MainWindow::showBrokenProject(const QString& file, const DiagnosticEngine& diags) {
  if (!m_projects->confirmDiscardEdits()) return false;
  QString error;
  if (!m_editor->loadFile(file, &error)) return false;
  // The editor no longer holds the open project's kernel: that project goes.
  closeProject();
  m_projects->setBrokenProjectFile(file);
  m_editor->setDiagnostics(widgets::editorDiagnostics(diags.diagnostics(), file.toStdString()));
  m_problems->setDiagnostics(diags.diagnostics());
  m_docks->raise(Dock::Problems);
  raiseEditor();
  // The caret at the first error, the line in view.
  for (const Diagnostic& diagnostic : diags.diagnostics()) {
    if (diagnostic.severity != Severity::Error || diagnostic.location.line <= 0) continue;
    m_editor->setCursorPosition(diagnostic.location.line - 1, std::max(0, diagnostic.location.column - 1));
    m_editor->ensureLineVisible(diagnostic.location.line - 1);
    break;
  }
  m_recent->add(file);
  updateTitle();
  QString message = diagnosticsText(diags);
  std::fprintf(stderr, "pto-studio: %s\n", message.toLocal8Bit().constData());
  int errors = m_problems->errorCount();
  statusBar()->showMessage(tr("%1 has %2 (see Problems): fix it here and save (Ctrl+S) to open the project.")
                               .arg(QFileInfo(file).fileName(), errors == 1 ? tr("an error") : tr("%1 errors").arg(errors)));
  Q_EMIT openFailed(message);
  return true;
}

void MainWindow::closeProject() {
  m_recovery->close();
  m_runner->stop();
  m_projects->close();
  m_runner->forgetPreviousRuns();
  // The settings shown are the old project's: editing them would change nothing.
  m_tuning->setEnabled(false);
  m_comparisons->setProject(std::nullopt);
  m_adviceController->setProjectOpen(false);
  m_traceFile.clear();
  setTrace(nullptr);
  m_graphs->invalidate();
}

void MainWindow::reloadProject() {
  QString file = !m_projects->brokenProjectFile().isEmpty() ? m_projects->brokenProjectFile() : m_projects->projectFile();
  if (file.isEmpty()) {
    statusBar()->showMessage(tr("No project to reload: open one with Ctrl+O."), 6000);
    return;
  }
  open(file);
}

const OperatorProject* MainWindow::project() const { return m_projects->project(); }
const QString& MainWindow::projectFile() const { return m_projects->projectFile(); }
bool MainWindow::projectTrusted() const { return m_projects->trusted(); }
bool MainWindow::setProjectTrusted(bool trusted) { return m_projects->setTrusted(trusted); }
bool MainWindow::restoreRecovery(const EditRecovery& recovered) { return m_recovery->restore(recovered); }
bool MainWindow::save() { return m_projects->save(); }
bool MainWindow::importTunedConfig(const QString& path) { return m_projects->importTunedConfig(path); }
bool MainWindow::exportTunedConfig(const QString& path) { return m_projects->exportTunedConfig(path, m_runner->lastRun()); }

bool MainWindow::createProject(const QString& example, const QString& folder) {
  std::optional<QString> projectFile = m_projects->createFromExample(example, folder);
  return projectFile && open(*projectFile);
}

void MainWindow::runProject() { m_runner->run(); }
bool MainWindow::recordRunInFlight() { return m_runner->recordRunInFlight(); }
void MainWindow::cancelRun() { m_runner->cancel(); }
const ProjectRunOutcome& MainWindow::lastRun() const { return m_runner->lastRun(); }
void MainWindow::setAutoRun(bool on) { m_runner->autoRunAction()->setChecked(on); }
bool MainWindow::autoRun() const { return m_runner->autoRunAction()->isChecked(); }

void MainWindow::refreshRuns() { m_comparisons->refreshRuns(); }
bool MainWindow::compareWithRun(std::int64_t runId) { return m_comparisons->compareWithRun(runId); }
void MainWindow::closeRunComparison() { m_comparisons->closeComparison(); }
bool MainWindow::compareWithMeasured(const QString& file) { return m_comparisons->compareWithMeasured(file); }
std::int64_t MainWindow::comparedRunId() const { return m_comparisons->comparedRunId(); }

void MainWindow::openTrace(const QString& path) {
  // The file the user asked for wins over a run still in flight.
  m_runner->dropRun();
  if (!m_showingPreview) {
    m_traceBeforeLoad = m_trace;
    m_traceFileBeforeLoad = m_traceFile;
  }
  m_traceFile = path;
  m_recent->add(path);
  std::string file = path.toStdString();
  quint64 loadId = ++m_traceLoadId;
  auto fraction = std::make_shared<std::atomic<double>>(0.0);
  m_traceJobs.start<widgets::TraceLoadResult>(
      [this, file, fraction, loadId, previewAfterMs = m_tracePreviewAfterMs](const std::atomic<bool>& cancelled) {
        widgets::TraceLoadControl control;
        control.cancelled = &cancelled;
        control.fraction = fraction.get();
        control.previewAfterMs = previewAfterMs;
        control.preview = [this, loadId](std::shared_ptr<const widgets::TraceIndex> preview) {
          // Posted to the GUI thread; dropped there if the load was cancelled or superseded.
          QMetaObject::invokeMethod(
              this,
              [this, loadId, preview = std::move(preview)] {
                if (loadId != m_traceLoadId || !m_traceJobs.busy()) return;
                m_showingPreview = true;
                setTrace(preview);
                statusBar()->showMessage(tr("%1: showing the first %2 tasks while the rest is read…")
                                             .arg(QFileInfo(m_traceFile).fileName())
                                             .arg(preview->trace().taskCount()));
              },
              Qt::QueuedConnection);
        };
        return widgets::loadTraceFile(file, control);
      },
      [this, path](widgets::TraceLoadResult result) {
        m_traceLoadBar->finish();
        bool hadPreview = m_showingPreview;
        m_showingPreview = false;
        if (!result.index) {
          if (hadPreview) setTrace(m_traceBeforeLoad);
          m_traceFile = m_traceFileBeforeLoad;
          updateTitle();
          reportError(tr("Cannot open the trace"), QString::fromStdString(result.error));
          return;
        }
        m_traceBeforeLoad.reset();
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
  m_traceLoadBar->start(QFileInfo(path).fileName(), fraction);
  updateTitle();
}

void MainWindow::cancelTraceLoad() {
  if (!m_traceLoadBar->loading()) return;
  m_traceJobs.cancel();  // the worker stops at its next check; its result is dropped
  ++m_traceLoadId;       // and so is a preview already posted
  m_traceLoadBar->finish();
  if (m_showingPreview) setTrace(m_traceBeforeLoad);
  m_showingPreview = false;
  QString cancelledFile = QFileInfo(m_traceFile).fileName();
  m_traceFile = m_traceFileBeforeLoad;
  m_traceBeforeLoad.reset();
  updateTitle();
  statusBar()->showMessage(tr("Stopped reading %1; the view is as it was.").arg(cancelledFile), 10000);
}

void MainWindow::openPyptoArtifact(const QString& path) {
  struct Read {
    std::shared_ptr<const PyptoArtifact> artifact;
    std::shared_ptr<const widgets::TraceIndex> index;
    std::string error;
  };
  m_runner->dropRun();
  m_recent->add(path);
  m_traceJobs.start<Read>(
      [file = path.toStdString()](const std::atomic<bool>&) {
        Read read;
        DiagnosticEngine diags;
        std::optional<PyptoArtifact> artifact = readPyptoArtifact(file, diags);
        if (!artifact) {
          read.error = diags.printed();
          return read;
        }
        if (artifact->trace) read.index = std::make_shared<const widgets::TraceIndex>(artifact->trace, file);
        read.artifact = std::make_shared<const PyptoArtifact>(std::move(*artifact));
        return read;
      },
      [this, path](Read read) {
        if (!read.artifact) {
          reportError(tr("Cannot open"), QString::fromStdString(read.error).trimmed());
          return;
        }
        const PyptoArtifact& artifact = *read.artifact;
        if (artifact.passes || artifact.graph) {
          m_graphs->showImported(std::make_shared<const PassHistory>(
              artifact.passes ? *artifact.passes : pyptoSingleDumpHistory(*artifact.graph)));
          showView(View::Graph);
          // The same output folder's swimlane, when PyPTO's simulator wrote one beside the dumps.
          if (artifact.passes)
            if (auto swimlane = findSwimlane(artifact.path); swimlane && swimlane->extension() == ".json")
              openTrace(QString::fromStdString(swimlane->string()));
        } else if (artifact.health) {
          m_health->setPyptoReport(*artifact.health);
          showView(View::Health);
        } else if (read.index) {
          m_traceFile = path;
          setTrace(read.index);
          showView(View::Swimlane);
        }
        statusBar()->showMessage(QString::fromStdString(pyptoArtifactSummary(artifact)).section('\n', 0, 0), 15000);
        updateTitle();
        Q_EMIT traceLoaded();
      });
}

QString MainWindow::showTraceSource(const QString& traceFile) {
  QString source = m_trace ? mainSourceFile(m_trace->trace()) : QString();
  QString found = source.isEmpty() ? QString() : locateTraceSource(source, traceFile);
  QString editorFile = m_editor->filePath();
  if (m_projects->project()) {
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
  if (!m_projects->confirmDiscardEdits()) return tr("its kernel is not shown: the editor has unsaved changes");
  m_projects->setBrokenProjectFile(QString());
  QString error;
  if (!found.isEmpty() && m_editor->loadFile(found, &error, true)) {
    updateLineLabels();
    updateTitle();
    return tr("kernel %1 (read-only)").arg(QDir::toNativeSeparators(found));
  }
  m_editor->showPlaceholder(missingSourceText(traceFile, source, found, error));
  updateLineLabels();
  updateTitle();
  if (source.isEmpty()) return tr("its tasks name no source file");
  return error.isEmpty() ? tr("its kernel %1 was not found").arg(source) : error;
}

void MainWindow::setTrace(std::shared_ptr<const widgets::TraceIndex> index, bool fromRun) {
  m_trace = std::move(index);
  m_graphs->setTrace(m_trace);
  // The swimlane drops its selection with the old trace; the Memory dock
  // keeps its own (by task id) for the new run.
  m_swappingTrace = true;
  m_swimlane->setTrace(m_trace);
  m_swappingTrace = false;
  m_details->setTrace(m_trace);
  // A run's summary comes from the run (simulated makespan, precision);
  // a trace file's from the trace.
  if (!fromRun) m_summary->setTrace(m_trace);
  if (!fromRun) m_memory->runChanged();  // a run's map follows when it finishes
  if (!fromRun) m_inside->runChanged();
  updateTaskGraph();
  updateLineLabels();
  updateTitle();
}

bool MainWindow::busy() const {
  return m_traceJobs.busy() || m_runner->busy() || m_graphs->busy() || m_adviceController->busy() || m_memory->busy() || m_inside->busy();
}

bool MainWindow::settling() const { return busy() || m_comparisons->busy(); }

void MainWindow::showGraphLevel(GraphLevel level) {
  m_workbench->setLevel(level);
  showView(View::Graph);
}

void MainWindow::updateTaskGraph() {
  m_graphs->updateTaskGraph(m_centralTabs->currentWidget() == m_workbench && m_workbench->showingTaskGraph());
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
  case View::Editor: raiseEditor(); break;
  case View::Summary: m_docks->raise(Dock::Summary); break;
  case View::Health: m_docks->raise(Dock::Health); break;
  case View::Runs: m_docks->raise(Dock::Runs); break;
  case View::Advice: m_docks->raise(Dock::Advice); break;
  case View::Tuning: m_docks->raise(Dock::Tuning); break;
  case View::Memory: m_docks->raise(Dock::Memory); break;
  case View::InsideTask: m_docks->raise(Dock::InsideTask); break;
  }
  m_docks->arrange(view);
}

void MainWindow::raiseEditor() {
  m_docks->raise(Dock::Source);
  m_editor->setFocus();
}

void MainWindow::reportError(const QString& title, const QString& message) {
  statusBar()->showMessage(message.section('\n', 0, 0), 15000);
  std::fprintf(stderr, "pto-studio: %s\n", message.toLocal8Bit().constData());
  Q_EMIT openFailed(message);
  if (isVisible() && !QApplication::arguments().contains(QStringLiteral("--exit")))
    QMessageBox::warning(this, title, message);
}

void MainWindow::showStatus(const QString& text, int timeoutMs) { statusBar()->showMessage(text, timeoutMs); }

void MainWindow::onTaskSelected(trace::TaskIndex task) {
  m_details->showTask(task);
  if (!m_swappingTrace)
    m_memory->showTask(m_trace && task != trace::kNoTask ? static_cast<int>(m_trace->trace().tasks()[task].id) : -1);
  m_inside->showTask(m_trace && task != trace::kNoTask ? static_cast<int>(m_trace->trace().tasks()[task].id) : -1);
  if (task != trace::kNoTask && !m_docks->dock(Dock::Details)->isFloating()) m_docks->dock(Dock::Details)->raise();
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
  const QString& projectFile = m_projects->projectFile();
  const QString& brokenFile = m_projects->brokenProjectFile();
  if (!projectFile.isEmpty()) parts << QFileInfo(projectFile).dir().dirName();
  else if (!brokenFile.isEmpty())
    parts << tr("%1 (%2 has errors)").arg(QFileInfo(brokenFile).dir().dirName(), QFileInfo(brokenFile).fileName());
  if (!m_traceFile.isEmpty()) parts << QFileInfo(m_traceFile).fileName();
  QString title = parts.isEmpty() ? tr("PTO Studio") : parts.join(QStringLiteral(" — ")) + tr(" — PTO Studio");
  setWindowTitle((m_editor->isModified() || m_projects->settingsModified() ? QStringLiteral("*") : QString()) + title);
}

QString MainWindow::suggestedExportPath(const QString& suffix) const {
  const OperatorProject* project = m_projects->project();
  QString base = project ? QString::fromStdString(project->name) : QFileInfo(m_traceFile).completeBaseName();
  QString folder = project ? QString::fromStdString(project->directory().string()) : QFileInfo(m_traceFile).absolutePath();
  return QDir(folder).filePath((base.isEmpty() ? QStringLiteral("pto") : base) + suffix);
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

void MainWindow::onProblemActivated(const QString& file, int line, int column) {
  if (!m_editor->filePath().isEmpty() && QFileInfo(file).fileName() == QFileInfo(m_editor->filePath()).fileName()) {
    raiseEditor();
    if (line > 0) m_editor->showLine(line);
    return;
  }
  statusBar()->showMessage(tr("%1:%2:%3").arg(file).arg(line).arg(column), 8000);
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
  if (!m_projects->confirmDiscardEdits()) return event->ignore();
  m_recovery->close();
  m_docks->save();
  m_traceJobs.cancel();
  m_runner->dropRun();
  m_graphs->cancel();
  m_memory->cancel();
  m_inside->cancel();
  event->accept();
}

} // namespace pto::studio
