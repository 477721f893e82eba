// The Tile graph: every tensor op cut into tile ops on tile-sized regions.
//
// Meaning. A Tile graph is compiled for one binding of the kernel's dynamic
// dims, so every tensor shape and every tile shape is a concrete number of
// elements; only offsets may still depend on loop indices (a tile of
// `y[b:b+1]` sits at row `b`). Control flow is the Tensor graph's: the tile
// graph keeps a copy of it and, for each tensor op, the list of its tile ops
// in execution order, so walking the regions and running each op's tiles in
// turn is the program.
//
// A tile op reads its input regions and writes its output regions. Inputs
// broadcast like numpy (a region may have 1 where the output has more). With
// an accumulate mode the result is combined with the output region's current
// contents (partial reductions, k-steps of a matmul) instead of replacing it.
// Regions name storage tensors (arguments and temporaries) once
// RemoveRedundantOp has folded views away; before that they may name views.
//
// Ids. Tile ops have dense ids; each keeps the OpId of its tensor op, and so
// its kernel line and label.
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pto {

using TileOpId = std::int32_t;

struct TileRegion {
  TensorId tensor = kNoId;
  SymbolicShape offsets;            // elements, per dim of `tensor`
  std::vector<std::int64_t> shape;  // the valid data of this tile, per dim of `tensor`
  // When the tensor may hold data only in part (a run-time valid_shape, compiler/ir/ValidShapes.h): the
  // leading part of `shape` that holds data, per dim, as expressions of loop indices and values the kernel
  // reads, each in [0, shape[d]]; evaluated per task. Empty: all of `shape`. Ops compute on these parts
  // (ValidParts.h) and moves to and from global memory move only them.
  SymbolicShape valid;
};

// How a tile op's result meets what its output region already holds.
enum class TileAccumulate : unsigned char { None, Add, Max, Min, Mul };
std::string_view name(TileAccumulate mode);

struct TileOp {
  TileOpId id = kNoId;
  OpId tensorOp = kNoId;
  TensorOpKind kind = TensorOpKind::Copy;
  std::vector<TileRegion> inputs;
  std::vector<TileRegion> outputs;
  Attributes attrs;  // the tensor op's, adjusted for this tile (arange start, ...)
  TileAccumulate accumulate = TileAccumulate::None;
  // The tile shape the hardware buffer holds: the configured tile, of which
  // `outputs[0].shape` may be a smaller tail.
  std::vector<std::int64_t> tileShape;
};

class TileGraph {
public:
  // The program being tiled; temporaries the tiling needs (matmul
  // accumulators) are added to it.
  TensorGraph graph;
  Bindings bindings;  // dynamic dims of this compilation

  const std::vector<std::int64_t>& shapeOf(TensorId id) const { return m_shapes.at(static_cast<std::size_t>(id)); }
  void setShape(TensorId id, std::vector<std::int64_t> shape);

  TileOpId addTileOp(TileOp op);
  // Room for `count` tile ops in all without moving them (a hint; it never shrinks).
  void reserveTileOps(std::size_t count) { m_tileOps.reserve(count); }
  std::size_t tileOpCapacity() const { return m_tileOps.capacity(); }
  const TileOp& tileOp(TileOpId id) const { return m_tileOps.at(static_cast<std::size_t>(id)); }
  TileOp& tileOp(TileOpId id) {
    m_tileOpsStamp.changed();
    return m_tileOps.at(static_cast<std::size_t>(id));
  }
  const std::vector<TileOp>& tileOps() const { return m_tileOps; }
  // A number naming the tile ops' present contents: equal numbers, equal
  // tile ops (in this graph or a copy of it). Any non-const access counts
  // as a change. Lets the pass runner hash the tile ops only after a pass
  // that may have changed them (14 walks over every tile op otherwise).
  std::uint64_t tileOpsStamp() const { return m_tileOpsStamp.value(); }
  // The tile ops of a tensor op, in execution order (empty for ops that move
  // no data, such as views).
  const std::vector<TileOpId>& tilesOf(OpId op) const;
  void setTilesOf(OpId op, std::vector<TileOpId> tiles);
  // Drops the tile ops `keep` rejects and renumbers the rest (ids stay dense).
  template <typename Predicate> void removeTileOpsIf(Predicate reject);
  std::size_t liveTileOpCount() const;

private:
  // Numbered lazily (a non-const tileOp() in a loop only clears it) from
  // one process-wide counter, so that two graphs never share a number
  // unless one is a copy of the other; a moved-from graph loses its.
  class ContentStamp {
  public:
    ContentStamp() = default;
    ContentStamp(const ContentStamp&) = default;
    ContentStamp& operator=(const ContentStamp&) = default;
    ContentStamp(ContentStamp&& other) noexcept : m_value(other.m_value) { other.m_value = 0; }
    ContentStamp& operator=(ContentStamp&& other) noexcept {
      m_value = other.m_value;
      other.m_value = 0;
      return *this;
    }
    void changed() { m_value = 0; }
    std::uint64_t value() const;

  private:
    mutable std::uint64_t m_value = 0;  // 0: changed since last numbered
  };

  void renumber(const std::vector<bool>& keep);

  std::vector<std::vector<std::int64_t>> m_shapes;
  std::vector<TileOp> m_tileOps;
  std::vector<std::vector<TileOpId>> m_tilesOfOp;
  ContentStamp m_tileOpsStamp;
};

template <typename Predicate> void TileGraph::removeTileOpsIf(Predicate reject) {
  m_tileOpsStamp.changed();
  std::vector<bool> keep(m_tileOps.size());
  for (std::size_t i = 0; i < m_tileOps.size(); ++i) keep[i] = !reject(m_tileOps[i]);
  renumber(keep);
}

// The attribute ExpandFunction sets on an index_select tile whose source
// stays in global memory: input 0 is the whole source (the tile's columns
// of every row), read in place by an MGATHER that moves only the rows input
// 1 names. Buffer planning skips that input; GenerateMoveOp lists it in
// Subgraph::gatherSources instead of the copy-ins.
inline constexpr const char* kGatherRowsFromGm = "gather_rows_from_gm";
// experimental.gather_in_l1's tiles also carry this (when only matmuls read
// the rows): the rows land in L1 as a matmul operand, on the cube core
// (AIC), which has no UB, so the index (input 1) is read in place from GM
// as well.
inline constexpr const char* kGatherIntoL1 = "into_l1";
bool readsInPlace(const TileOp& op, std::size_t input);
// The attribute ExpandFunction sets on a scatter_update tile of the
// paged-cache form (attribute rows): inputs are the index slice and the
// rows of src; output 0 is the destination's columns of the tile over every
// row, written in place by an MSCATTER that moves only the rows the index
// names. The write is partial: rows not named keep their values, so nothing
// may take the output as overwriting the region (a later read of it is not
// covered by it, an earlier write to it is not made dead by it). Buffer
// planning gives the output no buffer; GenerateMoveOp lists it in
// Subgraph::scatterTargets instead of the copy-outs.
inline constexpr const char* kScatterRowsToGm = "scatter_rows_to_gm";
bool scattersRowsToGm(const TileOp& op);
bool writesInPlace(const TileOp& op, std::size_t output);
bool gathersRowsFromGm(const TileOp& op);
bool gathersIntoL1(const TileOp& op);

// "y[b, 0:64]" style text of a region, for dumps and messages.
std::string regionString(const TileGraph& graph, const TileRegion& region);

} // namespace pto
