// The scheduler's rules one at a time: policies (affinity, fair ownership),
// reproducibility, independent AIC and AIV queues, ready-count samples,
// stitching of root functions into device tasks, which run one at a time.
#include "RuntimeTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

namespace pto::testing {
namespace {

bool sameSchedule(const Schedule& a, const Schedule& b) {
  if (a.tasks.size() != b.tasks.size() || a.makespanCycles != b.makespanCycles ||
      a.deviceTaskCount != b.deviceTaskCount || a.readySamples != b.readySamples ||
      a.aicpuBusyCycles != b.aicpuBusyCycles)
    return false;
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    const TaskRecord& x = a.tasks[i];
    const TaskRecord& y = b.tasks[i];
    if (x.core != y.core || x.deviceTask != y.deviceTask || x.readyCycle != y.readyCycle ||
        x.dispatchCycle != y.dispatchCycle || x.startCycle != y.startCycle || x.endCycle != y.endCycle ||
        x.coreFreedCycle != y.coreFreedCycle || x.resolvedCycle != y.resolvedCycle ||
        x.dispatchAicpu != y.dispatchAicpu || x.completionAicpu != y.completionAicpu)
      return false;
  }
  return true;
}

TEST(Scheduler, EveryPolicyIsDeterministic) {
  ExecuteGraph graph = randomDag(42, 120, 0.05);
  std::vector<std::int64_t> durations;
  for (int i = 0; i < 120; ++i) durations.push_back(1000 + (i * 7919) % 5000);
  for (int mode = 0; mode <= 3; ++mode) {
    SchedulerConfig cfg = config(3, 6, 3, a2Costs(), mode);
    FakeExecutor first(durations), second(durations);
    Schedule a = runOrFail(graph, cfg, first);
    Schedule b = runOrFail(graph, cfg, second);
    expectWellFormed(graph, cfg, a);
    EXPECT_TRUE(sameSchedule(a, b)) << "mode " << mode;
    // One executor reused for a second run gives the same schedule too.
    Schedule c = runOrFail(graph, cfg, first);
    EXPECT_TRUE(sameSchedule(a, c)) << "mode " << mode;
  }
}

TEST(Scheduler, EmptyGraphHasNoTasksAndZeroMakespan) {
  FakeExecutor executor(10, 10);
  Schedule schedule = runOrFail(ExecuteGraph{}, config(1, 1, 1, a2Costs()), executor);
  EXPECT_TRUE(schedule.tasks.empty());
  EXPECT_EQ(schedule.makespanCycles, 0);
  EXPECT_EQ(schedule.deviceTaskCount, 0);
  EXPECT_EQ(schedule.ready(CoreType::AIV), (std::vector<ReadySample>{{0, 0}}));
}

// Tasks 0..2 start on cores 0..2; 0 and 2 end together; 3 consumes 2. Shared
// FIFO takes the lowest idle core (0), affinity the producer's core (2).
TEST(Scheduler, AffinityPrefersTheProducersCore) {
  ExecuteGraph graph = independentTasks(3, CoreType::AIV);
  addTask(graph, CoreType::AIV, {2});
  std::vector<std::int64_t> durations{100, 1000, 100, 50};
  for (int mode = 0; mode <= 3; ++mode) {
    FakeExecutor executor(durations);
    Schedule schedule = runOrFail(graph, config(0, 4, 1, {}, mode), executor);
    EXPECT_EQ(schedule.tasks[2].core, (CoreId{CoreType::AIV, 2}));
    EXPECT_EQ(schedule.tasks[3].core.index, mode == 1 || mode == 3 ? 2 : 0) << "mode " << mode;
  }
}

// Fair policies: core i belongs to scheduler thread i % aicpuCount for both
// its dispatches and its completions.
TEST(Scheduler, FairPoliciesServeEachCoreFromItsOwnThread) {
  ExecuteGraph graph = randomDag(7, 80, 0.03);
  for (int mode : {2, 3}) {
    SchedulerConfig cfg = config(5, 7, 3, a2Costs(), mode);
    FakeExecutor executor(3000, 2000);
    Schedule schedule = runOrFail(graph, cfg, executor);
    expectWellFormed(graph, cfg, schedule);
    for (const TaskRecord& r : schedule.tasks) {
      EXPECT_EQ(r.dispatchAicpu, r.core.index % 3) << "task " << r.task;
      EXPECT_EQ(r.completionAicpu, r.core.index % 3) << "task " << r.task;
    }
  }
  // A shared FIFO with one thread busy lets another take the next core.
  SchedulerConfig shared = config(0, 6, 3, a2Costs(), 0);
  FakeExecutor executor(3000, 3000);
  Schedule schedule = runOrFail(independentTasks(6, CoreType::AIV), shared, executor);
  std::set<int> threads;
  for (const TaskRecord& r : schedule.tasks) threads.insert(r.dispatchAicpu);
  EXPECT_EQ(threads, (std::set<int>{0, 1, 2}));
}

// PyPTO's scheduling threads each manage one section of the cores (aicore_manager.h: aicStart_..aicEnd_,
// aivStart_..aivEnd_): with threadsOwnCores, thread t dispatches to and notices the completions of only
// the t-th contiguous section of each core type, under every policy. 6 AIC and 9 AIV cores over 3 threads:
// AIC 0-1, 2-3, 4-5 and AIV 0-2, 3-5, 6-8.
TEST(Scheduler, ThreadsThatOwnCoresServeOnlyTheirSection) {
  ExecuteGraph graph = randomDag(11, 120, 0.03);
  for (int mode = 0; mode <= 3; ++mode) {
    SchedulerConfig cfg = config(6, 9, 3, a2Costs(), mode);
    cfg.threadsOwnCores = true;
    cfg.coreTaskSlots = 2;
    FakeExecutor executor(3000, 2000);
    Schedule schedule = runOrFail(graph, cfg, executor);
    expectWellFormed(graph, cfg, schedule);
    for (const TaskRecord& r : schedule.tasks) {
      const int section = r.core.type == CoreType::AIC ? r.core.index / 2 : r.core.index / 3;
      EXPECT_EQ(r.dispatchAicpu, section) << "mode " << mode << ", task " << r.task;
      EXPECT_EQ(r.completionAicpu, section) << "mode " << mode << ", task " << r.task;
    }
  }
}

// Without AICPU costs the two core types share nothing: the AIV tasks run
// exactly as they would alone, and the makespan is the slower type's waves.
TEST(Scheduler, AicAndAivQueuesAreIndependent) {
  ExecuteGraph aivOnly = independentTasks(10, CoreType::AIV);
  ExecuteGraph mixed;
  for (int i = 0; i < 30; ++i) addTask(mixed, i % 3 == 0 ? CoreType::AIV : CoreType::AIC);
  SchedulerConfig cfg = config(4, 4, 2);
  FakeExecutor aloneExecutor(500, 300), mixedExecutor(500, 300);
  Schedule alone = runOrFail(aivOnly, cfg, aloneExecutor);
  Schedule together = runOrFail(mixed, cfg, mixedExecutor);
  expectWellFormed(mixed, cfg, together);
  std::vector<std::pair<std::int64_t, std::int64_t>> aloneTimes, togetherTimes;
  for (const TaskRecord& r : alone.tasks) aloneTimes.emplace_back(r.startCycle, r.endCycle);
  for (const TaskRecord& r : together.tasks)
    if (r.core.type == CoreType::AIV) togetherTimes.emplace_back(r.startCycle, r.endCycle);
  EXPECT_EQ(togetherTimes, aloneTimes);
  EXPECT_EQ(together.makespanCycles, std::max((20 + 3) / 4 * 500, (10 + 3) / 4 * 300));
  // A full AIC queue does not hold back AIV work.
  EXPECT_EQ(together.ready(CoreType::AIV), alone.ready(CoreType::AIV));
  EXPECT_EQ(together.ready(CoreType::AIC), (std::vector<ReadySample>{{0, 16}, {500, 12}, {1000, 8}, {1500, 4},
                                                                      {2000, 0}}));
}

// The ready count recomputed from the task records: tasks with
// ready <= cycle < dispatch, per core type.
void expectReadySamplesMatch(const ExecuteGraph& graph, const Schedule& schedule) {
  for (CoreType type : {CoreType::AIC, CoreType::AIV}) {
    auto countAt = [&](std::int64_t cycle) {
      int count = 0;
      for (const Task& task : graph.tasks) {
        const TaskRecord& r = schedule.tasks[static_cast<std::size_t>(task.id)];
        count += task.coreType == type && r.readyCycle <= cycle && cycle < r.dispatchCycle;
      }
      return count;
    };
    const std::vector<ReadySample>& samples = schedule.ready(type);
    ASSERT_FALSE(samples.empty());
    EXPECT_EQ(samples.front().cycle, 0);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      EXPECT_EQ(samples[i].count, countAt(samples[i].cycle)) << name(type) << " sample " << i;
      if (i > 0) {
        EXPECT_LT(samples[i - 1].cycle, samples[i].cycle);
        EXPECT_NE(samples[i - 1].count, samples[i].count);
      }
    }
    // Between samples the count does not change: check at every cycle where it could.
    std::set<std::int64_t> changes;
    for (const TaskRecord& r : schedule.tasks) changes.insert({r.readyCycle, r.dispatchCycle});
    for (std::int64_t cycle : changes) {
      auto after = std::upper_bound(samples.begin(), samples.end(), cycle,
                                    [](std::int64_t c, const ReadySample& s) { return c < s.cycle; });
      ASSERT_NE(after, samples.begin());
      EXPECT_EQ(std::prev(after)->count, countAt(cycle)) << name(type) << " at cycle " << cycle;
    }
  }
}

