// RootCalls: which root function each task of the execute graph belongs to,
// numbered as BuildExecuteGraph walks the program (Task::rootCall).
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace pto {

// Numbers the root functions (Task::rootCall) as the walk goes: PyPTO's
// control flow calls a loop body once per iteration, or once per group of an
// unroll_list (Loop::unrollList), and the code between loops once each time
// the walk passes it. A task's call is the loops around it with the call
// number of each; the count steps whenever that changes from one task to the
// next.
class RootCalls {
public:
  void enterLoop(const Loop& loop, std::uint64_t iterations) { m_active.push_back({&loop, iterations, 0, 0, -1}); }
  void enterIteration(std::int64_t unrollFactor) {
    Active& active = m_active.back();
    active.call = callOf(active);
    active.done += static_cast<std::uint64_t>(std::max<std::int64_t>(unrollFactor, 1));
    ++active.bodies;
  }
  void leaveLoop() { m_active.pop_back(); }
  // The call of a task made now.
  std::int64_t current();

private:
  struct Active {
    const Loop* loop;
    std::uint64_t iterations;  // of the loop this time
    std::uint64_t done;        // iterations run so far
    std::int64_t bodies;       // body runs so far
    std::int64_t call;         // the current iteration's call
  };
  // Without an unroll list every body run is a call (a loop_unroll body covers
  // its factor's iterations in one). With one, iterations go in groups of the
  // largest factor while it fits, then of the next: [8, 4, 2, 1] over 13
  // iterations calls 8, 4, 1.
  static std::int64_t callOf(const Active& active);

  std::vector<Active> m_active;
  std::vector<std::pair<LoopId, std::int64_t>> m_lastKey;
  std::int64_t m_count = -1;
};

} // namespace pto
