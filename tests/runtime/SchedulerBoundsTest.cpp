// The scheduler against analytical references worked out independently of its
// code: waves of equal tasks (machine-model check 3), a chain's exact length,
// and Graham-style bounds on seeded random DAGs.
#include "RuntimeTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace pto::testing {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// 64 tasks of length t on 24 cores, free scheduling: exactly 3 waves, the last
// one 16 of 24 cores busy.
TEST(SchedulerWaves, SixtyFourTasksOnTwentyFourCoresTakeThreeWavesWithoutCosts) {
  constexpr std::int64_t t = 1000;
  ExecuteGraph graph = independentTasks(64, CoreType::AIC);
  for (int mode = 0; mode <= 3; ++mode) {
    SchedulerConfig cfg = config(24, 48, 5, {}, mode);
    FakeExecutor executor(t, t);
    Schedule schedule = runOrFail(graph, cfg, executor);
    expectWellFormed(graph, cfg, schedule);
    EXPECT_EQ(schedule.makespanCycles, ceilDiv(64, 24) * t) << "mode " << mode;
    std::map<std::int64_t, int> tasksStartingAt;
    for (const TaskRecord& r : schedule.tasks) ++tasksStartingAt[r.startCycle];
    EXPECT_EQ(tasksStartingAt, (std::map<std::int64_t, int>{{0, 24}, {t, 24}, {2 * t, 16}})) << "mode " << mode;
    EXPECT_EQ(executor.peakRunning(CoreType::AIC), 24);
  }
}

// With PyPTO's costs the waves stretch by the scheduling overhead only:
//   ceil(n/p) t <= makespan <= ceil(n/p) t + submit + n (d + c + r).
// Why the upper bound: the core that runs the last task runs at most ceil(n/p)
// tasks (checked below); after the submission every task is ready, so while
// that core is not running a task before its last one, some AICPU is busy
// (dispatching to it, noticing its completion, or busy elsewhere while the
// core waits), and the AICPUs do n (d + c + r) cycles of work in all.
TEST(SchedulerWaves, OverheadStaysWithinTheAicpuWorkBound) {
  constexpr std::int64_t t = 100000;
  constexpr int n = 64, p = 24;
  const AicpuCosts costs = a2Costs();
  ExecuteGraph graph = independentTasks(n, CoreType::AIC);
  for (int aicpus : {1, 5}) {
    for (int mode = 0; mode <= 3; ++mode) {
      SchedulerConfig cfg = config(p, 48, aicpus, costs, mode);
      FakeExecutor executor(t, t);
      Schedule schedule = runOrFail(graph, cfg, executor);
      expectWellFormed(graph, cfg, schedule);
      const std::int64_t waves = ceilDiv(n, p) * t;
      const std::int64_t overhead =
          costs.deviceTaskSubmitCycles + n * (costs.dispatchCycles + costs.completionCycles + costs.resolveCycles);
      EXPECT_GE(schedule.makespanCycles, waves) << aicpus << " AICPUs, mode " << mode;
      EXPECT_LE(schedule.makespanCycles, waves + overhead) << aicpus << " AICPUs, mode " << mode;
      // Waves stay waves: 24 + 24 + 16 tasks, no core runs more than 3.
      int lastWave = 0;
      std::map<CoreId, int> perCore;
      for (const TaskRecord& r : schedule.tasks) {
        lastWave += r.startCycle >= 2 * t;
        ++perCore[r.core];
      }
      EXPECT_EQ(lastWave, 16) << aicpus << " AICPUs, mode " << mode;
      EXPECT_EQ(perCore.size(), 24u);
      for (const auto& [core, count] : perCore) EXPECT_LE(count, 3);
    }
  }
}

