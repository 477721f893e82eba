#include "compiler/reference/ValidTileKernels.h"

#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/ValidParts.h"
#include "compiler/reference/ReferenceKernels.h"

#include <algorithm>

namespace pto::reference {

using Dims = std::vector<std::int64_t>;

std::optional<Dims> evaluateValidPart(const TileRegion& region, const std::map<std::string, std::int64_t>& bindings,
                                      std::string& error) {
  Dims valid = region.shape;
  for (std::size_t d = 0; d < region.valid.size() && d < valid.size(); ++d) {
    SymbolicEvaluation value = region.valid[d].evaluate(bindings);
    if (!value.ok()) {
      error = "cannot evaluate the valid size '" + region.valid[d].str() + "': " + value.error;
      return std::nullopt;
    }
    valid[d] = std::clamp<std::int64_t>(*value.value, 0, region.shape[d]);
  }
  return valid;
}

HostTensor inLeadingBox(const HostTensor& part, DataType dtype, const Dims& shape) {
  HostTensor whole(dtype, Shape(shape));
  if (part.elementCount() > 0) whole.view(Dims(shape.size(), 0), part.shape().dims()).copyFrom(part);
  return whole;
}

bool runOnValidParts(const TensorOp& op, std::vector<HostTensor> inputs, const std::vector<Dims>& valids,
                     const std::vector<DataType>& outputDtypes, std::vector<HostTensor>& results,
                     DiagnosticEngine& diags) {
  results.clear();
  std::vector<Dims> shapes;
  for (const HostTensor& input : inputs) shapes.push_back(input.shape().dims());
  const std::optional<std::vector<Dims>> boxes = validparts::cutInputs(op, shapes, valids);
  std::vector<TensorType> types;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (boxes && (*boxes)[i] != shapes[i]) inputs[i] = inputs[i].view(Dims(shapes[i].size(), 0), (*boxes)[i]);
    if (inputs[i].elementCount() == 0) return true;  // nothing valid: no result
    const Dims& dims = inputs[i].shape().dims();
    types.push_back(TensorType{inputs[i].dtype(), SymbolicShape(dims.begin(), dims.end())});
  }
  Attributes attrs = op.attrs;
  const ShapeInferenceResult inferred = inferShapes(op.kind, types, attrs);
  if (!inferred.ok() || inferred.outputs.size() != outputDtypes.size())
    return diags.error(op.location) << name(op.kind) << ": the valid parts of a tile give no result shape ("
                                    << inferred.error << ")";
  std::vector<HostTensor> outputs;
  for (std::size_t i = 0; i < outputDtypes.size(); ++i) {
    Dims dims;
    for (const SymbolicScalar& dim : inferred.outputs[i].shape) dims.push_back(dim.constantValue().value_or(0));
    outputs.emplace_back(outputDtypes[i], Shape(dims));
  }
  KernelCall call{op, std::move(inputs), std::move(outputs), diags};
  if (!runKernel(call)) return false;
  results = std::move(call.outputs);
  return true;
}

} // namespace pto::reference
