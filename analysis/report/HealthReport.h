// HealthReport: how healthy a simulated run is, at PyPTO's three levels (the
// tile graph, its subgraphs, the execute graph) and the runtime's, as plain
// numbers that name what they are about (tile ops, subgraphs, tasks, kernel
// lines), so that a view can link each figure to its place. `pto report`
// prints it and writes it as JSON; the IDE's Health tab shows the same
// struct. Computed from the compilation, the schedule and the machine; no
// simulation is rerun.
//
// Bound classes. A task is scheduling-bound when it is shorter than one
// round of the scheduler over its core type (cores x the scheduler cycles a
// task costs (dispatch, completion, resolve) / scheduler threads): the
// scheduler cannot refill the cores as fast as such tasks finish. Otherwise
// it is bound by its busiest pipe (MTE2, CUBE, VECTOR, FIXPIPE, MTE3, MTE1,
// SCALAR), the pipe whose busy cycles bound the task from below. A subgraph
// takes the class of most of its task time. The run's class is the class
// holding most of the critical path (CriticalPathHealth): its running by the
// tasks' classes, its waits for a busy core as "occupancy" (the tasks
// outnumber the cores: waves), its other waits as "scheduling".
#pragma once

#include "analysis/report/Roofline.h"
#include "compiler/ir/Compilation.h"
#include "npusim/MachineDescription.h"
#include "runtime/Schedule.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace pto {

// The tile graph's shape (tile data edges: producer -> consumer).
struct TileGraphHealth {
  std::int64_t tileOps = 0;
  std::int64_t edges = 0;
  int depth = 0;  // tile ops on the longest producer -> consumer chain
  int width = 0;  // most tile ops at one depth (as early as their producers allow)
  int maxFanIn = 0, maxFanOut = 0;
  double meanFanIn = 0.0, meanFanOut = 0.0;  // over tile ops with at least one edge that way
  TileOpId maxFanInOp = kNoId, maxFanOutOp = kNoId;
};

// One pipe's busy cycles over a set of tasks.
struct PipeBusy {
  std::string pipe;         // "MTE2", "CUBE", ...
  std::int64_t cycles = 0;  // summed over the tasks
  double share = 0.0;       // of the tasks' summed durations, 0..1
};

// A bound class with the reason for it, in words with numbers.
struct Bound {
  // A task's: "MTE2", "CUBE", "VECTOR", "FIXPIPE", "MTE3", "MTE1", "SCALAR" or
  // "scheduling"; the run's may also be "occupancy" (see CriticalPathHealth).
  std::string kind;
  std::string evidence;
};

struct SubgraphHealth {
  SubgraphId id = kNoId;
  std::string label;
  std::string coreType;  // "AIC" / "AIV"
  int programId = -1;
  std::string source;    // "file:line" of its first tile op's kernel line; empty when unknown
  int tasks = 0;
  std::int64_t minCycles = 0, maxCycles = 0;  // task durations
  double meanCycles = 0.0;
  // The mean over its tasks of the busiest pipe's cycles: what the task
  // would take with its pipes perfectly overlapped (the instructions' bound).
  double meanBoundCycles = 0.0;
  std::vector<PipeBusy> pipes;  // busiest first
  Bound bound;
  // Per on-chip memory the highest offset in use, and the core's capacity.
  std::map<std::string, std::array<std::int64_t, 2>> buffers;  // "ub" -> {peak, capacity}
  std::string overlap;  // "ping-pong", "members-apart" or "single"
};

struct ExecuteGraphHealth {
  std::int64_t tasks = 0;
  std::int64_t subgraphs = 0;
  std::int64_t programs = 0;
  std::int64_t dependencies = 0;
  // Subgraphs that share their program with another subgraph, 0..1: PyPTO's
  // isomorphic-subgraph rate (one compiled program serves them all).
  double isomorphicRate = 0.0;
  std::int64_t minTaskCycles = 0, maxTaskCycles = 0;
  double meanTaskCycles = 0.0;
  // Global-memory workspace: the temporaries the tasks pass through GM, most
  // bytes live at once (a temporary from its first task's start to its last
  // task's end; one per loop iteration when each has its own).
  std::int64_t gmWorkspacePeakBytes = 0;
};

// Tasks of one label on one core type, against the cores they had.
struct WaveHealth {
  std::string label;
  std::string coreType;
  int tasks = 0;
  int cores = 0;
  double waves = 0.0;     // tasks / cores
  int lastWaveTasks = 0;  // tasks in the last, partial wave (cores when it is full)
  std::int64_t busyCycles = 0;
  // The critical path's tasks of this label waited this long for a free core
  // (its "core" waits): how much its waves cost the makespan.
  std::int64_t pathCoreWaitCycles = 0;
};

struct CoreTypeHealth {
  std::string coreType;  // "AIC" / "AIV"
  int cores = 0;
  int tasks = 0;
  double utilization = 0.0;  // busy core-cycles / (cores x makespan)
  // Idle core-cycles split by whether tasks of this type were waiting in the
  // ready queue at the time (the scheduler was behind) or not (the cores
  // waited for data), as shares of cores x makespan.
  double idleWhileReady = 0.0;
  double idleWhileNoneReady = 0.0;
  // Ready -> start of its tasks (queueing plus the dispatch), in cycles.
  double meanDispatchLatency = 0.0;
  std::int64_t maxDispatchLatency = 0;
  // One round of the scheduler over these cores: cores x (dispatch +
  // completion + resolve cycles) / threads.
  std::int64_t schedulerRoundCycles = 0;
};

