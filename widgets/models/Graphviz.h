// What the graph layouts (TaskGraphLayout, IrGraphLayout) share about
// Graphviz: its global lock, its text attributes, and turning its
// coordinates (y up from the bottom, points) into the views' (y down from
// the top).
#pragma once

#include "widgets/models/TaskGraphLayout.h"

#include <graphviz/gvc.h>

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pto::widgets {

// Graphviz keeps global state (the dot layout's statics, cgraph's
// dictionaries): every layout in the process takes this lock.
std::mutex& graphvizLock();

// The one Graphviz context of the process (take graphvizLock() first). One
// context for every layout, never freed: Graphviz's text-measuring plugin
// (pango) remembers the last font name as a pointer into the context's font
// table, so a layout in a new context after the old one was freed read freed
// memory (AddressSanitizer found it when a cluster title was measured).
GVC_t* graphvizContext();

// cgraph's API takes char* for names and values it does not modify.
inline char* graphvizText(const char* text) { return const_cast<char*>(text); }
// Sizes in points as Graphviz's inches.
inline std::string graphvizInches(double points) { return std::to_string(points / 72.0); }

// A point of a laid-out graph whose bounding box is `box`, in view coordinates.
inline GraphPoint fromGraphviz(pointf p, const boxf& box) { return GraphPoint{p.x - box.LL.x, box.UR.y - p.y}; }

// Lays `graph` out with dot; its bounding box, or nullopt when dot failed.
// Call gvFreeLayout(context, graph) after reading the layout.
std::optional<boxf> layOutWithDot(GVC_t* context, Agraph_t* graph);
inline double boxWidth(const boxf& box) { return box.UR.x - box.LL.x; }
inline double boxHeight(const boxf& box) { return box.UR.y - box.LL.y; }

// An edge's route: start, then (control, control, end) triples; the segment
// under the arrowhead appended so the line reaches the node. Empty when dot
// gave no route.
std::vector<GraphPoint> edgeRoute(Agedge_t* edge, const boxf& box);

} // namespace pto::widgets
