// The Trace model: dependency ranges, timeline queries, memory per task.
#include "runtime/trace/Trace.h"

#include <gtest/gtest.h>

#include <iostream>
#include <limits>
#include <string>

namespace pto::trace {
namespace {

Task taskOn(LaneIndex lane, std::int64_t startNs, std::int64_t endNs, std::int64_t id) {
  Task task;
  task.id = id;
  task.lane = lane;
  task.startNs = startNs;
  task.endNs = endNs;
  task.dispatchNs = startNs;
  return task;
}

TEST(Trace, LaneKindsFollowPyPtoNames) {
  Trace trace;
  EXPECT_EQ(trace.lanes().size(), 0u);
  trace.addLane("AIC_0", 0);
  trace.addLane("AIV_3", 1);
  trace.addLane("AICPU_0", 2);
  trace.addLane("host", 3);
  EXPECT_EQ(trace.lanes()[0].kind, LaneKind::Aic);
  EXPECT_EQ(trace.lanes()[1].kind, LaneKind::Aiv);
  EXPECT_EQ(trace.lanes()[2].kind, LaneKind::Aicpu);
  EXPECT_EQ(trace.lanes()[3].kind, LaneKind::Other);
  EXPECT_EQ(trace.findLane("AIV_3"), 1u);
  EXPECT_FALSE(trace.findLane("AIV_4"));
}

TEST(Trace, FinalizeBuildsSortedDeduplicatedPredecessors) {
  Trace trace;
  LaneIndex lane = trace.addLane("AIV_0", 0);
  for (int i = 0; i < 4; ++i) trace.addTask(taskOn(lane, i * 10, i * 10 + 5, i));
  trace.addDependency(2, 3);
  trace.addDependency(0, 3);
  trace.addDependency(0, 3);
  trace.addDependency(0, 1);
  trace.finalize();
  EXPECT_EQ(trace.edgeCount(), 3u);
  EXPECT_EQ(std::vector<TaskIndex>(trace.predecessors(3).begin(), trace.predecessors(3).end()), (std::vector<TaskIndex>{0, 2}));
  EXPECT_EQ(trace.predecessors(1).size(), 1u);
  EXPECT_EQ(trace.predecessors(0).size(), 0u);
  // A second round keeps the first round's edges.
  trace.addDependency(1, 2);
  trace.finalize();
  EXPECT_EQ(trace.edgeCount(), 4u);
  EXPECT_EQ(trace.predecessors(3).size(), 2u);
  EXPECT_EQ(trace.predecessors(2)[0], 1u);
}

TEST(Trace, TimelineQueriesFollowPerfettoBinding) {
  Trace trace;
  LaneIndex lane = trace.addLane("AIC_0", 0);
  // Added out of order; [100,200) encloses [120,150); [300,300) has zero length.
  trace.addTask(taskOn(lane, 300, 300, 0));
  trace.addTask(taskOn(lane, 120, 150, 1));
  trace.addTask(taskOn(lane, 100, 200, 2));
  trace.finalize();
  EXPECT_EQ(trace.lanes()[lane].tasksByStart, (std::vector<TaskIndex>{2, 1, 0}));
  EXPECT_EQ(trace.enclosingTask(lane, 99), kNoTask);
  EXPECT_EQ(trace.enclosingTask(lane, 100), 2u);
  EXPECT_EQ(trace.enclosingTask(lane, 120), 1u);
  EXPECT_EQ(trace.enclosingTask(lane, 149), 1u);
  EXPECT_EQ(trace.enclosingTask(lane, 150), 2u);
  EXPECT_EQ(trace.enclosingTask(lane, 200), kNoTask);
  EXPECT_EQ(trace.enclosingTask(lane, 300), 0u);
  EXPECT_EQ(trace.nextTaskStartingAt(lane, 101), 1u);
  EXPECT_EQ(trace.nextTaskStartingAt(lane, 301), kNoTask);
  EXPECT_EQ(trace.tasksStartingIn(lane, 100, 300), (std::pair<std::size_t, std::size_t>{0, 2}));
}

// A million tasks, each with two predecessors and two pipe intervals, on 72
// cores: the model must hold them in <= 200 MB. The bound is computed from
// the struct sizes, so a growing Task shows up here first.
// Tasks are stored column by column: every field of every task reads back as
// added, before and after finalize(), with values from zero to the int64 and
// int32 extremes.
TEST(Trace, TaskFieldsReadBackAsAdded) {
  Trace trace;
  LaneIndex lanes[3] = {trace.addLane("AIC_0", 0), trace.addLane("AIV_0", 1), trace.addLane("AIV_1", 2)};
  std::vector<Task> added;
  for (int i = 0; i < 700; ++i) {
    Task task;
    task.id = i % 5 == 0 ? std::numeric_limits<std::int64_t>::max() - i : (i % 7 == 0 ? -i : i * 3);
    task.startNs = i % 11 == 0 ? std::numeric_limits<std::int64_t>::min() / 4 + i : static_cast<std::int64_t>(i) * 1000;
    task.endNs = task.startNs + (i % 13 == 0 ? std::int64_t{1} << 50 : i % 5);
    task.dispatchNs = task.startNs - (i % 3) * 17;
    task.seq = i % 9 == 0 ? std::numeric_limits<std::int32_t>::min() : i;
    task.subgraph = i % 4 == 0 ? -1 : i / 10;
    task.name = trace.intern("n" + std::to_string(i % 50));
    task.label = trace.intern("l" + std::to_string(i % 6));
    task.sourceFile = trace.intern(i % 2 ? "a.py" : "b.py");
    task.sourceLine = std::numeric_limits<std::int32_t>::max() - i;
    task.inputs = trace.intern("in" + std::to_string(i));
    task.outputs = i % 3 ? kEmptyString : trace.intern("out");
    task.lane = lanes[i % 3];
    PipeInterval pipe{task.startNs, task.endNs, trace.intern("V")};
    trace.addTask(task, i % 2 ? std::span<const PipeInterval>(&pipe, 1) : std::span<const PipeInterval>());
    added.push_back(task);
  }
  for (bool finalized : {false, true}) {
    if (finalized) trace.finalize();
    ASSERT_EQ(trace.tasks().size(), added.size());
    for (TaskIndex t = 0; t < added.size(); ++t) {
      const Task& a = added[t];
      const Task b = trace.tasks()[t];
      ASSERT_EQ(b.id, a.id) << t;
      ASSERT_EQ(b.startNs, a.startNs) << t;
      ASSERT_EQ(b.endNs, a.endNs) << t;
      ASSERT_EQ(b.dispatchNs, a.dispatchNs) << t;
      ASSERT_EQ(b.seq, a.seq) << t;
      ASSERT_EQ(b.subgraph, a.subgraph) << t;
      ASSERT_EQ(b.name, a.name) << t;
      ASSERT_EQ(b.label, a.label) << t;
      ASSERT_EQ(b.sourceFile, a.sourceFile) << t;
      ASSERT_EQ(b.sourceLine, a.sourceLine) << t;
      ASSERT_EQ(b.inputs, a.inputs) << t;
      ASSERT_EQ(b.outputs, a.outputs) << t;
      ASSERT_EQ(b.lane, a.lane) << t;
      ASSERT_EQ(trace.pipes(t).size(), t % 2 ? 1u : 0u) << t;
      ASSERT_EQ(trace.taskStartNs(t), a.startNs);
      ASSERT_EQ(trace.taskEndNs(t), a.endNs);
      ASSERT_EQ(trace.taskLane(t), a.lane);
    }
  }
}

TEST(Trace, MillionTasksFitInTwoHundredMegabytes) {
  constexpr std::size_t kTasks = 1'000'000;
  constexpr std::size_t kLanes = 72;
  Trace trace;
  trace.reserveTasks(kTasks, 2 * kTasks);
  for (std::size_t lane = 0; lane < kLanes; ++lane)
    trace.addLane((lane < 24 ? "AIC_" + std::to_string(lane) : "AIV_" + std::to_string(lane - 24)), static_cast<int>(lane));
  StringId labels[16];
  for (int i = 0; i < 16; ++i) labels[i] = trace.intern("op" + std::to_string(i));
  StringId mte2 = trace.intern("MTE2");
  StringId vector = trace.intern("V");
  for (std::size_t i = 0; i < kTasks; ++i) {
    Task task = taskOn(static_cast<LaneIndex>(i % kLanes), static_cast<std::int64_t>(i / kLanes) * 1000,
                       static_cast<std::int64_t>(i / kLanes) * 1000 + 900, static_cast<std::int64_t>(i));
    task.name = task.label = labels[i % 16];
    PipeInterval pipes[2] = {{task.startNs, task.startNs + 400, mte2}, {task.startNs + 400, task.endNs, vector}};
    TaskIndex index = trace.addTask(task, pipes);
    if (i >= 1) trace.addDependency(index - 1, index);
    if (i >= kLanes) trace.addDependency(static_cast<TaskIndex>(i - kLanes), index);
  }
  trace.finalize();
  ASSERT_EQ(trace.tasks().size(), kTasks);
  ASSERT_EQ(trace.edgeCount(), 2 * kTasks - 1 - kLanes);

  const std::size_t perTask = sizeof(Task) + sizeof(TaskIndex) /* lane order */ + 2 * sizeof(TaskIndex) /* preds */ +
                              2 * sizeof(PipeInterval);
  const std::size_t fixedSlack = 1 << 20;  // lanes, strings, the Trace object
  const std::size_t bytes = trace.memoryBytes();
  std::cout << "[ memory ] 1M tasks: " << bytes << " bytes (" << double(bytes) / kTasks << " B/task; sizeof(Task)="
            << sizeof(Task) << ", bound " << perTask << " B/task)\n";
  EXPECT_LE(bytes, perTask * kTasks + fixedSlack);
  EXPECT_LE(bytes, 200u * 1000 * 1000);
}

} // namespace
} // namespace pto::trace
