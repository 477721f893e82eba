#include "compiler/ir/PartialValidUse.h"

#include "core/SymbolicSimplify.h"

#include <vector>

namespace pto {
namespace {

// The op's own valid_shape, when it has one that may be smaller than `shape`.
bool givesPartialValid(const TensorOp& op, const SymbolicShape& shape) {
  const auto* valid = op.attr<SymbolicShape>("valid_shape");
  if (!valid || valid->size() != shape.size()) return false;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!provablyEqual((*valid)[d], shape[d])) return true;
  return false;
}

} // namespace

std::optional<PartialValidUse> firstPartialValidUse(const TensorGraph& graph) {
  std::vector<OpId> partialFrom(graph.tensors().size(), kNoId);  // by tensor: the op that made it partial
  for (const TensorOp& op : graph.ops()) {
    const bool passesOn = op.kind == TensorOpKind::View || op.kind == TensorOpKind::Reshape;
    OpId inherited = kNoId;
    for (TensorId input : op.inputs) {
      const OpId from = partialFrom.at(static_cast<std::size_t>(input));
      if (from == kNoId) continue;
      if (!passesOn) return PartialValidUse{op.id, from, input};
      inherited = from;
    }
    if (op.outputs.empty()) continue;
    const TensorValue& output = graph.tensor(op.outputs[0]);
    if (output.producer != op.id) continue;  // writes into an existing tensor, which stays whole
    const bool ownValid = op.kind == TensorOpKind::View || op.kind == TensorOpKind::Reshape || op.kind == TensorOpKind::Full;
    if (ownValid && op.attr<SymbolicShape>("valid_shape"))
      partialFrom.at(static_cast<std::size_t>(output.id)) = givesPartialValid(op, output.shape) ? op.id : kNoId;
    else if (passesOn)
      partialFrom.at(static_cast<std::size_t>(output.id)) = inherited;
  }
  return std::nullopt;
}

} // namespace pto
