// ExpandFunction, permute, in-place and general reshape, concat and bitcast: ops that move
// boxes of one tensor into boxes of another.
#include "compiler/passes/expand/Expander.h"

#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace pto::expand {

// The rank of the vec tile in force for `op` as set (0 when none is).
std::size_t Expander::vecTileRankAsSet(const TensorOp& op) const {
  if (const auto* setting = projectTile(TileSection::Vec, op)) return setting->size();
  if (!op.tiles.vec.empty()) return op.tiles.vec.size();
  if (const auto* fallback = projectVecDefault()) return fallback->size();
  return 0;
}

bool Expander::hasVecTile(const TensorOp& op) const {
  return projectTile(TileSection::Vec, op) != nullptr || !op.tiles.vec.empty() || projectVecDefault() != nullptr;
}

// Output dim i of a transpose/permute is input dim permutation[i]; each
// output tile reads the input region with its offsets and sizes permuted
// back.
bool Expander::expandPermutation(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  TensorId input = op.inputs[0], output = op.outputs[0];
  const Dims outShape = shapeOf(output);
  const std::size_t rank = outShape.size();
  Dims permutation(rank);
  std::iota(permutation.begin(), permutation.end(), std::int64_t{0});
  const Dims* dimsAttr = op.attr<Dims>("dims");
  const Dims dims = dimsAttr ? *dimsAttr : Dims{};
  if (op.kind == TensorOpKind::Transpose && dims.size() == 2)
    std::swap(permutation[static_cast<std::size_t>(dims[0])], permutation[static_cast<std::size_t>(dims[1])]);
  else if (op.kind == TensorOpKind::Permute && dims.size() == rank)
    permutation = dims;
  else
    return expandWhole(op, emit);  // malformed attrs: the reference interpreter reports them
  auto tile = vecTile(op, outShape);
  if (!tile) return false;
  forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    Dims inOffsets(rank), inSizes(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      inOffsets[static_cast<std::size_t>(permutation[i])] = offsets[i];
      inSizes[static_cast<std::size_t>(permutation[i])] = sizes[i];
    }
    emit(boxTile(op, input, inOffsets, inSizes, output, offsets, sizes, *tile));
  });
  return true;
}

// reshape(x, ..., inplace=True) of a kernel argument moves nothing: its
// result is the argument's bytes (TensorValue::reshapeOf), in the
// simulators as in the reference interpreter, so an output can be written
// through it. Dependencies are found per tensor, so a kernel that writes
// those bytes must reach them through one name only: the argument or its
// reshaped alias. Of a computed tensor (or a part of one), an in-place
// reshape that is only read is the same as a copy, and is expanded as one
// (`asCopy`); writing through it is refused.
bool Expander::inPlaceReshape(const TensorOp& op, bool& asCopy) {
  asCopy = false;
  const TensorId source = op.inputs[0], result = op.outputs[0];
  const TensorValue& sourceValue = m_graph.tensor(source);
  const TensorId root = sourceValue.reshapeOf != kNoId ? sourceValue.reshapeOf : source;
  const TensorValue& rootValue = m_graph.tensor(root);
  const TensorOp* direct = nullptr;
  const TensorOp* throughAlias = nullptr;
  const TensorOp* writer = nullptr;  // of the bytes, under either name
  const TensorOp* aliasWriter = nullptr;
  bool rootWrittenAfter = false;  // under its own name, later in program order than this reshape
  for (const TensorOp& other : m_graph.ops()) {
    if (other.id == op.id || other.kind == TensorOpKind::View || TensorGraph::isInPlaceReshape(other)) continue;
    // Such a gather reads the argument itself (gatherSource), so it is ordered against its writers.
    if (gathersRowsOfAlias(other, result, root)) continue;
    bool usesRoot = false, usesAlias = false;
    for (TensorId t : other.inputs) {
      usesRoot = usesRoot || m_graph.storageOf(t) == root;
      usesAlias = usesAlias || m_graph.storageOf(t) == result;
    }
    for (TensorId t : other.outputs) {
      const TensorId storage = m_graph.storageOf(t);
      if ((storage == root || storage == result) && !writer) writer = &other;
      if (storage == result && !aliasWriter) aliasWriter = &other;
      rootWrittenAfter = rootWrittenAfter || (storage == root && other.id > op.id);
      usesRoot = usesRoot || storage == root;
      usesAlias = usesAlias || storage == result;
    }
    if (usesRoot && !direct) direct = &other;
    if (usesAlias && !throughAlias) throughAlias = &other;
  }
  if (sourceValue.role == TensorRole::View || rootValue.role != TensorRole::Argument) {
    if (aliasWriter)
      return m_diags.error(op.location)
             << "reshape(inplace=True) of '" << sourceValue.name << "', "
             << (sourceValue.role == TensorRole::View ? "a part of a tensor" : "a computed tensor")
             << ", written through the reshape (" << opWhere(*aliasWriter)
             << "): not supported yet (only a kernel argument is aliased); write the result where it is used, or "
                "reshape an argument in place";
    asCopy = true;  // read only: a copy reads the same values
    return true;
  }
  // Reading the bytes under both names is harmless, and so are writes under
  // the argument's own name before the reshape (PyPTO's GLM attention fills
  // q_tmp row block by row block, then reads it as [tokens * heads, dim]):
  // the reads through the alias follow them on the bytes, as for a reshape
  // RemoveRedundantOp folds. A write through the alias, or under the
  // argument's name after the reshape, would not be ordered against an
  // access under the other name.
  if (writer && direct && throughAlias && (aliasWriter || rootWrittenAfter))
    return m_diags.error(op.location)
           << "reshape(inplace=True): the kernel reaches the bytes of '" << rootValue.name << "' both directly ("
           << opWhere(*direct) << ") and through this reshape (" << opWhere(*throughAlias)
           << ") and writes them; PTO Studio orders tasks by the tensor they name, so use one of the two names "
              "throughout";
  m_graph.tensor(result).reshapeOf = root;
  return true;
}

