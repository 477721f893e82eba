// A PTO program prepared for the timing model: each pipe's instructions as a
// list of steps with their costs on one machine, so that simulating a task
// does no cost arithmetic and no lookups.
//
// Costs (cycles of the core clock, fractional):
// - compute: TMATMUL/TMATMUL_ACC cost cubeMatmulCycles(M, K, N, input dtype)
//   (M, N from the destination, K = elements / (M*N)); vector instructions
//   vectorCycles(class, bytes) with the class from vectorOpClassOf and bytes
//   the largest operand.
// - on-chip transfers (L1->L0A/L0B, L0C->UB, ...) transferCycles(path, bytes).
// - transfers to or from GM are not priced here: the chip shares one memory
//   bandwidth among them (NpuExecutor). A GM step carries its path's rate and
//   start-up latency (K / peak: transferCycles = latency + bytes / rate when
//   the transfer runs alone), whether it reads or writes, and which of the
//   task's regions it touches. TLOAD GM->L0C is priced like GM->L1. An
//   MGATHER is priced as one transfer of the rows it picks, as PyPTO's cost
//   model prices GATHER_IN_UB / GATHER_IN_L1 (a copy-in of those bytes); its
//   rows always come from HBM (NpuExecutor leaves gathered regions out of
//   the L2 model). What row-by-row DMA costs beyond that on the chip has no
//   public figure, so nothing is added for it. An MSCATTER is priced the
//   same way on the UB -> GM path: one transfer of the rows it writes.
// - SET_FLAG, WAIT_FLAG and BARRIER take no time.
//
// Flags are renumbered per program: every (source pipe, destination pipe,
// event) the program uses gets one slot 0..flagSlots-1.
#pragma once

#include "compiler/ir/PtoProgram.h"
#include "core/Diagnostics.h"
#include "npusim/MachineDescription.h"

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace pto {

enum class StepKind : unsigned char {
  Compute,     // busy for `cycles`
  GmTransfer,  // `latencyCycles`, then `bytes` at up to `pathBytesPerCycle`, sharing the chip's bandwidth
  SetFlag,     // raise flag `slot`
  WaitFlag,    // wait for and consume one raise of flag `slot`
  Barrier,     // wait until every pipe has reached this barrier
};

struct TimedStep {
  StepKind kind = StepKind::Compute;
  int instruction = -1;  // index in the program's issue order
  double cycles = 0.0;   // Compute
  // GmTransfer.
  double latencyCycles = 0.0;
  double pathBytesPerCycle = 0.0;
  std::int64_t bytes = 0;
  bool readsGm = false;  // TLOAD; false: a store
  int gmRegion = -1;     // index into Task::reads (readsGm) or Task::writes
  // SetFlag / WaitFlag.
  int slot = -1;
};

struct TimedProgram {
  int programId = -1;
  CoreType coreType = CoreType::AIV;
  // Per pipe, in issue order. Every pipe lists every BARRIER of the program.
  std::array<std::vector<TimedStep>, kPipeCount> steps;
  // The pipes with steps, ascending: the timing model's issue loop visits
  // only these (a vector task's program uses three or four of the seven, and
  // a BARRIER gives every pipe a step, so the others never hold one back).
  std::array<std::uint8_t, kPipeCount> stepPipes{};
  int stepPipeCount = 0;
  int flagSlots = 0;
  int instructionCount = 0;      // excluding sync instructions
  int readRegionCount = 0;       // 1 + the highest TLOAD gmRegion (tasks must have that many reads)
  int writeRegionCount = 0;      // likewise for stores and writes
};

// The cost class of a vector instruction (TVEC: composite).
VectorOpClass vectorOpClassOf(PtoOpcode opcode);
// The data path a transfer instruction uses, from its operands' memories
// (GM->L0C is taken as GM->L1); nullopt when the list has no such path.
std::optional<DataPath> transferPathOf(const PtoInstruction& instruction);
// The largest operand's bytes: what a vector instruction streams through
// the vector unit.
std::int64_t largestOperandBytes(const PtoInstruction& instruction);
// `path`'s peak in bytes per cycle of `machine`'s clock; 0 when the chip
// lacks the path (or has no clock).
double peakBytesPerCycle(const MachineDescription& machine, DataPath path);

// Prepares `program` for `machine`. Errors, each naming the program and the
// instruction: a transfer over a path the machine lacks, a matmul in a dtype
// its cube does not take, a GM operand without a region index, a flag wait
// no SET_FLAG can satisfy or any other order in which the pipes can never
// all finish (checked by running the program once without time).
std::optional<TimedProgram> timeProgram(const PtoProgram& program, const MachineDescription& machine,
                                        DiagnosticEngine& diags);

} // namespace pto
