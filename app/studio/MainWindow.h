// MainWindow: pto-studio's window, assembled from one controller per
// concern. The swimlane and the Graphs tab share the centre, under the bars
// that ask for decisions (recovered work, another window on the project, an
// untrusted folder); the panels sit in docks (DockLayoutController). The open
// project and its trust are the ProjectController's, unsaved work's recovery
// the EditRecoveryController's, the run the RunController's, the Graphs tab's
// compiling and layouts the GraphsController's, the ledger and comparisons
// the ComparisonController's, advice and tuning the AdviceController's,
// File > Open recent the RecentFilesController's. The
// window opens files, shows a trace in every view and links the views (a task
// selected, a line clicked). A trace opened on its own brings its kernel into
// the editor read-only; a project file that does not load opens in the editor
// with its errors, to be fixed and saved.
#pragma once

#include "app/studio/JobRunner.h"
#include "analysis/irviews/IrGraph.h"
#include "app/studio/ProjectRunJob.h"
#include "app/studio/StudioView.h"
#include "core/Diagnostics.h"
#include "core/project/EditRecovery.h"
#include "core/project/OperatorProject.h"
#include "widgets/models/TraceIndex.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QTabWidget;

namespace pto::widgets {
class AdvicePanel;
class GraphWorkbench;
class MeasuredPanel;
class HealthPanel;
class MemoryMapView;
class TaskInsideView;
class NoticeArea;
class RunsPanel;
class ProblemsPanel;
class ProjectSettingsDocument;
class TuningPanel;
class SourceEditor;
class SummaryPanel;
class SwimlanePane;
class SwimlaneToolBar;
class SwimlaneView;
class TaskDetailsPanel;
class TaskGraphView;
class TraceLoadBar;
} // namespace pto::widgets

namespace pto::studio {

class AdviceController;
class ComparisonController;
class DockLayoutController;
class EditRecoveryController;
class GraphsController;
class MemoryMapController;
class TaskInsideController;
class ProjectController;
class RecentFilesController;
class RunController;

class MainWindow : public QMainWindow {
  Q_OBJECT
public:
  using View = StudioView;

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
  // The run opening a project makes is not recorded in its ledger; this asks
  // the one in flight to be recorded after all (pto-studio --run). False when
  // no run is in flight.
  bool recordRunInFlight();
  void cancelRun();
  // With auto-run on, an edit reruns after this pause (settings edits are
  // deliberate, kernel typing is not: it waits longer).
  void setAutoRun(bool on);
  bool autoRun() const;
  // A trace file still being read this long after the open shows a first
  // picture of what was read so far (default one second; tests shorten it).
  void setTracePreviewAfterMs(double ms) { m_tracePreviewAfterMs = ms; }
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
  widgets::GraphWorkbench* graphs() const { return m_workbench; }
  // Shows the Graphs tab at `level` (pto-studio --view graph --level ...).
  void showGraphLevel(GraphLevel level);
  widgets::TuningPanel* tuning() const { return m_tuning; }
  // The Memory dock: the selected task's on-chip buffers over time.
  widgets::MemoryMapView* memoryMap() const { return m_memoryView; }
  MemoryMapController* memoryMapController() const { return m_memory; }
  // The Inside task dock: the selected task's instructions per pipe.
  widgets::TaskInsideView* taskInside() const { return m_insideView; }
  TaskInsideController* taskInsideController() const { return m_inside; }
  widgets::ProjectSettingsDocument* settings() const { return m_settings; }
  // The open project with the unsaved settings applied (null when none).
  const OperatorProject* project() const;
  // File > Import tuned config: applies a tuned-config file to the settings
  // as one undoable edit (nothing changes when the file has an error).
  bool importTunedConfig(const QString& path);
  const QString& projectFile() const;
  // The last run that finished (not cancelled or superseded), failed or not.
  const ProjectRunOutcome& lastRun() const;

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
  bool projectTrusted() const;
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
  void createControllers();
  void createActions();
  void connectViews();
  // Reads a swimlane file on a worker with a progress bar and Cancel in the
  // status bar; a large file shows a preview of its beginning after about a
  // second. Cancel (or a failed read) puts back the trace shown before.
  void openTrace(const QString& path);
  void cancelTraceLoad();
  // One of PyPTO's own artifacts (analysis/pypto): pass dumps into the
  // Graphs tab, a health report into the Health dock, a core trace into the swimlane.
  void openPyptoArtifact(const QString& path);
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
  // The status bar, stderr, openFailed and (when shown) a dialog titled `title`.
  void reportError(const QString& title, const QString& message);
  void showStatus(const QString& text, int timeoutMs);
  void onTaskSelected(trace::TaskIndex task);
  void onEditorLineClicked(int line);
  void updateLineLabels();
  void updateTitle();
  void showHelp();
  void onProblemActivated(const QString& file, int line, int column);
  // Lays out the task graph when the Graphs tab shows it.
  void updateTaskGraph();
  QString suggestedExportPath(const QString& suffix) const;

  // The views.
  QTabWidget* m_centralTabs = nullptr;
  widgets::SwimlanePane* m_swimlanePane = nullptr;
  widgets::SwimlaneView* m_swimlane = nullptr;
  widgets::TaskGraphView* m_graph = nullptr;
  widgets::GraphWorkbench* m_workbench = nullptr;
  widgets::NoticeArea* m_notices = nullptr;
  widgets::SourceEditor* m_editor = nullptr;
  widgets::TaskDetailsPanel* m_details = nullptr;
  widgets::SummaryPanel* m_summary = nullptr;
  widgets::HealthPanel* m_health = nullptr;
  widgets::ProblemsPanel* m_problems = nullptr;
  widgets::ProjectSettingsDocument* m_settings = nullptr;
  widgets::TuningPanel* m_tuning = nullptr;
  widgets::RunsPanel* m_runs = nullptr;
  widgets::MeasuredPanel* m_measured = nullptr;
  widgets::AdvicePanel* m_advicePanel = nullptr;
  widgets::MemoryMapView* m_memoryView = nullptr;
  widgets::TaskInsideView* m_insideView = nullptr;
  widgets::SwimlaneToolBar* m_swimlaneBar = nullptr;

  // The controllers, one per concern.
  DockLayoutController* m_docks = nullptr;
  ProjectController* m_projects = nullptr;
  EditRecoveryController* m_recovery = nullptr;
  RunController* m_runner = nullptr;
  GraphsController* m_graphs = nullptr;
  ComparisonController* m_comparisons = nullptr;
  AdviceController* m_adviceController = nullptr;
  MemoryMapController* m_memory = nullptr;
  TaskInsideController* m_inside = nullptr;
  RecentFilesController* m_recent = nullptr;

  // What is on screen: the trace (a run's or a file's) and the file it came from.
  std::shared_ptr<const widgets::TraceIndex> m_trace;
  bool m_swappingTrace = false;  // setTrace is replacing the swimlane's trace
  QString m_traceFile;
  JobRunner m_traceJobs;
  // The trace file being read (openTrace): its bar, and what was on screen
  // before it, put back if the load is cancelled or fails after a preview.
  widgets::TraceLoadBar* m_traceLoadBar = nullptr;
  quint64 m_traceLoadId = 0;  // drops previews of a superseded load
  // About a second of reading, then a picture of what was read: with the
  // index and the first paint it is on screen within two seconds of the open.
  double m_tracePreviewAfterMs = 1000;
  bool m_showingPreview = false;
  std::shared_ptr<const widgets::TraceIndex> m_traceBeforeLoad;
  QString m_traceFileBeforeLoad;
};

} // namespace pto::studio
