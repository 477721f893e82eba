// The Graphs tab's jobs: the pass history, level layouts, partition checks
// and the task graph.
#include "app/studio/GraphsController.h"

#include "analysis/run/PassHistory.h"
#include "widgets/GraphWorkbench.h"
#include "widgets/QtText.h"
#include "widgets/SwimlaneView.h"
#include "widgets/TaskGraphView.h"
#include "widgets/models/IrGraphLayout.h"
#include "widgets/models/IrLevelCache.h"
#include "widgets/models/TaskGraphLayout.h"

namespace pto::studio {
namespace {

// Whether two requests compile to the same IR: kernel text and the settings
// the compiler reads (runtime options only change the schedule).
bool sameCompileInputs(const ProjectRunRequest& a, const ProjectRunRequest& b) {
  return a.sourceText == b.sourceText && a.project.file == b.project.file && a.project.machine == b.project.machine &&
         a.project.tileSettings == b.project.tileSettings && a.project.passOptions == b.project.passOptions &&
         a.project.partitionOverrides == b.project.partitionOverrides;
}

} // namespace

GraphsController::GraphsController(widgets::GraphWorkbench* graphs, widgets::TaskGraphView* taskGraph,
                                   widgets::SwimlaneView* swimlane, QObject* parent)
    : QObject(parent), m_graphs(graphs), m_taskGraph(taskGraph), m_swimlane(swimlane),
      m_levels(std::make_shared<widgets::IrLevelCache>()) {
  connect(m_graphs, &widgets::GraphWorkbench::compileRequested, this, &GraphsController::compile);
  connect(m_graphs, &widgets::GraphWorkbench::layoutRequested, this, [this](const widgets::IrLevelRequest& request) {
    // Building the level, grouping and dot all run on the worker, each once
    // per level, structure or picture (the cache). Once a picture shows, the
    // ones a double-click away are laid out behind it, so opening a group
    // shows at once.
    m_prefetchJobs.cancel();
    m_layoutJobs.start<std::shared_ptr<const widgets::IrGraphLayout>>(
        [request, cache = m_levels](const std::atomic<bool>& cancelled) { return cache->layout(request, &cancelled); },
        [this, request](std::shared_ptr<const widgets::IrGraphLayout> layout) {
          m_graphs->showLayout(layout);
          if (!layout->graph || !layout->graph->missing.empty()) return;
          m_prefetchJobs.start<std::size_t>(
              [request, layout, cache = m_levels](const std::atomic<bool>& cancelled) {
                return cache->prefetchExpansions(request, *layout, &cancelled);
              },
              [](std::size_t) {});
        });
  });
  // A drop target under the mouse: checked while the drag goes on.
  connect(m_graphs, &widgets::GraphWorkbench::dropCheckRequested, this,
          [this](int node, int cluster, const nlohmann::ordered_json& overrides, const QString& what) {
            if (!m_historyRequest) {
              m_checkJobs.cancel();
              return;
            }
            m_checkJobs.start<std::string>(
                [project = m_historyRequest->project, traced = m_graphs->history()->traced,
                 overrides](const std::atomic<bool>&) { return partitionOverridesProblem(project, *traced, overrides); },
                [this, node, cluster, what](std::string problem) { m_graphs->showDropCheck(node, cluster, problem, what); });
          });
  connect(m_graphs, &widgets::GraphWorkbench::dropCheckCancelled, &m_checkJobs, &JobRunner::cancel);
  // A click's edit is checked at once, before it reaches the settings.
  m_graphs->setOverridesChecker([this](const nlohmann::ordered_json& overrides) -> std::string {
    if (!m_historyRequest) return {};
    return partitionOverridesProblem(m_historyRequest->project, *m_graphs->history()->traced, overrides);
  });
}

void GraphsController::setRequestProvider(std::function<std::optional<ProjectRunRequest>()> provider) {
  m_requestProvider = std::move(provider);
}

void GraphsController::invalidate() {
  // A run finishing with the inputs the graphs were compiled from changes
  // nothing here: no need to compile a big kernel pass by pass again.
  if (m_graphs->history() && m_historyRequest && m_requestProvider && !m_historyJobs.busy()) {
    std::optional<ProjectRunRequest> now = m_requestProvider();
    if (now && sameCompileInputs(*now, *m_historyRequest)) return;
  }
  m_graphs->invalidate();
}

void GraphsController::useRun(const ProjectRunOutcome& run) {
  if (run.request && run.graph && run.result && run.result->compiled) {
    m_runRequest = run.request;
    m_runGraph = run.graph;
    m_runResult = run.result;
  }
  invalidate();
}

void GraphsController::compile() {
  std::optional<ProjectRunRequest> request = m_requestProvider ? m_requestProvider() : std::nullopt;
  // PyPTO's pass dumps, once opened, stay until a project opens (showImported(nullptr)).
  if (m_imported) {
    m_historyRequest.reset();
    m_graphs->setHistory(m_imported, -1);
    return;
  }
  if (!request) {
    m_graphs->showWithoutProject();
    return;
  }
  m_graphs->showCompiling(widgets::qtext(request->project.name));
  const bool fromRun = m_runRequest && sameCompileInputs(*request, *m_runRequest);
  m_historyRequest = std::move(request);
  if (fromRun) startHistoryJob(PassHistoryDepth::FinalIr, m_runGraph, m_runResult);
  else startHistoryJob(PassHistoryDepth::FinalIr);
}

void GraphsController::startHistoryJob(PassHistoryDepth depth, std::shared_ptr<const TensorGraph> traced,
                                       std::shared_ptr<const ProjectRunResult> run) {
  // The final IR first (one snapshot: the graph shows at once), then every
  // pass's (the pass list's counts and diffs) as a second job.
  m_historyJobs.start<std::shared_ptr<const PassHistory>>(
      [request = *m_historyRequest, depth, traced, run](const std::atomic<bool>& cancelled) {
        if (run) return std::make_shared<const PassHistory>(passHistoryOfRun(traced, *run->compiled));
        return std::make_shared<const PassHistory>(compilePassHistory(
            request.project, request.sourceText, [&cancelled] { return cancelled.load(); }, depth, traced));
      },
      [this](std::shared_ptr<const PassHistory> history) {
        bool finalOnly = history->finalOnly;
        int partition = partitionStep(*history);
        std::shared_ptr<const TensorGraph> tracedGraph = history->traced;
        m_graphs->setHistory(std::move(history), partition);
        if (finalOnly) startHistoryJob(PassHistoryDepth::EveryPass, std::move(tracedGraph));
      });
}

void GraphsController::showImported(std::shared_ptr<const PassHistory> history) {
  m_imported = std::move(history);
  m_historyJobs.cancel();
  m_graphs->invalidate();
}

void GraphsController::setTrace(std::shared_ptr<const widgets::TraceIndex> trace) {
  m_trace = std::move(trace);
  ++m_traceSerial;
}

void GraphsController::updateTaskGraph(bool shown) {
  if (!shown || m_taskGraphSerial == m_traceSerial) return;
  m_taskGraphSerial = m_traceSerial;
  if (!m_trace) {
    m_taskGraphJobs.cancel();
    m_taskGraph->setGraph(nullptr, nullptr);
    return;
  }
  m_taskGraph->setMessage(tr("Laying out %1 tasks…").arg(m_trace->trace().tasks().size()));
  m_taskGraphJobs.start<std::shared_ptr<const widgets::TaskGraphLayout>>(
      [index = m_trace](const std::atomic<bool>& cancelled) {
        return std::make_shared<const widgets::TaskGraphLayout>(widgets::layoutTaskGraph(*index, 300, &cancelled));
      },
      [this, index = m_trace](std::shared_ptr<const widgets::TaskGraphLayout> layout) {
        m_taskGraph->setGraph(layout, index);
        if (m_swimlane->state().selected != trace::kNoTask) m_taskGraph->selectTask(m_swimlane->state().selected);
        if (layout->grouped)
          Q_EMIT statusMessage(tr("Task graph: %1 tasks grouped into %2 boxes by label and subgraph")
                                   .arg(index->trace().tasks().size())
                                   .arg(layout->nodes.size()),
                               8000);
        Q_EMIT taskGraphLaidOut();
      });
}

void GraphsController::cancel() {
  // Every job: the window waits for running work as it closes, and a
  // cancelled compile or trace stops at its next check instead of finishing.
  m_historyJobs.cancel();
  m_layoutJobs.cancel();
  m_prefetchJobs.cancel();
  m_checkJobs.cancel();
  m_taskGraphJobs.cancel();
}

} // namespace pto::studio
