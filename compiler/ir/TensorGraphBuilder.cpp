// Implementation of TensorGraphBuilder.
#include "compiler/ir/TensorGraphBuilder.h"

#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <stdexcept>

namespace pto {
namespace {

TensorValue newTensor(std::string name, DataType dtype, SymbolicShape shape, TensorRole role, SourceLocation location) {
  TensorValue value;
  value.name = std::move(name);
  value.dtype = dtype;
  value.shape = std::move(shape);
  value.role = role;
  value.location = std::move(location);
  return value;
}

} // namespace

TensorGraphBuilder::TensorGraphBuilder(std::string kernelName, SourceLocation kernelLocation) {
  m_graph.kernelName = std::move(kernelName);
  m_graph.kernelLocation = std::move(kernelLocation);
  m_open.push_back(OpenRegion{});
}

TensorId TensorGraphBuilder::addArgument(std::string argName, DataType dtype, SymbolicShape shape,
                                         SourceLocation location, bool nzLayout) {
  TensorValue value = newTensor(std::move(argName), dtype, std::move(shape), TensorRole::Argument, std::move(location));
  value.nzLayout = nzLayout;
  value.argumentIndex = static_cast<int>(m_graph.arguments.size());
  TensorId id = m_graph.addTensor(std::move(value));
  m_graph.arguments.push_back(id);
  return id;
}

void TensorGraphBuilder::addDynamicSymbol(SymbolSource source) { m_graph.dynamicSymbols.push_back(std::move(source)); }

TensorId TensorGraphBuilder::addTemporary(std::string tensorName, DataType dtype, SymbolicShape shape,
                                          SourceLocation location) {
  TensorValue value = newTensor(std::move(tensorName), dtype, std::move(shape), TensorRole::Temporary, std::move(location));
  value.loop = m_loopStack.empty() ? kNoId : m_loopStack.back();
  return m_graph.addTensor(std::move(value));
}

namespace {

// Checks that a region of `regionShape` at `offsets` lies inside `target`,
// where both are known. With `validPartDecides` (an assemble) a region that
// starts inside and reaches past the end is left to the run: an assemble
// writes its value's valid part, which for PyPTO's last block of a loop over
// view blocks is the part inside (the run checks that it fits).
std::string regionError(const SymbolicShape& regionShape, const SymbolicShape& offsets, const TensorValue& target,
                        bool validPartDecides) {
  if (regionShape.size() != target.shape.size() || offsets.size() != target.shape.size())
    return "the source has rank " + std::to_string(regionShape.size()) + " but '" + target.name + "' " +
           shapeString(target.shape) + " has rank " + std::to_string(target.shape.size());
  for (std::size_t d = 0; d < regionShape.size(); ++d) {
    auto offset = simplify(offsets[d]).constantValue();
    auto size = simplify(regionShape[d]).constantValue();
    auto limit = simplify(target.shape[d]).constantValue();
    if (offset && *offset < 0) return "offset " + std::to_string(*offset) + " in dim " + std::to_string(d) + " is negative";
    if (offset && size && limit && *offset + *size > *limit && !(validPartDecides && *offset < *limit))
      return "a region of " + shapeString(regionShape) + " at offsets " + shapeString(offsets) +
             " does not fit in '" + target.name + "' " + shapeString(target.shape) + " (dim " + std::to_string(d) +
             ": " + std::to_string(*offset) + " + " + std::to_string(*size) + " > " + std::to_string(*limit) + ")";
  }
  return {};
}

// Ops that run on the vector unit and so are cut by the vec tile shape.
bool usesVectorTile(TensorOpKind kind) {
  return isElementwise(category(kind)) || category(kind) == OpCategory::Reduce;
}

// A tile with fewer dims than the op's rank leaves dims without a size. (A
// row of no whole number of 32-byte blocks is fine: the unified buffer pads
// it, as PyPTO's does; see vecTilePaddingNote.)
std::string vecTileError(TensorOpKind kind, const std::vector<std::int64_t>& tile, std::size_t rank) {
  std::string call = "set_vec_tile_shapes(";
  for (std::size_t i = 0; i < tile.size(); ++i) call += (i ? ", " : "") + std::to_string(tile[i]);
  call += ")";
  // A longer tile applies its leading dims to a lower-rank op (axis i takes
  // tile dim i), as PyPTO does: kernels set one tile for 2-D work and also
  // run 1-D ops. A shorter one leaves dims without a tile size.
  if (tile.size() < rank)
    return call + " gives " + std::to_string(tile.size()) + (tile.size() == 1 ? " dim" : " dims") + ", but " +
           std::string(name(kind)) + " works on rank-" + std::to_string(rank) +
           " tensors; give one tile dim per tensor dim (" + std::to_string(rank) + " values)";
  return {};
}

} // namespace

TensorGraphBuilder::OpResult TensorGraphBuilder::addOp(TensorOpKind kind, std::vector<TensorId> inputs,
                                                       Attributes attrs, SourceLocation location,
                                                       std::vector<TensorId> into) {
  std::vector<TensorType> types;
  types.reserve(inputs.size());
  for (TensorId input : inputs) types.push_back(TensorType{m_graph.tensor(input).dtype, m_graph.tensor(input).shape});
  ShapeInferenceResult inferred = inferShapes(kind, types, attrs);
  if (!inferred.ok()) return OpResult{{}, inferred.error, {}};
  if (usesVectorTile(kind) && !m_state.tiles.vec.empty()) {
    // Reductions are tiled over their input, everything else over its result.
    const TensorType& tiled = category(kind) == OpCategory::Reduce ? types[0] : inferred.outputs[0];
    std::string problem = vecTileError(kind, m_state.tiles.vec, tiled.shape.size());
    if (!problem.empty()) return OpResult{{}, problem, m_state.tiles.vecSite};
  }

  TensorOp op;
  op.kind = kind;
  op.inputs = std::move(inputs);
  op.attrs = std::move(attrs);
  op.location = location;
  op.label = m_state.label;
  op.tiles = m_state.tiles;
  op.passOptions = m_state.passOptions;
  op.loop = m_loopStack.empty() ? kNoId : m_loopStack.back();

  if (!into.empty()) {
    if (into.size() != inferred.outputs.size())
      return OpResult{{}, std::string(name(kind)) + ": cannot write into " + std::to_string(into.size()) + " tensors", {}};
    for (std::size_t i = 0; i < into.size(); ++i) {
      const TensorValue& target = m_graph.tensor(into[i]);
      const TensorType& produced = inferred.outputs[i];
      std::string prefix = std::string(name(kind)) + ": ";
      if (target.dtype != produced.dtype)
        return OpResult{{}, prefix + "cannot write " + std::string(name(produced.dtype)) + " data into '" + target.name +
                                "' (" + std::string(name(target.dtype)) + "); convert with pypto.cast(x, " +
                                std::string(pyptoName(target.dtype)) + ")", {}};
      SymbolicShape offsets(target.shape.size(), SymbolicScalar(0));
      if (const auto* given = op.attr<SymbolicShape>("offsets")) offsets = *given;
      std::string problem = regionError(produced.shape, offsets, target, kind == TensorOpKind::Assemble);
      if (!problem.empty()) return OpResult{{}, prefix + problem, {}};
      if (kind == TensorOpKind::Copy)
        for (std::size_t d = 0; d < target.shape.size(); ++d)
          if (!provablyEqual(target.shape[d], produced.shape[d]))
            return OpResult{{}, prefix + "shapes differ: '" + target.name + "' is " + shapeString(target.shape) +
                                    ", the value is " + shapeString(produced.shape), {}};
    }
    op.outputs = std::move(into);
  }

  OpId id = m_graph.addOp(std::move(op));
  TensorOp& recorded = m_graph.op(id);
  if (recorded.outputs.empty()) {
    for (const TensorType& type : inferred.outputs) {
      TensorValue value;
      value.dtype = type.dtype;
      value.shape = type.shape;
      value.producer = id;
      value.location = location;
      value.loop = m_loopStack.empty() ? kNoId : m_loopStack.back();
      if (kind == TensorOpKind::View) {
        value.role = TensorRole::View;
        value.base = recorded.inputs[0];
        value.offsets = *recorded.attr<SymbolicShape>("offsets");
        const auto* valid = recorded.attr<SymbolicShape>("valid_shape");
        value.validShape = valid ? *valid : value.shape;
      }
      TensorId output = m_graph.addTensor(std::move(value));
      m_graph.op(id).outputs.push_back(output);
    }
  }
  append(Statement{Statement::Kind::Op, id});
  return OpResult{m_graph.op(id).outputs, {}, {}};
}

void TensorGraphBuilder::setVecTile(std::vector<std::int64_t> dims, SourceLocation site) {
  m_state.tiles.vec = std::move(dims);
  m_state.tiles.vecSite = std::move(site);
}

void TensorGraphBuilder::setCubeTile(CubeTileShape shape, SourceLocation site) {
  m_state.tiles.cube = shape;
  m_state.tiles.cubeSite = std::move(site);
}

LoopId TensorGraphBuilder::beginLoop(std::string loopName, std::string indexName, SymbolicScalar start,
                                     SymbolicScalar stop, SymbolicScalar step, bool parallel,
                                     SourceLocation location) {
  int number = m_nextLoopNumber++;
  Loop loop;
  loop.name = loopName.empty() ? "loop_" + std::to_string(number) : std::move(loopName);
  std::string symbol = indexName.empty() ? "loop_idx_" + std::to_string(number) : std::move(indexName);
  // Nested loops may reuse an index name; the symbols must stay distinct.
  auto clashes = [&](const std::string& candidate) {
    return std::any_of(m_loopStack.begin(), m_loopStack.end(),
                       [&](LoopId open) { return m_graph.loop(open).indexSymbol == candidate; }) ||
           std::any_of(m_graph.dynamicSymbols.begin(), m_graph.dynamicSymbols.end(),
                       [&](const SymbolSource& source) { return source.symbol == candidate; });
  };
  std::string unique = symbol;
  for (int suffix = 1; clashes(unique); ++suffix) unique = symbol + "_" + std::to_string(suffix);
  loop.indexSymbol = unique;
  loop.start = simplify(start);
  loop.stop = simplify(stop);
  loop.step = simplify(step);
  loop.parallel = parallel;
  loop.parent = m_loopStack.empty() ? kNoId : m_loopStack.back();
  loop.location = std::move(location);
  LoopId id = m_graph.addLoop(std::move(loop));
  append(Statement{Statement::Kind::Loop, id});
  m_loopStack.push_back(id);
  return id;
}

void TensorGraphBuilder::beginLoopBody(LoopId loop, std::int64_t unrollFactor) {
  if (m_open.back().loop == loop) m_open.pop_back();  // the previous unroll factor's body
  Loop& record = m_graph.loop(loop);
  record.bodies.push_back(LoopBody{unrollFactor, Region{}});
  OpenRegion open;
  open.loop = loop;
  open.body = record.bodies.size() - 1;
  open.stateAtStart = m_state;
  m_open.push_back(std::move(open));
}

void TensorGraphBuilder::setSubmitBeforeLoop(LoopId loop) { m_graph.loop(loop).submitBeforeLoop = true; }

void TensorGraphBuilder::setUnrollList(LoopId loop, std::vector<std::int64_t> factors) {
  m_graph.loop(loop).unrollList = std::move(factors);
}

void TensorGraphBuilder::endLoop(LoopId loop) {
  if (m_open.back().loop == loop) m_open.pop_back();
  if (!m_loopStack.empty() && m_loopStack.back() == loop) m_loopStack.pop_back();
}

Region& TensorGraphBuilder::regionOf(const OpenRegion& open) {
  if (open.loop == kNoId) return m_graph.body;
  return m_graph.loop(open.loop).bodies.at(open.body).region;
}

Path& TensorGraphBuilder::currentPath() {
  Region& region = regionOf(m_open.back());
  if (region.paths.empty()) region.paths.emplace_back();  // ops recorded before any beginPath
  return region.paths.back();
}

void TensorGraphBuilder::append(Statement statement) { currentPath().statements.push_back(statement); }

void TensorGraphBuilder::beginPath() {
  OpenRegion& open = m_open.back();
  regionOf(open).paths.emplace_back();
  open.cursor = 0;
  m_state = open.stateAtStart;
}

bool TensorGraphBuilder::endPath() {
  OpenRegion& open = m_open.back();
  open.plan.resize(open.cursor);
  while (!open.plan.empty() && !open.plan.back()) open.plan.pop_back();
  if (open.plan.empty()) return false;
  open.plan.back() = false;
  return true;
}

bool TensorGraphBuilder::decide(const SymbolicScalar& predicate, SourceLocation location) {
  SymbolicScalar simplified = simplify(predicate);
  if (auto value = simplified.constantValue()) return *value != 0;
  OpenRegion& open = m_open.back();
  if (open.cursor == open.plan.size()) open.plan.push_back(true);
  bool outcome = open.plan[open.cursor++];
  currentPath().conditions.push_back(Condition{simplified, outcome, std::move(location)});
  return outcome;
}

std::vector<LoopId> TensorGraphBuilder::openLoops() const { return m_loopStack; }

SymbolicScalar TensorGraphBuilder::readElement(TensorId tensor, SymbolicScalar flatIndex, std::string& error) {
  const TensorValue& value = m_graph.tensor(tensor);
  if (value.role != TensorRole::Argument || value.argumentIndex < 0) {
    error = "only a kernel argument can be read element by element (its values are known when the kernel "
            "launches); '" + value.name + "' is computed by the kernel";
    return 0;
  }
  if (isFloatingPoint(value.dtype)) {
    error = "reading one element of '" + value.name + "' gives a loop bound or an offset, so it must be an integer "
            "tensor, not " + std::string(name(value.dtype)) + " (index the tensor with a slice to get a view)";
    return 0;
  }
  std::vector<int>& reads = m_graph.elementReadArguments;
  auto at = std::lower_bound(reads.begin(), reads.end(), value.argumentIndex);
  if (at == reads.end() || *at != value.argumentIndex) reads.insert(at, value.argumentIndex);
  return SymbolicScalar::element(value.name, std::move(flatIndex));
}

TensorGraph TensorGraphBuilder::finish() {
  TensorGraph result = std::move(m_graph);
  m_graph = TensorGraph{};
  m_open.assign(1, OpenRegion{});
  m_loopStack.clear();
  return result;
}

} // namespace pto
