// The Execute graph: the tasks the MPMD runtime schedules and the
// dependencies between them.
//
// Meaning. One task per execution of a subgraph: a subgraph in a loop body
// makes one task per iteration of that body (unrolled bodies: per execution
// of the body). Tasks are numbered in program order (`sequence` equals the
// id): the order a sequential machine would run them, which every
// dependency respects (predecessors have smaller ids).
//
// Dependencies come from global memory only: a task depends on an earlier
// task when it reads what that task writes (read after write), writes what
// it reads (write after read), or writes what it writes (write after write),
// where "what" is a box of elements of one storage tensor, compared with the
// loop indices of both tasks bound. A tensor that is another's bytes in
// another shape (a reshape folded into an alias, TensorValue::reshapeOf) is
// compared as the box of those bytes that holds its region (ByteAlias).
// Redundant edges implied by others may be kept; no edge is missing.
#pragma once

#include "compiler/ir/BlockGraph.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pto {

using TaskId = std::int32_t;

// A region with its offsets evaluated for one task.
struct ConcreteRegion {
  TensorId tensor = kNoId;
  std::vector<std::int64_t> offsets;
  std::vector<std::int64_t> shape;
  // 0: the tensor's one storage. Otherwise the region lies in one
  // iteration's own copy of a temporary the loop body makes (its workspace
  // in PyPTO's terms): regions of different instances never overlap.
  std::uint64_t instance = 0;
  // Read by an MGATHER (Subgraph::gatherSources): only the rows its index
  // picks move, so a cache model must not count the whole region as touched.
  bool gathered = false;
  // Written by an MSCATTER (Subgraph::scatterTargets): only the rows its
  // index names move; the rest of the region keeps its bytes, so a cache
  // model must not count the whole region as touched either.
  bool scattered = false;
};

struct Task {
  TaskId id = kNoId;
  SubgraphId subgraph = kNoId;
  int programId = -1;
  CoreType coreType = CoreType::AIV;
  std::vector<std::pair<std::string, std::int64_t>> loopIndices;  // outermost first
  // The root function the task belongs to: one call of a loop body (or of the
  // code between loops) by PyPTO's control flow, the unit stitch_function_max_num
  // counts. Tasks are in call order, so a call is a run of equal values.
  std::int64_t rootCall = 0;
  std::vector<ConcreteRegion> reads;
  std::vector<ConcreteRegion> writes;
  std::vector<TaskId> predecessors;  // ascending, no duplicates
  std::vector<TaskId> successors;    // ascending, no duplicates
};

// `alias` holds the bytes of `storage` (both row-major, of these concrete
// shapes and element sizes): dependencies on it are found on `storage`.
struct ByteAlias {
  TensorId alias = kNoId;
  TensorId storage = kNoId;
  std::vector<std::int64_t> aliasShape, storageShape;
  std::int64_t aliasElementBytes = 1, storageElementBytes = 1;

  // The box [lo, hi) of `storage` holding every byte of the alias region at
  // `offsets` of `sizes` (each of the alias's rank, sizes positive; lo and hi
  // of the storage's). Those bytes are one run in row-major order, so the box
  // is exact down to the first dim where the run's ends differ and whole
  // below it.
  void storageBox(const std::int64_t* offsets, const std::int64_t* sizes, std::int64_t* lo, std::int64_t* hi) const;
};

// A loop barrier (Loop::submitBeforeLoop) where the walk entered such a
// loop: tasks from `firstTask` on start only after every earlier task has
// finished. It is not a set of edges (every task before it to every task
// after would be a product of the two); the scheduler holds the device tasks
// from `firstTask` on until the tasks before it are done.
struct LoopBarrier {
  TaskId firstTask = 0;  // it stands between [0, firstTask) and the rest
  LoopId loop = kNoId;
  // Whether a dependency edge crosses it: some task from firstTask on reads
  // or writes data a task before it touched. Without one it only keeps apart
  // work that shares no data.
  bool ordersData = false;
};

struct ExecuteGraph {
  std::vector<Task> tasks;
  std::size_t edgeCount = 0;
  std::vector<ByteAlias> aliases;  // at most one per alias tensor
  // Ascending firstTask, one per position, none at 0 or at the end (where
  // there is nothing to hold apart).
  std::vector<LoopBarrier> barriers;
};

} // namespace pto
