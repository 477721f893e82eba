// The valid part of every tensor of a compiled program, as expressions (PyPTO's validShape).
//
// A tensor may hold data only in a leading box known when the kernel runs (compiler/reference/
// ValidParts.h has the rules the reference interpreter applies to values). The compiler follows the same
// rules with symbolic sizes, so that each tile can carry the size of its own valid part
// (TileRegion::valid): an expression in the dynamic dims, the loop indices and the values the kernel reads
// (`min(act_seq[b] - j*128, 128)`), evaluated per task by the execute graph and the simulator.
//
// Sizes the simplifier cannot prove equal to their dim count as partial; that costs a cut at run time,
// never a wrong result. Where the reference's rule depends on values in a way no expression follows (a
// reshape of a partial tensor that is not a row-major prefix, an op writing a cut result into part of an
// existing tensor), `unsupported` names the op and why: the kernel then runs on the reference interpreter.
#pragma once

#include "compiler/ir/TileGraph.h"

#include <string>
#include <vector>

namespace pto {

struct ValidShapes {
  // By TensorId: the valid part, one size per dim, or empty for a whole tensor. Tensors added after the
  // analysis (matmul accumulators) are past the end: whole.
  std::vector<SymbolicShape> of;
  OpId unsupported = kNoId;
  std::string reason;  // why, for a message at the op's line ("reshape of a tensor valid in [...]")

  bool ok() const { return unsupported == kNoId; }
  const SymbolicShape* partial(TensorId id) const {
    const auto at = static_cast<std::size_t>(id);
    return at < of.size() && !of[at].empty() ? &of[at] : nullptr;
  }
};

// Needs the tile graph's concrete shapes (ExpandFunction sets them before tiling). Dynamic dims in the
// sizes are replaced by their bindings, so that only run-time values remain.
ValidShapes inferValidShapes(const TileGraph& tiles);

// `valid` clamped to [0, size]; the constant `size` itself when provably whole.
SymbolicScalar clampedValid(const SymbolicScalar& valid, std::int64_t size);

} // namespace pto