TEST(Scheduler, ReadySamplesAgreeWithTheTaskRecords) {
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    ExecuteGraph graph = randomDag(seed, 100, 0.04);
    SchedulerConfig cfg = config(2, 3, 1 + static_cast<int>(seed % 3), seed % 2 ? a2Costs() : AicpuCosts{},
                                 static_cast<int>(seed % 4));
    FakeExecutor executor(4000, 1500);
    Schedule schedule = runOrFail(graph, cfg, executor);
    expectReadySamplesMatch(graph, schedule);
  }
}

// Four root functions (loop-body calls) of two independent tasks each. Up to N calls share one device task;
// device task k is built at (k+1) * submit + k * stitch, and with tasks this short (10 cycles, no dispatch
// cost) the previous device task has long finished by then, so that is when it arrives.
TEST(Scheduler, StitchingBatchesRootCallsIntoDeviceTasks) {
  ExecuteGraph graph;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) {
      TaskId id = addTask(graph, CoreType::AIV);
      graph.tasks[static_cast<std::size_t>(id)].rootCall = i;
    }
  AicpuCosts costs;
  costs.deviceTaskSubmitCycles = 100;
  costs.stitchCycles = 10000;
  for (int maxNum : {1, 2, 3, 4, 8}) {
    SchedulerConfig cfg = config(0, 8, 1, costs);
    cfg.stitchFunctionMaxNum = maxNum;
    FakeExecutor executor(10, 10);
    Schedule schedule = runOrFail(graph, cfg, executor);
    expectWellFormed(graph, cfg, schedule);
    EXPECT_EQ(schedule.deviceTaskCount, (4 + maxNum - 1) / maxNum) << "N = " << maxNum;
    for (const TaskRecord& r : schedule.tasks) {
      const std::int64_t k = r.task / 2 / maxNum;
      EXPECT_EQ(r.deviceTask, k);
      EXPECT_EQ(r.readyCycle, (k + 1) * 100 + k * 10000) << "task " << r.task << ", N = " << maxNum;
    }
  }
}

