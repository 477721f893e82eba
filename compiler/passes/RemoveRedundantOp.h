// RemoveRedundantOp: views move no data, so they become nothing; nor does a
// reshape of a whole tensor that nothing writes after it, a kernel argument
// (a paged cache seen as rows, a scale vector seen as a column) or a tensor
// an earlier op computed (a projection seen as heads): its result is the
// source's own bytes in another shape (TensorValue::reshapeOf), as PyPTO's
// reshape of a tensor in global memory is. Writes of the source before the
// reshape are ordered before the tasks reading the alias on the bytes both
// share (ExecuteGraph::aliases), so a kernel may fill a cache and then read
// it reshaped without a copy. A bitcast (view(x, dtype=)) is folded the same
// way: its result is the source's bytes read as another dtype.
//
// Pre:  ExpandFunction has run.
// Post: no tile op is a view; every region names a storage tensor (an
//       argument or a temporary), its offsets composed through the views it
//       was taken from. A reshape or bitcast of a whole argument or
//       temporary that no tile op of a later tensor op writes (under its
//       name or an alias's), whose result only that op writes, has no tile
//       ops and its result has reshapeOf set (never to another alias).
//       Tensor ops left without tile ops make no subgraphs and no tasks.
//       Later passes route a temporary's bytes through global memory when an
//       alias reads them (GenerateMoveOp), order the alias's readers after
//       its writers (GraphPartition, LowerToPto's GM alias classes,
//       BuildExecuteGraph) and give both names one storage.
#pragma once

#include "compiler/ir/Compilation.h"

namespace pto {

bool removeRedundantOp(Compilation& compilation, DiagnosticEngine& diags);

// ForwardAssemble (runs right after RemoveRedundantOp): a copy or assemble of
// a temporary is folded into the temporary's producer, which then writes the
// destination directly, so `y[b] = f(x)` and `c[:] = matmul(a, b)` cost no
// extra copy, tile or task. Only when no op between producer and copy touches
// the destination, the ops of loops between them included. Other readers of
// the temporary, ops of the same path between producer and copy, then read
// the destination (PyPTO's ReplaceTensor gives an assemble's input and output
// one storage): a norm's result both assembled into an output and fed to a
// matmul makes no tile of the assemble's vec-tile shape.
bool forwardAssemble(Compilation& compilation, DiagnosticEngine& diags);

// A region on a view, rewritten onto the view's storage tensor.
TileRegion resolveViews(const TensorGraph& graph, TileRegion region);

} // namespace pto
