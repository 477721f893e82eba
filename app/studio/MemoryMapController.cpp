// Implementation of MemoryMapController.
#include "app/studio/MemoryMapController.h"

#include "analysis/report/MemoryMap.h"
#include "analysis/run/ProjectRun.h"
#include "widgets/MemoryMapView.h"

#include <exception>
#include <string>

namespace pto::studio {
namespace {

// A map, or why there is none.
struct MapResult {
  std::shared_ptr<const MemoryMap> map;
  QString message;
};

} // namespace

MemoryMapController::MemoryMapController(widgets::MemoryMapView* view, QObject* parent)
    : QObject(parent), m_view(view), m_jobs(this) {}

void MemoryMapController::setRunProvider(std::function<std::shared_ptr<const ProjectRunResult>()> provider) {
  m_run = std::move(provider);
}

void MemoryMapController::showTask(int task) { compute(task, -1); }
void MemoryMapController::showSubgraph(int subgraph) { compute(-1, subgraph); }
void MemoryMapController::runChanged() { compute(-1, -1); }

void MemoryMapController::compute(int task, int subgraph) {
  std::shared_ptr<const ProjectRunResult> run = m_run ? m_run() : nullptr;
  if (!run || !run->compiled) {
    m_jobs.cancel();
    m_view->setMessage(tr("The memory map comes from a run's compilation: run the project (Ctrl+R). A swimlane "
                          "file has no buffers."));
    Q_EMIT mapShown();
    return;
  }
  // The run is immutable and shared: the worker reads it while the window goes on.
  m_jobs.start<MapResult>(
      [run, task, subgraph](const std::atomic<bool>&) {
        MapResult result;
        const Compilation& compilation = run->compiled->compilation;
        try {
          if (task >= 0)
            result.map = std::make_shared<const MemoryMap>(
                memoryMapOfTask(compilation, run->simulation ? &run->simulation->schedule : nullptr, task));
          else {
            const SubgraphId shown = subgraph >= 0 ? subgraph : fullestSubgraph(compilation);
            if (shown == kNoId) result.message = tr("No subgraph of this kernel holds an on-chip buffer.");
            else result.map = std::make_shared<const MemoryMap>(memoryMap(compilation, shown));
          }
        } catch (const std::exception& error) {
          result.message = tr("No memory map: %1").arg(QString::fromUtf8(error.what()));
        }
        return result;
      },
      [this](MapResult result) {
        if (result.map) m_view->setMap(std::move(result.map));
        else m_view->setMessage(result.message);
        Q_EMIT mapShown();
      });
}

} // namespace pto::studio
