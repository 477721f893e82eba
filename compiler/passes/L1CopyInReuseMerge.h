// L1CopyInReuseMerge: cube subgraphs that load the same global-memory data
// become one task that loads it into L1 once; then, with
// cube_nbuffer_setting, isomorphic cube subgraphs merged N at a time (the
// cube n-buffer). PyPTO runs both in this pass, L1 reuse first.
//
// Pre:  GraphPartition has run; NBufferMerge has not (it runs next, so
//       vector steps freed of the cube subgraphs between them can merge).
// Post: 1. cube_l1_reuse_setting: per scope and program, the AIC subgraphs
//          that are not pinned are grouped by a shared matmul operand: all
//          of them read the same A tiles (the same row block of A for
//          several N tiles), or all the same B tiles; whichever operand
//          groups more of them. Each group, in id order, is cut into runs of
//          N merged as in SubgraphMerge.h (order and capacity checked); the
//          shared tiles then have one L1 buffer and one copy-in
//          (AllocateBuffers and GenerateMoveOp list equal regions once).
//       2. cube_nbuffer_setting: per scope and program (after step 1), the
//          AIC subgraphs in id order cut into runs of N, as NBufferMerge does
//          for vector subgraphs.
//       Ids stay in first-tile-op order; programs are renumbered.
//
// Options (MergeCountSetting forms, and where they may be set: see NBufferMerge.h):
//   cube_l1_reuse_setting  N subgraphs sharing a copy-in per task; a
//                          semantic-label key applies only to the subgraphs
//                          holding ops with that label (PyPTO). {} =
//                          automatic (subgraphs of the program / AIC cores).
//                          Absent: no merge.
//   cube_nbuffer_setting   N isomorphic cube subgraphs per task; a label key
//                          applies to its whole group. Absent: no merge
//                          (PyPTO's default too).
// Clamping and errors: as NBufferMerge (a warning when the buffers cut a
// count; a malformed option is an error at the project file).
// Cost: linear in tile ops plus the order checks (see NBufferMerge.h).
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/settings/Options.h"

namespace pto {

bool l1CopyInReuseMerge(Compilation& compilation, DiagnosticEngine& diags);

// The options above, declared; and read as the pass reads them.
const std::vector<OptionInfo>& l1CopyInReuseMergeOptions();
bool checkL1CopyInReuseMergeOptions(const CompileSettings& settings, const TensorGraph& graph, DiagnosticEngine& diags);

} // namespace pto
