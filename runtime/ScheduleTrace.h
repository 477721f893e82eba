// The swimlane of a simulated run: a Schedule (where and when each task ran,
// in cycles) turned into the trace model the views and the Perfetto export
// read (nanoseconds, lanes, names, source links).
//
// What each trace task carries, and where it comes from:
//   lane        AIC_<n> / AIV_<n>: the core the scheduler chose; every core of
//               the machine gets a lane, idle ones too (an empty lane is
//               information: "this core did nothing").
//   times       cycles / clock: dispatch, start, end; pipes likewise.
//   seq         the device task (stitched batch) it was submitted in.
//   subgraph    the Block graph subgraph the task executes.
//   label, line the subgraph's representative tile op: its first compute op
//               (not a data move), so a task links to the kernel line that
//               does its work; its semantic label names the task.
//   args.lines  every kernel line of the subgraph's tile ops, when there is
//               more than one (a fused task): "14, 15, 16", ascending; a line
//               in another file than `line`'s as "helpers.py:3" (trace::kTaskLinesArg).
//   inputs/outputs  the GM regions it reads and writes, "x[0:4, 64:128]".
//   predecessors    the Execute graph's dependency edges.
//   args.loop   the task's loop indices, "i=3, j=0" (outermost first), when
//               its subgraph runs in a loop.
// Counters ReadyCount_AIC / _AIV / _Total sample the ready queues.
//
// Times are rounded to whole nanoseconds; rounding is monotonic, so a
// consumer never starts before its producer ends in the trace either.
#pragma once

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/ExecuteGraph.h"
#include "compiler/ir/TileGraph.h"
#include "runtime/Schedule.h"
#include "runtime/trace/Trace.h"

#include <string>

namespace pto {

struct ScheduleTraceInput {
  const Schedule& schedule;
  const ExecuteGraph& tasks;
  const BlockGraph& blocks;
  const TileGraph& tiles;
  int aicCores = 0;
  int aivCores = 0;
  double clockGHz = 1.0;
};

trace::Trace traceFromSchedule(const ScheduleTraceInput& input);

// "i=3, j=0": a task's loop indices, outermost first ("" outside loops).
std::string loopIndicesText(const std::vector<std::pair<std::string, std::int64_t>>& loopIndices);

// "x[0:4, 64:128]": a task's GM region, named by its storage tensor.
std::string concreteRegionString(const TensorGraph& graph, const ConcreteRegion& region);

// The tile op a subgraph is shown as: its first op that computes (not a copy,
// view or assemble); its first op when all of them move data.
TileOpId representativeTileOp(const TileGraph& tiles, const Subgraph& subgraph);

} // namespace pto
