// NBufferMerge: isomorphic vector subgraphs merged N at a time into one task,
// so that one core processes N tiles and loads tile i + 1 while it computes
// tile i (the n-buffer).
//
// Pre:  GraphPartition and L1CopyInReuseMerge have run (copy lists are not
//       needed: GenerateMoveOp runs after the merges).
// Post: per scope, the AIV subgraphs of one program that are not pinned
//       (sg_set_scope, user overrides) are taken in id order and cut into
//       runs of N; each run of two or more that passes SubgraphMerge.h's
//       checks (order: no dependence through a subgraph between its members;
//       capacity: AllocateBuffers can place it) is one subgraph whose
//       members run one after the other. Ids stay in first-tile-op order
//       (a topological order); programs are renumbered (SubgraphMerge.h).
//
// Options (compilation.settings.passOptions, PyPTO's names and forms; where
// the project file does not set one, a pypto.set_pass_options call inside
// the kernel does, for the groups whose first op follows it):
//   vec_nbuffer_setting  N per isomorphic group (MergeCountSetting: a count,
//                        or {"DEFAULT": N, "func<magic>_<program>": N,
//                        "<semantic label>": N}; {} = automatic: subgraphs of
//                        the group / AIV cores). Absent: no merge.
// Clamping: a count larger than what fits in the machine's buffers is cut
// to what fits, with a warning naming the group, the count asked for and
// the count used (PyPTO users set one DEFAULT for a whole kernel and expect
// the compiler to do what it can). A count larger than the group merges the
// whole group, silently.
// Errors: a malformed option or a label no op carries (at the project file).
// Cost: linear in tile ops (one buffer plan per run, a few more where the
//       capacity cuts runs), plus the order checks against subgraphs
//       between members (none when members are adjacent, as tiles of one
//       tensor op are).
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/settings/Options.h"

namespace pto {

bool nBufferMerge(Compilation& compilation, DiagnosticEngine& diags);

// The option above, declared; and read as the pass reads it (`graph` names
// the labels the setting may key by).
const std::vector<OptionInfo>& nBufferMergeOptions();
bool checkNBufferMergeOptions(const CompileSettings& settings, const TensorGraph& graph, DiagnosticEngine& diags);

} // namespace pto
