// Implementation of RemoveRedundantOp.
#include "compiler/passes/RemoveRedundantOp.h"

#include "core/SymbolicSimplify.h"

namespace pto {

TileRegion resolveViews(const TensorGraph& graph, TileRegion region) {
  while (true) {
    const TensorValue& tensor = graph.tensor(region.tensor);
    if (tensor.role != TensorRole::View || tensor.base == kNoId) return region;
    for (std::size_t d = 0; d < region.offsets.size(); ++d)
      region.offsets[d] = simplify(tensor.offsets[d] + region.offsets[d]);
    region.tensor = tensor.base;
  }
}

bool removeRedundantOp(Compilation& compilation, DiagnosticEngine&) {
  TileGraph& tiles = compilation.tiles;
  tiles.removeTileOpsIf([](const TileOp& op) { return op.kind == TensorOpKind::View; });
  for (std::size_t i = 0; i < tiles.tileOps().size(); ++i) {
    TileOp& op = tiles.tileOp(static_cast<TileOpId>(i));
    for (TileRegion& region : op.inputs) region = resolveViews(tiles.graph, region);
    for (TileRegion& region : op.outputs) region = resolveViews(tiles.graph, region);
  }
  return true;
}

} // namespace pto
