// Implementation of runTiles.
#include "compiler/reference/TileInterpreter.h"

#include "compiler/ir/ProgramWalker.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "compiler/reference/GatherRows.h"
#include "compiler/reference/ReferenceKernels.h"
#include "compiler/reference/ScatterRows.h"
#include "compiler/reference/ValidTileKernels.h"

#include <algorithm>
#include <cmath>

namespace pto {
namespace {

using Dims = std::vector<std::int64_t>;


class TileRunner {
public:
  TileRunner(const TileGraph& tiles, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
             const ReferenceOptions& options, const BlockGraph* blocks = nullptr)
      : m_tiles(tiles), m_graph(tiles.graph), m_arguments(arguments), m_diags(diags), m_options(options),
        m_blocks(blocks) {
    if (!blocks) return;
    m_subgraphsStartingAt.resize(m_graph.ops().size());
    for (const Subgraph& subgraph : blocks->subgraphs)
      if (!subgraph.ops.empty())
        m_subgraphsStartingAt[static_cast<std::size_t>(tiles.tileOp(subgraph.ops.front()).tensorOp)].push_back(
            subgraph.id);
  }

  bool run() {
    if (m_arguments.size() != m_graph.arguments.size())
      return m_diags.error(m_graph.kernelLocation) << "expected " << m_graph.arguments.size() << " arguments, got "
                                                   << m_arguments.size();
    m_storage.resize(m_graph.tensors().size());
    for (std::size_t i = 0; i < m_graph.arguments.size(); ++i)
      m_storage[static_cast<std::size_t>(m_graph.arguments[i])] = m_arguments[i];
    for (const TensorValue& tensor : m_graph.tensors()) {
      if (tensor.role != TensorRole::Temporary || tensor.reshapeOf != kNoId) continue;
      auto buffer = HostTensor::tryCreate(tensor.dtype, Shape(m_tiles.shapeOf(tensor.id)), m_diags, tensor.location);
      if (!buffer) return false;
      m_storage[static_cast<std::size_t>(tensor.id)] = std::move(*buffer);
    }
    // Folded reshapes (RemoveRedundantOp) are their source's own bytes.
    for (const TensorValue& tensor : m_graph.tensors())
      if (tensor.role == TensorRole::Temporary && tensor.reshapeOf != kNoId)
        m_storage[static_cast<std::size_t>(tensor.id)] = m_storage[static_cast<std::size_t>(tensor.reshapeOf)]
                                                            .reinterpretedView(tensor.dtype, Shape(m_tiles.shapeOf(tensor.id)));
    ProgramVisitor visitor;
    visitor.cancelled = m_options.cancelled;
    visitor.visitOp = [this](OpId op, const Bindings& bindings) { return runOp(op, bindings); };
    return walkProgram(m_graph, m_tiles.bindings, visitor, m_diags);
  }

private:
  // The storage under a tile's region, limited to its valid part: a tile of a partly valid tensor reads
  // and writes only that (a pad's region may reach past its target; its valid part does not).
  std::optional<HostTensor> view(const TileRegion& given, const Bindings& bindings, const SourceLocation& where) {
    std::string problem;
    std::optional<Dims> valid = reference::evaluateValidPart(given, bindings, problem);
    if (!valid) return m_diags.error(where) << problem;
    TileRegion region = resolveViews(m_graph, given);
    region.shape = *valid;
    const HostTensor& storage = m_storage.at(static_cast<std::size_t>(region.tensor));
    Dims offsets;
    for (std::size_t d = 0; d < region.offsets.size(); ++d) {
      SymbolicEvaluation value = region.offsets[d].evaluate(bindings);
      if (!value.ok()) return m_diags.error(where) << "tile offset '" << region.offsets[d].str() << "': " << value.error;
      std::int64_t offset = *value.value;
      if (offset < 0 || offset + region.shape[d] > storage.shape()[d])
        return m_diags.error(where) << "tile " << regionString(m_tiles, region) << " at offset " << offset << " of dim " << d
                                    << " lies outside '" << m_graph.tensor(region.tensor).name << "' "
                                    << storage.shape().str();
      offsets.push_back(offset);
    }
    return storage.view(offsets, region.shape);
  }

  bool runOp(OpId opId, const Bindings& bindings) {
    if (m_blocks) {
      for (SubgraphId id : m_subgraphsStartingAt[static_cast<std::size_t>(opId)])
        for (TileOpId tile : m_blocks->subgraph(id).ops) {
          const TileOp& tileOp = m_tiles.tileOp(tile);
          if (!runTile(m_graph.op(tileOp.tensorOp), tileOp, bindings)) return false;
        }
      return true;
    }
    const TensorOp& op = m_graph.op(opId);
    for (TileOpId id : m_tiles.tilesOf(opId))
      if (!runTile(op, m_tiles.tileOp(id), bindings)) return false;
    return true;
  }