// PyPTO's device scheduler gives each core a pending task beside the running one (core_task_slots 2): on
// one core, three independent tasks of 5 000 cycles run back to back, where with one slot each waits for
// the previous one's completion (240) and its own dispatch (200). The last is dispatched only after the
// first's completion has freed the slot.
TEST(Scheduler, APendingTaskStartsTheMomentTheRunningOneEnds) {
  ExecuteGraph graph = independentTasks(3, CoreType::AIV);
  SchedulerConfig one = config(0, 1, 3, a2Costs());
  SchedulerConfig two = one;
  two.coreTaskSlots = 2;
  FakeExecutor firstExecutor(5000, 5000), secondExecutor(5000, 5000);
  Schedule single = runOrFail(graph, one, firstExecutor);
  Schedule pending = runOrFail(graph, two, secondExecutor);
  expectWellFormed(graph, one, single);
  expectWellFormed(graph, two, pending);
  const AicpuCosts costs = a2Costs();
  EXPECT_EQ(single.tasks[1].startCycle, single.tasks[0].endCycle + costs.completionCycles + costs.dispatchCycles);
  EXPECT_EQ(pending.tasks[1].startCycle, pending.tasks[0].endCycle);
  EXPECT_LT(pending.tasks[1].dispatchCycle, pending.tasks[0].endCycle);
  EXPECT_GE(pending.tasks[2].dispatchCycle, pending.tasks[0].endCycle + costs.completionCycles);
  // The device task arrives, the first dispatch lands, then no gap at all.
  EXPECT_EQ(pending.makespanCycles, costs.deviceTaskSubmitCycles + costs.dispatchCycles + 3 * 5000);
  EXPECT_LT(pending.makespanCycles, single.makespanCycles);
}

