// MemoryMapController: the Memory dock's work. The map of the selected task's
// subgraph (or of a subgraph picked in the graphs; with neither, the
// subgraph that fills a memory most, as `pto report --memory` does) is
// computed from the current run's compilation on a JobRunner, never on the
// GUI thread, and handed to widgets/MemoryMapView.
#pragma once

#include "app/studio/JobRunner.h"

#include <QObject>

#include <functional>
#include <memory>

namespace pto {
struct ProjectRunResult;
} // namespace pto

namespace pto::widgets {
class MemoryMapView;
} // namespace pto::widgets

namespace pto::studio {

class MemoryMapController : public QObject {
  Q_OBJECT
public:
  explicit MemoryMapController(widgets::MemoryMapView* view, QObject* parent = nullptr);

  // The finished run whose swimlane is on screen (null: none, a trace file,
  // or a run still going): where maps come from. Its task ids are the
  // swimlane's.
  void setRunProvider(std::function<std::shared_ptr<const ProjectRunResult>()> provider);

  // The swimlane's selection (trace::kNoTask, -1: none: the fullest subgraph).
  void showTask(int task);
  // A subgraph picked in the graphs.
  void showSubgraph(int subgraph);
  // A run finished or the swimlane changed: the selection starts over.
  void runChanged();

  bool busy() const { return m_jobs.busy(); }
  void cancel() { m_jobs.cancel(); }

Q_SIGNALS:
  // A map (or the reason there is none) is on the view.
  void mapShown();

private:
  // task >= 0: that task's subgraph; else subgraph >= 0; else the fullest.
  void compute(int task, int subgraph);

  widgets::MemoryMapView* m_view;
  std::function<std::shared_ptr<const ProjectRunResult>()> m_run;
  JobRunner m_jobs;
};

} // namespace pto::studio
