// StudioView: the views pto-studio can bring forward (pto-studio --view,
// MainWindow::showView); the dock layout gives each the room it needs.
#pragma once

namespace pto::studio {

enum class StudioView { Swimlane, Graph, Editor, Summary, Health, Tuning, Runs, Advice, Memory, InsideTask };

} // namespace pto::studio
