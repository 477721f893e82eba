// BlockGraph helpers.
#include "compiler/ir/BlockGraph.h"

#include "core/EnumNames.h"

#include <functional>

namespace pto {

std::string_view name(CoreType type) { return type == CoreType::AIC ? "AIC" : "AIV"; }

constexpr auto kBufferOverlapNames = enumNames<BufferOverlap>({
    {BufferOverlap::PingPong, "ping-pong"}, {BufferOverlap::MembersApart, "members-apart"},
    {BufferOverlap::Single, "single"}});

std::string_view name(BufferOverlap overlap) { return kBufferOverlapNames.name(overlap); }

std::vector<Scope> collectScopes(const TensorGraph& graph, std::vector<ScopeId>& scopeOfOp) {
  std::vector<Scope> scopes;
  scopeOfOp.assign(graph.ops().size(), kNoId);
  std::function<void(const Region&, LoopId, int)> visit = [&](const Region& region, LoopId loop, int body) {
    for (std::size_t p = 0; p < region.paths.size(); ++p) {
      Scope scope;
      scope.id = static_cast<ScopeId>(scopes.size());
      scope.loop = loop;
      scope.body = body;
      scope.path = static_cast<int>(p);
      scopes.push_back(scope);
      ScopeId id = scope.id;
      for (const Statement& statement : region.paths[p].statements) {
        if (statement.kind == Statement::Kind::Op) {
          scopes[static_cast<std::size_t>(id)].ops.push_back(statement.id);
          scopeOfOp[static_cast<std::size_t>(statement.id)] = id;
          continue;
        }
        const Loop& inner = graph.loop(statement.id);
        for (std::size_t b = 0; b < inner.bodies.size(); ++b) visit(inner.bodies[b].region, inner.id, static_cast<int>(b));
      }
    }
  };
  visit(graph.body, kNoId, 0);
  return scopes;
}

} // namespace pto
