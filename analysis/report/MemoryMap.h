// MemoryMap: where one subgraph's tiles sit in each on-chip memory (UB, L1,
// L0A, L0B, L0C) while its program runs, for `pto report --memory` and the
// IDE's Memory view.
//
// Source. The buffers AllocateBuffers placed (Subgraph::buffers: memory,
// offset, bytes, the region held, the ops that use it) and the PTO program
// the core runs (shared by isomorphic subgraphs, which have the same
// placement). Nothing is re-planned: the map shows the compiler's decision.
//
// Time axis. Instruction index in the program's issue order (sync
// instructions included, so that indices are the program's own). The
// simulator records when each pipe was busy per task, not when each
// instruction ran, so the map has no cycle axis; a map made for a task also
// gives that task's start and end cycles for context.
//
// Lifetime of a buffer: [firstInstruction, lastInstruction], inclusive, the
// first and last instruction whose on-chip operand touches the buffer's bytes
// while one of the ops that use it runs (a buffer no instruction touches
// takes the instructions of those ops). The compiler's own lifetime, in ops,
// is [firstOp, lastOp] (positions in Subgraph::ops). A ping-pong placement
// also keeps a buffer's bytes reserved one op past its last use; that
// reservation is not drawn: it is free space no other buffer took.
//
// In place: an elementwise result the compiler wrote over an input that dies
// at its op (AllocateBuffers, only when a plan would overflow otherwise)
// shares that input's bytes at the one instruction that reads the input and
// writes the result; `inPlaceOf` names the input, and live bytes count the
// shared bytes once.
//
// Ping-pong halves. In a merged subgraph (n-buffer, L1 reuse: several
// members, one tile's work each) a buffer's half is its member's parity
// (member 0, 2, ... half 0; 1, 3, ... half 1). Otherwise buffers of one role
// (same memory, tensor and tile shape: the k-steps of a matmul, the rows of a
// loop over tiles) taken in order of first use alternate halves while each
// follows the previous one without sharing its lifetime or its bytes: the
// compiler kept them apart so that the next one loads while this one is
// used. A buffer in no such pair has half -1.
//
// Per memory:
//   peakLiveBytes   the most bytes live at one instruction (peakInstruction,
//                   the first such), counting each byte once;
//   footprintBytes  the highest offset + bytes any buffer reaches
//                   (Subgraph::peakBytes): what the placement needs;
//   utilization     peakLiveBytes / capacity;
//   fragmentation   at peakInstruction, 1 - largest free block / all free
//                   bytes, free blocks being the maximal ranges of
//                   [0, capacity) no live buffer covers: 0 when the free
//                   bytes are one block (or there are none), near 1 when
//                   they are scattered in small holes;
//   holeBytesAtPeak free bytes below the footprint at peakInstruction: what
//                   the placement leaves between live buffers.
#pragma once

#include "compiler/ir/Compilation.h"
#include "runtime/Schedule.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct MemoryMapBuffer {
  int index = 0;  // in Subgraph::buffers
  MemoryKind memory = MemoryKind::UB;
  std::int64_t offsetBytes = 0;
  std::int64_t bytes = 0;
  int firstInstruction = 0;
  int lastInstruction = 0;
  int firstOp = 0;
  int lastOp = 0;
  std::string tensor;                // the tensor's name ("x", or "t12" for a temporary)
  std::vector<std::string> offsets;  // the tile's offsets in it, per dim (symbolic: "b", "64")
  std::vector<std::int64_t> shape;   // the tile's shape, per dim
  std::string dtype;
  bool loaded = false;  // copied in from global memory (else made by an op of the subgraph)
  std::string op;       // the op that made it, or for a loaded tile the first op that reads it ("exp", "matmul")
  std::string sourceFile;  // that op's kernel line; empty when unknown
  int sourceLine = 0;
  int member = -1;        // merged subgraphs: the member of its first use; -1 otherwise
  int pingPongHalf = -1;  // 0 or 1; -1: not double-buffered (see the top of this file)
  int inPlaceOf = -1;     // `index` of the input whose bytes it took, -1: none

  // "exp t5[1x4x1x64]" / "load x[1x4x1x64]": what a box is labelled with.
  std::string name() const;
  // "kernel.py:15", or empty.
  std::string source() const;
};

struct MemorySpaceMap {
  MemoryKind memory = MemoryKind::UB;
  std::int64_t capacityBytes = 0;
  std::vector<MemoryMapBuffer> buffers;  // by first instruction, then offset
  std::int64_t peakLiveBytes = 0;
  int peakInstruction = -1;  // -1: no buffer
  std::int64_t footprintBytes = 0;
  double utilization = 0.0;
  double fragmentation = 0.0;
  std::int64_t largestFreeBytesAtPeak = 0;
  std::int64_t holeBytesAtPeak = 0;
};

// The task a map was asked for: its place on the timeline.
struct MemoryMapTask {
  TaskId task = kNoId;
  std::string core;  // "AIV 3"
  std::int64_t startCycle = 0;
  std::int64_t endCycle = 0;
};

struct MemoryMap {
  SubgraphId subgraph = kNoId;
  int programId = -1;
  std::string coreType;  // "AIC" / "AIV"
  std::string label;
  std::string overlap;  // BufferOverlap: "ping-pong", "members-apart", "single"
  int members = 1;      // tiles merged into the subgraph (n-buffer, L1 reuse)
  int instructionCount = 0;
  std::optional<MemoryMapTask> task;
  // The core type's memories (AIV: UB; AIC: L1, L0A, L0B, L0C), then any
  // other on-chip memory holding a buffer, in MemoryKind order.
  std::vector<MemorySpaceMap> spaces;
};

// The map of `subgraph` (an id of compilation.blocks; throws std::out_of_range
// for another). Cost: linear in the program's operands times the buffers
// live at each op, plus a sort per memory.
MemoryMap memoryMap(const Compilation& compilation, SubgraphId subgraph);
// The map of the subgraph task `task` runs, with the task's times from
// `schedule` (null: no times). Throws std::out_of_range for an unknown task.
MemoryMap memoryMapOfTask(const Compilation& compilation, const Schedule* schedule, TaskId task);

// The subgraph whose placement fills a memory most (footprint / capacity,
// the highest over its memories; ties: lowest id): what `pto report
// --memory` shows when asked for no subgraph. kNoId when no subgraph has a
// buffer. Cost: linear in subgraphs (no map is made).
SubgraphId fullestSubgraph(const Compilation& compilation);

nlohmann::ordered_json memoryMapJson(const MemoryMap& map);

} // namespace pto
