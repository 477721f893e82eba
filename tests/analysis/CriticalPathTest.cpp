// The critical path's attribution on schedules written by hand, each one what the scheduler's rules
// (runtime/Scheduler.h) make of its graph with one scheduler thread that spends 10 cycles per dispatch, 5 per
// completion and 5 per resolve. Every expected step, cause and cycle count is worked out in the comments from
// those rules and the records alone, not taken from the code's output.
#include "analysis/report/HealthReport.h"

#include "HandTaskRecord.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

// A task's record with its completion handled at `completion`: the core is free 5 cycles later and the
// consumers resolved 5 after that.
TaskRecord handRecord(Schedule& schedule, TaskId task, CoreType type, int core, std::int64_t ready,
                      std::int64_t dispatch, std::int64_t end, std::int64_t completion, int deviceTask = 0) {
  const std::int64_t start = dispatch + 10;
  TaskRecord r = handTaskRecord(schedule, task, CoreId{type, core},
                                {ready, dispatch, start, end, completion + 5, completion + 10},
                                {{"CUBE", start, start + (end - start) * 4 / 5}});
  r.deviceTask = deviceTask;
  return r;
}

class CriticalPathTest : public ::testing::Test {
protected:
  // Four vector tasks on 2 + 2 cores, device tasks submitted in 20 cycles: T0 and T1 (device task 0,
  // arriving at 20) are dispatched at 20 and 30; T1 ends at 80 (completion [80, 90)), T0 at 100 (completion
  // [100, 110), resolved at 110). Device task 1 arrives 20 later, at 130: T2 goes to core 0 at 130, ends at
  // 200. T3 reads T2's output: resolved at 210, dispatched to core 1 at 210, ends at 260.
  void makeTwoDeviceTasks() {
    makeTasks(4, CoreType::AIV);
    m_machine.aicCores = 2;
    m_machine.aivCores = 2;
    m_machine.scheduler.deviceTaskSubmitCycles = 20;
    m_compilation.tasks.tasks[3].predecessors = {2};
    m_schedule.tasks = {handRecord(m_schedule, 0, CoreType::AIV, 0, 20, 20, 100, 100),
                        handRecord(m_schedule, 1, CoreType::AIV, 1, 20, 30, 80, 80),
                        handRecord(m_schedule, 2, CoreType::AIV, 0, 130, 130, 200, 200, 1),
                        handRecord(m_schedule, 3, CoreType::AIV, 1, 210, 210, 260, 260, 1)};
  }

  // `tasks` tasks of one subgraph labelled "mm" on `type`, with no dependencies unless added.
  void makeTasks(int tasks, CoreType type) {
    Subgraph subgraph;
    subgraph.id = 0;
    subgraph.coreType = type;
    subgraph.label = "mm";
    m_compilation.blocks.subgraphs = {subgraph};
    for (TaskId t = 0; t < tasks; ++t) {
      Task task;
      task.id = t;
      task.subgraph = 0;
      task.coreType = type;
      m_compilation.tasks.tasks.push_back(task);
    }
  }

  HealthReport report() {
    m_machine.name = "hand";
    m_machine.clockGHz = 1.0;
    m_machine.scheduler.dispatchCycles = 10;
    m_machine.scheduler.completionCycles = 5;
    m_machine.scheduler.resolveCycles = 5;
    m_schedule.aicpuBusyCycles = {0};  // one scheduler thread
    for (const TaskRecord& record : m_schedule.tasks)
      m_schedule.makespanCycles = std::max(m_schedule.makespanCycles, record.endCycle);
    return healthReport(m_compilation, m_schedule, m_machine);
  }

  MachineDescription m_machine;
  Compilation m_compilation;
  Schedule m_schedule;
};

using Waits = std::map<std::string, std::int64_t>;

