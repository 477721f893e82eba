// The Block graph: the tile graph cut into subgraphs, each a unit of work
// for one core (a task per execution), with its global-memory traffic.
//
// Meaning. Every tile op belongs to exactly one subgraph. A subgraph lives in
// one *scope* — one path of one loop body (or of the kernel body) — and runs
// on one core type: AIC (cube) for matmul tiles, AIV (vector) for the rest.
// Each time its scope executes (each loop iteration), a subgraph becomes one
// task. Within a subgraph tile ops run in `ops` order; data produced and
// consumed inside it stays on chip, and `copyIns`/`copyOuts` are the regions
// it reads from and writes to global memory (GenerateMoveOp fills them).
// Subgraphs of one scope form a DAG by their global-memory dependencies:
// GraphPartition never creates a cycle between them.
//
// Isomorphism. Subgraphs with the same structure (op kinds, tile shapes,
// dtypes and the relative layout of their operands) share one program;
// `programId` names it, so the simulator and the PTO dump handle each
// program once.
#pragma once

#include "compiler/ir/MemoryKind.h"
#include "compiler/ir/TileGraph.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pto {

using SubgraphId = std::int32_t;
using ScopeId = std::int32_t;

enum class CoreType : unsigned char { AIC, AIV };
std::string_view name(CoreType type);

// One path of one loop body, or of the kernel body: where tasks are made.
struct Scope {
  ScopeId id = kNoId;
  LoopId loop = kNoId;  // kNoId: the kernel body
  int body = 0;         // which unroll body of the loop
  int path = 0;         // which path of that body's region
  std::vector<OpId> ops;  // the tensor ops of this path, in program order (loops inside are their own scopes)
};

// One on-chip buffer of a subgraph: a tile held in `memory` at
// [offsetBytes, offsetBytes + bytes) while ops firstUse..lastUse (positions
// in the subgraph's `ops`) run. AllocateBuffers fills these.
struct BufferAllocation {
  MemoryKind memory = MemoryKind::UB;
  std::int64_t offsetBytes = 0;
  std::int64_t bytes = 0;
  TileRegion region;              // the data it holds
  TileOpId producer = kNoId;      // kNoId: loaded from global memory
  int firstUse = 0;
  int lastUse = 0;
};

// Buffer placements that let copies overlap compute, from most to least
// overlap: PingPong keeps every buffer reserved one op past its last use (and
// merged members apart), so the next op's copy-ins and this op's copy-outs
// never wait for each other's bytes; MembersApart only keeps merged members
// apart; Single reuses bytes as soon as they are dead.
enum class BufferOverlap { PingPong, MembersApart, Single };
std::string_view name(BufferOverlap overlap);

struct Subgraph {
  SubgraphId id = kNoId;
  ScopeId scope = kNoId;
  CoreType coreType = CoreType::AIV;
  std::vector<TileOpId> ops;      // execution order
  std::vector<TileRegion> copyIns;   // GM regions read (storage tensors)
  std::vector<TileRegion> copyOuts;  // GM regions written
  // GM regions an MGATHER picks rows from by index (index_select tiles):
  // read in place, row by row, never loaded whole. Tasks read them after
  // their copy-ins (Task::reads[copyIns.size() + j]), so dependencies see
  // the whole region while only the picked rows move.
  std::vector<TileRegion> gatherSources;
  // GM regions an MSCATTER writes rows into by index (scatter_update tiles
  // of the paged-cache form): written in place, row by row, never loaded or
  // stored whole. Tasks write them after their copy-outs
  // (Task::writes[copyOuts.size() + j]). Dependencies take the whole region
  // as written, which is conservative: a later reader of any row waits for
  // the scatter, since which rows it writes is data. The write is partial
  // (rows not named keep their values), so it is never a copy-out.
  std::vector<TileRegion> scatterTargets;
  int programId = -1;             // isomorphism class
  std::string label;              // semantic label of its first op
  // A user override or sg_set_scope pinned this grouping.
  bool pinned = false;
  // Merged subgraphs (NBufferMerge, L1CopyInReuseMerge): where in `ops` each
  // member, one tile's worth of work, begins. Members run one after the other
  // (each in tile-op id order), so `ops` ascends within a member but not
  // across members; AllocateBuffers keeps a member's buffers apart from the
  // next member's so that the next tile's copy-in can overlap this tile's
  // compute. Empty: one member.
  std::vector<int> memberStarts;
  std::vector<BufferAllocation> buffers;
  std::array<std::int64_t, kMemoryKindCount> peakBytes{};  // per memory, the highest offset in use
  // How far AllocateBuffers could keep buffers apart so that data movement
  // overlaps compute (best first); see AllocateBuffers.h.
  BufferOverlap overlap = BufferOverlap::Single;
  // With less than PingPong: the first memory that could not take it and the
  // bytes ping-pong would have needed there (for `pto settings`).
  MemoryKind overlapLimitedBy = MemoryKind::GM;
  std::int64_t overlapNeededBytes = 0;
};

struct BlockGraph {
  std::vector<Scope> scopes;
  std::vector<Subgraph> subgraphs;
  std::vector<SubgraphId> subgraphOfTileOp;  // indexed by TileOpId
  int programCount = 0;

  const Subgraph& subgraph(SubgraphId id) const { return subgraphs.at(static_cast<std::size_t>(id)); }
};

// The scope of every tensor op (kNoId for ops in no path, which cannot happen
// in a finished graph) and the scope list, in program order.
std::vector<Scope> collectScopes(const TensorGraph& graph, std::vector<ScopeId>& scopeOfOp);

} // namespace pto
