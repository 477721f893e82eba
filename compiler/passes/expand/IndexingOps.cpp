// ExpandFunction, top-k, sorts, gather, index_select and scatter: ops that hold one dim
// whole in each tile, or that read or write rows by index.
#include "compiler/passes/expand/Expander.h"

#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace pto::expand {

// A top-k along a row longer than its tile runs as a selection tree, so no
// tile holds more than a chunk of the row: each chunk of the row gives its
// own top k (indices offset by the chunk's start), then groups of those
// candidate lists are cut down to k again, carrying the row indices along as
// a payload input, until one list remains, as a device merges sorted runs
// in its unified buffer. A chunk is the vec tile's extent along the dim, at
// least 2k so that every level at least halves the candidates. The other
// dims are cut by the vec tile as elementwise ops are.
//
// The tree selects exactly what one whole-row top-k does, ties included:
// candidate lists stay in row order and each is sorted with ties by lower
// index, so a stable selection over them prefers the lower row index too.
//
// Tiles are emitted depth first (a group's lists, then its selection), so a
// subgraph holding a whole row's tree needs only a few lists per level live
// in its buffers, not every chunk's at once.
bool Expander::expandTopK(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const TensorId input = op.inputs[0];
  const Dims inShape = shapeOf(input);
  const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
  const std::int64_t k = *op.attr<std::int64_t>("k");
  auto tile = vecTile(op, inShape);
  if (!tile) return false;
  const std::int64_t chunk = std::max((*tile)[dim], 2 * k);

  // Level l selects from `values` (and `indices` after level 0), `length`
  // candidates along dim in groups of `group`, into level l + 1's lists (the
  // op's outputs after the last level).
  struct Level {
    TensorId values = kNoId, indices = kNoId;
    std::int64_t length = 0, group = 0;
  };
  std::vector<Level> levels{{input, kNoId, inShape[dim], 0}};
  while (true) {
    Level& level = levels.back();
    const bool first = levels.size() == 1;
    if (level.length <= chunk) {
      level.group = level.length;
      break;
    }
    // Later levels group whole lists of k, so a list never straddles two groups.
    level.group = first ? chunk : chunk / k * k;
    const std::int64_t groups = (level.length + level.group - 1) / level.group;
    const std::int64_t tail = level.length - (groups - 1) * level.group;
    Dims shape = inShape;
    shape[dim] = (groups - 1) * k + std::min(k, tail);
    const int index = static_cast<int>(levels.size()) - 1;
    auto candidates = [&](TensorId like, const char* what) {
      const TensorValue& value = m_graph.tensor(like);
      return addTemporary(op, value.name + "_" + what + "_l" + std::to_string(index), value.dtype, constants(shape),
                          shape);
    };
    TensorId values = candidates(op.outputs[0], "values");
    TensorId indices = candidates(op.outputs[1], "indices");
    levels.push_back({values, indices, shape[dim], 0});
  }

  Dims rows = *tile;
  rows[dim] = inShape[dim];
  forEachTile(inShape, rows, [&](const Dims& rowOffsets, const Dims& rowSizes) {
    // Emits group `g` of level `l` after the groups of level l - 1 it selects from.
    std::function<void(std::size_t, std::int64_t)> select = [&](std::size_t l, std::int64_t g) {
      const Level& level = levels[l];
      const std::int64_t begin = g * level.group, size = std::min(level.group, level.length - begin);
      if (l > 0) {
        const Level& below = levels[l - 1];
        const std::int64_t lists = (below.length + below.group - 1) / below.group;
        const std::int64_t perList = std::min(k, below.group);
        for (std::int64_t c = begin / perList; c < std::min(lists, (begin + size + perList - 1) / perList); ++c)
          select(l - 1, c);
      }
      const bool last = l + 1 == levels.size();
      const TensorId outValues = last ? op.outputs[0] : levels[l + 1].values;
      const TensorId outIndices = last ? op.outputs[1] : levels[l + 1].indices;
      const std::int64_t keep = std::min(k, size);
      TileOp t = tileOp(op);
      t.attrs["k"] = keep;
      Dims offsets = rowOffsets, sizes = rowSizes;
      offsets[dim] = begin;
      sizes[dim] = size;
      t.inputs.push_back(region(level.values, constants(offsets), sizes));
      if (l > 0) t.inputs.push_back(region(level.indices, constants(offsets), sizes));
      else t.attrs["index_base"] = begin;
      offsets[dim] = g * k;
      sizes[dim] = keep;
      t.outputs.push_back(region(outValues, constants(offsets), sizes));
      t.outputs.push_back(region(outIndices, constants(offsets), sizes));
      t.tileShape = *tile;
      t.tileShape[dim] = level.group;
      emit(std::move(t));
    };
    select(levels.size() - 1, 0);
  });
  return true;
}

