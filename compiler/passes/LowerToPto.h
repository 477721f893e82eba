// LowerToPto: each isomorphism class of subgraphs becomes one PTO program.
//
// Pre:  AllocateBuffers has run: every subgraph has its copyIns/copyOuts
//       (GenerateMoveOp) and its buffers; programIds are 0..programCount-1.
// Post: `compilation.programs[id]` is the program of programId `id`, lowered
//       from the first subgraph with that id, its instructions in the
//       subgraph's op order (OoOSchedule reorders them, InsertSync adds the
//       flags; PtoProgram.h says what they mean):
//       - vector (AIV) subgraphs: before a tile op, a TLOAD GM->UB for every
//         copy-in whose buffer that op uses first; one compute instruction per
//         tile op, its opcode from the tensor op kind (reductions: TROW* when
//         the innermost axis is reduced, TCOL* when only outer axes are; TVEC
//         for kinds without an instruction of their own; views: none); a
//         partial reduction combines into its accumulator buffer (accumulate
//         set); after the last tile op writing a copy-out, a TSTORE UB->GM.
//         An index_select tile that reads its source in place (readsInPlace)
//         is an MGATHER: the GM rows its index tile names, into its result
//         buffer, on MTE2. In cube subgraphs (gather_in_l1) the MGATHER
//         fills the L1 buffer a matmul then moves to L0A/L0B, its index
//         read from GM.
//         A scatter_update tile that writes its target in place
//         (writesInPlace) is an MSCATTER on MTE3: the rows of its rows
//         buffer over the GM rows its index buffer names (dst: the scatter
//         target, numbered after the copy-outs); nothing else of the target
//         moves.
//       - cube (AIC) subgraphs: a TLOAD GM->L1 of each A/B tile and a TMOV
//         L1->L0A / L1->L0B at the first use of each buffer, then TMATMUL for
//         a chain's first k-step and TMATMUL_ACC for the others, into L0C;
//         every copy-out leaves L0C by a TSTORE_ACC after its last write,
//         converting on the way when the stored region is the output of the
//         Cast that follows the k-steps. A chain that continues an
//         accumulation held in GM (k-steps split across subgraphs) first
//         loads it: a TLOAD GM->L0C (no such copy engine on A2/A3; the
//         simulator prices it as GM->L1), then TMATMUL_ACC throughout.
//       - vector ops in cube subgraphs (machines with an L0C->UB path, see
//         GraphPartition's machine_has_l0c_to_ub): a matmul result (or its
//         Cast) they read leaves L0C by TMOV_ACC into UB; their copy-ins are
//         loaded into UB (a second TLOAD when the matmul reads the same
//         region from L1), their results stored from UB, each in the UB
//         buffer AllocateBuffers planned for it (the TMOV_ACC of a Cast's
//         result at the Cast, of an unconverted result at its first reader).
//       Data is matched on storage tensors (views resolved, as in the copy
//       lists); view tile ops lower to nothing. GM operands name copy-list
//       entries (PtoOperand::gmRegion); those whose regions may overlap in
//       one task share a gmAlias.
// Errors: a block graph breaking the preconditions (a copy-in, operand or
//       result without a buffer, a copy-out nothing writes) is an internal
//       error at the kernel line of the subgraph's (or tile op's) op.
// Options: none. Cost: about (ops + copies) x (buffers of one tensor) per
//       lowered subgraph; exact matches are hashed.
#pragma once

#include "compiler/ir/Compilation.h"

namespace pto {

bool lowerToPto(Compilation& compilation, DiagnosticEngine& diags);

} // namespace pto
