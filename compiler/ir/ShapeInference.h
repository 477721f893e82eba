// Output shapes and dtypes of Tensor-graph ops (docs/ir.md is the contract).
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <string>
#include <vector>

namespace pto {

struct TensorType {
  DataType dtype = DataType::Fp32;
  SymbolicShape shape;
};

// Either the outputs' types or a message for the user. The message names
// the op and the offending shapes/dtypes ("add: shapes [4, 64] and [3, 64]
// do not broadcast: dim 0 is 4 vs 3"); the caller adds the kernel line.
struct ShapeInferenceResult {
  std::vector<TensorType> outputs;
  std::string error;
  bool ok() const { return error.empty(); }
};

// `attrs` may be normalised in place (negative dims made non-negative,
// defaults filled in), so that later stages see one spelling.
ShapeInferenceResult inferShapes(TensorOpKind kind, const std::vector<TensorType>& inputs, Attributes& attrs);

// numpy broadcasting of two shapes; nullopt when they do not broadcast.
std::optional<SymbolicShape> broadcastShapes(const SymbolicShape& a, const SymbolicShape& b);

} // namespace pto
