// GenerateMoveOp: the global-memory traffic of each subgraph.
//
// Pre:  GraphPartition has run.
// Post: every subgraph has its copyIns and copyOuts, each region once (equal
//       regions are listed once), in the order of the tile ops that need them:
//       - copyIns: the regions its tile ops read (inputs, and the output of an
//         accumulating op) that earlier tile ops of the subgraph did not write
//         in full (one write, or several tiles together): arguments,
//         temporaries made by another subgraph or scope, and values read
//         before the subgraph writes them (loop-carried). A region written
//         only in part inside is copied in whole; the part written inside
//         is then newer on chip, which code generation must keep.
//       - copyOuts: the regions its tile ops write that must reach global
//         memory: every write to an argument, and every write to a temporary
//         that another subgraph may read (in any iteration or scope) or that
//         this subgraph copies in again (a later iteration reads it). Only
//         the last write of a region in the subgraph counts, so an
//         accumulation (partial reductions, matmul k-steps) copies out once,
//         after its last partial.
//       - gatherSources: the regions its MGATHERs pick rows from in place
//         (readsInPlace: index_select tiles), each once; always from GM,
//         so a write to them inside the subgraph is also a copy-out.
//       - scatterTargets: the regions its MSCATTERs write rows into in place
//         (writesInPlace: scatter_update tiles of the paged-cache form),
//         each once. Such a write is partial: it is never a copy-out, it
//         covers no later read (a read of the region after it in the
//         subgraph comes from GM) and it does not make an earlier write of
//         the region stop being the last one.
//       Temporaries made and used only inside one subgraph stay on chip.
//       Subgraphs of one programId also agree on their copies (which of
//       their tensors, what shape): a class whose members copy differently
//       is split and programIds renumbered, so a subgraph that stores its
//       result never shares the program of an equal one that stores nothing.
//       Regions name storage tensors (views resolved); view tile ops move
//       nothing.
//       Offsets are compared like GraphPartition's: inside a subgraph with
//       the loop indices of one iteration; against other subgraphs for any
//       iteration (a symbolic offset may overlap anything).
//
// Options: none. Cost: about linear in tile-op regions (grid lookups).
#pragma once

#include "compiler/ir/Compilation.h"

namespace pto {

bool generateMoveOp(Compilation& compilation, DiagnosticEngine& diags);

} // namespace pto