// Device tasks run one at a time (PyPTO's scheduler syncs on a device task's last task before it takes the
// next): two root functions of two 20 000-cycle tasks on two cores, each call its own device task. The
// second device task is built at 2 x 100 + 10 000 = 10 200 but arrives only one submit (100) after the
// first one's last task has resolved; its tasks then start on the idle cores.
TEST(Scheduler, ADeviceTaskStartsOnlyOnceThePreviousOneHasFinished) {
  ExecuteGraph graph;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      TaskId id = addTask(graph, CoreType::AIV);
      graph.tasks[static_cast<std::size_t>(id)].rootCall = i;
    }
  SchedulerConfig cfg = config(0, 2, 3, a2Costs());
  cfg.coreTaskSlots = 2;
  cfg.stitchFunctionMaxNum = 1;
  FakeExecutor executor(20000, 20000);
  Schedule schedule = runOrFail(graph, cfg, executor);
  expectWellFormed(graph, cfg, schedule);
  EXPECT_EQ(schedule.deviceTaskCount, 2);
  const std::int64_t firstDone = std::max(schedule.tasks[0].resolvedCycle, schedule.tasks[1].resolvedCycle);
  EXPECT_GT(firstDone, 20000);
  for (TaskId later : {2, 3}) {
    const TaskRecord& r = schedule.tasks[static_cast<std::size_t>(later)];
    EXPECT_EQ(r.readyCycle, firstDone + a2Costs().deviceTaskSubmitCycles) << "task " << later;
    EXPECT_GE(r.startCycle, r.readyCycle + a2Costs().dispatchCycles) << "task " << later;
  }
  // Stitched into one device task the four overlap: two queue in the pending slots.
  cfg.stitchFunctionMaxNum = 2;
  FakeExecutor stitchedExecutor(20000, 20000);
  Schedule stitched = runOrFail(graph, cfg, stitchedExecutor);
  expectWellFormed(graph, cfg, stitched);
  EXPECT_LT(stitched.tasks[2].dispatchCycle, stitched.tasks[0].endCycle);
  EXPECT_LT(stitched.makespanCycles, schedule.makespanCycles);
}