// A concat cut by the vec tile: each output tile is copied from the
// inputs it overlaps along the concat dim, one copy per input piece, so no
// tile holds a whole input (PyPTO's RoPE concatenates [t, heads, 64]
// halves of a projection).
bool Expander::expandConcat(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const TensorId output = op.outputs[0];
  const Dims outShape = shapeOf(output);
  const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
  auto tile = vecTile(op, outShape, /*dataMovement=*/true, /*wholeTrailingDims=*/true);
  if (!tile) return false;
  forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    std::int64_t start = 0;  // of the current input along dim
    for (TensorId input : op.inputs) {
      const std::int64_t extent = shapeOf(input)[dim];
      const std::int64_t from = std::max(offsets[dim], start);
      const std::int64_t to = std::min(offsets[dim] + sizes[dim], start + extent);
      if (from < to) {
        Dims inOffsets = offsets, pieceSizes = sizes, outOffsets = offsets;
        inOffsets[dim] = from - start;
        outOffsets[dim] = from;
        pieceSizes[dim] = to - from;
        TileOp t = boxTile(op, input, inOffsets, pieceSizes, output, outOffsets, pieceSizes, *tile);
        t.kind = TensorOpKind::Copy;
        t.attrs.clear();
        emit(std::move(t));
      }
      start += extent;
    }
  });
  return true;
}

