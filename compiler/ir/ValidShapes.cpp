#include "compiler/ir/ValidShapes.h"

#include "compiler/ir/ElementBindings.h"
#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/ValidParts.h"
#include "core/DataType.h"
#include "core/SymbolicRange.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <map>
#include <optional>

namespace pto {

SymbolicScalar clampedValid(const SymbolicScalar& valid, std::int64_t size) {
  const SymbolicScalar simplified = simplify(valid);
  if (provablyEqual(simplified, SymbolicScalar(size))) return SymbolicScalar(size);
  if (auto constant = simplified.constantValue()) return SymbolicScalar(std::clamp<std::int64_t>(*constant, 0, size));
  return simplify(min(max(simplified, SymbolicScalar(0)), SymbolicScalar(size)));
}

namespace {

using validparts::Dims;

class Analysis {
public:
  explicit Analysis(const TileGraph& tiles) : m_tiles(tiles), m_graph(tiles.graph) {
    // Dynamic dims are bound for this compilation; element reads ("t[3]") stay symbolic, they are data.
    for (const auto& [name, value] : tiles.bindings)
      if (!isElementBinding(name)) m_dims.emplace(name, value);
    m_result.of.resize(m_graph.tensors().size());
    collectLoopIndexRanges();
  }

  ValidShapes run() {
    for (const TensorOp& op : m_graph.ops())
      if (!visit(op)) break;
    return std::move(m_result);
  }

private:
  const Dims& shapeOf(TensorId id) const { return m_tiles.shapeOf(id); }

  // Each loop index's values, where its loop's bounds are known for this compilation; an index name two
  // loops share gets the union of both.
  void collectLoopIndexRanges() {
    for (const Loop& loop : m_graph.loops()) {
      const std::optional<std::int64_t> start = simplify(loop.start.substitute(m_dims)).constantValue();
      const std::optional<std::int64_t> stop = simplify(loop.stop.substitute(m_dims)).constantValue();
      const std::optional<std::int64_t> step = simplify(loop.step.substitute(m_dims)).constantValue();
      if (!start || !stop || !step || *step == 0 || loop.indexSymbol.empty()) continue;
      const std::int64_t trips = *step > 0 ? (*stop - *start + *step - 1) / *step : (*start - *stop - *step - 1) / -*step;
      if (trips <= 0) continue;
      const std::int64_t last = *start + (trips - 1) * *step;
      IntRange range{std::min(*start, last), std::max(*start, last)};
      auto [at, inserted] = m_loopIndexRanges.emplace(loop.indexSymbol, range);
      if (!inserted) at->second = IntRange{std::min(at->second.lo, range.lo), std::max(at->second.hi, range.hi)};
    }
  }

  // `valid` per dim of `id`'s shape, stored empty when provably whole. Sizes the kernel gives are clamped
  // to [0, dim]; computed ones (`clamp` false) come from clamped sizes by min() and constants already, and
  // clamping them again at every op would nest expressions as deep as the kernel is long.
  bool set(const TensorOp& op, TensorId id, const SymbolicShape& valid, bool clamp = true) {
    const Dims& shape = shapeOf(id);
    if (valid.size() != shape.size())
      return refuse(op, "gives a valid part " + shapeString(valid) + " of another rank than its shape " +
                            shapeString(SymbolicShape(shape.begin(), shape.end())));
    SymbolicShape& into = m_result.of[static_cast<std::size_t>(id)];
    into.clear();
    bool whole = true;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      into.push_back(clamp ? clampedValid(valid[d].substitute(m_dims), shape[d]) : valid[d]);
      // A size that is one value for every iteration of the loops it depends on is that value: PyPTO's
      // min(64 - i*16, 16) over four blocks of 16 rows is a whole block each time.
      if (!into.back().isConstant())
        if (std::optional<IntRange> range = rangeOf(into.back(), m_loopIndexRanges); range && range->single())
          into.back() = SymbolicScalar(std::clamp<std::int64_t>(range->lo, 0, shape[d]));
      whole = whole && into.back().constantValue() == shape[d];
    }
    if (whole) into.clear();
    return true;
  }
  // The valid part of `id`, whole or not, one size per dim.
  SymbolicShape validOf(TensorId id) const {
    if (const SymbolicShape* partial = m_result.partial(id)) return *partial;
    const Dims& shape = shapeOf(id);
    return SymbolicShape(shape.begin(), shape.end());
  }
  bool refuse(const TensorOp& op, std::string reason) {
    m_result.unsupported = op.id;
    m_result.reason = std::move(reason);
    return false;
  }