  bool runTile(const TensorOp& op, const TileOp& tile, const Bindings& bindings) {
    if (m_options.cancelled && m_options.cancelled()) return m_diags.error(op.location) << "cancelled";
    // A view tile moves no data: regions on the view are resolved to its storage.
    if (tile.kind == TensorOpKind::View) return true;
    if (gathersRowsFromGm(tile)) return moveRows(op, tile, bindings, RowMove::Gather);
    if (scattersRowsToGm(tile)) return moveRows(op, tile, bindings, RowMove::Scatter);
    // Inputs whole as the tile's shape (what lies past a valid part is zero), with their valid parts.
    std::vector<HostTensor> inputs;
    std::vector<Dims> valids;
    bool partial = false;
    for (const TileRegion& region : tile.inputs) {
      auto input = view(region, bindings, op.location);
      if (!input) return false;
      partial = partial || input->shape().dims() != region.shape;
      inputs.push_back(input->shape().dims() == region.shape ? input->contiguous()
                                                             : reference::inLeadingBox(*input, input->dtype(), region.shape));
      valids.push_back(input->shape().dims());
    }
    std::vector<HostTensor> targets;
    for (const TileRegion& region : tile.outputs) {
      auto target = view(region, bindings, op.location);
      if (!target) return false;
      targets.push_back(std::move(*target));
    }
    if (tile.kind == TensorOpKind::Copy || tile.kind == TensorOpKind::Assemble) {
      writeLeading(targets[0], inputs[0], TileAccumulate::None);
      return true;
    }
    // The kernel sees a tensor op made of this tile's kind and attributes.
    TensorOp tileAsOp = op;
    tileAsOp.kind = tile.kind;
    tileAsOp.attrs = tile.attrs;
    if (reference::hasRunTimeScalars(tileAsOp)) {
      std::optional<TensorOp> bound = reference::bindRunTimeScalars(tileAsOp, bindings, m_diags);
      if (!bound) return false;
      tileAsOp = std::move(*bound);
    }
    // As the functional simulator does (and the reference per tensor op): the kernel runs on the inputs
    // cut to their valid parts (ValidParts.h), and the leading box of each result is written.
    std::vector<HostTensor> results;
    if (partial) {
      std::vector<DataType> dtypes;
      for (const HostTensor& target : targets) dtypes.push_back(target.dtype());
      if (!reference::runOnValidParts(tileAsOp, std::move(inputs), valids, dtypes, results, m_diags)) return false;
    } else {
      for (const HostTensor& target : targets) results.emplace_back(target.dtype(), target.shape());
      reference::KernelCall call{tileAsOp, std::move(inputs), std::move(results), m_diags};
      if (!reference::runKernel(call)) return false;
      results = std::move(call.outputs);
    }
    for (std::size_t i = 0; i < results.size() && i < targets.size(); ++i)
      writeLeading(targets[i], results[i], tile.accumulate);
    return true;
  }

  // The part of `values` and `target` both hold, from their first elements, written into `target`.
  static void writeLeading(HostTensor& target, const HostTensor& values, TileAccumulate accumulate) {
    Dims common = target.shape().dims();
    const Dims& given = values.shape().dims();
    if (given.size() == common.size())
      for (std::size_t d = 0; d < common.size(); ++d) common[d] = std::min(common[d], given[d]);
    if (Shape(common).elementCount() == 0) return;
    const Dims origin(common.size(), 0);
    HostTensor into = common == target.shape().dims() ? target : target.view(origin, common);
    const HostTensor from = given.size() == common.size() && common != given ? values.view(origin, common) : values;
    reference::accumulateInto(into, from, accumulate);
  }

  // An MGATHER tile: the rows its index slice names, copied one by one from
  // the source (which is every row: copying it whole per tile would cost
  // the size of a KV cache for each tile of a few rows). An MSCATTER tile:
  // its rows written one by one over the rows its index slice names; the
  // target's other rows are left as they are (the target is every row of
  // the cache, which is never copied).
  enum class RowMove { Gather, Scatter };
  bool moveRows(const TensorOp& op, const TileOp& tile, const Bindings& bindings, RowMove move) {
    // Gather: (source, index) -> target; scatter: (index, rows) -> target.
    auto first = view(tile.inputs[0], bindings, op.location);
    auto second = view(tile.inputs[1], bindings, op.location);
    auto target = view(tile.outputs[0], bindings, op.location);
    if (!first || !second || !target) return false;
    const bool gather = move == RowMove::Gather;
    const std::string problem =
        gather ? pto::gatherRows(*first, *second, *target) : pto::scatterRows(*target, *first, *second);
    if (problem.empty()) return true;
    const TensorId cache = resolveViews(m_graph, gather ? tile.inputs[0] : tile.outputs[0]).tensor;
    return m_diags.error(op.location) << (gather ? "index_select from '" : "scatter_update into '")
                                      << m_graph.tensor(cache).name << "': " << problem;
  }

  const TileGraph& m_tiles;
  const TensorGraph& m_graph;
  std::vector<HostTensor>& m_arguments;
  DiagnosticEngine& m_diags;
  const ReferenceOptions& m_options;
  const BlockGraph* m_blocks;
  std::vector<std::vector<SubgraphId>> m_subgraphsStartingAt;  // by OpId
  std::vector<HostTensor> m_storage;
};

} // namespace

bool runTiles(const TileGraph& tiles, std::vector<HostTensor>& arguments, DiagnosticEngine& diags,
              const ReferenceOptions& options) {
  return TileRunner(tiles, arguments, diags, options).run();
}

bool runSubgraphs(const TileGraph& tiles, const BlockGraph& blocks, std::vector<HostTensor>& arguments,
                  DiagnosticEngine& diags, const ReferenceOptions& options) {
  return TileRunner(tiles, arguments, diags, options, &blocks).run();
}

} // namespace pto