// A device task takes whole root functions: tasks 0-2 are one call, 3, 4 and 5 one each.
TEST(Scheduler, TheTasksOfOneRootCallShareADeviceTask) {
  ExecuteGraph graph = independentTasks(3, CoreType::AIV);
  for (std::int64_t call = 1; call <= 3; ++call) {
    const TaskId id = addTask(graph, CoreType::AIV);
    graph.tasks[static_cast<std::size_t>(id)].rootCall = call;
  }
  EXPECT_EQ(deviceTasksOf(graph, 1), (std::vector<int>{0, 0, 0, 1, 2, 3}));
  EXPECT_EQ(deviceTasksOf(graph, 2), (std::vector<int>{0, 0, 0, 0, 1, 1}));
}

// A loop barrier holds what follows it until everything before it has finished, data or not: two
// independent loops of two iterations each on 8 vector cores, with and without a barrier before the second.
// Each task runs 30 000 cycles; one scheduler thread with A2's costs (submit 100, stitch 10 000), all four
// iterations stitched into one device task unless a barrier cuts it.
TEST(Scheduler, ALoopBarrierHoldsTheTasksAfterItUntilEveryEarlierTaskHasFinished) {
  ExecuteGraph graph;
  for (const char* loop : {"i", "j"})
    for (int k = 0; k < 2; ++k) {
      const TaskId id = addTask(graph, CoreType::AIV);
      graph.tasks[static_cast<std::size_t>(id)].loopIndices = {{loop, k}};
      graph.tasks[static_cast<std::size_t>(id)].rootCall = id;
    }
  SchedulerConfig cfg = config(0, 8, 1, a2Costs());
  cfg.stitchFunctionMaxNum = 4;
  FakeExecutor free(30000, 30000);
  const Schedule unhindered = runOrFail(graph, cfg, free);
  EXPECT_EQ(unhindered.deviceTaskCount, 1);
  for (const TaskRecord& record : unhindered.tasks) EXPECT_EQ(record.readyCycle, 100);  // all at once

  graph.barriers = {LoopBarrier{2, 1, false}};
  FakeExecutor held(30000, 30000);
  const Schedule schedule = runOrFail(graph, cfg, held);
  expectWellFormed(graph, cfg, schedule);
  EXPECT_EQ(schedule.deviceTaskCount, 2);
  EXPECT_EQ(schedule.tasks[0].readyCycle, 100);
  EXPECT_EQ(schedule.tasks[1].readyCycle, 100);
  // The second device task is submitted once tasks 0 and 1 have resolved: one submit later. Unhindered it
  // would have come at 2 x 100 + 10 000, long before (the tasks take 30 000).
  const std::int64_t released = std::max(schedule.tasks[0].resolvedCycle, schedule.tasks[1].resolvedCycle);
  EXPECT_GT(released, 30000);
  EXPECT_EQ(schedule.tasks[2].readyCycle, released + 100);
  EXPECT_EQ(schedule.tasks[3].readyCycle, released + 100);
  EXPECT_GT(schedule.makespanCycles, unhindered.makespanCycles + 30000);
}

TEST(Scheduler, ALoopBarrierEndsTheDeviceTaskBeforeIt) {
  ExecuteGraph graph = independentTasks(4, CoreType::AIV);  // one iteration: one device task
  EXPECT_EQ(deviceTasksOf(graph, 4), (std::vector<int>{0, 0, 0, 0}));
  graph.barriers = {LoopBarrier{1, 0, false}, LoopBarrier{3, 0, false}};
  EXPECT_EQ(deviceTasksOf(graph, 4), (std::vector<int>{0, 1, 1, 2}));
  // Held across two barriers: each opens when the tasks before it have finished, with free submission.
  FakeExecutor executor(500, 500);
  const SchedulerConfig cfg = config(0, 4, 1, a2Costs());
  const Schedule schedule = runOrFail(graph, cfg, executor);
  expectWellFormed(graph, cfg, schedule);
  EXPECT_GE(schedule.tasks[1].startCycle, schedule.tasks[0].resolvedCycle);
  EXPECT_GE(schedule.tasks[2].startCycle, schedule.tasks[0].resolvedCycle);
  EXPECT_GE(schedule.tasks[3].startCycle, std::max(schedule.tasks[1].resolvedCycle, schedule.tasks[2].resolvedCycle));
  EXPECT_LT(schedule.tasks[2].startCycle, schedule.tasks[1].endCycle);  // 1 and 2 run side by side
}

