// What the graph layouts (TaskGraphLayout, IrGraphLayout) share about
// Graphviz: its global lock, its text attributes, and turning its
// coordinates (y up from the bottom, points) into the views' (y down from
// the top).
#pragma once

#include "widgets/models/TaskGraphLayout.h"

#include <graphviz/gvc.h>

#include <mutex>
#include <string>
#include <vector>

namespace pto::widgets {

// Graphviz keeps global state (the dot layout's statics, cgraph's
// dictionaries): every layout in the process takes this lock.
std::mutex& graphvizLock();

// cgraph's API takes char* for names and values it does not modify.
inline char* graphvizText(const char* text) { return const_cast<char*>(text); }
// Sizes in points as Graphviz's inches.
inline std::string graphvizInches(double points) { return std::to_string(points / 72.0); }

// A point of a laid-out graph whose bounding box is `box`, in view coordinates.
inline GraphPoint fromGraphviz(pointf p, const boxf& box) { return GraphPoint{p.x - box.LL.x, box.UR.y - p.y}; }

// An edge's route: start, then (control, control, end) triples; the segment
// under the arrowhead appended so the line reaches the node. Empty when dot
// gave no route.
std::vector<GraphPoint> edgeRoute(Agedge_t* edge, const boxf& box);

} // namespace pto::widgets
