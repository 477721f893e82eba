// GroupStructure: the groups of an IR graph under one grouping (which nodes
// each holds, its title, the group around it), computed once per graph so
// that opening or closing a group only decides what is shown. On a 10 000-op
// tile graph building the structure takes tens of milliseconds (keys,
// titles, parts); choosing what is visible from it takes a few, which keeps
// a double-click within a frame (issue 35's 50 ms budget).
#pragma once

#include "analysis/irviews/IrGraph.h"

#include <vector>

namespace pto {

struct GroupStructure {
  GraphGrouping grouping = GraphGrouping::None;
  // Every group, collapsed (`expanded` false), in order of its first node.
  std::vector<VisibleGroup> groups;
  std::vector<int> parentOf;           // by group: the group around it, -1 at top level
  std::vector<GraphGrouping> kindOf;   // by group: its level; None for a part ("subgraphs 1-91 of 1088")
  std::vector<char> opensByItself;     // by group: shown open unless asked (one member, alone at its level, small parent)
  std::vector<std::vector<int>> pathOf;  // by node: its groups from the outside in
};

GroupStructure groupStructure(const IrGraph& graph, GraphGrouping grouping);

// What `visibleGraph(graph, options)` gives, for a structure made for
// `options.grouping` from the same graph.
VisibleGraph visibleGraph(const IrGraph& graph, const VisibleGraphOptions& options, const GroupStructure& structure);

} // namespace pto