// Five independent cube tasks of 100 cycles on 2 cube cores, all ready at 0. The thread dispatches T0 (core 0)
// and T1 (core 1) at 0 and 10; T0 ends at 110, its completion [110, 120) frees core 0 at 115; T1's [120, 130)
// frees core 1 at 125; then T2 goes to core 0 at 130 and T3 to core 1 at 140. T2 ends at 240 (completion
// [240, 250), core 0 free at 245), T3 at 250 ([250, 260)), and T4, the last, goes to core 0 at 260 and ends
// at 370.
TEST_F(CriticalPathTest, TasksThatWaitForABusyCoreFollowItsHolderAndAreOccupancyBound) {
  makeTasks(5, CoreType::AIC);
  m_machine.aicCores = 2;
  m_machine.aivCores = 2;
  m_schedule.tasks = {handRecord(m_schedule, 0, CoreType::AIC, 0, 0, 0, 110, 110),
                      handRecord(m_schedule, 1, CoreType::AIC, 1, 0, 10, 120, 120),
                      handRecord(m_schedule, 2, CoreType::AIC, 0, 0, 130, 240, 240),
                      handRecord(m_schedule, 3, CoreType::AIC, 1, 0, 140, 250, 250),
                      handRecord(m_schedule, 4, CoreType::AIC, 0, 0, 260, 370, 370)};
  const HealthReport health = report();
  const CriticalPathHealth& path = health.criticalPath;
  // T4 was ready at 0 but core 0 was T2's until 245: it follows T2; T2 likewise follows T0.
  EXPECT_EQ(path.tasks, (std::vector<TaskId>{0, 2, 4}));
  ASSERT_EQ(path.steps.size(), 3u);
  EXPECT_EQ(path.steps[0].waitedFor, "submission");
  EXPECT_EQ(path.steps[0].after, kNoId);
  EXPECT_EQ(path.steps[1].waitedFor, "core");
  EXPECT_EQ(path.steps[1].after, 0);
  EXPECT_EQ(path.steps[2].waitedFor, "core");
  EXPECT_EQ(path.steps[2].after, 2);
  // T0: its dispatch landing [0, 10); its running [10, 110) is T2's wait, both cores busy: core.
  EXPECT_EQ(path.steps[0].runningCycles, 0);
  EXPECT_EQ(path.steps[0].waitCycles, (Waits{{"scheduling", 10}}));
  // T2: core [10, 110); T0's completion and the dispatch [110, 130); its landing [130, 140). Its running
  // [140, 240) is T4's wait, both cores busy (T2, T3): core.
  EXPECT_EQ(path.steps[1].runningCycles, 0);
  EXPECT_EQ(path.steps[1].waitCycles, (Waits{{"core", 100}, {"scheduling", 30}}));
  EXPECT_EQ(path.steps[1].cause, "core");
  // T4: core [140, 240); scheduling [240, 260) and [260, 270); running [270, 370).
  EXPECT_EQ(path.steps[2].runningCycles, 100);
  EXPECT_EQ(path.steps[2].waitCycles, (Waits{{"core", 100}, {"scheduling", 30}}));
  EXPECT_EQ(path.busyCycles, 100);
  EXPECT_EQ(path.waitCycles, 270);
  EXPECT_EQ(path.waitCyclesByCause, (Waits{{"core", 200}, {"scheduling", 70}}));
  EXPECT_EQ(path.cyclesByClass, (Waits{{"CUBE", 100}, {"occupancy", 200}, {"scheduling", 70}}));
  EXPECT_EQ(health.bound.kind, "occupancy");
  // 5 tasks on 2 cores: 2.5 waves, the last with one task; the path waited 200 cycles behind them.
  ASSERT_EQ(health.waves.size(), 1u);
  EXPECT_EQ(health.waves[0].pathCoreWaitCycles, 200);
  EXPECT_NE(health.bound.evidence.find("occupancy 54 %, CUBE 27 %, scheduling 19 %"), std::string::npos)
      << health.bound.evidence;
  EXPECT_NE(health.bound.evidence.find("the path waited 200 cycles for a free AIC core: 'mm' 5 tasks on 2 cores "
                                       "make 2.50 waves, the last with 1 of 2 cores busy"),
            std::string::npos)
      << health.bound.evidence;
}

// A core freed while older ready tasks wait is theirs: four cube tasks on 2 cores, ready at 0. T0 (core 0,
// dispatched at 0) ends at 50, its completion [50, 60) frees core 0 at 55; T1 (core 1, at 10) ends at 60, its
// completion [60, 70) frees core 1 at 65. At 70 T2 (older) takes core 0, at 80 T3 core 1; T3 ends last, at 240.
TEST_F(CriticalPathTest, AFreeCoreThatAnOlderReadyTaskTakesIsStillACoreWait) {
  makeTasks(4, CoreType::AIC);
  m_machine.aicCores = 2;
  m_machine.aivCores = 2;
  m_schedule.tasks = {handRecord(m_schedule, 0, CoreType::AIC, 0, 0, 0, 50, 50),
                      handRecord(m_schedule, 1, CoreType::AIC, 1, 0, 10, 60, 60),
                      handRecord(m_schedule, 2, CoreType::AIC, 0, 0, 70, 200, 200),
                      handRecord(m_schedule, 3, CoreType::AIC, 1, 0, 80, 240, 240)};
  const CriticalPathHealth path = report().criticalPath;
  EXPECT_EQ(path.tasks, (std::vector<TaskId>{1, 3}));  // T3's core 1 was T1's until 65
  ASSERT_EQ(path.steps.size(), 2u);
  // T1: waited [0, 10) with core 1 idle and nobody older waiting: scheduling; its landing [10, 20).
  EXPECT_EQ(path.steps[0].waitCycles, (Waits{{"scheduling", 20}}));
  EXPECT_EQ(path.steps[0].runningCycles, 0);
  // T3 over T1's running [20, 60): both cores busy until 55; over [55, 60) core 0 is idle, but T2, older and
  // still waiting (dispatched at 70), is due it: core all 40. Then [60, 80) T1's completion and the dispatcher,
  // [80, 90) its landing; running [90, 240).
  EXPECT_EQ(path.steps[1].waitedFor, "core");
  EXPECT_EQ(path.steps[1].waitCycles, (Waits{{"core", 40}, {"scheduling", 30}}));
  EXPECT_EQ(path.steps[1].runningCycles, 150);
  EXPECT_EQ(path.busyCycles + path.waitCycles, 240);
}

