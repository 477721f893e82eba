// The MPMD runtime as an event-driven simulation in cycles: dependency
// counters, per-core-type ready queues, AICPU scheduler threads that dispatch
// ready tasks and handle completions at modelled costs, scheduling policies and
// the stitching of loop iterations into device tasks. How long a task runs is
// the Executor's business; this file only decides when and where it starts.
//
// The model:
// - Every task has a counter of unfinished producers (its predecessors).
// - Submission. Tasks come in *root functions* (Task::rootCall: one call of a
//   loop body, or of an unroll_list group, by PyPTO's control flow) and up to
//   `stitchFunctionMaxNum` consecutive calls form one device task. The
//   control flow builds device tasks one after another, device task k ready
//   at (k+1)*deviceTaskSubmitCycles + k*stitchCycles, but the scheduler
//   threads run one device task at a time: they sync on its last task and
//   only then take the next (PyPTO's device scheduler: a device task's stages
//   end in WAIT_TAIL_TASK_FINISH, aicore_manager.h; its cost model likewise
//   takes the next device task once the current one's tasks are all done,
//   DeviceMachine::SubmitDeviceTask). So device task k+1 arrives one submit
//   after device task k's last task has resolved, or when it is built, if
//   later. A task is ready once its counter is zero and its device task has
//   arrived.
// - Loop barriers (ExecuteGraph::barriers, PyPTO's submit_before_loop): a
//   barrier ends the device task before it, so that what follows it starts
//   only once everything before it has finished.
// - Ready tasks wait in the FIFO of their core type, ordered by (ready cycle,
//   task id); the AIC and AIV queues are independent.
// - `aicpuCount` scheduler threads are serial resources. A free thread takes,
//   in this order of preference:
//     1. a finished task's completion (the earliest end, then smallest id):
//        completionCycles later the core is idle again, resolveCycles after
//        that the consumers' counters are decremented (ready ones join their
//        queue) and the thread is free;
//     2. a dispatch: the oldest ready task of either type with an idle core it
//        may use: the core is reserved at once, the task starts
//        dispatchCycles later. With `coreTaskSlots` 2 (PyPTO's device
//        scheduler: each core has a running and a pending task,
//        runningIds_/pendingIds_ in its aicore_manager.h), a task that finds
//        no idle core may go to a busy core whose pending slot is free: it
//        starts the moment the running task ends (or when its dispatch lands,
//        if later), without waiting for that task's completion. Not in a
//        device task's tail batch (its unresolved tasks no more than the
//        type's cores: PyPTO's CheckIsTailBatch), where only idle cores are
//        used. The slot is free again once the earlier task's completion has
//        been handled.
//   Several threads free at one cycle take jobs in rounds, one job per thread
//   per round, thread 0 first.
// - Policies (`device_sched_mode`):
//     0 shared FIFO: any thread serves any core; the lowest-numbered idle core;
//     1 affinity: prefer the idle core that ran one of the task's producers
//       (the latest-ending one first; an L2-affinity stand-in), else 0's rule;
//     2 fair: core i of each type belongs to thread i % aicpuCount, which alone
//       dispatches to it and handles its completions;
//     3 affinity and fair.
//   With `threadsOwnCores` (PyPTO's device scheduler: each scheduling AICPU
//   thread manages one section of the cores, aicStart_..aicEnd_ and
//   aivStart_..aivEnd_ in its aicore_manager.h, and takes ready tasks from the
//   queue all threads share) every policy serves cores that way: thread t owns
//   the t-th contiguous section of each core type, dispatches only to its cores
//   and alone notices their completions. The fair policies' extra balancing
//   between threads is not modelled beyond that ownership.
// - Ties are broken by task id, then core id, then thread id: the same graph,
//   configuration and executor give the same schedule.
//
// Errors are diagnostics, never a hang: task ids that are not positions, a
// predecessor that does not exist, a dependency cycle, tasks of a core type
// with no cores, bad configuration, and executor contract violations.
#pragma once

#include "core/Diagnostics.h"
#include "runtime/Executor.h"
#include "runtime/Schedule.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace pto {

// What the AICPU threads cost per task, in cycles (npusim's SchedulerCosts
// field for field; the runtime does not depend on npusim).
struct AicpuCosts {
  std::int64_t dispatchCycles = 0;
  std::int64_t resolveCycles = 0;
  std::int64_t completionCycles = 0;
  std::int64_t deviceTaskSubmitCycles = 0;
  std::int64_t stitchCycles = 0;