  bool visit(const TensorOp& op) {
    if (op.outputs.empty()) return true;
    const TensorId output = op.outputs[0];
    const bool writesInto = m_graph.tensor(output).producer != op.id;
    bool partialInput = false;
    for (TensorId input : op.inputs) partialInput = partialInput || m_result.partial(input);
    const SymbolicShape* given = op.attr<SymbolicShape>("valid_shape");

    switch (op.kind) {
    case TensorOpKind::View: {
      if (given) return set(op, output, *given);
      if (!m_result.partial(op.inputs[0])) return true;
      // What of the base's valid part the region covers.
      const SymbolicShape base = validOf(op.inputs[0]);
      const SymbolicShape& offsets = *op.attr<SymbolicShape>("offsets");
      SymbolicShape valid;
      for (std::size_t d = 0; d < base.size() && d < offsets.size(); ++d) valid.push_back(base[d] - offsets[d]);
      return set(op, output, valid);
    }
    case TensorOpKind::Full:
      return !given || set(op, output, *given);
    case TensorOpKind::Reshape: {
      if (given) return set(op, output, *given);
      if (!partialInput) return true;
      std::optional<SymbolicShape> valid =
          validparts::reshapedValid(shapeOf(op.inputs[0]), validOf(op.inputs[0]), shapeOf(output));
      // Not one prefix for every value: the result is whole, PyPTO's Reshape default (its valid shape is the
      // new shape unless the kernel gives one, operation_impl.cpp).
      if (!valid) return true;
      return set(op, output, *valid, false);
    }
    case TensorOpKind::ExpandClone: {
      // A valid_shape the kernel gives (a loop's last block past the tensor's end) says it; otherwise
      // broadcast dims (and leading dims the input lacks) hold the whole target and the others the
      // input's valid part, as PyPTO's Expand of a partial view block computes.
      if (given) return set(op, output, *given);
      if (!partialInput) return true;
      const Dims& target = shapeOf(output);
      const Dims& in = shapeOf(op.inputs[0]);
      const SymbolicShape inValid = validOf(op.inputs[0]);
      if (in.size() > target.size() || inValid.size() != in.size()) return true;
      const std::size_t lead = target.size() - in.size();
      SymbolicShape valid;
      for (std::size_t d = 0; d < target.size(); ++d) {
        const bool broadcast = d < lead || (in[d - lead] == 1 && target[d] != 1);
        valid.push_back(broadcast ? SymbolicScalar(target[d]) : inValid[d - lead]);
      }
      return set(op, output, valid, false);
    }
    case TensorOpKind::Bitcast: {
      if (!partialInput) return true;
      SymbolicShape valid = validOf(op.inputs[0]);
      const auto from = static_cast<std::int64_t>(sizeOf(m_graph.tensor(op.inputs[0]).dtype));
      const auto to = static_cast<std::int64_t>(sizeOf(m_graph.tensor(output).dtype));
      if (!valid.empty()) valid.back() = floorDiv(valid.back() * SymbolicScalar(from), SymbolicScalar(to));
      return set(op, output, valid, false);
    }
    default: break;
    }
    if (!partialInput) return true;
    if (op.kind == TensorOpKind::Assemble || op.kind == TensorOpKind::Copy) {
      // Into an existing tensor only the valid part is written (each tile stores its own); a clone is valid
      // where its source is.
      return writesInto || set(op, output, validOf(op.inputs[0]), false);
    }
    std::vector<Dims> shapes;
    std::vector<SymbolicShape> valids;
    for (TensorId input : op.inputs) {
      shapes.push_back(shapeOf(input));
      valids.push_back(validOf(input));
    }
    const std::optional<std::vector<SymbolicShape>> boxes = validparts::cutInputs(op, shapes, valids);
    if (!boxes) return true;  // the kernel sees whole inputs: a whole result
    if (writesInto)
      return refuse(op, "computes on a tensor valid only in part and writes the result into part of '" +
                            m_graph.tensor(output).name + "'");
    std::vector<SymbolicShape> cut = *boxes;
    pairUnitAxes(op, shapes, cut);
    std::vector<TensorType> types;
    for (std::size_t i = 0; i < op.inputs.size(); ++i)
      types.push_back(TensorType{m_graph.tensor(op.inputs[i]).dtype, cut[i]});
    Attributes attrs = op.attrs;
    const ShapeInferenceResult inferred = inferShapes(op.kind, types, attrs);
    if (!inferred.ok() || inferred.outputs.size() != op.outputs.size())
      return refuse(op, "computes on valid parts whose result shape cannot be followed (" + inferred.error + ")");
    for (std::size_t i = 0; i < op.outputs.size(); ++i)
      if (!set(op, op.outputs[i], inferred.outputs[i].shape, false)) return false;
    return true;
  }

  // An axis of size 1 in every input that has it (a batch of one) holds 0 or 1 valid index in each. The rule
  // leaves such axes unpaired, and shape inference cannot broadcast two different expressions of one value
  // (`n` and `min(n, 1)`); they take their smallest size here, which gives the result shape of every value.
  static void pairUnitAxes(const TensorOp& op, const std::vector<Dims>& shapes, std::vector<SymbolicShape>& boxes) {
    const std::size_t matrixAxes = category(op.kind) == OpCategory::Matmul ? 2 : 0;
    std::size_t rank = 0;
    for (const Dims& shape : shapes) rank = std::max(rank, shape.size());
    for (std::size_t fromRight = matrixAxes; fromRight < rank; ++fromRight) {
      std::optional<SymbolicScalar> smallest;
      bool allUnit = true;
      for (std::size_t i = 0; i < shapes.size() && allUnit; ++i) {
        if (fromRight >= shapes[i].size()) continue;
        const std::size_t axis = shapes[i].size() - 1 - fromRight;
        allUnit = shapes[i][axis] == 1;
        const SymbolicScalar& size = boxes[i][axis];
        smallest = !smallest || *smallest == size ? size : min(*smallest, size);
      }
      if (!allUnit || !smallest) continue;
      for (std::size_t i = 0; i < shapes.size(); ++i)
        if (fromRight < shapes[i].size()) boxes[i][shapes[i].size() - 1 - fromRight] = *smallest;
    }
  }

  const TileGraph& m_tiles;
  const TensorGraph& m_graph;
  std::map<std::string, std::int64_t> m_dims;
  SymbolRanges m_loopIndexRanges;
  ValidShapes m_result;
};

} // namespace

ValidShapes inferValidShapes(const TileGraph& tiles) { return Analysis(tiles).run(); }

} // namespace pto