// equivalentConfig's reductions give the same schedule, record for record, as the options given: a
// random DAG of 30 root calls (4 tasks each, durations by task) with two loop barriers, under every policy,
// stitch limits from 1 to past the calls, threads that own cores or not, one thread or three. The reduced
// values are the hand-counted ones: fair policies drop to 0 and 1 where ownership is every policy's (threads
// owning cores, or one thread); a limit past the most calls a device task holds (the barriers at calls 9 and
// 21 cut 30 calls into 9, 12 and 9) drops to that most.
TEST(Scheduler, AnEquivalentConfigSchedulesTheGraphTheSame) {
  ExecuteGraph graph = randomDag(23, 120, 0.03);
  std::vector<std::int64_t> cycles;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    graph.tasks[i].rootCall = static_cast<int>(i / 4);
    cycles.push_back(1000 + static_cast<std::int64_t>((i * 7919) % 5000));
  }
  graph.barriers = {LoopBarrier{36, 0, false}, LoopBarrier{84, 1, false}};
  int reducedModes = 0, reducedStitches = 0;
  for (bool ownCores : {false, true})
    for (int threads : {1, 3})
      for (int mode = 0; mode <= 3; ++mode)
        for (int stitch : {1, 4, 9, 12, 13, 128}) {
          SchedulerConfig given = config(4, 6, threads, a2Costs(), mode);
          given.threadsOwnCores = ownCores;
          given.stitchFunctionMaxNum = stitch;
          const SchedulerConfig reduced = equivalentConfig(given, graph);
          const bool fairIsOwnership = mode >= 2 && (ownCores || threads == 1);
          EXPECT_EQ(reduced.deviceSchedMode, fairIsOwnership ? mode - 2 : mode);
          EXPECT_EQ(reduced.stitchFunctionMaxNum, std::min(stitch, 12));
          reducedModes += reduced.deviceSchedMode != mode;
          reducedStitches += reduced.stitchFunctionMaxNum != stitch;
          FakeExecutor givenExecutor(cycles), reducedExecutor(cycles);
          const Schedule a = runOrFail(graph, given, givenExecutor);
          const Schedule b = runOrFail(graph, reduced, reducedExecutor);
          EXPECT_TRUE(sameSchedule(a, b)) << "mode " << mode << ", stitch " << stitch << ", threads " << threads
                                  << (ownCores ? ", threads own cores" : "");
        }
  EXPECT_GT(reducedModes, 0);
  EXPECT_GT(reducedStitches, 0);
}

// The cases the affinity rule's tests run both policies on: random DAGs
// (every third sparse, where few tasks have a producer of their own core
// type, the only tasks the rule can matter for) with varied task times, on
// one and three scheduler threads, with and without the threads' costs,
// under each policy: check(graph, cycles,
// given policy's config, toggled policy's config, what to name the case).
template <typename Check> void forEachAffinityCase(Check&& check) {
  for (std::uint32_t seed = 1; seed <= 12; ++seed) {
    const ExecuteGraph graph = randomDag(seed, 60, seed % 3 == 0 ? 0.002 : 0.04);
    std::vector<std::int64_t> cycles;
    for (std::size_t i = 0; i < graph.tasks.size(); ++i) cycles.push_back(800 + static_cast<std::int64_t>((i * 7919 + seed) % 4000));
    for (int threads : {1, 3})
      for (bool free : {false, true})  // a2's costs, or none: threads then take several jobs in one cycle
        for (int mode = 0; mode <= 3; ++mode) {
          const AicpuCosts costs = free ? AicpuCosts{} : a2Costs();
          check(graph, cycles, config(3, 5, threads, costs, mode), config(3, 5, threads, costs, mode ^ 1),
                "seed " + std::to_string(seed) + ", mode " + std::to_string(mode) + ", threads " +
                    std::to_string(threads) + (free ? ", no scheduler costs" : ""));
        }
  }
}

