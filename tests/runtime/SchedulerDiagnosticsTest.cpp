// What the scheduler says when a graph or configuration cannot run, or an
// executor breaks its contract: the full message text, and no hang.
#include "RuntimeTestSupport.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

std::string failure(const ExecuteGraph& graph, const SchedulerConfig& cfg, Executor& executor) {
  DiagnosticEngine diags;
  std::optional<Schedule> schedule = Scheduler(cfg).run(graph, executor, diags);
  EXPECT_FALSE(schedule.has_value());
  EXPECT_TRUE(diags.hasErrors());
  return messages(diags);
}

std::string failure(const ExecuteGraph& graph, const SchedulerConfig& cfg) {
  FakeExecutor executor(10, 10);
  return failure(graph, cfg, executor);
}

TEST(SchedulerDiagnostics, DependencyCycleNamesItsTasks) {
  ExecuteGraph graph = independentTasks(4, CoreType::AIV);
  graph.tasks[1].predecessors = {3};
  graph.tasks[2].predecessors = {1};
  graph.tasks[3].predecessors = {2};
  EXPECT_EQ(failure(graph, config(1, 1, 1)),
            "dependency cycle among tasks 1 -> 2 -> 3 -> 1 (each feeds the next): none of them can ever become ready\n");
}

TEST(SchedulerDiagnostics, TaskWaitingForItselfIsACycle) {
  ExecuteGraph graph = independentTasks(2, CoreType::AIC);
  graph.tasks[1].predecessors = {1};
  EXPECT_EQ(failure(graph, config(1, 1, 1)),
            "dependency cycle among tasks 1 -> 1 (each feeds the next): none of them can ever become ready\n");
}

TEST(SchedulerDiagnostics, MissingPredecessor) {
  ExecuteGraph graph = independentTasks(5, CoreType::AIV);
  graph.tasks[4].predecessors = {1, 9};
  EXPECT_EQ(failure(graph, config(1, 1, 1)),
            "task 4 depends on task 9, which does not exist: the graph has 5 tasks\n");
}

TEST(SchedulerDiagnostics, TasksOfACoreTypeWithNoCores) {
  ExecuteGraph graph;
  addTask(graph, CoreType::AIC);
  addTask(graph, CoreType::AIV, {0});
  addTask(graph, CoreType::AIC);
  EXPECT_EQ(failure(graph, config(0, 4, 1)),
            "tasks 0, 2 need an AIC core, but the runtime has 0 AIC cores: they can never run\n");
  EXPECT_EQ(failure(independentTasks(1, CoreType::AIV), config(2, 0, 1)),
            "task 0 needs an AIV core, but the runtime has 0 AIV cores: it can never run\n");
}

TEST(SchedulerDiagnostics, ManyStrandedTasksAreAbbreviated) {
  EXPECT_EQ(failure(independentTasks(13, CoreType::AIC), config(0, 1, 1)),
            "tasks 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 3 more need an AIC core, but the runtime has 0 AIC cores: "
            "they can never run\n");
}

TEST(SchedulerDiagnostics, TaskIdsMustBePositions) {
  ExecuteGraph graph = independentTasks(3, CoreType::AIV);
  graph.tasks[2].id = 5;
  EXPECT_EQ(failure(graph, config(1, 1, 1)),
            "the task at position 2 has id 5; task ids must equal their positions\n");
}

TEST(SchedulerDiagnostics, BadConfiguration) {
  ExecuteGraph graph = independentTasks(1, CoreType::AIV);
  EXPECT_EQ(failure(graph, config(1, 1, 0)), "the runtime needs at least one AICPU scheduler thread, got 0\n");
  EXPECT_EQ(failure(graph, config(1, 1, 1, {}, 4)), "device_sched_mode must be 0, 1, 2 or 3, got 4\n");
  SchedulerConfig noStitch = config(1, 1, 1);
  noStitch.stitchFunctionMaxNum = 0;
  EXPECT_EQ(failure(graph, noStitch), "stitch_function_max_num must be at least 1, got 0\n");
  AicpuCosts negative;
  negative.dispatchCycles = -1;
  EXPECT_EQ(failure(graph, config(1, 1, 1, negative)), "scheduler costs must not be negative\n");
}

// Executors that break the protocol: the run stops with an internal error.
class SilentExecutor : public Executor {
public:
  void reset(const ExecuteGraph&) override {}
  void start(const Task&, CoreId, std::int64_t) override {}
  std::optional<Completion> nextCompletion() const override { return std::nullopt; }
  void finish(TaskId, std::int64_t, std::vector<PipeInterval>&) override {}
};

class StuckExecutor : public SilentExecutor {
public:
  void start(const Task& task, CoreId, std::int64_t startCycle) override { m_last = Completion{task.id, startCycle + 5}; }
  std::optional<Completion> nextCompletion() const override { return m_last; }  // never retired

private:
  std::optional<Completion> m_last;
};

TEST(SchedulerDiagnostics, ExecutorThatNeverReportsCompletions) {
  SilentExecutor executor;
  EXPECT_EQ(failure(independentTasks(3, CoreType::AIV), config(1, 2, 1), executor),
            "internal error: the executor reports no completion for running tasks 0, 1\n");
}

TEST(SchedulerDiagnostics, ExecutorThatRepeatsACompletion) {
  StuckExecutor executor;
  EXPECT_EQ(failure(independentTasks(1, CoreType::AIV), config(1, 2, 1), executor),
            "internal error: the executor reported task 0 finishing at cycle 5, but it is not running\n");
}

} // namespace
} // namespace pto::testing
