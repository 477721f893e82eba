// The producer -> consumer relation of a Tile graph, region by region: which
// tile ops' results each tile op reads. The tile dumps' `producers` (JSON) and
// edges (DOT) both come from here, so the two never disagree.
//
// Meaning. Tile ops are taken in id order (execution order within a run of
// the program). A tile op reads its input regions and, when it accumulates,
// its output regions. It reads from every earlier tile op whose output region
// may share an element with what it reads and has not been overwritten since:
// a later write that surely covers an earlier one (same tensor, same
// symbolic offsets, a box holding it) hides it. Regions are compared on the
// tensors they name (a view tensor is its own tensor here, read from its view
// tile op). Offsets that depend on loop indices are compared within one
// iteration; a symbolic offset against a different one may overlap anything,
// so such a pair is an edge. Iterations are not unrolled: a value carried
// from one iteration to the next gives no edge.
#pragma once

#include "compiler/ir/TileGraph.h"

#include <vector>

namespace pto {

struct TileDataEdge {
  TileOpId from = kNoId;  // the producer, from < to
  TileOpId to = kNoId;    // the consumer
  friend bool operator==(const TileDataEdge&, const TileDataEdge&) = default;
};

// Every edge once, ordered by `to`, then `from`. About linear in tile ops
// plus edges for grid-like tilings (regions are found through a grid index).
std::vector<TileDataEdge> tileDataEdges(const TileGraph& graph);

} // namespace pto
