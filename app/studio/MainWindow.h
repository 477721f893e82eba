// MainWindow: pto-studio's window. The swimlane is the central widget; the
// source editor, task details and summary are docks whose layout is saved
// with QSettings (View > Reset layout restores the default). Opening and
// parsing run on a JobRunner so the GUI thread never parses a file; the run
// (compile + simulate) plugs in as another JobRunner whose result is a
// TraceIndex handed to setTrace(). A trace opened on its own brings its
// kernel into the editor read-only; a project file that does not load opens
// in the editor with its errors, to be fixed and saved.
#pragma once

#include "app/studio/JobRunner.h"
#include "analysis/irviews/IrGraph.h"
#include "analysis/run/RunSummary.h"
#include "app/studio/ProjectRunJob.h"
#include "core/Diagnostics.h"
#include "core/project/EditRecovery.h"
#include "core/project/OperatorProject.h"
#include "widgets/models/TraceIndex.h"

#include <QMainWindow>
#include <QTimer>

#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QDockWidget;
class QLineEdit;
class QMenu;
class QSpinBox;
class QTabWidget;

namespace pto::widgets {
class AdvicePanel;
class MeasuredPanel;
class HealthPanel;
class NoticeArea;
class RunsPanel;
class ProblemsPanel;
class ProjectSettingsDocument;
class TuningPanel;
class SourceEditor;
class SummaryPanel;
class SwimlanePane;
class SwimlaneView;
class TaskDetailsPanel;
class TaskGraphView;
} // namespace pto::widgets

namespace pto::studio {

class AdviceController;
class ComparisonController;
class EditRecoveryController;
class GraphWorkbench;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  enum class View { Swimlane, Graph, Editor, Summary, Health, Tuning, Runs, Advice };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Opens a project folder, a pto-project.json or a swimlane .json. Traces
  // load in the background (traceLoaded or openFailed follows); a project
  // opens at once. Returns false when the path does not exist or is not
  // recognised, or the project file has errors (openFailed is emitted too);
  // then the project file itself is open in the editor with its errors
  // marked and listed in Problems, and saving it (Ctrl+S) opens it again.
  //
  // A trace's kernel: the file most of its tasks name, found as written
  // (absolute) or relative to the trace's folder or a folder above it. With
  // no project open it is shown read-only with the label gutter, or a
  // placeholder says which file the trace names and that it was not found;
  // an open project keeps its own kernel in the editor.
  bool open(const QString& path);
  // Shows a trace (null: none) in every view; a run's trace leaves the
  // summary to the run's numbers.
  void setTrace(std::shared_ptr<const widgets::TraceIndex> index, bool fromRun = false);
  // Brings a view forward and gives it the room it needs (pto-studio
  // --view): Swimlane and Graph pick the central tab and leave the docks as
  // laid out (or as the saved layout has them); Editor widens the Source
  // dock to about half the window; Summary and Tuning widen the right
  // column and give most of its height to that dock. The sizes become part
  // of the layout saved on quitting; View > Reset layout restores the default.
  void showView(View view);
  // A trace, run, graph layout, advice or tuning job is in progress (what
  // Cancel stops and what a new run waits for).
  bool busy() const;
  // busy(), or the Runs tab still reading the ledger or comparing two runs:
  // what a screenshot waits for before it is taken.
  bool settling() const;
  // Compiles and simulates the open project in the background (Ctrl+R); a
  // newer run supersedes an older one; Esc cancels. The run sees the
  // editor's current text and the unsaved settings.
  void runProject();
  void cancelRun();
  // With auto-run on, an edit reruns after this pause (settings edits are
  // deliberate, kernel typing is not: it waits longer).
  void setAutoRun(bool on);
  bool autoRun() const;
  // Copies an example into a new folder and opens it (File > New project).
  bool createProject(const QString& example, const QString& folder);
  // Saves the kernel and the project file (Ctrl+S).
  bool save();
  // File > Export: the project's tuning settings (with the last run's
  // makespan) and the swimlane as a Chrome/Perfetto trace.
  bool exportTunedConfig(const QString& path);
  bool exportPerfettoTrace(const QString& path);
  // PNG or SVG by the file's extension.
  bool exportSwimlaneImage(const QString& path);

  widgets::SwimlaneView* swimlane() const { return m_swimlane; }
  widgets::SourceEditor* editor() const { return m_editor; }
  widgets::TaskDetailsPanel* details() const { return m_details; }
  widgets::SummaryPanel* summary() const { return m_summary; }
  widgets::HealthPanel* health() const { return m_health; }
  widgets::ProblemsPanel* problems() const { return m_problems; }
  widgets::TaskGraphView* taskGraph() const { return m_graph; }
  // The Graphs tab: every IR level, the passes, partition editing.
  GraphWorkbench* graphs() const { return m_workbench; }
  // Shows the Graphs tab at `level` (pto-studio --view graph --level ...).
  void showGraphLevel(GraphLevel level);
  widgets::TuningPanel* tuning() const { return m_tuning; }
  widgets::ProjectSettingsDocument* settings() const { return m_settings; }
  // The open project with the unsaved settings applied (null when none).
  const OperatorProject* project() const { return m_project ? &*m_project : nullptr; }
  // File > Import tuned config: applies a tuned-config file to the settings
  // as one undoable edit (nothing changes when the file has an error).
  bool importTunedConfig(const QString& path);
  const QString& projectFile() const { return m_projectFile; }
  // The last run that finished (not cancelled or superseded), failed or not.
  const ProjectRunOutcome& lastRun() const { return m_lastRun; }

