// GraphWorkbench: the Graphs tab — every IR level of the open project
// (tensor, tile, block, exec) in one view, the pass pipeline beside it, and
// hand edits of the partition.
//
//   toolbar   level, grouping, colour, search (n of m), fit, export, "edit
//             partition"
//   left      the passes (name, ms, changed, per level count and +/-/~; j/k
//             step; the pass pass-verify stopped at in red) and the
//             partition overrides (each with its effect; Delete)
//   centre    the graph after the selected pass, the nodes that pass added
//             or changed marked; the exec level of a run is the task graph
//             (TaskGraphView, with timings and the critical path)
//   bottom    the PTO program of the subgraph last double-clicked
//
// A view only: the project compiled pass by pass (PassHistory), the level
// laid out (IrLevelRequest → IrGraphLayout) and partition edits checked by
// the compiler's rules all come from its owner (app/studio/GraphsController),
// which does that work off the GUI thread. The GUI thread only paints.
#pragma once

#include "analysis/irviews/IrGraph.h"
#include "analysis/irviews/PassSteps.h"
#include "widgets/models/IrGraphLayout.h"

#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include <unordered_map>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QSplitter;
class QStackedWidget;
class QToolButton;
class QTreeWidget;
class QUndoCommand;

namespace pto::widgets {

class IrGraphView;
class ProjectSettingsDocument;
class TaskGraphView;

class GraphWorkbench : public QWidget {
  Q_OBJECT
public:
  GraphWorkbench(TaskGraphView* taskGraph, ProjectSettingsDocument* settings, QWidget* parent = nullptr);
  ~GraphWorkbench() override;

  // What the owner found or made.
  // No project to compile (a trace file on its own): only the run's task graph exists.
  void showWithoutProject();
  void showCompiling(const QString& projectName);
  // The project compiled pass by pass; `partitionStep` is the step the
  // partition is edited at (analysis/run partitionStep, -1 when not reached).
  void setHistory(std::shared_ptr<const PassHistory> history, int partitionStep);
  // The layout of the last layoutRequested.
  void showLayout(std::shared_ptr<const IrGraphLayout> layout);
  // The verdict on the drop of dropCheckRequested: `problem` is the
  // compiler's reason, empty when the move compiles.
  void showDropCheck(int node, int cluster, const std::string& problem, const QString& what);
  // Checks a whole partition_overrides array now (a click's edit): the
  // compiler's reason, empty when it compiles or cannot be checked.
  void setOverridesChecker(std::function<std::string(const nlohmann::ordered_json& overrides)> checker);

  // The project, its kernel or its settings changed: compile again (now
  // when shown, else when refresh() is called).
  void invalidate();
  // Compiles (if stale: compileRequested) and lays out the current level;
  // called when the tab shows.
  void refresh();

  void setLevel(GraphLevel level);
  GraphLevel level() const { return m_level; }
  // Whether the exec level shows (the window then lays out the task graph).
  bool showingTaskGraph() const;

  // Linking from the other views.
  void showSubgraph(std::int64_t subgraph);  // a task selected in the swimlane
  void showLine(int line);                   // a kernel line clicked in the editor
  // A run finished with this makespan: the latest partition edit's effect.
  void noteRunMakespan(double makespanUs, bool ok);

