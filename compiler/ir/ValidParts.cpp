#include "compiler/ir/ValidParts.h"

#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <cstddef>

namespace pto::validparts {
namespace {

// The two kinds of valid size: known values (the interpreter) and expressions (the compiler).
std::int64_t smaller(std::int64_t a, std::int64_t b) { return std::min(a, b); }
// Sizes flow through every op of a kernel: keep the expression as small as the operands (no simplification,
// whose cost grows with the depth of what it is given).
SymbolicScalar smaller(const SymbolicScalar& a, const SymbolicScalar& b) {
  if (a == b) return a;
  const std::optional<std::int64_t> x = a.constantValue(), y = b.constantValue();
  if (x && y) return SymbolicScalar(std::min(*x, *y));
  return min(a, b);
}
bool isSize(std::int64_t valid, std::int64_t size) { return valid == size; }
bool isSize(const SymbolicScalar& valid, std::int64_t size) { return provablyEqual(valid, SymbolicScalar(size)); }
template <typename Valid> bool wholeBox(const std::vector<Valid>& valid, const Dims& shape) {
  if (valid.size() != shape.size()) return false;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!isSize(valid[d], shape[d])) return false;
  return true;
}

// Elementwise operands (numpy broadcasting, ranks aligned at the right): on each axis, the operands that do
// not broadcast there (size != 1) pair their elements, so each is cut to the smallest valid size among them.
// `matrixAxes` trailing axes of every operand take no part (a matmul's matrices: only its batch axes pair).
template <typename Valid>
void pairElementwise(const std::vector<Dims>& shapes, std::vector<std::vector<Valid>>& boxes, std::size_t matrixAxes = 0) {
  const auto pairedAxes = [&](std::size_t input) {
    return shapes[input].size() >= matrixAxes ? shapes[input].size() - matrixAxes : 0;
  };
  std::size_t rank = 0;
  for (std::size_t i = 0; i < shapes.size(); ++i) rank = std::max(rank, pairedAxes(i));
  for (std::size_t fromRight = 0; fromRight < rank; ++fromRight) {
    std::optional<Valid> smallest;
    const auto axisOf = [&](std::size_t input) -> std::optional<std::size_t> {
      const std::size_t used = pairedAxes(input);
      if (fromRight >= used) return std::nullopt;
      const std::size_t axis = used - 1 - fromRight;
      if (shapes[input][axis] == 1) return std::nullopt;
      return axis;
    };
    // A whole operand pairs with anything (its size is the dim, no smaller than any valid size there).
    for (std::size_t i = 0; i < shapes.size(); ++i)
      if (const auto axis = axisOf(i); axis && !isSize(boxes[i][*axis], shapes[i][*axis]))
        smallest = smallest ? smaller(*smallest, boxes[i][*axis]) : boxes[i][*axis];
    if (!smallest) continue;
    for (std::size_t i = 0; i < shapes.size(); ++i)
      if (const auto axis = axisOf(i)) boxes[i][*axis] = *smallest;
  }
}

template <typename Valid>
std::optional<std::vector<std::vector<Valid>>> cutBoxes(const TensorOp& op, const std::vector<Dims>& shapes,
                                                       const std::vector<std::vector<Valid>>& valids) {
  bool partial = false;
  for (std::size_t i = 0; i < shapes.size(); ++i) partial = partial || !wholeBox(valids[i], shapes[i]);
  if (!partial) return std::nullopt;

  std::vector<std::vector<Valid>> boxes = valids;
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
    const bool aWhole = isSize(boxes[0][aK], shapes[0][aK]), bWhole = isSize(boxes[1][bK], shapes[1][bK]);
    const Valid k = aWhole ? boxes[1][bK] : bWhole ? boxes[0][aK] : smaller(boxes[0][aK], boxes[1][bK]);
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
        std::optional<Valid> smallest;
        for (std::size_t i = 0; i < boxes.size(); ++i)
          if (!isSize(boxes[i][d], shapes[i][d])) smallest = smallest ? smaller(*smallest, boxes[i][d]) : boxes[i][d];
        if (smallest)
          for (std::vector<Valid>& box : boxes) box[d] = *smallest;
      }
      for (std::size_t i = 0; i + 1 < boxes.size(); ++i) boxes[i][axis] = Valid(shapes[i][axis]);
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
    if (op.kind == TensorOpKind::IndexSelect) {
      // index_select's source dims other than `dim` are the result's own: they keep their valid part (a
      // source block past the end makes a result block past the end).
      const auto* dim = op.attr<std::int64_t>("dim");
      if (!dim) return std::nullopt;
      boxes[0][static_cast<std::size_t>(*dim)] = Valid(shapes[0][static_cast<std::size_t>(*dim)]);
      break;
    }
    boxes[0].assign(shapes[0].begin(), shapes[0].end());
    break;
  case OpCategory::Memory:
  case OpCategory::Creation:
    return std::nullopt;
  }
  bool cut = false;
  for (std::size_t i = 0; i < boxes.size(); ++i) cut = cut || !wholeBox(boxes[i], shapes[i]);
  if (!cut) return std::nullopt;
  return boxes;
}

} // namespace