  // The Runs dock (issue 15): the project's recorded runs, a makespan trend,
  // and the A/B comparison of the current run with a recorded one.
  widgets::RunsPanel* runs() const { return m_runs; }
  // The bars above the central views (recovered work, another window on the
  // project, an untrusted folder).
  widgets::NoticeArea* notices() const { return m_notices; }
  EditRecoveryController* recovery() const { return m_recovery; }
  // Puts recovered edits into the editor and the settings as undoable,
  // unsaved edits (the Restore of the recovery bar); false when a part
  // could not be restored (the reason is reported).
  bool restoreRecovery(const EditRecovery& recovered);
  // Opening a project runs its Python, so a folder not yet trusted
  // (core/project/FolderTrust) opens for reading and editing only, with a
  // bar offering to trust it; File > Trust this folder grants and revokes.
  bool projectTrusted() const { return m_projectTrusted; }
  // Grants (or revokes) trust for the open project's folder in the store
  // pto shares; false when that fails or the folder stays as it was.
  bool setProjectTrusted(bool trusted);
  // The swimlane with the compared run beneath it while comparing.
  widgets::SwimlanePane* swimlanePane() const { return m_swimlanePane; }
  // Reads the project's run ledger again (after each run; runsLoaded follows).
  void refreshRuns();
  // Shows run `runId` (B) beneath the current run (A) on one time axis, with
  // the comparison in the Runs panel (comparisonShown follows); false when
  // there is no current recorded run to compare with.
  bool compareWithRun(std::int64_t runId);
  // Closes the comparison beneath the run, a recorded run's or a measured trace's.
  void closeRunComparison();
  // The run B shown beneath the current one; 0 when not comparing.
  std::int64_t comparedRunId() const;
  // Shows a trace measured on a chip (PyPTO's merged_swimlane.json or
  // tilefwk_L1_prof_data*.json, or a `pto run --trace` file) beneath the
  // current run on one time axis, both coloured by each task's error, and the
  // ten largest mismatches in the Measured dock (comparisonShown follows);
  // again after every run until the comparison is closed. False when there
  // is no run to compare with.
  bool compareWithMeasured(const QString& file);
  widgets::MeasuredPanel* measuredPanel() const { return m_measured; }

  // The Advice dock (issue 15): the advisor's suggestions and the tuner's
  // Pareto front, each applied as one undoable settings edit and checked by
  // a run (Run > Advise, Run > Tune).
  widgets::AdvicePanel* advicePanel() const { return m_advicePanel; }
  AdviceController* adviceController() const { return m_adviceController; }

Q_SIGNALS:
  void traceLoaded();
  // The task graph view has a layout for the current trace.
  void graphLaidOut();
  void openFailed(const QString& message);
  // A run finished (its outcome is lastRun()); not emitted for cancelled or superseded runs.
  void runFinished(bool ok);
  void runStageChanged(const QString& stage);
  // The Runs panel has the ledger's runs (or says why not).
  void runsLoaded();
  // The A/B comparison is on screen (or its error is).
  void comparisonShown();

protected:
  void closeEvent(QCloseEvent* event) override;

private:
  void createActions();
  void createDocks();
  void openTrace(const QString& path);
  bool openProject(const QString& path);
  // Opens a project file that failed to load in the editor, its errors
  // marked and listed (false when the editor cannot take it: unsaved edits
  // kept, or the file unreadable).
  bool showBrokenProject(const QString& file, const DiagnosticEngine& diags);
  // Forgets the open project (its run, trace and settings) so that another
  // file can take the editor.
  void closeProject();
  // Opens the project file again: the open project, or the broken one
  // being fixed in the editor (File > Reload, and after Ctrl+S on it).
  void reloadProject();
  // Puts the kernel a freshly loaded trace names into the editor (see
  // open()); returns a note for the status bar, empty when all is well.
  QString showTraceSource(const QString& traceFile);
  void raiseEditor();
  // The dock sizes of a view request (see showView).
  void arrangeDocks(View view);
  // The status bar, stderr, openFailed and (when shown) a dialog titled `title`.
  void reportError(const QString& title, const QString& message);
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void onTaskSelected(trace::TaskIndex task);
  void onEditorLineClicked(int line);
  void updateLineLabels();
  void updateTitle();
  void showHelp();
  void newProject();
  void onRunFinished(ProjectRunOutcome outcome);
  // Shows a run's swimlane and its makespan delta, once per run (the early
  // swimlane or, when none came, the finished run's).
  void showRunTimeline(const ProjectRunOutcome& run);
  void onProblemActivated(const QString& file, int line, int column);
  void onSettingsChanged();
  void replaceKernelText(const QString& newSource, const QString& summary);
  void scheduleAutoRun(int delayMs);
  // Lays out the task graph on a worker when its tab is showing and the
  // layout is not of the current trace.
  void updateTaskGraph();
  ProjectRunRequest runRequest() const;
  QString suggestedExportPath(const QString& suffix) const;
  // Asks to save unsaved kernel or settings edits; false when the user cancels.
  bool confirmDiscardEdits();
  void setSettingsModified(bool modified);
  // The unsaved kernel text and settings, for the recovery file.
  EditRecovery unsavedEdits() const;
  // After a project opens: takes its lock (warns about another window on
  // it) and offers back what a crashed session left unsaved.
  void guardProject();
  void offerRecovery(const EditRecovery& recovered);
  // The bar that asks to trust the open project's folder (nothing runs until then).
  void offerTrust();
  // The Trust action's state, and what the empty swimlane says about the open project.
  void updateTrustAction();

