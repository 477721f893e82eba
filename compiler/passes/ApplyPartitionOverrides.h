// ApplyPartitionOverrides: the project's `partition_overrides`, the user's
// edits to GraphPartition's subgraphs (move tile ops, split, merge). The IDE
// writes them when the user drags a node into another subgraph.
//
// Pre:  GraphPartition has run.
// Post: with no overrides nothing changes. Otherwise every entry of
//       `compilation.settings.partitionOverrides` has been applied, in order,
//       each to the partition the previous ones left, and the block graph
//       keeps GraphPartition's postconditions: every tile op in exactly one
//       subgraph, ops of a subgraph in tile-op id order and all from one
//       scope and one stretch of it between nested loops, subgraph ids in
//       order of first tile op (a topological order of each scope's
//       subgraphs), coreType AIC when any op is a cube op, label from the
//       first op, programIds renumbered by structure (numberPrograms).
//       Subgraphs an override touched are marked pinned; emptied ones are
//       gone. copyIns/copyOuts stay empty (GenerateMoveOp).
//
// Entries (docs/project-format.md has the full format and examples):
//   {"move":  OPS, "to": SUBGRAPH | "new"}
//   {"split": SUBGRAPH, "at": OPS}      the ops from the first of OPS on leave
//   {"merge": [SUBGRAPH, SUBGRAPH, ...]}
// OPS names tile ops stably across recompiles: {"label": semantic label,
// "line": kernel line, "tensor_op": tensor op id (any combination, all must
// match), "tile": index or "tiles": [indices] among the tensor op's tiles in
// execution order (default: all)}. SUBGRAPH is the subgraph holding the tile
// ops an OPS object names, or {"subgraph": id} (GraphPartition's id, which
// shifts when the kernel changes). An optional "note" is free text.
//
// Errors, each at the entry's line in the project file, naming the entry
// (`partition_overrides[2] (merge)`) and why: a malformed entry (unknown or
// missing keys, wrong types; did-you-mean for key names); a name that
// matches nothing (did-you-mean for labels, the lines there are for lines);
// ops of different scopes or on both sides of a nested loop in one subgraph;
// a subgraph that would mix cube and vector ops on a machine without an
// L0C -> UB or UB -> L1 path (or feed a vector result to the cube on chip
// without UB -> L1); a
// cycle between subgraphs (the subgraphs and ops on it), or a subgraph that
// would need data from one starting after it; a subgraph whose buffers would
// exceed a memory's capacity (the memory, bytes needed and available) when
// its parts fitted before.
//
// Cost: per entry, linear in tile ops plus ordering edges (the edges are
// found once, as GraphPartition finds them), plus a buffer plan of each
// subgraph the entry touched.
#pragma once

#include "compiler/ir/Compilation.h"

namespace pto {

bool applyPartitionOverrides(Compilation& compilation, DiagnosticEngine& diags);

// What `pto check` can say without compiling: every entry's form and the
// names it uses (labels, with did-you-mean; kernel lines; tensor op ids)
// against the traced kernel, with the pass's messages at the entry's line
// (`locations`, as CompileSettings::partitionOverrideLocations). Every entry
// is read, so one run reports each bad entry's first problem. Tile indices
// and subgraph ids depend on the tiling: the pass checks those.
bool checkPartitionOverrides(const TensorGraph& graph, const nlohmann::ordered_json& entries,
                             const std::vector<SourceLocation>& locations, const std::string& projectFile,
                             DiagnosticEngine& diags);

} // namespace pto
