// Implementation of MemoryMapController.
#include "app/studio/MemoryMapController.h"

#include "analysis/report/MemoryMap.h"
#include "analysis/run/ProjectRun.h"
#include "widgets/MemoryMapView.h"

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

namespace pto::studio {

MemoryMapController::MemoryMapController(widgets::MemoryMapView* view, QObject* parent)
    : RunViewController(parent), m_view(view) {}

void MemoryMapController::showTask(int task) {
  m_task = task;
  m_subgraph = -1;
  compute(task, -1);
}

void MemoryMapController::showSubgraph(int subgraph) {
  m_task = -1;
  m_subgraph = subgraph;
  compute(-1, subgraph);
}

void MemoryMapController::runChanged() { compute(m_task, m_subgraph, true); }

void MemoryMapController::compute(int task, int subgraph, bool orFullest) {
  auto showMessage = [view = m_view](const QString& message) { view->setMessage(message); };
  std::shared_ptr<const ProjectRunResult> run = currentRun();
  if (!run || !run->compiled) {
    showNow(showMessage, tr("The memory map comes from a run's compilation: run the project (Ctrl+R). A swimlane "
                            "file has no buffers."));
    return;
  }
  // The run is immutable and shared: the worker reads it while the window goes on.
  startJob<MemoryMap>(
      [run, task, subgraph, orFullest](const std::atomic<bool>&) {
        Outcome<MemoryMap> outcome;
        const Compilation& compilation = run->compiled->compilation;
        try {
          std::optional<MemoryMap> chosen;
          try {
            if (task >= 0)
              chosen = memoryMapOfTask(compilation, run->simulation ? &run->simulation->schedule : nullptr, task);
            else if (subgraph >= 0)
              chosen = memoryMap(compilation, subgraph);
          } catch (const std::out_of_range&) {
            if (!orFullest) throw;  // gone from this run: the fullest instead
          }
          if (chosen) {
            outcome.result = std::make_shared<const MemoryMap>(std::move(*chosen));
          } else {
            const SubgraphId shown = fullestSubgraph(compilation);
            if (shown == kNoId) outcome.message = tr("No subgraph of this kernel holds an on-chip buffer.");
            else outcome.result = std::make_shared<const MemoryMap>(memoryMap(compilation, shown));
          }
        } catch (const std::exception& error) {
          outcome.message = tr("No memory map: %1").arg(QString::fromUtf8(error.what()));
        }
        return outcome;
      },
      [view = m_view](std::shared_ptr<const MemoryMap> map) { view->setMap(std::move(map)); }, showMessage);
}

} // namespace pto::studio
