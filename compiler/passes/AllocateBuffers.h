// AllocateBuffers: AssignMemoryType and on-chip buffer allocation per
// subgraph, checked against the machine's capacities.
//
// Pre:  GraphPartition and GenerateMoveOp have run.
// Post: every subgraph lists its buffers: vector subgraphs keep tiles in UB;
//       cube subgraphs stage A/B tiles in L1, feed each k-step from L0A/L0B
//       and accumulate in L0C (the fixpipe writes results to GM directly).
//       A buffer lives from the first to the last op that touches its tile;
//       buffers are placed first-fit, sized to whole 32-byte blocks
//       (innermost dim padded) and rounded to the allocation granularity.
//       A subgraph whose peak use of a memory exceeds the machine's capacity
//       is an error naming the subgraph, the memory, the bytes needed and
//       available, and the kernel line of the largest tile live at the peak.
#pragma once

#include "compiler/passes/Compilation.h"

#include <array>

namespace pto {

bool allocateBuffers(Compilation& compilation, DiagnosticEngine& diags);

// The peak bytes per memory that allocateBuffers would give `subgraph` (by
// its ops and core type alone), for passes that regroup tile ops and must
// not overflow a buffer.
std::array<std::int64_t, kMemoryKindCount> plannedPeakBytes(const TileGraph& tiles, const TargetInfo& target,
                                                             const Subgraph& subgraph);

// Bytes a tile of `shape` elements of `dtype` occupies: the innermost dim
// padded to 32 bytes, the total rounded up to `granularity`.
std::int64_t tileBytes(const std::vector<std::int64_t>& shape, DataType dtype, std::int64_t granularity);

} // namespace pto
