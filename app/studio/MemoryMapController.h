// MemoryMapController: the Memory dock's work. The map of the selected task's
// subgraph (or of a subgraph picked in the graphs; with neither, the
// subgraph that fills a memory most, as `pto report --memory` does) is
// computed from the current run's compilation on a JobRunner, never on the
// GUI thread, and handed to widgets/MemoryMapView.
#pragma once

#include "app/studio/RunViewController.h"

namespace pto::widgets {
class MemoryMapView;
} // namespace pto::widgets

namespace pto::studio {

class MemoryMapController : public RunViewController {
  Q_OBJECT
public:
  explicit MemoryMapController(widgets::MemoryMapView* view, QObject* parent = nullptr);

  // The swimlane's selection (trace::kNoTask, -1: none: the fullest subgraph).
  void showTask(int task);
  // A subgraph picked in the graphs.
  void showSubgraph(int subgraph);
  // A run finished or the swimlane changed: the task or subgraph shown
  // before stays when the new run still has it (a rerun after an edit keeps
  // the map the user was looking at), else the fullest subgraph.
  void runChanged();

private:
  // task >= 0: that task's subgraph; else subgraph >= 0; else the fullest.
  // `orFullest`: when the run has no such task or subgraph, the fullest.
  void compute(int task, int subgraph, bool orFullest = false);

  widgets::MemoryMapView* m_view;
  // The selection shown (by id, which a rerun of the same kernel keeps).
  int m_task = -1;
  int m_subgraph = -1;
};

} // namespace pto::studio
