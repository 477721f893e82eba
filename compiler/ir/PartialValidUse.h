// Where a kernel computes on a tensor that holds data only in part (a run-time valid_shape, see
// compiler/reference/ValidParts.h). The reference interpreter computes such ops on valid parts; the tiling
// does not carry valid parts yet, so the compiler finds the first such use and refuses the kernel there
// (it then runs on the reference interpreter) rather than compute on the invalid elements.
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <optional>

namespace pto {

struct PartialValidUse {
  OpId consumer = kNoId;  // the op that computes on (or assembles) the partly valid tensor
  OpId source = kNoId;    // the view, reshape or full whose valid_shape is not provably its shape
  TensorId tensor = kNoId;
};

// The first op in program order that reads a tensor whose valid part may be smaller than its shape, other
// than views and reshapes of it (which pass the valid part on). A valid_shape provably equal to the shape
// (under the symbolic simplifier) is whole.
std::optional<PartialValidUse> firstPartialValidUse(const TensorGraph& graph);

} // namespace pto