// An argsort cut by the vec tile along every dim but the sorted one, which
// each tile holds whole (its indices count from the row's start), as
// PyPTO's tests cut a sort of [12101, 33] into [12101, 13] columns.
bool Expander::expandSortedRows(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  // sort32's result holds two elements (value, index) per input element along its sorted (last) dim.
  const std::int64_t widen = op.kind == TensorOpKind::Sort32 ? 2 : 1;
  return forEachTileAcross(op, [&](const Dims& offsets, const Dims& sizes, const Dims& tile) {
    TileOp t = tileOp(op);
    t.inputs.push_back(region(op.inputs[0], constants(offsets), sizes));
    Dims outOffsets = offsets, outSizes = sizes;
    outOffsets.back() *= widen;
    outSizes.back() *= widen;
    t.outputs.push_back(region(op.outputs[0], constants(outOffsets), outSizes));
    t.tileShape = tile;
    emit(std::move(t));
  });
}

// Whether a scatter can be cut across its dim: its index fits inside its
// input and its source covers its index along every other dim (torch's
// rule), so each slice across the dim is scattered on its own (along dim
// 0, x[index[i][j]][j] comes from src[i][j]). A scatter_update's 1-D
// index names whole slices, so its source matches x in the other dims
// (shape inference) and every tile takes the whole index. In place
// (scatter_, index_add_'s and index_put_'s scatter_update) alike.
bool Expander::scatterColumnsFit(const TensorOp& op) const {
  const Dims x = shapeOf(op.inputs[0]), index = shapeOf(op.inputs[1]);
  const std::int64_t* dimAttr = op.attr<std::int64_t>("dim");
  if (!dimAttr || *dimAttr < 0) return false;
  const auto dim = static_cast<std::size_t>(*dimAttr);
  // A scalar src (no third input) is the instruction's operand: nothing of it to cut.
  const Dims src = op.inputs.size() > 2 ? shapeOf(op.inputs[2]) : index;
  if (op.kind == TensorOpKind::ScatterUpdate) return src.size() == x.size() && dim < x.size() && index.size() == 1;
  if (index.size() != x.size() || src.size() != x.size() || dim >= x.size()) return false;
  for (std::size_t d = 0; d < x.size(); ++d)
    if (d != dim && (index[d] > x[d] || src[d] < index[d])) return false;
  return true;
}

// A scatter cut by the vec tile along every dim but the scatter's, which
// each tile holds whole in its input, index and source, as PyPTO's tests
// cut a [128, 16384] scatter along dim 0 into [128, 128] columns. Each
// tile's index and source are their part of its columns; a tile of
// columns the index does not reach (an index narrower than the input)
// scatters nothing: it copies its part of the input, or in place leaves
// it as it is (no tile). A scatter_update's slices come in chunks of the
// vec tile's size along dim (below).
bool Expander::expandScatterAlongOtherDims(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const bool slices = op.kind == TensorOpKind::ScatterUpdate;
  const Dims index = shapeOf(op.inputs[slices ? 2 : 1]);  // what reaches each column: the source for slices
  const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
  const bool inPlace = op.outputs[0] == op.inputs[0];
  std::int64_t sliceChunk = 1;
  if (auto tile = vecTile(op, shapeOf(op.inputs[0]))) sliceChunk = std::max<std::int64_t>(1, (*tile)[dim]);
  std::vector<TileOp> tiles;
  const bool fits = forEachTileAcross(op, [&](const Dims& offsets, const Dims& sizes, const Dims& columns) {
    TileOp t = tileOp(op);
    t.inputs.push_back(region(op.inputs[0], constants(offsets), sizes));
    t.outputs.push_back(region(op.outputs[0], constants(offsets), sizes));
    t.tileShape = columns;
    Dims part = sizes;  // the index's (and the source's) part of these columns
    bool reached = true;
    for (std::size_t d = 0; d < part.size(); ++d) {
      if (d == dim) continue;
      part[d] = std::min(sizes[d], index[d] - offsets[d]);
      reached = reached && part[d] > 0;
    }
    if (!reached) {
      if (inPlace) return;
      t.kind = TensorOpKind::Copy;
      t.attrs.clear();
      tiles.push_back(std::move(t));
      return;
    }
    if (slices) {
      // The index and the source's slices in chunks of the vec tile's size along dim, one tile op each,
      // in order, each updating the tile the previous one wrote (so a source longer than the tile along
      // dim never sits in the buffer whole, and repeated indices keep their order).
      const std::int64_t count = shapeOf(op.inputs[1])[0];
      for (std::int64_t first = 0; first < count; first += sliceChunk) {
        TileOp chunk = t;
        if (first > 0) chunk.inputs[0] = chunk.outputs[0];
        const std::int64_t length = std::min(sliceChunk, count - first);
        chunk.inputs.push_back(region(op.inputs[1], constants(Dims{first}), Dims{length}));
        Dims at = offsets, own = part;
        at[dim] = first;
        own[dim] = length;
        chunk.inputs.push_back(region(op.inputs[2], constants(at), own));
        tiles.push_back(std::move(chunk));
      }
      return;
    }
    for (std::size_t k = 1; k < op.inputs.size(); ++k) {
      Dims own = part;
      own[dim] = shapeOf(op.inputs[k])[dim];
      t.inputs.push_back(region(op.inputs[k], constants(offsets), own));
    }
    tiles.push_back(std::move(t));
  });
  if (!fits) return false;
  for (TileOp& t : tiles) emit(std::move(t));
  return true;
}