// A reshape cut into tiles, each copying a box of the input to a box of the
// output, so that a reshape of a computed tensor (a [t, 8192] projection
// seen as [t, 64, 128] heads) is not one whole-tensor tile in the unified
// buffer. The dims fall into groups whose extents multiply to the same
// number on both sides ([t | 8192] -> [t | 64, 128]); within a group C
// order is kept when a tile cuts only the group's first dim on each side,
// so the vec tile in force is widened to whole extents in a group's other
// output dims (its first dim shrunk to keep the tile's element count), and
// its first dim is rounded up so that the flattened chunk is a whole number
// of the input group's inner rows. A tile with fewer dims
// than the output (set for the reshape's input, as PyPTO's prologs do)
// leaves the output's trailing dims whole.
bool Expander::expandReshape(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const TensorId input = op.inputs[0], output = op.outputs[0];
  const Dims inShape = shapeOf(input), outShape = shapeOf(output);
  struct Group {
    std::size_t inBegin, inEnd, outBegin, outEnd;
  };
  std::vector<Group> groups;
  for (std::int64_t extent : inShape)
    if (extent <= 0) return expandWhole(op, emit);
  for (std::size_t i = 0, o = 0; i < inShape.size() || o < outShape.size();) {
    Group group{i, i, o, o};
    // A unit dim on one side only is a group of its own (it moves no element).
    if (i < inShape.size() && inShape[i] == 1 && (o == outShape.size() || outShape[o] != 1)) {
      group.inEnd = ++i;
    } else if (o < outShape.size() && outShape[o] == 1 && (i == inShape.size() || inShape[i] != 1)) {
      group.outEnd = ++o;
    } else {
      if (i == inShape.size() || o == outShape.size()) return expandWhole(op, emit);
      std::int64_t in = inShape[i++], out = outShape[o++];
      while (in != out) {
        if (in < out) {
          if (i == inShape.size()) return expandWhole(op, emit);
          in *= inShape[i++];
        } else {
          if (o == outShape.size()) return expandWhole(op, emit);
          out *= outShape[o++];
        }
      }
      group.inEnd = i;
      group.outEnd = o;
    }
    groups.push_back(group);
  }
  auto product = [](const Dims& shape, std::size_t begin, std::size_t end) {
    std::int64_t value = 1;
    for (std::size_t d = begin; d < end; ++d) value *= shape[d];
    return value;
  };
  // A tile with the input's rank (not the output's) was set for the input,
  // as PyPTO's indexer sets [128, 128] before viewing a [128, 16K] score
  // block as [2, 64, 16K]: it cuts the input, and each group's output tile
  // holds the same elements as the input tile's (the group's inner input
  // dims whole). Taken over the output it would leave 16K columns whole.
  std::optional<Dims> tile;
  if (vecTileRankAsSet(op) == inShape.size() && inShape.size() != outShape.size()) {
    auto inTile = vecTile(op, inShape, /*dataMovement=*/true);
    if (!inTile) return false;
    tile = Dims(outShape.size(), 1);
    for (const Group& group : groups) {
      if (group.outBegin == group.outEnd || group.inBegin == group.inEnd) continue;
      const std::int64_t elements =
          (*inTile)[group.inBegin] * product(inShape, group.inBegin + 1, group.inEnd);
      const std::int64_t innerOut = product(outShape, group.outBegin + 1, group.outEnd);
      (*tile)[group.outBegin] = std::max<std::int64_t>(1, (elements + innerOut - 1) / innerOut);
    }
  } else {
    tile = vecTile(op, outShape, /*dataMovement=*/true, /*wholeTrailingDims=*/true);
    // A group's inner output dims become whole; its first dim shrinks so the tile keeps about the elements
    // the vec tile gives the group (sparse attention sets [128, 128] to view [1024, 128] as [128, 1024]:
    // 16 rows of 1 024, not 128).
    if (tile)
      for (const Group& group : groups) {
        if (group.outBegin == group.outEnd || group.outEnd - group.outBegin < 2) continue;
        const std::int64_t elements = product(*tile, group.outBegin, group.outEnd);
        (*tile)[group.outBegin] =
            std::max<std::int64_t>(1, elements / product(outShape, group.outBegin + 1, group.outEnd));
      }
  }
  if (!tile) return false;
  for (const Group& group : groups) {
    if (group.outBegin == group.outEnd) continue;
    for (std::size_t d = group.outBegin + 1; d < group.outEnd; ++d) (*tile)[d] = outShape[d];
    const std::int64_t innerOut = product(outShape, group.outBegin + 1, group.outEnd);
    const std::int64_t innerIn = product(inShape, group.inBegin + 1, group.inEnd);
    const std::int64_t step = innerIn / std::gcd(innerOut, innerIn);  // first-dim counts that fill whole input rows
    std::int64_t& first = (*tile)[group.outBegin];
    first = std::min(outShape[group.outBegin], (first + step - 1) / step * step);
  }
  forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    Dims inOffsets(inShape.size(), 0), inSizes = inShape;
    for (const Group& group : groups) {
      if (group.inBegin == group.inEnd) continue;
      if (group.outBegin == group.outEnd) continue;  // unit input dims: offset 0, size 1
      const std::int64_t innerOut = product(outShape, group.outBegin + 1, group.outEnd);
      const std::int64_t innerIn = product(inShape, group.inBegin + 1, group.inEnd);
      inOffsets[group.inBegin] = offsets[group.outBegin] * innerOut / innerIn;
      inSizes[group.inBegin] = sizes[group.outBegin] * innerOut / innerIn;
    }
    TileOp t = boxTile(op, input, inOffsets, inSizes, output, offsets, sizes, *tile);
    t.attrs["shape"] = constants(sizes);
    emit(std::move(t));
  });
  return true;
}

// A bitcast cut by the vec tile over its input, as PyPTO cuts its
// OP_VIEW_TYPE: each input tile's bytes become the output tile in the same
// rows, its last-dim offset and size scaled by the ratio of the element
// sizes. An input tile must then hold whole output elements, so its last
// dim is rounded up to a multiple of the output element's size in input
// elements (the input's last dim is one: shape inference checked it).
bool Expander::expandBitcast(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  const TensorId input = op.inputs[0], output = op.outputs[0];
  const Dims inShape = shapeOf(input);
  if (inShape.empty()) return expandWhole(op, emit);
  auto tile = vecTile(op, inShape, /*dataMovement=*/true);
  if (!tile) return false;
  const auto from = static_cast<std::int64_t>(sizeOf(m_graph.tensor(input).dtype));
  const auto to = static_cast<std::int64_t>(sizeOf(m_graph.tensor(output).dtype));
  const std::int64_t perOutput = to / std::gcd(from, to);  // input elements per whole output element
  std::int64_t& last = tile->back();
  last = std::min(inShape.back(), (last + perOutput - 1) / perOutput * perOutput);
  forEachTile(inShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    Dims outOffsets = offsets, outSizes = sizes;
    outOffsets.back() = offsets.back() * from / to;
    outSizes.back() = sizes.back() * from / to;
    emit(boxTile(op, input, offsets, sizes, output, outOffsets, outSizes, *tile));
  });
  return true;
}

} // namespace pto::expand
