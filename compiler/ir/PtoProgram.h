// The PTO program: the instruction list one core runs for a subgraph.
//
// Meaning. A program is what a core executes for one task of a subgraph.
// Isomorphic subgraphs (same `programId`) share one program, lowered from
// the first subgraph of their class; it therefore names global memory only
// through the subgraph's copy lists: a GM operand carries an index into
// `copyIns` (the source of a TLOAD) or `copyOuts` (the destination of a
// TSTORE or TSTORE_ACC), which each task evaluates to its own region
// (Task::reads[i] / Task::writes[j]). The source of an MGATHER is the
// region it picks rows from, `gatherSources[j]`, numbered after the copy-ins
// (gmRegion = copyIns.size() + j): MGATHER dst, srcs = {GM rows, index tile}
// copies row index[i] of the GM region into row i of dst, one row transfer
// per index (bytes: the rows moved, not the region's size). Mirroring it,
// the destination of an MSCATTER is the region it writes rows into,
// `scatterTargets[j]`, numbered after the copy-outs (gmRegion =
// copyOuts.size() + j): MSCATTER dst = {GM rows}, srcs = {index tile, rows
// tile} (each in the UB pieces that hold it, in that order) copies row i of
// the rows tile over row index[i] of the GM region; the other rows of the
// region keep their bytes (bytes: the rows moved).
//
// Units. On-chip operands are byte ranges [offsetBytes, offsetBytes + bytes)
// of one memory of the core (the buffers AllocateBuffers placed; a sub-tile
// of a buffer is the span from its first to its last element in the
// buffer's row-major layout with the innermost dim padded to 32 bytes).
// Shapes are in elements, outermost first. `bytes` of an instruction is the
// data a transfer writes to its destination; `elements` is the work: values
// moved or computed (the larger operand for vector instructions), and
// multiply-accumulates m·k·n for TMATMUL/TMATMUL_ACC.
//
// Pipes and order. Every instruction sits on one pipe. Instructions are
// listed in issue order; each pipe runs its own instructions in that order,
// one after the other (an instruction starts when the previous one of its
// pipe has finished), and pipes run concurrently. Nothing else orders
// instructions of different pipes: once InsertSync has run, every data
// dependence between pipes is covered by a flag pair or a barrier.
//   SET_FLAG(src, dst, e)  queued on `src`: when every earlier instruction of
//                          `src` has finished, raises flag e of the pair.
//   WAIT_FLAG(src, dst, e) queued on `dst`: blocks `dst` until flag e of the
//                          pair has been raised and consumes one raise. A flag
//                          counts raises (a semaphore per pipe pair and event).
//   BARRIER                every later instruction of every pipe starts after
//                          every earlier instruction of every pipe finished.
// Dependences are read/write overlaps: RAW, WAR and WAW on on-chip byte
// ranges, and on GM operands whose regions may overlap (same `gmAlias`). An
// accumulating instruction also reads its destination.
#pragma once

#include "core/XMacroEnum.h"

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/MemoryKind.h"
#include "compiler/ir/TileGraph.h"
#include "core/DataType.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pto {

// X(Enumerator, "what it does"). The name is the enumerator's spelling.
#define PTO_FOR_EACH_PIPE(X)                        \
  X(MTE2, "copy-in: GM -> L1, GM -> UB")            \
  X(MTE1, "L1 -> L0A, L1 -> L0B")                   \
  X(CUBE, "matrix multiply into L0C")               \
  X(FIXPIPE, "L0C -> GM with optional conversion")  \
  X(VECTOR, "vector compute on the unified buffer") \
  X(MTE3, "copy-out: UB -> GM; UB -> L1")           \
  X(SCALAR, "scalar unit: control, barriers")

PTO_DECLARE_XMACRO_ENUM(Pipe, unsigned char, PTO_FOR_EACH_PIPE);