// A run says whether the affinity rule toggled (device_sched_mode 0 <-> 1,
// 2 <-> 3) would have chosen any core otherwise; when it says not, the
// toggled policy's own run gives the same schedule, record for record.
// Checked by running both on random DAGs and on a graph whose tasks only
// follow tasks of the other type, where it can never matter. Both answers
// occur, so the check can fail either way.
TEST(Scheduler, ARunSaysWhenTheAffinityRuleChangedNothing) {
  int unchanged = 0, changed = 0;
  forEachAffinityCase([&](const ExecuteGraph& graph, const std::vector<std::int64_t>& cycles,
                          const SchedulerConfig& given, const SchedulerConfig& toggled, const std::string& what) {
    FakeExecutor givenExecutor(cycles), toggledExecutor(cycles);
    const Schedule a = runOrFail(graph, given, givenExecutor);
    const Schedule b = runOrFail(graph, toggled, toggledExecutor);
    if (a.affinityChangedNothing) {
      ++unchanged;
      EXPECT_TRUE(sameSchedule(a, b)) << what;
    } else {
      ++changed;
    }
  });
  EXPECT_GT(unchanged, 0);
  EXPECT_GT(changed, 0);

  // Cube and vector tasks in turn, each after the one before: no task has a producer of its own type.
  ExecuteGraph alternating;
  for (int i = 0; i < 40; ++i)
    addTask(alternating, i % 2 ? CoreType::AIV : CoreType::AIC,
            i == 0 ? std::vector<TaskId>{} : std::vector<TaskId>{static_cast<TaskId>(i - 1)});
  for (int mode = 0; mode <= 3; ++mode) {
    FakeExecutor executor(700, 300);
    EXPECT_TRUE(runOrFail(alternating, config(2, 4, 2, a2Costs(), mode), executor).affinityChangedNothing) << mode;
  }
}

bool samePipes(const Schedule& a, const Schedule& b) {
  if (a.tasks.size() != b.tasks.size()) return false;
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    const std::span<const PipeInterval> x = a.pipes(a.tasks[i]), y = b.pipes(b.tasks[i]);
    if (!std::equal(x.begin(), x.end(), y.begin(), y.end(), [](const PipeInterval& p, const PipeInterval& q) {
          return p.pipe() == q.pipe() && p.startCycle == q.startCycle && p.endCycle == q.endCycle;
        }))
      return false;
  }
  return true;
}

// A run that keeps a fork (its state at the first core choice the affinity
// rule toggled would make otherwise) is the run it would be without, and the
// fork resumed under the toggled policy gives that policy's own run from the
// start, record for record and interval for interval. Checked on the random
// DAGs above, where runs with and without such a choice both occur.
TEST(Scheduler, ARunResumedFromItsForkIsTheToggledPolicysOwnRun) {
  int forked = 0, unforked = 0;
  forEachAffinityCase([&](const ExecuteGraph& graph, const std::vector<std::int64_t>& cycles,
                          const SchedulerConfig& given, const SchedulerConfig& toggled, const std::string& what) {
    SCOPED_TRACE(what);
    FakeExecutor forkingExecutor(cycles), plainExecutor(cycles), toggledExecutor(cycles);
    std::optional<ScheduleFork> fork;
    DiagnosticEngine diags;
    const std::optional<Schedule> withFork = Scheduler(given).run(graph, forkingExecutor, diags, &fork);
    ASSERT_TRUE(withFork) << messages(diags);
    const Schedule plain = runOrFail(graph, given, plainExecutor);
    EXPECT_TRUE(sameSchedule(*withFork, plain) && samePipes(*withFork, plain));
    const Schedule own = runOrFail(graph, toggled, toggledExecutor);
    if (withFork->affinityChangedNothing) {
      EXPECT_FALSE(fork) << "a run whose every choice the toggled rule shares has no fork";
      ++unforked;
      return;
    }
    ASSERT_TRUE(fork);
    ++forked;
    EXPECT_LE(fork->cycle(), withFork->makespanCycles);
    EXPECT_EQ(fork->resumedConfig(), toggled);
    const std::optional<Schedule> resumed = Scheduler(toggled).resume(*fork, fork->executor(), diags);
    ASSERT_TRUE(resumed) << messages(diags);
    EXPECT_TRUE(sameSchedule(*resumed, own));
    EXPECT_TRUE(samePipes(*resumed, own));
    EXPECT_EQ(resumed->affinityChangedNothing, own.affinityChangedNothing);
  });
  EXPECT_GT(forked, 0);
  EXPECT_GT(unforked, 0);
}

