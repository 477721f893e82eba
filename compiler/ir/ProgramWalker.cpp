// Implementation of walkProgram.
#include "compiler/ir/ProgramWalker.h"

namespace pto {
namespace {

class Walker {
public:
  Walker(const TensorGraph& graph, Bindings bindings, const ProgramVisitor& visitor, DiagnosticEngine& diags)
      : m_graph(graph), m_bindings(std::move(bindings)), m_visitor(visitor), m_diags(diags) {}

  bool region(const Region& region, const SourceLocation& where) {
    for (const Path& path : region.paths) {
      bool applies = true;
      for (const Condition& condition : path.conditions) {
        auto value = evaluate(condition.predicate, condition.location, "the condition");
        if (!value) return false;
        if ((*value != 0) != condition.expected) {
          applies = false;
          break;
        }
      }
      if (applies) return statements(path.statements);
    }
    return m_diags.error(where) << "internal error: no path of this region applies";
  }

private:
  std::optional<std::int64_t> evaluate(const SymbolicScalar& value, const SourceLocation& where, const char* what) {
    SymbolicEvaluation result = value.evaluate(m_bindings);
    if (!result.ok()) return m_diags.error(where) << "cannot evaluate " << what << " '" << value.str() << "': " << result.error;
    return *result.value;
  }

  bool statements(const std::vector<Statement>& list) {
    for (const Statement& statement : list) {
      if (m_visitor.cancelled && m_visitor.cancelled()) return m_diags.error(m_graph.kernelLocation) << "cancelled";
      if (statement.kind == Statement::Kind::Op) {
        if (!m_visitor.visitOp(statement.id, m_bindings)) return false;
      } else if (!loop(m_graph.loop(statement.id))) {
        return false;
      }
    }
    return true;
  }

  bool loop(const Loop& loop) {
    auto start = evaluate(loop.start, loop.location, "the loop start");
    auto stop = evaluate(loop.stop, loop.location, "the loop stop");
    auto step = evaluate(loop.step, loop.location, "the loop step");
    if (!start || !stop || !step) return false;
    if (*step <= 0) return m_diags.error(loop.location) << "loop '" << loop.name << "' has step " << *step << "; it must be positive";
    std::optional<std::int64_t> saved;
    if (auto found = m_bindings.find(loop.indexSymbol); found != m_bindings.end()) saved = found->second;
    bool ok = true;
    // Iterations are counted in unsigned arithmetic: stop - start can exceed
    // int64 for extreme bounds, and the index itself is only formed in range.
    std::uint64_t total = *stop > *start ? (static_cast<std::uint64_t>(*stop) - static_cast<std::uint64_t>(*start) +
                                            static_cast<std::uint64_t>(*step) - 1) /
                                               static_cast<std::uint64_t>(*step)
                                         : 0;
    if (m_visitor.enterLoop) m_visitor.enterLoop(loop, total);
    for (std::uint64_t done = 0; ok && done < total;) {
      std::uint64_t remaining = total - done;
      std::int64_t index = static_cast<std::int64_t>(static_cast<std::uint64_t>(*start) + done * static_cast<std::uint64_t>(*step));
      const LoopBody* chosen = nullptr;
      for (const LoopBody& body : loop.bodies)
        if (body.unrollFactor > 0 && static_cast<std::uint64_t>(body.unrollFactor) <= remaining &&
            (!chosen || body.unrollFactor > chosen->unrollFactor))
          chosen = &body;
      if (!chosen) return m_diags.error(loop.location) << "internal error: no body of loop '" << loop.name << "' fits";
      m_bindings[loop.indexSymbol] = index;
      if (m_visitor.enterIteration) m_visitor.enterIteration(loop, index, chosen->unrollFactor);
      ok = region(chosen->region, loop.location);
      done += static_cast<std::uint64_t>(chosen->unrollFactor);
    }
    if (saved) m_bindings[loop.indexSymbol] = *saved;
    else m_bindings.erase(loop.indexSymbol);
    if (ok && m_visitor.leaveLoop) m_visitor.leaveLoop(loop);
    return ok;
  }

  const TensorGraph& m_graph;
  Bindings m_bindings;
  const ProgramVisitor& m_visitor;
  DiagnosticEngine& m_diags;
};

} // namespace

bool walkProgram(const TensorGraph& graph, Bindings bindings, const ProgramVisitor& visitor, DiagnosticEngine& diags) {
  return Walker(graph, std::move(bindings), visitor, diags).region(graph.body, graph.kernelLocation);
}

} // namespace pto
