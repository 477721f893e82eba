// Builds a TensorGraph while a kernel is traced: the insertion point, loop
// and path nesting, and the state that tags each op (label, tile shapes,
// scoped pass options).
//
// Paths and pypto.cond. A condition on a symbolic value cannot be decided
// while tracing, so the tracer explores both outcomes: the body of a region
// (the kernel, or one loop body) is traced once per path through the
// decision tree. `decide()` answers each cond of the current trace from the
// path's plan (true first), and `endPath()` moves to the next plan, depth
// first, until every combination seen has been traced.
#pragma once

#include "compiler/ir/ShapeInference.h"
#include "compiler/ir/TensorGraph.h"

#include <memory>
#include <string>
#include <vector>

namespace pto {

class TensorGraphBuilder {
public:
  TensorGraphBuilder(std::string kernelName, SourceLocation kernelLocation);

  // `nzLayout`: declared `format=TILEOP_NZ` (TensorValue::nzLayout).
  TensorId addArgument(std::string argName, DataType dtype, SymbolicShape shape, SourceLocation location,
                       bool nzLayout = false);
  void addDynamicSymbol(SymbolSource source);
  // A temporary buffer (pypto.tensor / pypto.zeros without data).
  TensorId addTemporary(std::string tensorName, DataType dtype, SymbolicShape shape, SourceLocation location);

  struct OpResult {
    std::vector<TensorId> outputs;
    std::string error;  // shape inference's message; empty on success
    // Where the error belongs when not at the op: a bad tile shape is
    // reported at its set_vec_tile_shapes line, with a note at the op.
    SourceLocation errorLocation;
  };
  // Records an op at the insertion point. `into` names existing tensors the
  // op writes (assemble, copy into an output); otherwise new temporaries (or
  // views, for view) are made. Assemble checks that its region fits `into`.
  OpResult addOp(TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs, SourceLocation location,
                 std::vector<TensorId> into = {});

  // A scalar read of one element of argument `tensor` at flat (row-major)
  // position `flatIndex`, as PyPTO's `act_seq[b]`: the expression the kernel
  // computes with (loop bounds, offsets, min/max), bound from the argument's
  // values at launch (ElementBindings.h). Sets `error` and returns 0 when
  // `tensor` is not an integer kernel argument.
  SymbolicScalar readElement(TensorId tensor, SymbolicScalar flatIndex, std::string& error);

  // State that tags the ops that follow.
  void setLabel(std::string label) { m_state.label = std::move(label); }
  const std::string& label() const { return m_state.label; }
  void setVecTile(std::vector<std::int64_t> dims, SourceLocation site);
  void setCubeTile(CubeTileShape shape, SourceLocation site);
  const TileContext& tiles() const { return m_state.tiles; }
  void setPassOptions(nlohmann::ordered_json options) { m_state.passOptions = std::move(options); }
  const nlohmann::ordered_json& passOptions() const { return m_state.passOptions; }

  // Loops. beginLoop returns the loop and its index symbol; then, for each
  // unroll factor, beginLoopBody + one or more paths; then endLoop.
  LoopId beginLoop(std::string loopName, std::string indexName, SymbolicScalar start, SymbolicScalar stop,
                   SymbolicScalar step, bool parallel, SourceLocation location);
  void beginLoopBody(LoopId loop, std::int64_t unrollFactor);
  // Puts a loop barrier before the loop (Loop::submitBeforeLoop).
  void setSubmitBeforeLoop(LoopId loop);
  // Records the loop's unroll_list (Loop::unrollList).
  void setUnrollList(LoopId loop, std::vector<std::int64_t> factors);
  void endLoop(LoopId loop);
  const Loop& loop(LoopId id) const { return m_graph.loop(id); }

  // Paths of the innermost open region (the kernel body or a loop body).
  void beginPath();
  // Finishes the current path; true when another path remains to be traced.
  bool endPath();
  // The outcome of `pypto.cond(predicate)` on the current path; constant
  // predicates are answered without creating paths.
  bool decide(const SymbolicScalar& predicate, SourceLocation location);

  // The loop indices currently open, innermost last (is_loop_begin/end).
  std::vector<LoopId> openLoops() const;
  const TensorGraph& graph() const { return m_graph; }
  // Ends building; the builder is left empty.
  TensorGraph finish();

private:
  struct TracingState {
    std::string label;
    TileContext tiles;
    nlohmann::ordered_json passOptions = nlohmann::ordered_json::object();
  };
  // One open region: where it lives, the decision plan of the current path,
  // and the tagging state at its start (restored for each path).
  struct OpenRegion {
    LoopId loop = kNoId;  // kNoId: the kernel body
    std::size_t body = 0;
    std::vector<bool> plan;
    std::size_t cursor = 0;
    TracingState stateAtStart;
  };

  Region& regionOf(const OpenRegion& open);
  Path& currentPath();
  void append(Statement statement);

  TensorGraph m_graph;
  TracingState m_state;
  std::vector<OpenRegion> m_open;
  std::vector<LoopId> m_loopStack;
  int m_nextLoopNumber = 0;
};

} // namespace pto
