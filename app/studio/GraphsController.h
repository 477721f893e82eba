// GraphsController: the Graphs tab's work (widgets/GraphWorkbench) off the
// GUI thread — the pass history (PassHistory runs the kernel's Python, so it
// stays out of widgets/), level layouts, partition-edit checks and the task
// graph layout — each on a JobRunner, a new request superseding the last.
#pragma once

#include "app/studio/JobRunner.h"
#include "app/studio/ProjectRunJob.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace pto {
enum class PassHistoryDepth;
struct PassHistory;
} // namespace pto

namespace pto::widgets {
class GraphWorkbench;
class IrLevelCache;
class SwimlaneView;
class TaskGraphView;
class TraceIndex;
} // namespace pto::widgets

namespace pto::studio {

class GraphsController : public QObject {
  Q_OBJECT
public:
  // `swimlane`: whose selected task the task graph selects once laid out.
  GraphsController(widgets::GraphWorkbench* graphs, widgets::TaskGraphView* taskGraph, widgets::SwimlaneView* swimlane,
                   QObject* parent = nullptr);

  // What to compile: the project with its unsaved settings and kernel text
  // (nullopt: no project open, e.g. a trace file, or not trusted).
  void setRequestProvider(std::function<std::optional<ProjectRunRequest>()> provider);
  // The project, its kernel or its settings changed: compile again when the
  // tab shows (not when a run finished with the inputs last compiled).
  void invalidate();
  // A run finished: while the project's inputs stay the run's, the tab shows
  // the run's own compilation (no second trace or compile); then invalidate().
  void useRun(const ProjectRunOutcome& run);

  // PyPTO's pass dumps opened on their own (analysis/pypto): the tab shows
  // them while no project is open.
  void showImported(std::shared_ptr<const PassHistory> history);

  // The trace on screen (null: none), whose task graph is the exec level.
  void setTrace(std::shared_ptr<const widgets::TraceIndex> trace);
  // Lays out the task graph on a worker when `shown` (the tab is in front
  // with the exec level) and the layout is not of the current trace.
  void updateTaskGraph(bool shown);
  // The task graph shown is laid out for the current trace.
  bool taskGraphCurrent() const { return !m_taskGraphJobs.busy() && m_taskGraphSerial == m_traceSerial; }

  // Compiling or laying out (a level or the task graph).
  bool busy() const { return m_historyJobs.busy() || m_layoutJobs.busy() || m_taskGraphJobs.busy(); }
  // The work dropped (the window closes).
  void cancel();

Q_SIGNALS:
  void taskGraphLaidOut();
  void statusMessage(const QString& text, int timeoutMs);

private:
  void compile();
  // The history of the request in m_historyRequest: from `run` when given,
  // else traced (unless `traced` is given) and compiled to `depth`. A final-IR
  // history is followed by one of every pass, from its traced graph.
  void startHistoryJob(PassHistoryDepth depth, std::shared_ptr<const TensorGraph> traced = nullptr,
                       std::shared_ptr<const ProjectRunResult> run = nullptr);

  widgets::GraphWorkbench* m_graphs;
  widgets::TaskGraphView* m_taskGraph;
  widgets::SwimlaneView* m_swimlane;
  std::function<std::optional<ProjectRunRequest>()> m_requestProvider;
  JobRunner m_historyJobs;
  JobRunner m_layoutJobs;
  JobRunner m_prefetchJobs;  // the pictures a double-click away (not part of busy())
  // Levels, group structures and pictures the layout jobs made (shared with them).
  std::shared_ptr<widgets::IrLevelCache> m_levels;
  JobRunner m_checkJobs;
  JobRunner m_taskGraphJobs;
  std::optional<ProjectRunRequest> m_historyRequest;  // what the tab's history was compiled from
  // The last completed run, whose compilation the tab reuses while the
  // project's inputs are still its request's.
  std::shared_ptr<const ProjectRunRequest> m_runRequest;
  std::shared_ptr<const TensorGraph> m_runGraph;
  std::shared_ptr<const ProjectRunResult> m_runResult;
  std::shared_ptr<const widgets::TraceIndex> m_trace;
  std::shared_ptr<const PassHistory> m_imported;  // PyPTO's pass dumps, null when none opened
  // Counts setTrace calls; the task graph is laid out for one of them (a
  // pointer could repeat after the old trace is freed).
  quint64 m_traceSerial = 0;
  quint64 m_taskGraphSerial = 0;
};

} // namespace pto::studio