// Whether every op reading `tensor` (or a view of it) is a matmul.
bool Expander::onlyMatmulsRead(TensorId tensor) const {
  bool read = false;
  for (const TensorOp& other : m_graph.ops())
    for (TensorId input : other.inputs)
      if (input == tensor || (m_graph.tensor(input).role == TensorRole::View && m_graph.storageOf(input) == tensor)) {
        if (other.kind != TensorOpKind::Matmul && other.kind != TensorOpKind::View) return false;
        read = read || other.kind == TensorOpKind::Matmul;
      }
  return read;
}

// Whether `op` is an MGATHER (expandIndexSelect) from `alias`, an in-place
// reshape of `root` that only merges root's leading dims ([blocks, 128, 1,
// d] seen as [blocks * 128, d], how a paged cache is gathered from). Such a
// gather takes every row of root, so it can name root itself.
bool Expander::gathersRowsOfAlias(const TensorOp& op, TensorId alias, TensorId root) const {
  if (op.kind != TensorOpKind::IndexSelect || op.inputs.size() != 2 || op.inputs[0] != alias || !hasVecTile(op))
    return false;
  const std::int64_t* dim = op.attr<std::int64_t>("dim");
  const Dims& aliasShape = shapeOf(alias);
  const Dims& rootShape = shapeOf(root);
  return (!dim || *dim == 0 || *dim == -2) && shapeOf(op.inputs[1]).size() == 1 && aliasShape.size() == 2 &&
         rootShape.size() >= 2 && rootShape.back() == aliasShape[1];
}

