// TaskInside: one task of a run seen from inside its core: each pipe's
// instructions on a cycle timeline with the waits between them, and why the
// task takes as long as it does. For `pto report --task N` (and the
// instruction times a memory map could put on a cycle axis).
//
// Source. The run is simulated again with a StepRecorder on the task
// (npusim/StepRecorder.h): the simulator is deterministic, so the task runs
// exactly as in the run (same core, same start, the same other tasks sharing
// the GM bandwidth); insideTask checks that its start and end match.
//
// Slices (per pipe, in time order; cycles absolute, fractional):
//   instruction  a busy step: compute, an on-chip move, a GM transfer. A GM
//                transfer also gives its start-up (latency before its bytes
//                move) and its bandwidth wait: its data phase beyond what it
//                takes alone at its path's peak (other cores' transfers
//                shared the chip's bandwidth with it).
//   wait         the pipe stood at a WAIT_FLAG until another pipe raised the
//                flag (reason "flag <src>-><dst>", waitsForPipe = src), or at
//                a BARRIER until every pipe reached it (reason "barrier").
// Instruction slices, rounded outwards to whole cycles and merged when they
// touch, are the task's pipe intervals in the schedule.
//
// Why it is long. The chain of slices that set the task's end, walked back
// from the last instruction to end: an instruction's start is the end of the
// pipe's previous step, a flag wait's end is the raise on the pipe that set
// it (the chain moves there), a barrier's end is the last pipe to arrive.
// Cycles on the chain per pipe say which pipe bounds the task (chainPipe):
// shortening anything off the chain does not shorten the task.
#pragma once

#include "analysis/simulation/Simulation.h"
#include "compiler/ir/Compilation.h"
#include "npusim/StepRecorder.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct InsideSlice {
  bool wait = false;
  int instruction = -1;   // in the program's issue order
  std::string mnemonic;   // "TLOAD", "TADD", "WAIT_FLAG", "BARRIER"
  std::string source;     // "kernel.py:15"; empty for sync and unknown lines
  double startCycle = 0.0;
  double endCycle = 0.0;
  // Instructions moving GM data.
  std::int64_t bytes = 0;
  double startupCycles = 0.0;
  double bandwidthWaitCycles = 0.0;
  // Waits.
  std::string reason;        // "flag MTE2->VECTOR", "barrier"
  std::string waitsForPipe;  // the pipe that raises the flag; empty for a barrier
  int event = -1;
  bool onChain = false;  // on the chain that set the task's end

  double cycles() const { return endCycle - startCycle; }
};

struct InsidePipe {
  std::string pipe;  // "MTE2", "VECTOR", ...
  std::vector<InsideSlice> slices;  // time order
  int instructions = 0;
  double busyCycles = 0.0;  // instruction slices
  double waitCycles = 0.0;  // wait slices
  double busyShare = 0.0;   // busy / task duration
  double chainCycles = 0.0; // instruction cycles on the chain
};

struct TaskInside {
  TaskId task = kNoId;
  std::string core;  // "AIV 3"
  SubgraphId subgraph = kNoId;
  std::string label;
  int programId = -1;
  double clockGHz = 1.0;
  std::int64_t startCycle = 0;
  std::int64_t endCycle = 0;
  std::vector<InsidePipe> pipes;  // the program's pipes, in Pipe order
  // Waits over all pipes by reason ("flag MTE2->VECTOR", "barrier", "GM
  // bandwidth", "GM start-up").
  std::map<std::string, double> waitCyclesByReason;
  std::string busiestPipe;  // the most busy cycles
  std::string chainPipe;    // the most cycles on the chain
  double chainIdleCycles = 0.0;  // chain time no instruction covers (waits at its start)
  std::string why;          // one sentence with numbers

  double durationCycles() const { return static_cast<double>(endCycle - startCycle); }
};

// Builds the view from `steps`, recorded for `task` of `schedule`.
TaskInside taskInside(const Compilation& compilation, const Schedule& schedule, const TaskSteps& steps,
                      double clockGHz);

// Simulates `compilation` again as `simulation` ran it (timing mode, the
// same machine and runtime options) recording `task`, and builds the view.
// nullopt with a diagnostic for a task the run does not have, or (an
// internal error) when the task ran differently.
std::optional<TaskInside> insideTask(const Compilation& compilation, const Simulation& simulation,
                                     const MachineDescription& machine, const TimingRunOptions& runtime, TaskId task,
                                     DiagnosticEngine& diags);

nlohmann::ordered_json taskInsideJson(const TaskInside& inside);

} // namespace pto
