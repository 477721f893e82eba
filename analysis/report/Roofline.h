// Roofline: each subgraph's arithmetic against the machine's ceilings, one
// point per subgraph, for `pto report` and the Health tab's plot.
//
// A point is one subgraph as one core runs it: x is its arithmetic
// intensity (operations per byte it loads from global memory), y its
// achieved rate (operations per cycle of task time, averaged over its
// tasks). Both come from the program the core runs (its instructions, as the
// simulator charges them), not from the tensor-level op, so merged or split
// tiles count as they execute:
//   - TMATMUL / TMATMUL_ACC: 2 operations per multiply-accumulate (m·k·n);
//   - every vector compute instruction: one operation per element of its
//     larger operand (a reduction counts its input); moves inside the core
//     (TCOPY, TTRANS, TEXPANDS, TGATHER, TSCATTER) count none;
//   - GM bytes: what its TLOAD/MGATHER read and TSTORE/TSTORE_ACC/MSCATTER
//     write (a gather counts the rows it picks, not the region).
// Counts are the program's static ones: a task whose data is valid only in
// part (a run-time valid shape) does less than its program says.
// Intensity counts the bytes loaded, not those stored: loads and stores run
// on different copy engines at once, so only the loads share the copy-in
// ceiling the plot draws.
//
// Ceilings come from the machine description. Compute, per core type and
// dtype in use: the cube's 2 x macs_per_cycle, and the vector unit's
// bytes_per_cycle / element size for an add-class instruction (a cast is
// faster, exp or div slower). Memory, as bytes per cycle times the
// intensity: one core's copy-in path at its peak (GM -> L1 for a cube core,
// GM -> UB for a vector core), and the chip's sustained GM bandwidth shared
// by every core of the type, what each gets when they all stream at once.
//
// A point's roof is the rate no schedule can beat on one core: each unit
// runs its instructions one at a time, so a task takes at least the cycles
// its arithmetic needs at peak (each instruction at its own class and dtype
// rate), its loads at their path's peak, and its stores likewise; the
// largest of the three names the limit.
#pragma once

#include "compiler/ir/Compilation.h"
#include "npusim/MachineDescription.h"
#include "runtime/Schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto {

struct RooflineCeiling {
  std::string name;      // "CUBE float16 peak", "GM -> L1 peak, one core", ...
  std::string coreType;  // "AIC" / "AIV"
  bool compute = true;   // a flat line (opsPerCycle) or a slope (bytesPerCycle x intensity)
  double opsPerCycle = 0.0;
  double bytesPerCycle = 0.0;
};

struct RooflinePoint {
  SubgraphId subgraph = kNoId;
  std::string label;
  std::string coreType;
  std::string source;  // "file:line" of its first tile op, empty when unknown
  int tasks = 0;
  TaskId longestTask = kNoId;  // the task a view selects for the point
  double ops = 0.0;            // per task
  double gmReadBytes = 0.0;    // per task
  double gmWriteBytes = 0.0;   // per task
  double intensity = 0.0;      // ops / gmReadBytes; 0 when not plottable
  double meanCycles = 0.0;     // task time, averaged over its tasks
  double achievedOpsPerCycle = 0.0;
  double computeRoofOpsPerCycle = 0.0;  // its arithmetic, each instruction at its unit's peak
  double roofOpsPerCycle = 0.0;         // the lowest of the compute, load and store roofs
  std::string limitedBy;                // "compute", "GM read" or "GM write"; empty when not plotted
  double roofShare = 0.0;               // achieved / roof, 0..1
  // On a log-log plot: it computes, loads from GM and ran.
  bool plottable() const { return ops > 0.0 && gmReadBytes > 0.0 && meanCycles > 0.0; }
};

struct Roofline {
  double clockGHz = 1.0;
  std::vector<RooflineCeiling> ceilings;  // compute (cube, then vector; fastest first), then memory
  std::vector<RooflinePoint> points;      // by subgraph id
};

Roofline roofline(const Compilation& compilation, const Schedule& schedule, const MachineDescription& machine);

} // namespace pto
