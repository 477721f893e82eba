// Graph builders, costs and schedule checks shared by the scheduler tests.
#include "RuntimeTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace pto::testing {

TaskId addTask(ExecuteGraph& graph, CoreType type, std::vector<TaskId> predecessors) {
  Task task;
  task.id = static_cast<TaskId>(graph.tasks.size());
  task.coreType = type;
  std::sort(predecessors.begin(), predecessors.end());
  for (TaskId p : predecessors) {
    graph.tasks[static_cast<std::size_t>(p)].successors.push_back(task.id);
    ++graph.edgeCount;
  }
  task.predecessors = std::move(predecessors);
  graph.tasks.push_back(std::move(task));
  return graph.tasks.back().id;
}

ExecuteGraph independentTasks(int count, CoreType type) {
  ExecuteGraph graph;
  for (int i = 0; i < count; ++i) addTask(graph, type);
  return graph;
}

ExecuteGraph randomDag(std::uint32_t seed, int count, double edgeProbability) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ExecuteGraph graph;
  for (int i = 0; i < count; ++i) {
    std::vector<TaskId> predecessors;
    for (int p = 0; p < i; ++p)
      if (unit(rng) < edgeProbability) predecessors.push_back(p);
    addTask(graph, unit(rng) < 0.4 ? CoreType::AIC : CoreType::AIV, predecessors);
  }
  return graph;
}

AicpuCosts a2Costs() {
  AicpuCosts costs;
  costs.dispatchCycles = 200;
  costs.resolveCycles = 390;
  costs.completionCycles = 240;
  costs.deviceTaskSubmitCycles = 100;
  costs.stitchCycles = 10000;
  return costs;
}

SchedulerConfig config(int aicCores, int aivCores, int aicpuCount, AicpuCosts costs, int mode) {
  SchedulerConfig result;
  result.aicCores = aicCores;
  result.aivCores = aivCores;
  result.aicpuCount = aicpuCount;
  result.costs = costs;
  result.deviceSchedMode = mode;
  return result;
}

std::string messages(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& d : diags.diagnostics()) text += d.message + "\n";
  return text;
}

Schedule runOrFail(const ExecuteGraph& graph, const SchedulerConfig& config, Executor& executor) {
  DiagnosticEngine diags;
  std::optional<Schedule> schedule = Scheduler(config).run(graph, executor, diags);
  EXPECT_TRUE(schedule.has_value()) << messages(diags);
  EXPECT_FALSE(diags.hasErrors()) << messages(diags);
  return schedule ? std::move(*schedule) : Schedule{};
}

void expectWellFormed(const ExecuteGraph& graph, const SchedulerConfig& config, const Schedule& schedule) {
  const AicpuCosts& costs = config.costs;
  ASSERT_EQ(schedule.tasks.size(), graph.tasks.size());
  std::map<CoreId, std::vector<const TaskRecord*>> byCore;
  std::int64_t latestEnd = 0;
  for (const Task& task : graph.tasks) {
    const TaskRecord& r = schedule.tasks[static_cast<std::size_t>(task.id)];
    EXPECT_EQ(r.task, task.id);
    EXPECT_EQ(r.core.type, task.coreType) << "task " << task.id;
    EXPECT_GE(r.core.index, 0);
    EXPECT_LT(r.core.index, config.cores(task.coreType));
    EXPECT_LE(r.readyCycle, r.dispatchCycle) << "task " << task.id;
    // On landing, or (a pending slot) when the core's running task ends, never before the dispatch lands.
    if (config.coreTaskSlots == 1) EXPECT_EQ(r.startCycle, r.dispatchCycle + costs.dispatchCycles) << "task " << task.id;
    else EXPECT_GE(r.startCycle, r.dispatchCycle + costs.dispatchCycles) << "task " << task.id;
    EXPECT_LE(r.startCycle, r.endCycle) << "task " << task.id;
    EXPECT_GE(r.resolvedCycle, r.endCycle + costs.completionCycles + costs.resolveCycles) << "task " << task.id;
    EXPECT_GE(r.dispatchAicpu, 0);
    EXPECT_LT(r.dispatchAicpu, config.aicpuCount);
    EXPECT_GE(r.completionAicpu, 0);
    EXPECT_LT(r.completionAicpu, config.aicpuCount);
    for (TaskId p : task.predecessors) {
      const TaskRecord& producer = schedule.tasks[static_cast<std::size_t>(p)];
      EXPECT_GE(r.readyCycle, producer.resolvedCycle) << "task " << task.id << " ready before producer " << p;
      EXPECT_GE(r.startCycle, producer.endCycle) << "task " << task.id << " started before producer " << p;
    }
    byCore[r.core].push_back(&r);
    latestEnd = std::max(latestEnd, r.endCycle);
  }
  EXPECT_EQ(schedule.makespanCycles, latestEnd);
  // A core holds at most coreTaskSlots tasks from dispatch until their completion has been noticed, and
  // runs one at a time.
  const auto slots = static_cast<std::size_t>(config.coreTaskSlots);
  for (auto& [core, records] : byCore) {
    std::sort(records.begin(), records.end(),
              [](const TaskRecord* a, const TaskRecord* b) { return a->dispatchCycle < b->dispatchCycle; });
    for (std::size_t i = 1; i < records.size(); ++i)
      EXPECT_GE(records[i]->startCycle, records[i - 1]->endCycle)
          << "tasks " << records[i - 1]->task << " and " << records[i]->task << " overlap on one core";
    for (std::size_t i = slots; i < records.size(); ++i)
      EXPECT_GE(records[i]->dispatchCycle, records[i - slots]->endCycle + costs.completionCycles)
          << "task " << records[i]->task << " was handed a core holding " << slots << " tasks";
  }
}

} // namespace pto::testing