  friend bool operator==(const AicpuCosts&, const AicpuCosts&) = default;
};

struct SchedulerConfig {
  int aicCores = 0;
  int aivCores = 0;
  int aicpuCount = 1;
  AicpuCosts costs;
  int deviceSchedMode = 0;       // device_sched_mode, 0..3 (see above)
  int stitchFunctionMaxNum = 1;  // stitch_function_max_num, >= 1
  int coreTaskSlots = 1;         // 1: dispatch to idle cores only; 2: also to a busy core's pending slot
  bool threadsOwnCores = false;  // every policy: thread t serves only its own contiguous section of each core type

  // Whether scheduler thread `aicpu` only serves the cores it owns (see `owner` in the policies above).
  bool partitioned() const { return threadsOwnCores || fair(); }

  int cores(CoreType type) const { return type == CoreType::AIC ? aicCores : aivCores; }
  bool affinity() const { return deviceSchedMode == 1 || deviceSchedMode == 3; }
  bool fair() const { return deviceSchedMode == 2 || deviceSchedMode == 3; }

  friend bool operator==(const SchedulerConfig&, const SchedulerConfig&) = default;
};

namespace scheduler_internal {
class Simulation;
}

// A run's whole state (the scheduler's and a copy of the executor's) just
// before its first core choice that the affinity rule toggled would make
// otherwise (see Schedule::affinityChangedNothing). Up to there the toggled
// policy's run is this one, record for record (the same state and the same
// choices, by induction), so that run can resume here (Scheduler::resume)
// instead of simulating the same stretch again: a sweep's points that
// differ only in the rule share the start of their simulation.
class ScheduleFork {
public:
  ScheduleFork(ScheduleFork&&) noexcept;
  ScheduleFork& operator=(ScheduleFork&&) noexcept;
  ~ScheduleFork();

  // The cycle the run had reached: the stretch the resumed run is spared.
  std::int64_t cycle() const;
  // The configuration the resumed run must have: the run's own with the
  // affinity rule toggled.
  SchedulerConfig resumedConfig() const;
  // The executor's state there (Executor::clone). The resumed run continues
  // it, through this object or through an executor that wraps it.
  Executor& executor();

private:
  friend class Scheduler;
  friend class scheduler_internal::Simulation;
  struct State;
  explicit ScheduleFork(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

class Scheduler {
public:
  explicit Scheduler(SchedulerConfig config) : m_config(config) {}

  // Simulates `graph` to the end. Errors: the configuration or the graph
  // cannot run (see above), or the executor broke its contract; each is
  // recorded in `diags`, naming the tasks involved, and nullopt is returned.
  // With `fork`, the run also keeps its state at its first choice the
  // affinity rule toggled would make otherwise, if there is one and the
  // executor can be copied (Executor::clone); `graph` must then outlive the fork.
  std::optional<Schedule> run(const ExecuteGraph& graph, Executor& executor, DiagnosticEngine& diags,
                              std::optional<ScheduleFork>* fork = nullptr) const;
  // Finishes the run `fork` was taken from under this scheduler's policy,
  // which must be that run's with the affinity rule toggled (an error
  // otherwise). `executor` is fork.executor() or wraps it; the schedule
  // equals what run() would give from the start. The fork is used up (its
  // executor holds the run's end state).
  std::optional<Schedule> resume(ScheduleFork& fork, Executor& executor, DiagnosticEngine& diags) const;

  const SchedulerConfig& config() const { return m_config; }

private:
  SchedulerConfig m_config;
};

// The device task of every task under the stitching rule above (indexed by
// task id); `maxRootCalls` >= 1.
std::vector<int> deviceTasksOf(const ExecuteGraph& graph, int maxRootCalls);

// `config` with its runtime options reduced to the smallest values that
// schedule `graph` the same, record for record, with any executor: what a
// sweep keys a simulation by, so that points differing only in an option
// with no effect on this graph and machine simulate once.
// - device_sched_mode: a fair policy's only effect is that each thread serves
//   only the cores it owns (SchedulerConfig::partitioned). With
//   threadsOwnCores every policy already does so, with the same owners (the
//   sections), and a single thread owns every core: there 2 schedules as 0
//   and 3 as 1.
// - stitch_function_max_num acts only through deviceTasksOf: the most root
//   calls any device task holds gives the same device tasks (a device task
//   cut by the limit holds exactly the limit; one cut by a barrier or the end
//   holds no more than that most).
SchedulerConfig equivalentConfig(SchedulerConfig config, const ExecuteGraph& graph);

} // namespace pto