// X(Enumerator, pipe, "what it does"). The name is the enumerator's spelling
// (PTO's). SET_FLAG and WAIT_FLAG are listed on SCALAR but each one sits on
// the pipe it synchronises (its source, resp. destination pipe).
#define PTO_FOR_EACH_PTO_OPCODE(X)                                                  \
  /* transfers */                                                                   \
  X(TLOAD, MTE2, "GM -> UB, GM -> L1; GM -> L0C resumes a split-k accumulation")    \
  X(MGATHER, MTE2, "GM rows picked by an on-chip index tile -> UB or L1")            \
  X(TSTORE, MTE3, "UB -> GM")                                                       \
  X(MSCATTER, MTE3, "UB rows -> GM rows named by an on-chip index tile")            \
  X(TMOV, MTE1, "L1 -> L0A or L1 -> L0B; UB -> L1 on MTE3 (machines with that path)") \
  X(TSTORE_ACC, FIXPIPE, "L0C -> GM, converting")                                   \
  X(TMOV_ACC, FIXPIPE, "L0C -> UB, converting (machines with that path)")           \
  /* cube */                                                                        \
  X(TMATMUL, CUBE, "L0C = L0A x L0B (first k-step)")                                \
  X(TMATMUL_ACC, CUBE, "L0C += L0A x L0B")                                          \
  /* vector, elementwise binary (broadcasting) */                                   \
  X(TADD, VECTOR, "add")                                                            \
  X(TSUB, VECTOR, "subtract")                                                       \
  X(TMUL, VECTOR, "multiply")                                                       \
  X(TDIV, VECTOR, "divide")                                                         \
  X(TMAX, VECTOR, "maximum")                                                        \
  X(TMIN, VECTOR, "minimum")                                                        \
  /* vector, tensor-scalar */                                                       \
  X(TADDS, VECTOR, "add a scalar")                                                  \
  X(TSUBS, VECTOR, "subtract a scalar")                                             \
  X(TMULS, VECTOR, "multiply by a scalar")                                          \
  X(TDIVS, VECTOR, "divide by a scalar")                                            \
  X(TMAXS, VECTOR, "maximum with a scalar")                                         \
  X(TMINS, VECTOR, "minimum with a scalar")                                         \
  /* vector, unary */                                                               \
  X(TEXP, VECTOR, "exp")                                                            \
  X(TLOG, VECTOR, "natural log")                                                    \
  X(TSQRT, VECTOR, "square root")                                                   \
  X(TRSQRT, VECTOR, "reciprocal square root")                                       \
  X(TRECIP, VECTOR, "reciprocal")                                                   \
  X(TABS, VECTOR, "absolute value")                                                 \
  X(TNEG, VECTOR, "negate")                                                         \
  X(TRELU, VECTOR, "relu")                                                          \
  X(TSIGMOID, VECTOR, "sigmoid")                                                    \
  X(TTANH, VECTOR, "tanh")                                                          \
  /* vector, bitwise (integers) */                                                  \
  X(TAND, VECTOR, "bitwise and")                                                    \
  X(TANDS, VECTOR, "bitwise and with a scalar")                                     \
  X(TOR, VECTOR, "bitwise or")                                                      \
  X(TORS, VECTOR, "bitwise or with a scalar")                                       \
  X(TXOR, VECTOR, "bitwise exclusive or")                                           \
  X(TXORS, VECTOR, "bitwise exclusive or with a scalar")                            \
  X(TNOT, VECTOR, "bitwise not")                                                    \
  X(TSHL, VECTOR, "shift left")                                                     \
  X(TSHLS, VECTOR, "shift left by a scalar (or a scalar by the tile)")              \
  X(TSHR, VECTOR, "shift right")                                                    \
  X(TSHRS, VECTOR, "shift right by a scalar (or a scalar by the tile)")             \
  X(TTRI, VECTOR, "keep a triangle (tril, triu), zero the rest")                    \
  X(TEXPAND, VECTOR, "broadcast a tile along its dims of 1 (expand_clone)")         \
  /* vector, reductions: ROW along the innermost axis, COL along the others */      \
  X(TROWSUM, VECTOR, "sum along the innermost axis")                                \
  X(TROWMAX, VECTOR, "max along the innermost axis")                                \
  X(TROWMIN, VECTOR, "min along the innermost axis")                                \
  X(TCOLSUM, VECTOR, "sum along outer axes")                                        \
  X(TCOLMAX, VECTOR, "max along outer axes")                                        \
  X(TCOLMIN, VECTOR, "min along outer axes")                                        \
  /* vector, compare / select / convert / move */                                   \
  X(TCMP, VECTOR, "compare two tiles (the op kind says how)")                       \
  X(TCMPS, VECTOR, "compare with a scalar")                                         \
  X(TSEL, VECTOR, "select by a mask")                                               \
  X(TCVT, VECTOR, "dtype conversion")                                               \
  X(TCOPY, VECTOR, "UB -> UB copy (also reshape)")                                  \
  X(TEXPANDS, VECTOR, "fill with a scalar")                                         \
  X(TTRANS, VECTOR, "transpose / permute")                                          \
  X(TGATHER, VECTOR, "gather by indices")                                           \
  X(TSCATTER, VECTOR, "scatter by indices")                                         \
  X(TVEC, VECTOR, "a vector op without its own instruction (the op kind names it)") \
  /* synchronisation */                                                             \
  X(SET_FLAG, SCALAR, "raise a flag from the source pipe to the destination pipe")  \
  X(WAIT_FLAG, SCALAR, "wait on the destination pipe for a flag")                   \
  X(BARRIER, SCALAR, "all pipes drain")

