// OoOSchedule: orders each PTO program's instructions so that pipes overlap.
//
// Pre:  LowerToPto has run; the programs hold no sync instructions yet.
// Post: every program's instructions are a permutation of what they were
//       that keeps every dependence (instructionsConflict: RAW, WAR, WAW on
//       buffer byte ranges and aliasing GM regions) in order. Mode 1 lists
//       them by a list scheduler over the dependence DAG: each pipe runs in
//       order, every instruction gets an estimated duration (a rough
//       per-pipe model, not the simulator's), and the next instruction
//       issued is the ready one that could start earliest (program order
//       breaks ties). So the copy-in of the next tile is issued while the
//       current one computes as soon as its buffer is free: buffers that
//       AllocateBuffers placed apart give double buffering, a reused buffer
//       waits for its last reader. Estimated start times never decrease
//       along the list.
//
// Options (compilation.settings.passOptions):
//   ooo_sched_mode  0 = keep program order, 1 = list scheduling (default).
// Errors: a malformed option (at the project file).
// Cost: the dependence DAG (dependencePredecessors) plus O(n log n) for
//       the selection, n instructions per program.
#pragma once

#include "compiler/ir/Compilation.h"
#include "compiler/settings/Options.h"

namespace pto {

bool oooSchedule(Compilation& compilation, DiagnosticEngine& diags);

// ooo_sched_mode, declared; and read as oooSchedule reads it, reporting the
// same error (it does not read `graph`: every pass's check takes one).
const std::vector<OptionInfo>& oooScheduleOptions();
bool checkOoOScheduleOptions(const CompileSettings& settings, const TensorGraph& graph, DiagnosticEngine& diags);

// The scheduling of one program (mode 0 leaves it as it is); for tests.
void scheduleProgram(PtoProgram& program, int mode = 1);

// The estimated duration of an instruction in cycles, the scheduler's model.
std::int64_t estimatedCycles(const PtoInstruction& instruction);

} // namespace pto
