// TensorGraph arenas and queries.
#include "compiler/ir/TensorGraph.h"

#include "core/EnumNames.h"

#include <functional>
#include <set>

namespace pto {

constexpr auto kTensorRoleNames = enumNames<TensorRole>({
    {TensorRole::Argument, "argument"}, {TensorRole::Temporary, "temporary"}, {TensorRole::View, "view"}});

std::string_view name(TensorRole role) { return kTensorRoleNames.name(role); }

TensorId TensorGraph::addTensor(TensorValue value) {
  value.id = static_cast<TensorId>(m_tensors.size());
  if (value.name.empty()) value.name = "t" + std::to_string(value.id);
  m_tensors.push_back(std::move(value));
  return m_tensors.back().id;
}

OpId TensorGraph::addOp(TensorOp op) {
  op.id = static_cast<OpId>(m_ops.size());
  m_ops.push_back(std::move(op));
  return m_ops.back().id;
}

LoopId TensorGraph::addLoop(Loop loop) {
  loop.id = static_cast<LoopId>(m_loops.size());
  m_loops.push_back(std::move(loop));
  return m_loops.back().id;
}

TensorId TensorGraph::storageOf(TensorId id) const {
  while (tensor(id).role == TensorRole::View && tensor(id).base != kNoId) id = tensor(id).base;
  return id;
}

bool TensorGraph::isInPlaceReshape(const TensorOp& op) {
  const auto* inplace = op.attr<bool>("inplace");
  return op.kind == TensorOpKind::Reshape && inplace && *inplace;
}

TensorId TensorGraph::aliasRootOf(TensorId id) const {
  while (true) {
    id = storageOf(id);
    const OpId producer = tensor(id).producer;
    if (producer == kNoId || !isInPlaceReshape(op(producer))) return id;
    id = op(producer).inputs.at(0);
  }
}

std::vector<TensorId> TensorGraph::writtenArguments() const {
  std::set<TensorId> written;
  for (const TensorOp& op : m_ops) {
    // A view or an in-place reshape aliases; making it writes nothing.
    if (op.kind == TensorOpKind::View || isInPlaceReshape(op)) continue;
    for (TensorId output : op.outputs)
      if (tensor(aliasRootOf(output)).role == TensorRole::Argument) written.insert(aliasRootOf(output));
  }
  std::vector<TensorId> result;
  for (TensorId argument : arguments)
    if (written.count(argument)) result.push_back(argument);
  return result;
}

std::vector<OpId> TensorGraph::opsInProgramOrder() const {
  std::vector<OpId> order;
  std::function<void(const Region&)> visit = [&](const Region& region) {
    for (const Path& path : region.paths)
      for (const Statement& statement : path.statements) {
        if (statement.kind == Statement::Kind::Op) {
          order.push_back(statement.id);
          continue;
        }
        for (const LoopBody& loopBody : loop(statement.id).bodies) visit(loopBody.region);
      }
  };
  visit(body);
  return order;
}

std::string shapeString(const SymbolicShape& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) text += ", ";
    text += shape[i].str();
  }
  return text + "]";
}

std::vector<int> loopSegmentOfOps(const TensorGraph& graph) {
  std::vector<int> segmentOfOp(graph.ops().size(), 0);
  std::function<void(const Region&)> visit = [&](const Region& region) {
    for (const Path& path : region.paths) {
      int segment = 0;
      for (const Statement& statement : path.statements) {
        if (statement.kind == Statement::Kind::Op) {
          segmentOfOp[static_cast<std::size_t>(statement.id)] = segment;
          continue;
        }
        ++segment;
        for (const LoopBody& body : graph.loop(statement.id).bodies) visit(body.region);
      }
    }
  };
  visit(graph.body);
  return segmentOfOp;
}

} // namespace pto