// Ready with a core free, held only by the one scheduler thread: with dispatches of 50 cycles T1 waits
// [0, 50) while T0's is made, though core 1 is idle.
TEST_F(CriticalPathTest, AReadyTaskWithAFreeCoreWaitsForTheDispatcher) {
  makeTasks(2, CoreType::AIC);
  m_machine.aicCores = 2;
  m_machine.aivCores = 2;
  m_schedule.tasks = {handRecord(m_schedule, 0, CoreType::AIC, 0, 0, 0, 100, 100),
                      handRecord(m_schedule, 1, CoreType::AIC, 1, 0, 50, 150, 150)};
  m_schedule.tasks[0].startCycle = 50;
  m_schedule.tasks[1].startCycle = 100;
  const HealthReport health = report();
  const CriticalPathHealth& path = health.criticalPath;
  EXPECT_EQ(path.tasks, (std::vector<TaskId>{1}));
  // Queue [0, 50) and landing [50, 100): scheduling; running [100, 150).
  EXPECT_EQ(path.steps[0].waitedFor, "submission");
  EXPECT_EQ(path.steps[0].cause, "scheduling");
  EXPECT_EQ(path.waitCyclesByCause, (Waits{{"scheduling", 100}}));
  EXPECT_EQ(health.bound.kind, "scheduling");
}

// A producer and a loop barrier on vector cores; device tasks take 20 cycles to submit. T0 and T1 (device
// task 0, arriving at 20) are dispatched at 20 and 30; T1 ends at 80 (completion [80, 90)), T0 at 100
// (completion [100, 110), resolved at 110). That opens the barrier before T2: its device task arrives 20
// later, at 130 (unhindered it would have come at 40). T2 goes to core 0 (free since 105) at 130, ends at
// 200. T3 reads T2's output: resolved at 210, dispatched to core 1 at 210, ends at 260.
TEST_F(CriticalPathTest, ProducersAndLoopBarriersAreFollowedWithTheirResolveAndSubmissionWaits) {
  makeTwoDeviceTasks();
  m_compilation.tasks.barriers = {LoopBarrier{2}};
  const CriticalPathHealth path = report().criticalPath;
  EXPECT_EQ(path.tasks, (std::vector<TaskId>{0, 2, 3}));
  ASSERT_EQ(path.steps.size(), 3u);
  // T0: its device task's arrival [0, 20), its landing [20, 30); running [30, 100).
  EXPECT_EQ(path.steps[0].waitedFor, "submission");
  EXPECT_EQ(path.steps[0].waitCycles, (Waits{{"scheduling", 10}, {"submission", 20}}));
  EXPECT_EQ(path.steps[0].runningCycles, 70);
  // T2: T0's completion [100, 110), the host submitting behind the barrier [110, 130), landing [130, 140).
  EXPECT_EQ(path.steps[1].waitedFor, "barrier");
  EXPECT_EQ(path.steps[1].after, 0);
  EXPECT_EQ(path.steps[1].waitCycles, (Waits{{"data", 10}, {"scheduling", 10}, {"submission", 20}}));
  // T3: T2's completion [200, 210), landing [210, 220); running [220, 260).
  EXPECT_EQ(path.steps[2].waitedFor, "data");
  EXPECT_EQ(path.steps[2].after, 2);
  EXPECT_EQ(path.steps[2].waitCycles, (Waits{{"data", 10}, {"scheduling", 10}}));
  EXPECT_EQ(path.waitCyclesByCause, (Waits{{"data", 20}, {"scheduling", 30}, {"submission", 40}}));
  EXPECT_EQ(path.busyCycles, 70 + 60 + 40);
  EXPECT_EQ(path.busyCycles + path.waitCycles, 260);
}

// The same schedule with no loop barrier: the stitch limit ended device task 0 after T1, and device tasks run
// one at a time, so T2 waited for T0 (device task 0's last to resolve) the same way, named "device task".
TEST_F(CriticalPathTest, ADeviceTaskWaitsForTheOneBeforeItToFinish) {
  makeTwoDeviceTasks();
  const CriticalPathHealth path = report().criticalPath;
  EXPECT_EQ(path.tasks, (std::vector<TaskId>{0, 2, 3}));
  ASSERT_EQ(path.steps.size(), 3u);
  EXPECT_EQ(path.steps[1].waitedFor, "device task");
  EXPECT_EQ(path.steps[1].after, 0);
  EXPECT_EQ(path.steps[1].waitCycles, (Waits{{"data", 10}, {"scheduling", 10}, {"submission", 20}}));
}

} // namespace
} // namespace pto::testing