  const PassHistory* history() const { return m_history.get(); }
  int currentStep() const { return m_step; }
  void selectStep(int step);
  IrGraphView* view() const { return m_view; }
  QTreeWidget* passList() const { return m_passes; }
  QListWidget* overrideList() const { return m_overrides; }
  QPlainTextEdit* programListing() const { return m_listing; }
  void focusSearch();
  // DOT (the visible graph, as `pto graph --group` prints it), SVG or PNG by extension.
  bool exportView(const QString& path, QString* error = nullptr);

Q_SIGNALS:
  // Compile the project pass by pass: showWithoutProject or showCompiling
  // follows at once, setHistory when the compiler is done.
  void compileRequested();
  // Lay out this level (showLayout follows unless a newer request came).
  void layoutRequested(const IrLevelRequest& request);
  // Check dragging the moving nodes onto `cluster` with these overrides (showDropCheck follows).
  void dropCheckRequested(int node, int cluster, const nlohmann::ordered_json& overrides, const QString& what);
  // The drag left every target: a check in flight is no longer wanted.
  void dropCheckCancelled();
  // A layout reached the view (or the level has none): screenshots wait for it.
  void laidOut();
  void lineRequested(int line);
  void subgraphRequested(std::int64_t subgraph);
  void taskGraphWanted();
  // A partition edit went into the settings; the window reruns.
  void partitionEdited();
  void statusMessage(const QString& text);

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void fillPassList();
  void layoutCurrent();
  void onNodeActivated(int node);
  void onNodeOpened(int node);
  void onDropTarget(int node, int cluster);
  void onMoveRequested(int node, int cluster);
  void onMoveToNew(int node);
  void onNewSubgraphFromSelection();
  // partition_overrides entries moving `nodes` into `cluster`, or why not:
  // one merge entry for the subgraphs that move whole (a dragged subgraph's
  // box), a move entry per tile op selector for the rest.
  std::optional<nlohmann::ordered_json> moveEntries(const std::vector<int>& nodes, int cluster, QString& why) const;
  // What a drag moves, for the verdict and the undo text: "the 19 tile ops
  // of sg4 …" for a group, the op kinds and tile for a node.
  QString movingText(const nlohmann::ordered_json& entries) const;
  // Appends entries to the partition overrides as one undo step named
  // `text`, says `status` and reruns.
  void commitEdit(const nlohmann::ordered_json& entries, const QString& text, const QString& status);
  // Ctrl+Z or Ctrl+Shift+Z of one of this tab's edits: rerun, as after the edit itself.
  void onUndoIndexChanged(int index);
  void onSplit(int node);
  void onMerge(int cluster, int other);
  // Adds a partition_overrides entry when the compiler accepts it (else says why), and reruns.
  void addEdit(const nlohmann::ordered_json& edit, const QString& text);
  // The partition_overrides "OPS" naming this node as ApplyPartitionOverrides
  // counts tiles, or an error text.
  std::optional<nlohmann::ordered_json> selectorAtPartition(int node, QString& why) const;
  std::optional<nlohmann::ordered_json> subgraphSelector(int cluster, QString& why) const;
  QString movedOpsText(const nlohmann::ordered_json& selector) const;
  void fillOverrideList();
  void showListing(std::int64_t subgraph);

  ProjectSettingsDocument* m_settings = nullptr;
  TaskGraphView* m_taskGraph = nullptr;
  IrGraphView* m_view = nullptr;
  QStackedWidget* m_stack = nullptr;
  QComboBox* m_levelBox = nullptr;
  QComboBox* m_groupBox = nullptr;
  QComboBox* m_colorBox = nullptr;
  QLineEdit* m_search = nullptr;
  QLabel* m_searchStatus = nullptr;
  QToolButton* m_editButton = nullptr;
  QTreeWidget* m_passes = nullptr;
  QListWidget* m_overrides = nullptr;
  QPlainTextEdit* m_listing = nullptr;
  QLabel* m_passHeader = nullptr;
  QSplitter* m_centreSplit = nullptr;

  std::function<std::string(const nlohmann::ordered_json&)> m_overridesChecker;
  bool m_stale = true;  // invalidated since the last compileRequested
  std::shared_ptr<const PassHistory> m_history;
  std::shared_ptr<const IrGraph> m_graph;           // the current level after the current step
  std::shared_ptr<const IrGraph> m_partitionGraph;  // the tile level at ApplyPartitionOverrides
  std::unordered_map<std::string, int> m_partitionNodeOfKey;  // node key -> m_partitionGraph node
  // This tab's edits on the settings' undo stack (command and its text, to
  // tell a new command at a freed address apart) and the stack's last index.
  std::vector<std::pair<const QUndoCommand*, QString>> m_editCommands;
  int m_undoIndex = 0;
  GraphLevel m_level = GraphLevel::Tile;
  int m_step = -1;
  std::set<std::string> m_expanded;
  bool m_expandAll = false;
  int m_focusNode = -1;
  int m_pendingSubgraph = -1;  // select after the next layout (a task double-clicked)
  int m_pendingLine = 0;       // select after the next layout (the level changed)
  // What the layout requested last is of: its diff marks and its step's name.
  std::map<std::string, char> m_layoutMarks;
  QString m_layoutStepName;
  // Effects of partition edits: entry (dumped) -> "makespan 9.1 → 7.4 µs".
  std::map<std::string, QString> m_effects;
  std::string m_pendingEffect;  // the entry whose rerun has not finished yet
  double m_makespanBefore = 0.0;
  double m_lastMakespan = 0.0;
};

} // namespace pto::widgets