// One task of the critical path: what it waited for last before it could
// run, which the path follows back, and its share of the path's cycles.
struct CriticalPathStep {
  TaskId task = kNoId;
  // "data": its producer `after` made it ready; "barrier" or "device
  // task": the last task `after` before its device task let that be taken
  // (device tasks run one at a time; "barrier" when a loop barrier ended
  // the one before, "device task" when the stitch limit did); "core":
  // it was ready, but the core it got was held by `after` until then;
  // "submission": it was ready when its device task arrived (the path's
  // first task; `after` is kNoId).
  std::string waitedFor;
  TaskId after = kNoId;
  // Its running, but for the part a later path task spent waiting for the
  // core it held (that is the later task's "core" wait).
  std::int64_t runningCycles = 0;
  // Its wait by cause (the keys of CriticalPathHealth::waitCyclesByCause),
  // including the part of `after`'s running it spent waiting for a core.
  std::map<std::string, std::int64_t> waitCycles;
  std::string cause;  // the cause of most of its wait ("" when it waited not at all)
};

// The chain of tasks that sets the makespan, walked back from the last task
// to end through whatever its start waited for last (CriticalPathStep), so
// that every cycle from 0 to the makespan is counted once: as a path task
// running, or as a wait with its cause, exactly as the schedule's recorded
// cycles (ready, dispatch, start, end, core freed, resolved) place it:
//   "data"        a producer's end until its completion was resolved (the
//                 scheduler noticing it and decrementing the consumers);
//   "submission"  waiting for its device task to arrive (the host submits
//                 them one after another; a loop barrier holds them back);
//   "core"        ready, but no core of its type free for it: all busy, or
//                 the free ones due to older ready tasks; an infinitely fast
//                 scheduler would not have started it sooner (occupancy);
//   "scheduling"  ready with a core free for it (the dispatcher was busy or
//                 behind), a finished core's completion, a dispatch landing.
struct CriticalPathHealth {
  std::vector<TaskId> tasks;               // first to last
  std::vector<CriticalPathStep> steps;     // one per task, first to last
  std::int64_t lengthCycles = 0;           // the last task's end: the makespan
  std::int64_t busyCycles = 0;             // the path's running (steps' runningCycles)
  std::int64_t waitCycles = 0;             // everything else: busy + wait = length
  std::map<std::string, std::int64_t> runningCyclesByClass;  // by the running tasks' bound class
  std::map<std::string, std::int64_t> waitCyclesByCause;     // "data", "submission", "core", "scheduling"
  // The run's classes over the path: running by bound class, core waits as
  // "occupancy", the other waits as "scheduling" (summing to the length).
  std::map<std::string, std::int64_t> cyclesByClass;
};

// The critical path in four parts that sum to its length, as PyPTO's users
// ask for it: its tasks running, data waits ("data"), core waits ("core":
// the tasks outnumber the cores) and dispatch (every other wait: the
// scheduler's "scheduling" and the host's "submission").
struct CriticalPathSplit {
  std::int64_t runningCycles = 0;
  std::int64_t dataWaitCycles = 0;
  std::int64_t coreWaitCycles = 0;
  std::int64_t dispatchCycles = 0;
};
CriticalPathSplit criticalPathSplit(const CriticalPathHealth& path);

struct HealthReport {
  std::string machine;
  double clockGHz = 1.0;
  std::int64_t makespanCycles = 0;
  TileGraphHealth tileGraph;
  std::vector<SubgraphHealth> subgraphs;  // by id
  ExecuteGraphHealth executeGraph;
  std::vector<CoreTypeHealth> coreTypes;  // AIC, then AIV
  std::vector<WaveHealth> waves;          // by busy cycles, largest first
  CriticalPathHealth criticalPath;
  std::vector<Bound> taskBounds;          // by task id
  Bound bound;                            // the run's
  Roofline roofline;                      // one point per subgraph
};

// "file:line" of the kernel line a subgraph's first tile op comes from; empty when unknown.
std::string subgraphSource(const Compilation& compilation, const Subgraph& subgraph);

// Subgraphs alike (one label, program and kernel line: a loop's bodies) as
// one group, most task time first: how the report's text and the IDE list them.
struct SubgraphGroup {
  // The member the row shows (its mean, bound and buffers): the one with the
  // most tasks, the lowest id among equals. A loop's variants that no
  // iteration ran at this shape are members too, and would show no time.
  const SubgraphHealth* representative = nullptr;
  int subgraphs = 0;
  int tasks = 0;
  double taskCycles = 0.0;  // summed over the group's tasks
};
std::vector<SubgraphGroup> subgraphGroups(const HealthReport& report);

// The report of one simulated run of `compilation` on `machine` (the one it
// was simulated on; the schedule says how many scheduler threads it had).
HealthReport healthReport(const Compilation& compilation, const Schedule& schedule, const MachineDescription& machine);

// The report as `pto report --json` writes it (docs/cli.md); task bounds are
// listed only with `withTaskBounds` (one entry per task).
nlohmann::ordered_json healthReportJson(const HealthReport& report, bool withTaskBounds = false);

} // namespace pto
