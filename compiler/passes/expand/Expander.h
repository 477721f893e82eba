// The state and steps of ExpandFunction, shared by the files that expand
// each family of tensor ops (private to the pass):
//   ExpandFunction.cpp        the driver, tile settings, elementwise ops,
//                             reductions, matmul, views, moves, creation
//   expand/LayoutOps.cpp      permute, reshape, concat, bitcast
//   expand/IndexingOps.cpp    top-k, sorts, gather, index_select, scatter
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/ir/ValidShapes.h"
#include "compiler/settings/TileSettings.h"
#include "core/Diagnostics.h"
#include "core/Limits.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace pto::expand {

using Dims = std::vector<std::int64_t>;

// A shape of constant expressions.
SymbolicShape constants(const Dims& values);

// Calls `visit(offsets, sizes)` for every tile of `shape` cut by `tile`, in
// row-major order of the tile grid; tail tiles are smaller.
void forEachTile(const Dims& shape, const Dims& tile, const std::function<void(const Dims&, const Dims&)>& visit);

// Thrown when the tile ops reach kTileOpLimit; run() reports it at the op.
struct TileOpLimitReached {};

class Expander {
public:
  Expander(Compilation& compilation, DiagnosticEngine& diags)
      : m_compilation(compilation), m_tiles(compilation.tiles), m_graph(compilation.tiles.graph), m_diags(diags),
        m_tileOpLimit(limitValue(kTileOpLimit)) {}
  bool run();

private:
  const Dims& shapeOf(TensorId id) const { return m_tiles.shapeOf(id); }

  TileRegion region(TensorId tensor, SymbolicShape offsets, Dims sizes) const {
    return TileRegion{tensor, std::move(offsets), std::move(sizes), {}};
  }
  TileRegion whole(TensorId tensor) const {
    return region(tensor, constants(Dims(shapeOf(tensor).size(), 0)), shapeOf(tensor));
  }

  // One place a tile is set (a set_*_tile_shapes call or a tile_settings
  // entry, with its value) and the ops it cut.
  struct TileSetting {
    TileSection section;
    std::string projectKey;  // "tile_settings.vec.DEFAULT"; empty for the kernel's own call
    SourceLocation call;     // the kernel's set_*_tile_shapes call
    SourceLocation firstOp;
    Dims tile;
    std::vector<TileCut> cuts;
  };

  TileOp tileOp(const TensorOp& op) const {
    TileOp tile;
    tile.tensorOp = op.id;
    tile.kind = op.kind;
    tile.attrs = op.attrs;
    return tile;
  }

  // Visits the tiles of op's first input cut by the vec tile along every dim
  // but the op's "dim", which each tile holds whole (sorts, scatters): their
  // offsets, sizes and the tile shape. False when the vec tile does not fit.
  template <typename Visit> bool forEachTileAcross(const TensorOp& op, Visit&& visit) {
    const Dims shape = shapeOf(op.inputs[0]);
    const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
    auto tile = vecTile(op, shape);
    if (!tile) return false;
    Dims across = *tile;
    across[dim] = shape[dim];
    if (op.kind == TensorOpKind::ArgSort)  // its input and its int32 indices, each with the sorted dim whole
      narrowAcrossToFit(across, dim, {static_cast<std::int64_t>(sizeOf(m_graph.tensor(op.inputs[0]).dtype)), 4});
    if (op.kind == TensorOpKind::Sort32)  // fp32 values in, a (value, index) pair of them out
      narrowAcrossToFit(across, dim, {4, 8});
    if (op.kind == TensorOpKind::MrgSort)  // fp32 pairs in and out
      narrowAcrossToFit(across, dim, {4, 4});
    forEachTile(shape, across, [&](const Dims& offsets, const Dims& sizes) { visit(offsets, sizes, across); });
    return true;
  }
  void narrowAcrossToFit(Dims& tile, std::size_t keep, const std::vector<std::int64_t>& itemBytes) const;


  // The driver, tile settings, elementwise ops, reductions, matmul, moves (ExpandFunction.cpp).
  bool inferValidParts();
  void assignTileValidParts();
  bool concretiseShapes();
  const nlohmann::ordered_json* projectTile(TileSection section, const TensorOp& op, std::string* keyUsed = nullptr) const;
  const nlohmann::ordered_json* projectVecDefault() const;
  std::optional<Dims> vecTile(const TensorOp& op, const Dims& tiled, bool dataMovement = false,
                              bool wholeTrailingDims = false);
  std::optional<CubeTileShape> cubeTile(const TensorOp& op, std::string& projectKey);
  void recordCut(TileSection section, const std::string& projectKey, const TensorOp& op, const Dims& tile, Dims extents);
  void warnUnusedTileSettings();
  void noteClampedTiles();
  TileOp boxTile(const TensorOp& op, TensorId input, const Dims& inOffsets, const Dims& inSizes, TensorId output,
                 const Dims& outOffsets, const Dims& outSizes, const Dims& tile) const;
  bool expand(const TensorOp& op);
  TileRegion broadcastRegion(TensorId input, const Dims& outShape, const Dims& outOffsets, const Dims& outSizes) const;
  bool expandElementwise(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandReduction(const TensorOp& op, const std::function<void(TileOp)>& emit);
  TensorId addAccumulator(const TensorOp& op, TensorId output, DataType dtype);
  TensorId addTemporary(const TensorOp& op, std::string name, DataType dtype, SymbolicShape shape, Dims concrete);
  void emitConversions(const TensorOp& op, TensorId accumulator, TensorId output, const std::function<void(TileOp)>& emit);
  bool expandMatmul(const TensorOp& op, const std::function<void(TileOp)>& emit);
  TileRegion matrixRegion(TensorId tensor, const Dims& batch, std::int64_t row, std::int64_t rows, std::int64_t col,
                          std::int64_t cols) const;
  bool expandView(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandMove(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandCreation(const TensorOp& op, const std::function<void(TileOp)>& emit);

  // Layout ops (expand/LayoutOps.cpp).
  std::size_t vecTileRankAsSet(const TensorOp& op) const;
  bool hasVecTile(const TensorOp& op) const;
  bool expandPermutation(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool inPlaceReshape(const TensorOp& op, bool& asCopy);
  bool expandConcat(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandReshape(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandBitcast(const TensorOp& op, const std::function<void(TileOp)>& emit);

  // Indexing and sorting ops (expand/IndexingOps.cpp).
  bool expandTopK(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandSortedRows(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool scatterColumnsFit(const TensorOp& op) const;
  bool expandScatterAlongOtherDims(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool onlyMatmulsRead(TensorId tensor) const;
  bool gathersRowsOfAlias(const TensorOp& op, TensorId alias, TensorId root) const;
  bool expandIndexSelect(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool scattersRows(const TensorOp& op) const;
  bool expandScatterRows(const TensorOp& op, const std::function<void(TileOp)>& emit);
  bool expandWhole(const TensorOp& op, const std::function<void(TileOp)>& emit);
  void makeRoomForTileOp();

  Compilation& m_compilation;
  TileGraph& m_tiles;
  TensorGraph& m_graph;
  DiagnosticEngine& m_diags;
  std::int64_t m_tileOpLimit;
  std::size_t m_opsExpanded = 0;  // tensor ops whose tiles are all made
  ValidShapes m_valid;  // of the traced tensors
  std::vector<TileSetting> m_settingsUsed;  // in order of first use
  std::map<std::tuple<TileSection, std::string, std::string, Dims>, std::size_t> m_settingIndex;
};

} // namespace pto::expand
