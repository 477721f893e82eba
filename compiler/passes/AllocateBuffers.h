// AllocateBuffers: AssignMemoryType and on-chip buffer allocation per
// subgraph, checked against the machine's capacities.
//
// Pre:  GraphPartition and GenerateMoveOp have run.
// Post: every subgraph lists its buffers: vector subgraphs keep tiles in UB;
//       cube subgraphs stage A/B tiles in L1, feed each k-step from L0A/L0B
//       and accumulate in L0C (the fixpipe writes results to GM directly);
//       their vector ops (machines with an L0C -> UB path) keep tiles in UB
//       as in vector subgraphs, a matmul result they read taking a UB buffer
//       from its fixpipe Cast on (or from the read, unconverted) while L0C
//       keeps the accumulator until then.
//       A buffer lives from the first to the last op that touches its tile
//       and its bytes are reused only after that; buffers are placed
//       first-fit in order of first use (ties: order of appearance), sized to
//       whole 32-byte blocks (innermost dim padded) and rounded to the
//       allocation granularity.
//       Overlap (Subgraph::overlap), the most that fits the machine:
//       PingPong: every buffer stays reserved one op past its last use, so
//       op p + 1's copy-ins never take bytes op p still computes on, and op
//       p's copy-outs never wait for op p + 1's results; OoOSchedule then
//       loads the next tile while this one computes (double buffering, as
//       PyPTO's planner does). Merged subgraphs (Subgraph::memberStarts)
//       also keep member k's buffers until member k + 1 ends.
//       MembersApart: only the member reservation. Single: bytes are reused
//       as soon as they are dead (correct; the loads then wait for the
//       bytes they reuse). Below PingPong the subgraph records the memory
//       that could not take it and the bytes it would have needed; the
//       memories that can still take it keep it (each memory is placed on
//       its own), so a k-step's right-hand tile that fills L0B leaves L1
//       loading the next k-step while this one is moved and multiplied.
//       A Single plan that overflows tries again with elementwise results
//       written over an input of the same shape that dies at their op (the
//       vector unit computes them in place), as PyPTO's operation tests need
//       for [32, 32, 32] fp32 tiles; plans that fit without it are unchanged.
//       A subgraph whose ops, in the order they were made, overflow a
//       memory runs them depth first instead when that needs less of it
//       (SubgraphOpOrder.h: a pinned scope's row chains one after the other;
//       every subgraph of its program alike).
//       A subgraph whose peak use of a memory exceeds the machine's capacity
//       is an error naming the subgraph, the memory, the bytes needed and
//       available, and the kernel line of the largest tile live at the peak.
#pragma once

#include "compiler/ir/Compilation.h"

#include <array>
#include <vector>

namespace pto {

bool allocateBuffers(Compilation& compilation, DiagnosticEngine& diags);

// The peak bytes per memory that allocateBuffers would give `subgraph` (by
// its ops and core type alone), for passes that regroup tile ops and must
// not overflow a buffer.
std::array<std::int64_t, kMemoryKindCount> plannedPeakBytes(const TileGraph& tiles, const TargetInfo& target,
                                                             const Subgraph& subgraph);

// The placement AllocateBuffers makes for one subgraph (only its ops,
// coreType and memberStarts are read), without checking capacities; the
// merge passes use it to keep merged subgraphs within the machine.
// Cost: about linear in the subgraph's op operands (hashing; a partial read
// of a tile made inside visits only the tiles it overlaps).
// Where a buffer's region comes from: operand `index` of the op at
// `position` (an output when `output`), so that an isomorphic subgraph's
// plan can be moved onto another subgraph of the same program.
struct BufferOrigin {
  int position = 0;
  bool output = false;
  int index = 0;
};

struct SubgraphBufferPlan {
  std::vector<BufferAllocation> buffers;  // in order of first use
  std::array<std::int64_t, kMemoryKindCount> peakBytes{};
  BufferOverlap overlap = BufferOverlap::Single;
  MemoryKind overlapLimitedBy = MemoryKind::GM;  // see Subgraph::overlapLimitedBy
  std::int64_t overlapNeededBytes = 0;
  // Per buffer, the tensor op whose kernel line a too-big tile is blamed on.
  std::vector<OpId> blame;
  std::vector<BufferOrigin> origins;  // per buffer
};
// `most` caps the overlap tried: the merge passes plan with MembersApart, so
// what they decide fits does not depend on the optional ping-pong room.
// `bySizeFallback` (AllocateBuffers' final plan only) places the buffers
// greedily by size when first fit in order of use overflows: the passes that
// group ops keep judging by first fit, so their groupings do not depend on it.
SubgraphBufferPlan planSubgraphBuffers(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                                       BufferOverlap most = BufferOverlap::MembersApart, bool bySizeFallback = false);
// planSubgraphBuffers without the buffers: the same peaks, overlap and
// overlap limit, `buffers`, `blame` and `origins` left empty. For passes that
// only ask whether a grouping fits (GraphPartition asks it of every candidate
// merge, the merge passes of every run): copying each buffer's region out of
// the planner was a tenth of a large compile's heap allocations.
SubgraphBufferPlan planSubgraphPeaks(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph,
                                     BufferOverlap most = BufferOverlap::MembersApart, bool bySizeFallback = false);
// Whether every on-chip peak of `plan` is within `target`'s capacities.
bool fitsCapacities(const SubgraphBufferPlan& plan, const TargetInfo& target);

// Whether AllocateBuffers would place `subgraph` (its ops, coreType and
// memberStarts) within the machine: its plan in the order the ops were made,
// else in the depth-first order (SubgraphOpOrder.h) when that needs less.
// GraphPartition cuts a pinned group that fails this (see GraphPartition.h).
bool fitsOnChipInSomeOrder(const TileGraph& tiles, const TargetInfo& target, const Subgraph& subgraph);

// Bytes a tile of `shape` elements of `dtype` occupies: the innermost dim
// padded to 32 bytes, the total rounded up to `granularity`.
std::int64_t tileBytes(const std::vector<std::int64_t>& shape, DataType dtype, std::int64_t granularity);

} // namespace pto
