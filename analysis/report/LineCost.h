// LineCost: how a run's busy time divides over the kernel's source lines —
// the per-line heatmap of `pto report --by-line` and of the IDE's editor.
// Computed from the compilation, the schedule and the machine; no
// simulation is rerun.
//
// The chain from a task to its lines: a task runs its subgraph's program;
// each instruction of the program implements one tile op; each tile op comes
// from a tensor op, which knows its kernel line. Isomorphic subgraphs share
// the program lowered from the first of them and list alike ops in the same
// order, so the program's tile op at position p of that first subgraph
// stands for the op at position p of the task's own subgraph.
//
// A task's lines are the lines of all of its subgraph's tile ops: every line
// of a fused task counts the task, even a line whose ops emit no
// instruction (a view, an assemble). Ops without a source location count as
// line 0 of file "".
//
// How a task's cycles are split over its lines (cycles of the core clock,
// fractional):
// - Pipe cycles. Each busy interval a task spent on pipe P is credited to
//   the task's instructions on P in proportion to their modelled costs
//   alone (ProgramTiming: a compute step's cycles; a GM transfer's start-up
//   latency + bytes / its path's peak), evenly by count when all of them
//   cost nothing, and each instruction's part goes to its line. Interval
//   cycles on a pipe where the program has no instruction go to the task's
//   lines evenly.
// - Core cycles (a task's duration, start to end). Each cycle is shared
//   evenly among the pipes busy in it, and each pipe's part goes to lines as
//   above; cycles in which no pipe is busy (start-up, flag waits) go to the
//   lines in proportion to the rest of the task. A task without pipe
//   intervals is split by its instructions' modelled costs over all pipes,
//   and one whose instructions cost nothing (or that has none) evenly over
//   its lines.
// Hence, over all lines, core cycles per core type sum to that core type's
// busy time (the sum of its task durations), pipe cycles per pipe sum to
// that pipe's busy intervals, and shares (a line's core cycles / the run's
// busy time) sum to 1.
#pragma once

#include "compiler/ir/Compilation.h"
#include "npusim/MachineDescription.h"
#include "runtime/Schedule.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pto {

struct SourceLineCost {
  std::string file;  // as the kernel's ops name it; "" when unknown
  int line = 0;      // 1-based; 0 when unknown
  // The task time credited to the line, per core type (CoreType order: AIC, AIV).
  std::array<double, 2> coreCycles{};
  // The pipe busy cycles credited to the line (Pipe order).
  std::array<double, kPipeCount> pipeCycles{};
  double share = 0.0;  // coreCycles summed / the run's busy time, 0..1
  std::vector<TaskId> tasks;          // ascending: the tasks with an op on this line
  std::vector<SubgraphId> subgraphs;  // ascending: their subgraphs
  // The non-sync instructions the tasks ran for this line, and their counts
  // by opcode (most first, ties in opcode order).
  std::int64_t instructions = 0;
  std::vector<std::pair<PtoOpcode, std::int64_t>> opcodes;

  double cycles() const { return coreCycles[0] + coreCycles[1]; }
};

struct LineCostReport {
  std::string machine;
  double clockGHz = 0.0;
  std::array<double, 2> busyCycles{};           // per core type: the sum of its task durations
  std::array<double, kPipeCount> pipeCycles{};  // per pipe: the sum of its busy intervals
  std::vector<SourceLineCost> lines;            // by file, then line

  double totalBusyCycles() const { return busyCycles[0] + busyCycles[1]; }
  // The entry of `line` in a file whose name (last path component) is that
  // of `file`; null when no task has an op there.
  const SourceLineCost* find(std::string_view file, int line) const;
};

LineCostReport lineCostReport(const Compilation& compilation, const Schedule& schedule,
                              const MachineDescription& machine);

// `pto report --by-line --json`'s "by_line" object (docs/cli.md): machine,
// clock_ghz, busy_cycles {AIC, AIV, total}, pipe_cycles, and lines, each
// with file, line, text (from `lineText`, when given), share, cycles {AIC,
// AIV}, pipes, tasks, task_ids, subgraphs, instructions, opcodes.
nlohmann::ordered_json lineCostJson(const LineCostReport& report,
                                    const std::function<std::string(const std::string& file, int line)>& lineText = {});

// The pipes of `line` with cycles, busiest first: ("VECTOR", 1234.5), ...
std::vector<std::pair<Pipe, double>> busiestPipes(const SourceLineCost& line);

} // namespace pto
