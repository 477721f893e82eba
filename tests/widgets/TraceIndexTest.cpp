// TraceIndex: successors, critical path, dependency neighbourhoods, search,
// source-line lookup — each against a hand-built trace whose answers are
// known by construction.
#include "widgets/models/TraceIndex.h"
#include "widgets/models/TraceLoading.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace pto::widgets {
namespace {

// Two cores. AIV_0: a [0,5), b [10,30) (after a). AIC_0: c [5,15)
// (after a), e [15,38) (no producers), d [40,50) (after b and c). d's
// producers end at 30 and 15, but its core is busy with e until 38.
struct FiveTaskTrace {
  std::shared_ptr<trace::Trace> trace = std::make_shared<trace::Trace>();
  TaskIndex a, b, c, d, e;
  FiveTaskTrace() {
    LaneIndex aiv = trace->addLane("AIV_0", 0);
    LaneIndex aic = trace->addLane("AIC_0", 0);
    auto add = [&](LaneIndex lane, std::int64_t id, std::int64_t start, std::int64_t end, const char* label, int line) {
      trace::Task task;
      task.lane = lane;
      task.id = id;
      task.startNs = start;
      task.endNs = end;
      task.label = trace->intern(label);
      task.name = trace->intern(std::string(label) + "-task");
      task.sourceFile = trace->intern("ops/kernel.py");
      task.sourceLine = line;
      return trace->addTask(task);
    };
    a = add(aiv, 100, 0, 5, "load", 5);
    b = add(aiv, 101, 10, 30, "Softmax", 7);
    c = add(aic, 102, 5, 15, "matmul", 9);
    e = add(aic, 104, 15, 38, "matmul", 9);
    d = add(aic, 103, 40, 50, "matmul", 11);
    trace->addDependency(a, b);
    trace->addDependency(a, c);
    trace->addDependency(b, d);
    trace->addDependency(c, d);
    trace->finalize();
  }
};

TEST(TraceIndex, SuccessorsInvertPredecessors) {
  FiveTaskTrace f;
  TraceIndex index(f.trace);
  std::set<std::pair<TaskIndex, TaskIndex>> fromPreds, fromSuccs;
  for (TaskIndex t = 0; t < f.trace->tasks().size(); ++t) {
    for (TaskIndex p : f.trace->predecessors(t)) fromPreds.insert({p, t});
    for (TaskIndex s : index.successors(t)) fromSuccs.insert({t, s});
  }
  EXPECT_EQ(fromPreds, fromSuccs);
  EXPECT_EQ(fromPreds.size(), 4u);
}

TEST(TraceIndex, ExtentSummaryAndLaneOrder) {
  FiveTaskTrace f;
  TraceIndex index(f.trace);
  EXPECT_EQ(index.startNs(), 0);
  EXPECT_EQ(index.endNs(), 50);
  EXPECT_EQ(index.summary(trace::LaneKind::Aic).tasks, 3u);
  EXPECT_EQ(index.summary(trace::LaneKind::Aic).busyNs, 10 + 23 + 10);
  EXPECT_EQ(index.summary(trace::LaneKind::Aiv).busyNs, 5 + 20);
  EXPECT_EQ(index.summary(trace::LaneKind::Aiv).lanes, 1);
  // Same sort index: AIC before AIV.
  EXPECT_EQ(index.laneOrder(), (std::vector<LaneIndex>{1, 0}));
  EXPECT_EQ(index.laneMaxDurNs(1), 23);
}

TEST(TraceIndex, CriticalPathFollowsWhatEachStartWaitedFor) {
  FiveTaskTrace f;
  TraceIndex index(f.trace);
  // d ends last; its producers end at 30 (b) and 15 (c), but its core was
  // busy with e until 38: e gated it. e's core was freed by c at 15; c
  // waited for a.
  EXPECT_EQ(index.criticalPath(), (std::vector<TaskIndex>{f.a, f.c, f.e, f.d}));
  EXPECT_TRUE(index.onCriticalPath(f.e));
  EXPECT_FALSE(index.onCriticalPath(f.b));
}

TEST(TraceIndex, DependencyEdgesByDepth) {
  FiveTaskTrace f;
  TraceIndex index(f.trace);
  auto asSet = [](const std::vector<DependencyEdge>& edges) {
    std::set<std::pair<TaskIndex, TaskIndex>> set;
    for (const DependencyEdge& e : edges) set.insert({e.producer, e.consumer});
    return set;
  };
  std::vector<DependencyEdge> one = index.dependencyEdges(f.b, 1);
  EXPECT_EQ(asSet(one), (std::set<std::pair<TaskIndex, TaskIndex>>{{f.a, f.b}, {f.b, f.d}}));
  for (const DependencyEdge& e : one) EXPECT_EQ(e.upstream, e.consumer == f.b);
  // From a, depth 2 reaches d through b and through c; depth 0 (all) is the same here.
  EXPECT_EQ(asSet(index.dependencyEdges(f.a, 1)).size(), 2u);
  EXPECT_EQ(asSet(index.dependencyEdges(f.a, 2)).size(), 4u);
  EXPECT_EQ(asSet(index.dependencyEdges(f.a, 0)).size(), 4u);
  EXPECT_EQ(index.dependencyEdges(f.a, 0, 3).size(), 3u);  // capped
}

TEST(TraceIndex, FindByIdIndexLabelAndName) {
  FiveTaskTrace f;
  TraceIndex index(f.trace);
  EXPECT_EQ(index.find("103"), (std::vector<TaskIndex>{f.d}));
  EXPECT_EQ(index.find(" #1 "), (std::vector<TaskIndex>{1}));
  EXPECT_EQ(index.find("#99"), std::vector<TaskIndex>{});
  EXPECT_EQ(index.find("softmax"), (std::vector<TaskIndex>{f.b}));  // labels ignore case
  EXPECT_EQ(index.find("MATMUL"), (std::vector<TaskIndex>{f.c, f.e, f.d}));
  EXPECT_EQ(index.find("load-ta"), (std::vector<TaskIndex>{f.a}));  // name substring
  EXPECT_TRUE(index.find("").empty());
  EXPECT_TRUE(index.find("nothing").empty());
}

TEST(TraceIndex, TasksAtLineMatchTheFileName) {
  FiveTaskTrace f;
  TraceIndex index(f.trace);
  EXPECT_EQ(index.tasksAtLine("/home/me/project/kernel.py", 9), (std::vector<TaskIndex>{f.c, f.e}));
  EXPECT_TRUE(index.tasksAtLine("other.py", 9).empty());
  EXPECT_TRUE(index.tasksAtLine("kernel.py", 8).empty());
  EXPECT_EQ(fileNameOf("a/b\\c.py"), "c.py");
}

// A fused task runs lines 9, 10 and 12 of kernel.py and line 3 of helpers.py; an unfused one line 10 only.
TEST(TraceIndex, TasksAtLineFindFusedTasksByEveryLineTheyRun) {
  auto trace = std::make_shared<trace::Trace>();
  const LaneIndex lane = trace->addLane("AIV_0", 0);
  auto add = [&](std::int64_t start, int line, const char* lines) {
    trace::Task task;
    task.lane = lane;
    task.startNs = start;
    task.endNs = start + 5;
    task.sourceFile = trace->intern("ops/kernel.py");
    task.sourceLine = line;
    std::vector<trace::TaskArg> args{{trace->intern("loop"), trace->intern("b=0"), false}};
    if (*lines) args.push_back({trace->intern(trace::kTaskLinesArg), trace->intern(lines), false});
    return trace->addTask(task, {}, args);
  };
  const TaskIndex fused = add(0, 9, "9, 10, 12, lib/helpers.py:3");
  const TaskIndex single = add(10, 10, "");
  trace->finalize();
  TraceIndex index(trace);
  EXPECT_EQ(index.tasksAtLine("kernel.py", 9), (std::vector<TaskIndex>{fused}));
  EXPECT_EQ(index.tasksAtLine("/home/me/kernel.py", 10), (std::vector<TaskIndex>{fused, single}));
  EXPECT_EQ(index.tasksAtLine("kernel.py", 12), (std::vector<TaskIndex>{fused}));
  EXPECT_TRUE(index.tasksAtLine("kernel.py", 11).empty());
  EXPECT_TRUE(index.tasksAtLine("kernel.py", 1).empty()) << "not a prefix of 12 or 10";
  EXPECT_TRUE(index.tasksAtLine("kernel.py", 3).empty()) << "line 3 is the helper's";
  EXPECT_EQ(index.tasksAtLine("helpers.py", 3), (std::vector<TaskIndex>{fused}));
  EXPECT_TRUE(index.tasksAtLine("helpers.py", 9).empty());
  EXPECT_TRUE(index.tasksAtLine("other.py", 10).empty());
}

TEST(TraceIndex, EmptyTrace) {
  auto trace = std::make_shared<trace::Trace>();
  trace->finalize();
  TraceIndex index(trace);
  EXPECT_EQ(index.makespanNs(), 0);
  EXPECT_TRUE(index.criticalPath().empty());
  EXPECT_TRUE(index.find("x").empty());
}

} // namespace
} // namespace pto::widgets

// A trace file bigger than PTO_MAX_TRACE_BYTES is refused before it is read,
// with the limit and how to raise it in the error.
TEST(TraceLoading, AFileOverTheTraceSizeLimitIsRefusedNamingTheLimit) {
  const std::string fixture = std::string(PTO_SOURCE_DIR) + "/tests/trace/fixtures/merged_swimlane.json";
  ASSERT_TRUE(std::filesystem::exists(fixture)) << fixture;
  ASSERT_EQ(::setenv("PTO_MAX_TRACE_BYTES", "100", 1), 0);
  pto::widgets::TraceLoadResult refused = pto::widgets::loadTraceFile(fixture);
  ::unsetenv("PTO_MAX_TRACE_BYTES");
  EXPECT_FALSE(refused.index);
  EXPECT_NE(refused.error.find(fixture), std::string::npos) << refused.error;
  EXPECT_NE(refused.error.find("more than the limit of 100 trace bytes (PTO_MAX_TRACE_BYTES); raise it with "
                               "PTO_MAX_TRACE_BYTES=N"),
            std::string::npos)
      << refused.error;
  pto::widgets::TraceLoadResult loaded = pto::widgets::loadTraceFile(fixture);
  EXPECT_TRUE(loaded.index) << loaded.error;
}
