// Executes a Tile graph on the CPU, tile op by tile op, with the reference
// kernels: what `pto run` uses until the simulator exists, and what verify
// mode and the property tests compare with the reference interpreter.
#pragma once

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/TileGraph.h"
#include "compiler/reference/ReferenceInterpreter.h"

namespace pto {

// `arguments` as for runReference: one per graph argument, written in place.
// Works on a tile graph at any point of the pipeline (regions on views are
// resolved as it goes).
bool runTiles(const TileGraph& tiles, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
              const ReferenceOptions& options = {});

// The same in the order the block graph's tasks run: when the program walk
// reaches the first tensor op that owns one of a subgraph's tile ops, the
// whole subgraph runs, its tile ops in order (subgraphs starting at one op in
// id order). A partition that breaks a dependency between subgraphs reads
// stale data here, so its results differ from runTiles'.
bool runSubgraphs(const TileGraph& tiles, const BlockGraph& blocks, std::vector<HostTensor>& arguments,
                  DiagnosticEngine& diags, const ReferenceOptions& options = {});

} // namespace pto