bool isWhole(const Dims& valid, const Dims& shape) { return valid == shape; }

Dims clampedBox(Dims box, const Dims& shape) {
  for (std::size_t d = 0; d < box.size() && d < shape.size(); ++d) box[d] = std::clamp<std::int64_t>(box[d], 0, shape[d]);
  return box;
}

std::optional<std::vector<Dims>> cutInputs(const TensorOp& op, const std::vector<Dims>& shapes,
                                           const std::vector<Dims>& valids) {
  return cutBoxes(op, shapes, valids);
}

std::optional<std::vector<SymbolicShape>> cutInputs(const TensorOp& op, const std::vector<Dims>& shapes,
                                                    const std::vector<SymbolicShape>& valids) {
  return cutBoxes(op, shapes, valids);
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

std::optional<SymbolicShape> reshapedValid(const Dims& shape, const SymbolicShape& valid, const Dims& newShape) {
  const SymbolicShape whole(newShape.begin(), newShape.end());
  if (wholeBox(valid, shape)) return whole;
  std::size_t first = 0;
  while (first < shape.size() && isSize(valid[first], shape[first])) ++first;
  for (std::size_t d = 0; d < first; ++d)
    if (shape[d] != 1) return whole;  // the valid elements are no prefix, whatever the sizes
  // Elements per index of the partial dim; the dims after it must be whole for any value. One provably
  // partial (a bitcast's [v, 4] of [n, 8]) makes the valid elements no prefix whatever v is.
  std::int64_t inner = 1;
  for (std::size_t d = first + 1; d < shape.size(); ++d) {
    if (!isSize(valid[d], shape[d])) {
      const std::optional<std::int64_t> size = valid[d].constantValue();
      return size && *size < shape[d] && shape[first] > 1 ? std::optional<SymbolicShape>(whole) : std::nullopt;
    }
    inner *= shape[d];
  }
  // A size that is a multiple of a constant (`v*8`, 8 rows per key) counts in groups of it: v groups of
  // 8 * inner elements.
  SymbolicScalar count = valid[first];
  std::int64_t indices = shape[first];
  if (count.kind() == SymbolicKind::Mul)
    if (const std::optional<std::int64_t> factor = count.rhs().constantValue();
        factor && *factor > 0 && indices % *factor == 0) {
      count = count.lhs();
      inner *= *factor;
      indices /= *factor;
    }
  // Whole trailing dims of newShape while they divide `inner`; the prefix then spans part of one dim.
  SymbolicShape box(newShape.size(), SymbolicScalar(1));
  std::int64_t covered = 1;
  for (std::size_t d = newShape.size(); d-- > 0;) {
    if (newShape[d] == 0) return whole;
    if (inner % (covered * newShape[d]) == 0) {
      box[d] = newShape[d];
      covered *= newShape[d];
      continue;
    }
    // count * inner / covered indices of dim d: one expression only if every value fits in it.
    if (inner % covered != 0 || indices * (inner / covered) > newShape[d]) return std::nullopt;
    box[d] = simplify(count * SymbolicScalar(inner / covered));
    return box;
  }
  // Every dim of newShape is whole when the partial dim holds its one index: a batch of one that is there
  // (1) or not (0), as the leading dim's size.
  if (indices == 1 && !box.empty()) {
    box[0] = simplify(count * SymbolicScalar(newShape[0]));
    return box;
  }
  return std::nullopt;
}

Dims bitcastValid(const Dims& valid, std::size_t fromBytes, std::size_t toBytes) {
  Dims result = valid;
  if (!result.empty()) result.back() = result.back() * static_cast<std::int64_t>(fromBytes) / static_cast<std::int64_t>(toBytes);
  return result;
}

void broadcastValidPart(const Dims& inShape, const Dims& inValid, Attributes& attrs) {
  auto found = attrs.find("shape");
  if (found == attrs.end()) return;
  auto* target = std::get_if<SymbolicShape>(&found->second);
  if (!target || inShape.size() > target->size() || inValid.size() != inShape.size()) return;
  const std::size_t lead = target->size() - inShape.size();
  for (std::size_t d = lead; d < target->size(); ++d)
    if (inShape[d - lead] != 1) (*target)[d] = SymbolicScalar(inValid[d - lead]);
}

} // namespace pto::validparts
