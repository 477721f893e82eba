#include "compiler/reference/ValidTileKernels.h"

#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/ValidParts.h"
#include "compiler/reference/ReferenceKernels.h"

#include <algorithm>
#include <limits>

namespace pto::reference {

using Dims = std::vector<std::int64_t>;

std::optional<Dims> evaluateValidPart(const TileRegion& region, const Bindings& bindings,
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

namespace {

// A top-k tile of ExpandFunction's selection tree (it carries `index_base`, or its candidates' indices as a
// second input) may hold fewer valid entries along its dim than it keeps: the last chunk of a row valid in
// part. Cut there, it would give fewer than k candidates, and the next level's whole lists would read
// entries no tile wrote. Instead its invalid entries take a value that loses every comparison (-inf when
// selecting the largest; when the smallest, NaN, which sorts above every number) and the index -1, so the
// tile still yields k candidates with every real one first. The op's own valid part holds at least k
// entries (else the reference interpreter refuses it), and ties go to the lower position, so no padding
// entry reaches the result.
void padTreeTopKAlongDim(const TensorOp& op, std::vector<HostTensor>& inputs, std::vector<Dims>& boxes,
                         const std::vector<Dims>& shapes) {
  if (op.kind != TensorOpKind::TopK || inputs.empty() || !isFloatingPoint(inputs[0].dtype())) return;
  if (!op.attr<std::int64_t>("index_base") && inputs.size() < 2) return;
  const auto* dimAttr = op.attr<std::int64_t>("dim");
  const auto* k = op.attr<std::int64_t>("k");
  if (!dimAttr || !k || *dimAttr < 0 || static_cast<std::size_t>(*dimAttr) >= shapes[0].size()) return;
  const auto dim = static_cast<std::size_t>(*dimAttr);
  if (boxes[0][dim] >= *k || shapes[0][dim] < *k) return;
  const auto* largest = op.attr<bool>("largest");
  const double loser = !largest || *largest ? -std::numeric_limits<double>::infinity()
                                            : std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 0; i < inputs.size() && i < 2; ++i) {
    Dims padded = boxes[i];
    padded[dim] = shapes[i][dim];
    HostTensor whole(inputs[i].dtype(), Shape(padded));
    for (std::int64_t e = 0; e < whole.elementCount(); ++e) {
      if (i == 0) whole.setFromDouble(e, loser);
      else whole.setFromInt64(e, -1);
    }
    whole.view(Dims(padded.size(), 0), boxes[i]).copyFrom(inputs[i].view(Dims(padded.size(), 0), boxes[i]));
    inputs[i] = std::move(whole);
    boxes[i] = std::move(padded);
  }
}

} // namespace

bool runOnValidParts(const TensorOp& op, std::vector<HostTensor> inputs, const std::vector<Dims>& valids,
                     const std::vector<DataType>& outputDtypes, std::vector<HostTensor>& results,
                     DiagnosticEngine& diags) {
  results.clear();
  std::vector<Dims> shapes;
  for (const HostTensor& input : inputs) shapes.push_back(input.shape().dims());
  std::optional<std::vector<Dims>> boxes = validparts::cutInputs(op, shapes, valids);
  if (boxes) padTreeTopKAlongDim(op, inputs, *boxes, shapes);
  std::vector<TensorType> types;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (boxes && (*boxes)[i] != shapes[i]) inputs[i] = inputs[i].view(Dims(shapes[i].size(), 0), (*boxes)[i]);
    if (inputs[i].elementCount() == 0) return true;  // nothing valid: no result
    const Dims& dims = inputs[i].shape().dims();
    types.push_back(TensorType{inputs[i].dtype(), SymbolicShape(dims.begin(), dims.end())});
  }
  Attributes attrs = op.attrs;
  if (op.kind == TensorOpKind::ExpandClone && boxes) validparts::broadcastValidPart(shapes[0], (*boxes)[0], attrs);
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
