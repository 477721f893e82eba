// The L1 block a matmul k-step's operand is loaded with.
//
// PyPTO's cube tile shape names an L1 depth beside the L0 one (k: [kL0,
// kL1] or [kL0, kAL1, kBL1]): the cube loads [mL0 x kAL1] of A and
// [kBL1 x nL0] of B from global memory into L1 at once and moves kL0-deep
// pieces of them into L0A/L0B, one per k-step (its API page bounds
// mL1 x kL1 + nL1 x kL1 by L1's size for that reason). ExpandFunction cuts a
// matmul into kL0 k-steps and marks each step whose operand block is deeper
// than the step with an attribute; GenerateMoveOp then copies the block in
// once, AllocateBuffers gives it one L1 buffer for all its steps, and
// LowerToPto moves each step's piece out of it. A step without the mark
// loads its own piece, as before (kL1 == kL0).
//
// The attribute, per operand ("a_l1_block", "b_l1_block"): {the k dim,
// counted from the last (1 = last), the elements of the block before this
// step along it, the block's extent, the step's extent}. Relative, so it
// still holds once regions on views are resolved to their storage.
#pragma once

#include "compiler/ir/TileGraph.h"
#include "core/SymbolicSimplify.h"

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace pto {

inline constexpr const char* kMatmulL1BlockAttrs[2] = {"a_l1_block", "b_l1_block"};

// The block of `op`'s input `input` (0: A, 1: B) that holds `read` (that
// input's region, or its storage region), or nullopt when the step is loaded
// on its own: no mark, a region whose k extent is not the step's, or a
// region whose valid part is known only at run time.
inline std::optional<TileRegion> matmulL1Block(const TileOp& op, std::size_t input, const TileRegion& read) {
  if (op.kind != TensorOpKind::Matmul || input > 1 || !read.valid.empty()) return std::nullopt;
  auto found = op.attrs.find(kMatmulL1BlockAttrs[input]);
  const auto* mark = found == op.attrs.end() ? nullptr : std::get_if<std::vector<std::int64_t>>(&found->second);
  if (!mark || mark->size() != 4) return std::nullopt;
  const std::int64_t fromLast = (*mark)[0], before = (*mark)[1], extent = (*mark)[2], step = (*mark)[3];
  if (fromLast < 1 || static_cast<std::size_t>(fromLast) > read.shape.size()) return std::nullopt;
  const std::size_t dim = read.shape.size() - static_cast<std::size_t>(fromLast);
  if (read.shape[dim] != step || dim >= read.offsets.size()) return std::nullopt;
  TileRegion block = read;
  block.offsets[dim] = simplify(read.offsets[dim] - SymbolicScalar(before));
  block.shape[dim] = extent;
  return block;
}

} // namespace pto