// index_select along dim 0 under a vec tile, as an MGATHER runs it on the
// chip: each output tile takes the rows its slice of the index names
// straight from global memory. Input 0 of a tile is the source's columns
// of that tile over every row (what the gather may touch, for the
// dependencies); only the picked rows move (readsInPlace). A paged KV
// cache never fits in the unified buffer, the rows of one tile do. Other
// dims, sources of another rank than 2 (a row is then more than the last
// dim) and no vec tile keep one whole tile.
bool Expander::expandIndexSelect(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const TensorId source = op.inputs[0], index = op.inputs[1], output = op.outputs[0];
  const Dims outShape = shapeOf(output);
  const Dims& sourceShape = shapeOf(source);
  const std::int64_t* dimAttr = op.attr<std::int64_t>("dim");
  std::int64_t dim = dimAttr ? *dimAttr : 0;
  if (dim < 0) dim += static_cast<std::int64_t>(sourceShape.size());
  if (shapeOf(index).size() != 1) return expandWhole(op, emit);
  auto tile = vecTile(op, outShape, /*dataMovement=*/true);
  if (!tile) return false;
  // A row is the last dim (GatherRows.h): rank-2 sources, or an aliased cache (below). Other dims and
  // ranks gather on chip (TGATHER), tile by tile of the output: each takes the source whole along `dim`
  // (the index may name any position) and as the tile along the other dims, and its slice of the index.
  if (dim != 0 || sourceShape.size() != 2) {
    const auto along = static_cast<std::size_t>(dim);
    forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      Dims sourceOffsets = offsets, sourceSizes = sizes;
      sourceOffsets[along] = 0;
      sourceSizes[along] = sourceShape[along];
      t.inputs.push_back(region(source, constants(sourceOffsets), sourceSizes));
      t.inputs.push_back(region(index, constants({offsets[along]}), {sizes[along]}));
      t.outputs.push_back(region(output, constants(offsets), sizes));
      t.tileShape = *tile;
      emit(std::move(t));
    });
    return true;
  }
  // gather_in_l1's rows land in L1 only when matmuls alone read them (L1 has no way back to GM or to
  // a vector core); otherwise they are gathered into UB like gather_in_ub's, which computes the same.
  const bool* intoL1 = op.attr<bool>(kGatherIntoL1);
  const bool l1 = intoL1 && *intoL1 && onlyMatmulsRead(output);
  // From an aliased paged cache: the rows are root's leading dims flattened (GatherRows.h).
  const TensorId root = m_graph.tensor(source).reshapeOf;
  const bool fromRoot = root != kNoId && gathersRowsOfAlias(op, source, root);
  forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    TileOp t = tileOp(op);
    if (fromRoot) {
      Dims rootOffsets(shapeOf(root).size(), 0), rootSizes = shapeOf(root);
      rootOffsets.back() = offsets.back();
      rootSizes.back() = sizes.back();
      t.inputs.push_back(region(root, constants(rootOffsets), rootSizes));
    } else {
      Dims sourceOffsets = offsets, sourceSizes = sizes;
      sourceOffsets[0] = 0;
      sourceSizes[0] = sourceShape[0];
      t.inputs.push_back(region(source, constants(sourceOffsets), sourceSizes));
    }
    t.inputs.push_back(region(index, constants({offsets[0]}), {sizes[0]}));
    t.outputs.push_back(region(output, constants(offsets), sizes));
    t.attrs[kGatherRowsFromGm] = true;
    t.attrs[kGatherIntoL1] = l1;
    t.tileShape = *tile;
    emit(std::move(t));
  });
  return true;
}

// scatter_update's paged-cache form written into its own cache (the
// frontend records it with `into`): a row scatter in place.
bool Expander::scattersRows(const TensorOp& op) const {
  const bool* rows = op.attr<bool>("rows");
  return op.kind == TensorOpKind::ScatterUpdate && rows && *rows && op.inputs.size() == 3 &&
         op.outputs.size() == 1 && op.outputs[0] == op.inputs[0] && shapeOf(op.inputs[1]).size() == 1;
}

// The mirror of expandIndexSelect, as an MSCATTER runs on the chip: src's
// rows are cut by the vec tile in force, and each tile's rows go straight
// to the cache rows its slice of the index names. Output 0 of a tile is
// the cache's columns of that tile over every row (what the scatter may
// touch, for the dependencies); only the named rows move (writesInPlace).
// The cache (a KV cache of tens of MiB) is never loaded or held on chip.
bool Expander::expandScatterRows(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const TensorId cache = op.inputs[0], index = op.inputs[1], rows = op.inputs[2];
  const Dims rowShape = shapeOf(rows);
  const Dims cacheShape = shapeOf(cache);
  auto tile = vecTile(op, rowShape, /*dataMovement=*/true);
  if (!tile) return false;
  forEachTile(rowShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    TileOp t = tileOp(op);
    t.inputs.push_back(region(index, constants({offsets[0]}), {sizes[0]}));
    t.inputs.push_back(region(rows, constants(offsets), sizes));
    Dims cacheOffsets(cacheShape.size(), 0), cacheSizes = cacheShape;
    cacheOffsets.back() = offsets.back();
    cacheSizes.back() = sizes.back();
    t.outputs.push_back(region(cache, constants(cacheOffsets), cacheSizes));
    t.attrs[kScatterRowsToGm] = true;
    t.tileShape = *tile;
    emit(std::move(t));
  });
  return true;
}

bool Expander::expandWhole(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  TileOp t = tileOp(op);
  for (TensorId input : op.inputs) t.inputs.push_back(whole(input));
  for (TensorId output : op.outputs) t.outputs.push_back(whole(output));
  t.tileShape = shapeOf(op.outputs[0]);
  emit(std::move(t));
  return true;
}

} // namespace pto::expand