// A fork resumes once, and only under the forked run's policy with the rule toggled.
TEST(Scheduler, AForkRefusesAnotherPolicyAndASecondResumption) {
  const ExecuteGraph graph = randomDag(2, 60, 0.04);
  const SchedulerConfig given = config(3, 5, 1, a2Costs(), 0);
  FakeExecutor executor(900, 1300);
  std::optional<ScheduleFork> fork;
  DiagnosticEngine diags;
  ASSERT_TRUE(Scheduler(given).run(graph, executor, diags, &fork)) << messages(diags);
  ASSERT_TRUE(fork) << "the test's graph needs a choice the affinity rule changes";
  EXPECT_FALSE(Scheduler(config(3, 5, 1, a2Costs(), 0)).resume(*fork, fork->executor(), diags));
  EXPECT_NE(messages(diags).find("resumes only under device_sched_mode 1"), std::string::npos) << messages(diags);
  SchedulerConfig otherStitch = config(3, 5, 1, a2Costs(), 1);
  otherStitch.stitchFunctionMaxNum = 7;
  EXPECT_FALSE(Scheduler(otherStitch).resume(*fork, fork->executor(), diags));
  DiagnosticEngine again;
  ASSERT_TRUE(Scheduler(config(3, 5, 1, a2Costs(), 1)).resume(*fork, fork->executor(), again)) << messages(again);
  EXPECT_FALSE(Scheduler(config(3, 5, 1, a2Costs(), 1)).resume(*fork, fork->executor(), again));
  EXPECT_NE(messages(again).find("a fork resumes once"), std::string::npos) << messages(again);
}

TEST(Scheduler, ABarrierOutsideTheTaskListIsRefused) {
  ExecuteGraph graph = independentTasks(2, CoreType::AIV);
  graph.barriers = {LoopBarrier{2, 0, false}};
  FakeExecutor executor(10, 10);
  DiagnosticEngine diags;
  EXPECT_FALSE(Scheduler(config(0, 2, 1)).run(graph, executor, diags));
  EXPECT_NE(messages(diags).find("loop barrier 0 stands before task 2"), std::string::npos) << messages(diags);
}

TEST(Scheduler, ZeroLengthTasksAndZeroCostsFinish) {
  ExecuteGraph graph = randomDag(3, 50, 0.1);
  SchedulerConfig cfg = config(2, 2, 2);
  FakeExecutor executor(0, 0);
  Schedule schedule = runOrFail(graph, cfg, executor);
  expectWellFormed(graph, cfg, schedule);
  EXPECT_EQ(schedule.makespanCycles, 0);
}

// Pipe intervals travel from the executor into the schedule.
TEST(Scheduler, RecordsTheExecutorsPipeIntervals) {
  FakeExecutor executor(0, 250);
  Schedule schedule = runOrFail(independentTasks(1, CoreType::AIV), config(0, 1, 1, a2Costs()), executor);
  const std::span<const PipeInterval> pipes = schedule.pipes(schedule.tasks[0]);
  ASSERT_EQ(pipes.size(), 1u);
  EXPECT_EQ(pipes[0].pipe(), "FAKE");
  EXPECT_EQ(pipes[0].startCycle, 300);
  EXPECT_EQ(pipes[0].endCycle, 550);
}

} // namespace
} // namespace pto::testing