  widgets::SwimlanePane* m_swimlanePane = nullptr;
  widgets::SwimlaneView* m_swimlane = nullptr;
  widgets::SourceEditor* m_editor = nullptr;
  widgets::TaskDetailsPanel* m_details = nullptr;
  widgets::SummaryPanel* m_summary = nullptr;
  widgets::HealthPanel* m_health = nullptr;
  widgets::ProblemsPanel* m_problems = nullptr;
  widgets::TaskGraphView* m_graph = nullptr;
  GraphWorkbench* m_workbench = nullptr;
  widgets::ProjectSettingsDocument* m_settings = nullptr;
  widgets::TuningPanel* m_tuning = nullptr;
  QDockWidget* m_tuningDock = nullptr;
  bool m_loadingSettings = false;  // settingsChanged from load() is not an edit
  QTabWidget* m_centralTabs = nullptr;
  JobRunner m_graphJobs;
  // Counts setTrace calls; the graph is laid out for one of them (a pointer
  // could repeat after the old trace is freed).
  quint64 m_traceSerial = 0;
  quint64 m_graphSerial = 0;
  QDockWidget* m_problemsDock = nullptr;
  QAction* m_autoRunAction = nullptr;
  QTimer m_autoRunTimer;
  QDockWidget* m_editorDock = nullptr;
  QDockWidget* m_detailsDock = nullptr;
  QDockWidget* m_summaryDock = nullptr;
  QDockWidget* m_healthDock = nullptr;
  QLineEdit* m_search = nullptr;
  QComboBox* m_colorMode = nullptr;
  QSpinBox* m_depth = nullptr;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QMenu* m_exportMenu = nullptr;
  QByteArray m_defaultLayout;
  JobRunner m_traceJobs;
  JobRunner m_runJobs;
  double m_previousMakespanUs = 0.0;  // of the last successful run, for the delta
  std::shared_ptr<const widgets::TraceIndex> m_trace;
  QString m_projectFile;
  std::optional<OperatorProject> m_project;  // as loaded or last saved, plus unsaved settings
  ProjectRunOutcome m_lastRun;
  bool m_settingsModified = false;
  bool m_runShown = false;  // the current run's swimlane is on screen
  QString m_runDelta;       // its makespan change against the previous run, as text
  std::optional<RunSummary> m_previousRun;  // the last finished run of this project, for the summary's delta
  QString m_traceFile;
  QString m_brokenProjectFile;  // a project file with errors, open in the editor to be fixed

  // The Runs and Measured docks; what they do is the ComparisonController's.
  // A dock tabbed with `beside` on the right, listed after it in the View menu.
  QDockWidget* addDockBeside(QDockWidget* beside, QWidget* content, const QString& title, const QString& name);
  void createRunsDock();
  void createMeasuredDock();
  widgets::RunsPanel* m_runs = nullptr;
  QDockWidget* m_runsDock = nullptr;
  widgets::MeasuredPanel* m_measured = nullptr;
  QDockWidget* m_measuredDock = nullptr;
  ComparisonController* m_comparisons = nullptr;

  // The Advice dock and its jobs (AdviceController).
  void createAdviceDock();
  widgets::AdvicePanel* m_advicePanel = nullptr;
  QDockWidget* m_adviceDock = nullptr;
  AdviceController* m_adviceController = nullptr;

  widgets::NoticeArea* m_notices = nullptr;
  EditRecoveryController* m_recovery = nullptr;
  bool m_projectTrusted = false;
  QAction* m_trustAction = nullptr;
};

} // namespace pto::studio
