// Runs a program's control flow: chooses each region's path, iterates loops
// with their index bound, and hands every op statement to a visitor in
// execution order. Interpreters and the execute-graph builder share it.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/Diagnostics.h"

#include <functional>
#include <map>
#include <string>

namespace pto {

struct ProgramVisitor {
  // Called for each op statement; `bindings` hold the dynamic dims and the
  // indices of the loops around it. Returning false stops the walk.
  std::function<bool(OpId op, const Bindings& bindings)> visitOp;
  // Called each time the walk reaches a loop statement, before its first
  // iteration, with the number of iterations it will run (optional).
  std::function<void(const Loop& loop, std::uint64_t iterations)> enterLoop;
  // Called before each iteration of a loop body (optional).
  std::function<void(const Loop& loop, std::int64_t index, std::int64_t unrollFactor)> enterIteration;
  // Called after a loop's last iteration (optional).
  std::function<void(const Loop& loop)> leaveLoop;
  // Polled between statements; true stops the walk with a "cancelled" error.
  std::function<bool()> cancelled;
};

// Returns false after reporting a diagnostic (a condition or loop bound that
// cannot be evaluated, a non-positive step, no path applying) or when the
// visitor stopped the walk.
bool walkProgram(const TensorGraph& graph, Bindings bindings, const ProgramVisitor& visitor, DiagnosticEngine& diags);

} // namespace pto
