// SubgraphOpOrder: a subgraph's tile ops in an order that keeps fewer tiles
// live at once, for AllocateBuffers when the order they were made in does
// not fit the buffers.
//
// Why: ops come out of ExpandFunction op by op, each op's tiles in a row.
// PyPTO's sg_set_scope pins a whole scope into one subgraph: its sparse
// attention gathers 2 048 keys in 128 row tiles, each going through a dozen
// ops, so op by op every op's 128 tiles are live together (10 MB of a 192 KB
// unified buffer). On the chip PyPTO's planner runs a row's chain to its end
// before the next row starts; so does this order.
//
// The order keeps every dependence between the subgraph's ops (a read after
// a write of an overlapping region, a write after a read or a write of one;
// regions compared as AllocateBuffers compares them, within one run of the
// subgraph; a region of an in-place reshape's alias overlaps every region of
// the bytes it shares). Among the ops whose predecessors have all run, the
// next is the one made ready last (the consumer of what just ran), ties to
// the op made first: depth first along the chains.
// Cost: O(n log n) plus the dependences found, n the subgraph's ops.
#pragma once

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/TileGraph.h"

#include <vector>

namespace pto {

// Positions into subgraph.ops, in the new order (a permutation).
std::vector<int> depthFirstOpOrder(const TileGraph& tiles, const Subgraph& subgraph);

} // namespace pto