PTO_DECLARE_XMACRO_ENUM(PtoOpcode, unsigned char, PTO_FOR_EACH_PTO_OPCODE);

// "MTE2", "VECTOR", ...
std::string_view name(Pipe pipe);
std::string_view summary(Pipe pipe);
std::optional<Pipe> parsePipe(std::string_view text);
// "TLOAD", "TMATMUL_ACC", ...
std::string_view name(PtoOpcode opcode);
std::string_view summary(PtoOpcode opcode);
std::optional<PtoOpcode> parsePtoOpcode(std::string_view text);
// The pipe the opcode runs on (SCALAR for the flags: see above).
Pipe pipeOf(PtoOpcode opcode);
bool isSync(PtoOpcode opcode);      // SET_FLAG, WAIT_FLAG, BARRIER
bool isTransfer(PtoOpcode opcode);  // TLOAD, MGATHER, TSTORE, MSCATTER, TMOV, TSTORE_ACC, TMOV_ACC

struct PtoOperand {
  MemoryKind memory = MemoryKind::UB;
  // On chip: the byte range touched. GM: offset 0, bytes = the data's size.
  std::int64_t offsetBytes = 0;
  std::int64_t bytes = 0;
  std::vector<std::int64_t> shape;  // elements
  DataType dtype = DataType::Fp32;
  // GM only: index into the subgraph's copyIns (TLOAD) or copyOuts (stores),
  // and the alias class: GM operands of one program may overlap iff equal.
  int gmRegion = -1;
  int gmAlias = -1;
  // GM only: the bytes of each contiguous run the region is made of (its
  // rows, or several rows when the tile spans its tensor's inner dims whole;
  // 0: not known). The timing model charges loads per run (PathRate::runNs).
  std::int64_t gmRunBytes = 0;
  // GM only: the tensor lies in NZ (fractal) format (TensorValue::nzLayout);
  // its runs are fractal columns, which a load into L1 copies as they lie.
  bool gmNz = false;
};

struct PtoInstruction {
  PtoOpcode opcode = PtoOpcode::TVEC;
  Pipe pipe = Pipe::VECTOR;
  std::vector<PtoOperand> dst;   // none (sync), one, or one per result (topk)
  std::vector<PtoOperand> srcs;  // a source spread over several buffers lists each piece
  // The tile op implemented (kNoId for sync), and its tensor op's kind
  // (which comparison a TCMP makes, which op a TVEC runs).
  TileOpId tileOp = kNoId;
  TensorOpKind opKind = TensorOpKind::Copy;
  std::int64_t bytes = 0;     // transfers: bytes written to the destination
  std::int64_t elements = 0;  // see the top of this file
  // Not None: dst = combine(dst, result) (partial reductions, k-steps).
  TileAccumulate accumulate = TileAccumulate::None;
  // SET_FLAG / WAIT_FLAG.
  Pipe srcPipe = Pipe::SCALAR;
  Pipe dstPipe = Pipe::SCALAR;
  int eventId = -1;
};

struct PtoProgram {
  int programId = -1;
  CoreType coreType = CoreType::AIV;
  SubgraphId subgraph = kNoId;               // the first subgraph of the isomorphism class
  std::vector<PtoInstruction> instructions;  // issue order
  std::array<int, kPipeCount> pipeCounts{};  // instructions per pipe (recountPipes)

  void recountPipes();
  int count(Pipe pipe) const { return pipeCounts[static_cast<std::size_t>(pipe)]; }
};

// Whether `a` and `b` touch common data and at least one writes it (the
// order of a dependent pair must be kept). Sync instructions touch nothing.
bool instructionsConflict(const PtoInstruction& a, const PtoInstruction& b);

// The dependence DAG of an instruction list: for each instruction, earlier
// ones it must follow, ascending, such that every earlier instruction it
// conflicts with reaches it through these edges (the last writer of what it
// touches, and for a write the readers since). Conflicts are taken per
// 32-byte block, so instructions sharing a block but no byte may be ordered
// too. Sync instructions have none. Cost: linear in the blocks touched.
std::vector<std::vector<int>> dependencePredecessors(const std::vector<PtoInstruction>& instructions);

} // namespace pto
