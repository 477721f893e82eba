// Executes a Tile graph on the CPU, tile op by tile op, with the reference
// kernels: what `pto run` uses until the simulator exists, and what verify
// mode and the property tests compare with the reference interpreter.
#pragma once

#include "compiler/ir/TileGraph.h"
#include "compiler/reference/ReferenceInterpreter.h"

namespace pto {

// `arguments` as for runReference: one per graph argument, written in place.
// Works on a tile graph at any point of the pipeline (regions on views are
// resolved as it goes).
bool runTiles(const TileGraph& tiles, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
              const ReferenceOptions& options = {});

} // namespace pto
