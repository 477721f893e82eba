// RemoveRedundantOp: views move no data, so they become nothing; nor does a
// reshape of a kernel argument that nothing writes after it (a paged cache
// seen as rows, a scale vector seen as a column): its result is the
// argument's own bytes in another shape (TensorValue::reshapeOf), as PyPTO's
// reshape is. Writes of the argument before the reshape are ordered before
// the tasks reading the alias on the bytes both share (ExecuteGraph::aliases),
// so a kernel may fill a cache and then read it reshaped without a copy. A
// bitcast (view(x, dtype=)) of such an argument is folded the same way: its
// result is the argument's bytes read as another dtype.
//
// Pre:  ExpandFunction has run.
// Post: no tile op is a view; every region names a storage tensor (an
//       argument or a temporary), its offsets composed through the views it
//       was taken from. A reshape or bitcast of a whole argument that no tile
//       op of a later tensor op writes (under its name or an alias's), whose
//       result only that op writes, has no tile ops and its result has
//       reshapeOf set. Tensor ops left without tile ops make no subgraphs and
//       no tasks.
#pragma once

#include "compiler/passes/Compilation.h"

namespace pto {

bool removeRedundantOp(Compilation& compilation, DiagnosticEngine& diags);

// ForwardAssemble (runs right after RemoveRedundantOp): a copy or assemble of
// a temporary that nothing else reads is folded into the temporary's
// producer, which then writes the destination directly, so `y[b] = f(x)`
// and `c[:] = matmul(a, b)` cost no extra copy, tile or task. Only when no
// op between producer and copy touches the destination, the ops of loops
// between them included.
bool forwardAssemble(Compilation& compilation, DiagnosticEngine& diags);

// A region on a view, rewritten onto the view's storage tensor.
TileRegion resolveViews(const TensorGraph& graph, TileRegion region);

} // namespace pto