// A chain of k tasks on one core: each link pays dispatch, runs, then the
// completion and resolve before the next can be dispatched.
TEST(SchedulerWaves, ChainTakesExactlyItsWorkPlusPerLinkCosts) {
  constexpr std::int64_t t = 700;
  constexpr int k = 6;
  const AicpuCosts costs = a2Costs();
  ExecuteGraph graph;
  addTask(graph, CoreType::AIV);
  for (int i = 1; i < k; ++i) addTask(graph, CoreType::AIV, {i - 1});
  SchedulerConfig cfg = config(4, 8, 2, costs, 0);
  FakeExecutor executor(t, t);
  Schedule schedule = runOrFail(graph, cfg, executor);
  expectWellFormed(graph, cfg, schedule);
  EXPECT_EQ(schedule.makespanCycles, costs.deviceTaskSubmitCycles + k * (costs.dispatchCycles + t) +
                                         (k - 1) * (costs.completionCycles + costs.resolveCycles));
}

struct Reference {
  std::int64_t work[2] = {0, 0};  // per core type
  std::int64_t criticalPath = 0;
};

// Total work per core type and the longest duration-weighted path, computed
// directly from the graph (predecessors have smaller ids).
Reference reference(const ExecuteGraph& graph, const std::vector<std::int64_t>& durations) {
  Reference ref;
  std::vector<std::int64_t> finish(graph.tasks.size(), 0);
  for (const Task& task : graph.tasks) {
    std::int64_t begin = 0;
    for (TaskId p : task.predecessors) begin = std::max(begin, finish[static_cast<std::size_t>(p)]);
    auto i = static_cast<std::size_t>(task.id);
    finish[i] = begin + durations[i];
    ref.work[static_cast<std::size_t>(task.coreType)] += durations[i];
    ref.criticalPath = std::max(ref.criticalPath, finish[i]);
  }
  return ref;
}

// For any DAG: max(W_type / p_type, critical path) <= makespan, and
//   makespan <= submit + sum_type W_type / p_type + critical path + n (d + c + r):
// at every moment before the end, the last-finishing chain is running, or
// all cores of its task's type are running, or some AICPU is busy.
TEST(SchedulerBounds, RandomDagsStayBetweenTheGrahamBounds) {
  for (std::uint32_t seed = 1; seed <= 24; ++seed) {
    std::mt19937 rng(seed * 7919u);
    const int n = std::uniform_int_distribution<int>(20, 160)(rng);
    const double edgeProbability = std::uniform_real_distribution<double>(0.0, 0.15)(rng);
    ExecuteGraph graph = randomDag(seed, n, edgeProbability);
    std::vector<std::int64_t> durations;
    for (int i = 0; i < n; ++i) durations.push_back(std::uniform_int_distribution<std::int64_t>(0, 20000)(rng));
    const int aic = std::uniform_int_distribution<int>(1, 8)(rng);
    const int aiv = std::uniform_int_distribution<int>(1, 16)(rng);
    const int aicpus = std::uniform_int_distribution<int>(1, 5)(rng);
    const int mode = static_cast<int>(seed % 4);
    const AicpuCosts costs = seed % 3 == 0 ? AicpuCosts{} : a2Costs();
    SchedulerConfig cfg = config(aic, aiv, aicpus, costs, mode);
    FakeExecutor executor(durations);
    Schedule schedule = runOrFail(graph, cfg, executor);
    expectWellFormed(graph, cfg, schedule);

    const Reference ref = reference(graph, durations);
    const double perCoreAic = static_cast<double>(ref.work[0]) / aic;
    const double perCoreAiv = static_cast<double>(ref.work[1]) / aiv;
    const double lower = std::max({perCoreAic, perCoreAiv, static_cast<double>(ref.criticalPath)});
    const double upper = static_cast<double>(costs.deviceTaskSubmitCycles) + perCoreAic + perCoreAiv +
                         static_cast<double>(ref.criticalPath) +
                         static_cast<double>(n) * static_cast<double>(costs.dispatchCycles + costs.completionCycles +
                                                                      costs.resolveCycles);
    const auto makespan = static_cast<double>(schedule.makespanCycles);
    EXPECT_GE(makespan, lower) << "seed " << seed;
    EXPECT_LE(makespan, upper) << "seed " << seed;
    std::int64_t busy = 0;
    for (std::int64_t cycles : schedule.aicpuBusyCycles) busy += cycles;
    EXPECT_EQ(busy, n * (costs.dispatchCycles + costs.completionCycles + costs.resolveCycles)) << "seed " << seed;
  }
}

} // namespace
} // namespace pto::testing
