// GraphPartition: the tile graph cut into subgraphs, each a task for one core.
//
// Pre:  ExpandFunction has run (every tensor has a concrete shape). Regions
//       are compared on their storage tensors; should RemoveRedundantOp have
//       been disabled, regions on views are resolved here and view tile ops,
//       which move no data, join the subgraph of the first op reading their
//       view (or of the op before them).
// Post: `compilation.blocks` holds the scopes (collectScopes), the subgraphs,
//       `subgraphOfTileOp` for every tile op and a programId per subgraph
//       (`programCount` in all). copyIns/copyOuts stay empty (GenerateMoveOp).
//       - Every tile op is in exactly one subgraph; a subgraph's ops all come
//         from one scope and are listed in tile-op id order. Ops of a scope on
//         either side of a nested loop never share a subgraph: its task runs
//         where its first op is, and the later ops may need the loop's data.
//       - Core type: matmul tiles, gathers into L1 (gathersIntoL1) and the
//         cast of a matmul's accumulator (the fixpipe's conversion), are AIC;
//         all other tile ops are AIV.
//         Data stays on chip only along paths the machine has: AIV -> AIV,
//         AIC -> AIC, with `machine_has_l0c_to_ub` AIC -> AIV and, on a
//         machine with a UB -> L1 path (the 950), AIV -> AIC (a vector
//         result as a matmul operand). A subgraph with any AIC op is AIC. A matmul's A or B operand made by
//         another cube op (held in L0C; no modelled machine moves L0C into
//         L1) comes from GM: an ordering edge, not a data edge.
//       - Tile ops joined by a data edge (a read of what another wrote, or
//         successive partials of one accumulation) share a subgraph when the
//         data may stay on chip, unless the merge would push the subgraph's
//         copy-in over `mg_copyin_upper_bound` or break the ordering rule.
//       - Capacity: a subgraph's buffers fit every on-chip memory of the
//         machine (planSubgraphBuffers with buffers reused once dead, the
//         least AllocateBuffers falls back to), as PyPTO bounds a subgraph by
//         what fits on chip. Ops are grouped freely first; the ops of a
//         group that overflows are placed again joining only the producer
//         groups they fit with (a long chain is cut into runs that fit), and
//         should a group still overflow, every unpinned op of the scope.
//         Exceptions, left whole for AllocateBuffers to report at the kernel
//         line: groups with a tile op too big on its own (no cut helps; the
//         tile shape must change). sg_set_scope groups stay whole while some
//         op order AllocateBuffers tries fits them (fitsOnChipInSomeOrder);
//         else they are cut into runs of their ops in the order made, each
//         the longest that fits, what a later run reads of an earlier one
//         going through GM (as PyPTO's scheduler spills an L1 tile to GM and
//         reloads it); both runs stay pinned.
//       - Ordering rule: ordering edges between tile ops of a scope (read
//         after write, write after read, write after write on regions that
//         may overlap; offsets compared with the scope's loop indices equal)
//         only run from a subgraph to one whose first tile op comes later. So
//         the subgraphs of a scope form a DAG, and subgraph ids, given in
//         order of first tile op, are a topological order of it (tasks made
//         in first-op order respect every dependency). A vector op that
//         needs a matmul result and a vector op before that matmul therefore
//         never share a subgraph.
//       - Subgraphs of the same structure (core type; op kinds, accumulate
//         modes, tile shapes, attributes; operand dtypes, shapes, tensor
//         shapes; and which operands share a tensor at which relative offset)
//         share a programId; programs are numbered in order of first use.
//
// Options (compilation.settings.passOptions, PyPTO names; types, defaults
// and ranges are declared in graphPartitionOptions(), GraphPartition.cpp):
//   mg_copyin_upper_bound  A merge that brings new copy-in into a subgraph
//                          beyond this many bytes is not made (one tile op
//                          alone may exceed it).
//   pg_parallel_lower_bound A scope left with fewer subgraphs than this has
//                          its largest subgraphs split along their
//                          independent output tiles: the ops several outputs
//                          need become one subgraph, the ops of each group of
//                          outputs another.
//   sg_set_scope           {"label": id, ...} or ["label", ...]. Tile ops
//                          whose tensor op has one of these semantic labels
//                          form one subgraph per scope (and stretch between
//                          nested loops) and id (a list is one id), marked
//                          pinned; no other op joins it. A tensor
//                          op's own scoped `sg_set_scope` (an int >= 0, from
//                          pypto.set_pass_options) does the same.
//   machine_has_l0c_to_ub  The machine has an L0C -> UB path, so a vector op
//                          may consume a matmul result on chip; absent, the
//                          machine description decides.
//
// Errors: a malformed option (at the project file); an sg_set_scope group
// that cannot be one subgraph (mixes cube and vector ops the machine cannot
// connect on chip, or needs data from a subgraph that starts after it), at
// the op.
//
// Cost: about linear in tile ops plus edges for the usual tilings (regions
// are found through grids; groups are a union-find; the ordering rule is an
// O(1) check per merge). Groups that overflow cost more: one buffer plan
// per group, and per merge of a re-placed op a plan of the merged group when
// its operand tiles together exceed the memory (quadratic in the length of
// the runs such a group is cut into, which the capacity keeps short for
// large tiles); at most 4 placements of a scope.
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/settings/Options.h"

#include <array>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

namespace pto {

bool graphPartition(Compilation& compilation, DiagnosticEngine& diags);

// The options above, declared.
const std::vector<OptionInfo>& graphPartitionOptions();

// Reads the options above as graphPartition does, reporting the same errors;
// for tools that check settings without compiling (it does not read
// `graph`: every pass's check takes one).
bool checkGraphPartitionOptions(const CompileSettings& settings, const TensorGraph& graph, DiagnosticEngine& diags);

// ---------------------------------------------------------------------------
// GraphPartition's rules, for passes that regroup tile ops after it
// (ApplyPartitionOverrides, the merges): the same edges, core types and
// segments, and the same program numbering.

// An ordering edge between two tile ops of one scope: `to` reads, overwrites
// or accumulates into what `from` touched, so `to` runs after it. `data`:
// `to` reads what `from` wrote (sharing a subgraph keeps that data on chip).
struct TileOpEdge {
  TileOpId from = kNoId;  // from < to
  TileOpId to = kNoId;
  bool data = false;
};

struct PartitionRules {
  std::vector<TileOpEdge> edges;        // per scope, ordered by `to`; one per (from, to)
  std::vector<CoreType> coreOf;         // by TileOpId: AIC for matmul tiles and their fixpipe casts
  std::vector<ScopeId> scopeOf;         // by TileOpId
  std::vector<std::int32_t> segmentOf;  // by TileOpId: the stretch of its scope between nested loops
};

// Pre: `compilation.blocks.scopes` is set (GraphPartition has run).
PartitionRules partitionRules(Compilation& compilation);

// Sets every subgraph's programId and `programCount` from the subgraphs'
// structure, numbered in subgraph-id order, exactly as GraphPartition does.
void numberPrograms(Compilation& compilation);

// Whether matmul results may feed vector ops on chip: the machine's
// L0C -> UB path, unless pass_options.machine_has_l0c_to_ub says otherwise.
bool cubeResultsMayStayOnChip(const CompileSettings& settings);

} // namespace pto
