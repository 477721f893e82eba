#include "compiler/reference/ValidParts.h"

#include <algorithm>
#include <cstddef>

namespace pto::reference {
namespace {

// Elementwise operands (numpy broadcasting, ranks aligned at the right): on each axis, the operands that do
// not broadcast there (size != 1) pair their elements, so each is cut to the smallest valid size among them.
// `matrixAxes` trailing axes of every operand take no part (a matmul's matrices: only its batch axes pair).
void pairElementwise(const std::vector<Dims>& shapes, std::vector<Dims>& boxes, std::size_t matrixAxes = 0) {
  const auto pairedAxes = [&](std::size_t input) {
    return shapes[input].size() >= matrixAxes ? shapes[input].size() - matrixAxes : 0;
  };
  std::size_t rank = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) rank = std::max(rank, pairedAxes(i));
  for (std::size_t fromRight = 0; fromRight < rank; ++fromRight) {
    std::optional<std::int64_t> smallest;
    const auto axisOf = [&](std::size_t input) -> std::optional<std::size_t> {
      const std::size_t used = pairedAxes(input);
      if (fromRight >= used) return std::nullopt;
      const std::size_t axis = used - 1 - fromRight;
      if (shapes[input][axis] == 1) return std::nullopt;
      return axis;
    };
    for (std::size_t i = 0; i < shapes.size(); ++i)
      if (const auto axis = axisOf(i)) smallest = std::min(smallest.value_or(boxes[i][*axis]), boxes[i][*axis]);
    for (std::size_t i = 0; i < shapes.size(); ++i)
      if (const auto axis = axisOf(i)) boxes[i][*axis] = *smallest;
  }
}

} // namespace

bool isWhole(const Dims& valid, const Dims& shape) { return valid == shape; }

Dims clampedBox(Dims box, const Dims& shape) {
  for (std::size_t d = 0; d < box.size() && d < shape.size(); ++d) box[d] = std::clamp<std::int64_t>(box[d], 0, shape[d]);
  return box;
}

std::optional<std::vector<Dims>> cutInputs(const TensorOp& op, const std::vector<Dims>& shapes,
                                           const std::vector<Dims>& valids) {
  bool partial = false;
  for (std::size_t i = 0; i < shapes.size(); ++i) partial = partial || !isWhole(valids[i], shapes[i]);
  if (!partial) return std::nullopt;

  std::vector<Dims> boxes = valids;
  switch (category(op.kind)) {
  case OpCategory::Unary:
  case OpCategory::BinaryScalar:
  case OpCategory::CompareScalar:
  case OpCategory::Reduce:
  case OpCategory::Sort:
  case OpCategory::Binary:
  case OpCategory::Compare:
  case OpCategory::Select:
  case OpCategory::Quantize:
    pairElementwise(shapes, boxes);
    break;
  case OpCategory::Matmul: {
    // Batch axes pair like elementwise operands; the contraction spans the keys valid in both operands.
    pairElementwise(shapes, boxes, 2);
    const auto* aTransposed = op.attr<bool>("a_trans");
    const auto* bTransposed = op.attr<bool>("b_trans");
    const std::size_t aRank = shapes[0].size(), bRank = shapes[1].size();
    const std::size_t aK = aTransposed && *aTransposed ? aRank - 2 : aRank - 1;
    const std::size_t bK = bTransposed && *bTransposed ? bRank - 1 : bRank - 2;
    const std::int64_t k = std::min(boxes[0][aK], boxes[1][bK]);
    boxes[0][aK] = k;
    boxes[1][bK] = k;
    break;
  }
  case OpCategory::Layout:
    switch (op.kind) {
    case TensorOpKind::Transpose:
    case TensorOpKind::Permute:
    case TensorOpKind::Unsqueeze:
      break;
    case TensorOpKind::Concat: {
      // The inputs meet along the concat axis: all but the last keep their whole length there (the next
      // one starts where the shape ends); on the other axes they pair.
      const auto* dim = op.attr<std::int64_t>("dim");
      const std::size_t axis = dim ? static_cast<std::size_t>(*dim) : 0;
      for (std::size_t d = 0; d < shapes[0].size(); ++d) {
        if (d == axis) continue;
        std::int64_t smallest = boxes[0][d];
        for (const Dims& box : boxes) smallest = std::min(smallest, box[d]);
        for (Dims& box : boxes) box[d] = smallest;
      }
      for (std::size_t i = 0; i + 1 < boxes.size(); ++i) boxes[i][axis] = shapes[i][axis];
      break;
    }
    default:
      return std::nullopt;  // reshape and bitcast keep the bytes; their valid part is mapped instead
    }
    break;
  case OpCategory::Indexing:
    // Only the index is cut: the rows it names may lie anywhere in the source, and a scatter's target
    // keeps its whole shape.
    if (op.kind != TensorOpKind::Gather && op.kind != TensorOpKind::IndexSelect) return std::nullopt;
    boxes[0] = shapes[0];
    break;
  case OpCategory::Memory:
  case OpCategory::Creation:
    return std::nullopt;
  }
  if (boxes == shapes) return std::nullopt;
  return boxes;
}

Dims reshapedValid(const Dims& shape, const Dims& valid, const Dims& newShape) {
  if (isWhole(valid, shape)) return newShape;
  // The first partly valid dim; before it one valid index each, after it whole dims.
  std::size_t first = 0;
  while (first < shape.size() && valid[first] == shape[first]) ++first;
  for (std::size_t d = 0; d < first; ++d)
    if (valid[d] != 1 && shape[d] != 1) return newShape;
  for (std::size_t d = first + 1; d < shape.size(); ++d)
    if (valid[d] != shape[d]) return newShape;
  std::int64_t count = 1;
  for (std::int64_t size : valid) count *= size;
  // The leading box of newShape holding exactly `count` elements: whole trailing dims, then a part.
  Dims box(newShape.size(), 1);
  std::int64_t inner = 1;
  for (std::size_t d = newShape.size(); d-- > 0;) {
    if (newShape[d] == 0) return newShape;
    if (count % (inner * newShape[d]) == 0 && count / inner >= newShape[d]) {
      box[d] = newShape[d];
      inner *= newShape[d];
      continue;
    }
    if (count % inner != 0) return newShape;
    box[d] = count / inner;  // a part of this dim; every dim before it holds one index
    if (box[d] > newShape[d]) return newShape;
    return box;
  }
  return count == inner ? box : newShape;
}

Dims bitcastValid(const Dims& valid, std::size_t fromBytes, std::size_t toBytes) {
  Dims result = valid;
  if (!result.empty()) result.back() = result.back() * static_cast<std::int64_t>(fromBytes) / static_cast<std::int64_t>(toBytes);
  return result;
}

} // namespace pto::reference
