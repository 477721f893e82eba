// RemoveRedundantOp: views move no data, so they become nothing.
//
// Pre:  ExpandFunction has run.
// Post: no tile op is a view; every region names a storage tensor (an
//       argument or a temporary), its offsets composed through the views it
//       was taken from. Tensor ops left without tile ops make no subgraphs
//       and no tasks.
#pragma once

#include "compiler/passes/Compilation.h"

namespace pto {

bool removeRedundantOp(Compilation& compilation, DiagnosticEngine& diags);

// A region on a view, rewritten onto the view's storage tensor.
TileRegion resolveViews(const TensorGraph& graph, TileRegion region);

} // namespace pto
