// Bound class: per-class busy time is the union of the class's pipe
// intervals clipped to the task (computed by hand for each case here), the
// dominant class wins, ties go to the earlier class, unknown pipes are
// ignored, and a task without pipe data is Unknown.
#include "widgets/models/BoundClass.h"

#include <gtest/gtest.h>

namespace pto::widgets {
namespace {

trace::TaskIndex addTask(trace::Trace& trace, std::int64_t start, std::int64_t end,
                         std::vector<std::tuple<const char*, std::int64_t, std::int64_t>> pipes) {
  trace::Task task;
  task.lane = trace.lanes().empty() ? trace.addLane("AIC_0", 0) : 0;
  task.startNs = start;
  task.endNs = end;
  std::vector<trace::PipeInterval> intervals;
  for (auto [pipe, from, to] : pipes) intervals.push_back({from, to, trace.intern(pipe)});
  return trace.addTask(task, intervals);
}

TEST(BoundClass, PipesMapToClassesIgnoringCase) {
  EXPECT_EQ(boundClassOfPipe("MTE2"), BoundClass::MemoryIn);
  EXPECT_EQ(boundClassOfPipe("mte1"), BoundClass::MemoryIn);
  EXPECT_EQ(boundClassOfPipe("CUBE"), BoundClass::Cube);
  EXPECT_EQ(boundClassOfPipe("VECTOR"), BoundClass::Vector);
  EXPECT_EQ(boundClassOfPipe("v"), BoundClass::Vector);
  EXPECT_EQ(boundClassOfPipe("MTE3"), BoundClass::MemoryOut);
  EXPECT_EQ(boundClassOfPipe("FIXPIPE"), BoundClass::MemoryOut);
  EXPECT_EQ(boundClassOfPipe("SCALAR"), BoundClass::Scalar);
  EXPECT_EQ(boundClassOfPipe("FAKE"), std::nullopt);
  EXPECT_EQ(boundClassOfPipe(""), std::nullopt);
}

TEST(BoundClass, TheClassWithMostUnionTimeInsideTheTaskWins) {
  trace::Trace trace;
  // Task [100, 200): MTE2 [90, 130) clipped to 30 and MTE1 [120, 150) → memory-in union [100, 150) = 50;
  // VECTOR [130, 170) and [160, 195) → union [130, 195) = 65; SCALAR [100, 110) = 10; FAKE is ignored.
  trace::TaskIndex vector = addTask(trace, 100, 200,
                                    {{"MTE2", 90, 130}, {"MTE1", 120, 150}, {"VECTOR", 130, 170}, {"VECTOR", 160, 195},
                                     {"SCALAR", 100, 110}, {"FAKE", 100, 200}});
  // Memory-out dominated: MTE3 60 of 100, FIXPIPE overlapping it adds 10 more.
  trace::TaskIndex out = addTask(trace, 200, 300, {{"MTE3", 220, 280}, {"FIXPIPE", 270, 290}, {"CUBE", 200, 230}});
  // A tie (40 each) between cube and vector goes to cube (listed first).
  trace::TaskIndex tie = addTask(trace, 300, 400, {{"CUBE", 300, 340}, {"VECTOR", 350, 390}});
  trace::TaskIndex none = addTask(trace, 400, 500, {});
  trace::TaskIndex unknownOnly = addTask(trace, 500, 600, {{"FAKE", 500, 600}});
  trace.finalize();

  auto busy = boundBusyNs(trace, vector);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::MemoryIn)], 50);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::Vector)], 65);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::Scalar)], 10);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::Cube)], 0);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::Unknown)], 0);
  EXPECT_EQ(boundClassOf(trace, vector), BoundClass::Vector);

  busy = boundBusyNs(trace, out);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::MemoryOut)], 70);
  EXPECT_EQ(busy[static_cast<std::size_t>(BoundClass::Cube)], 30);
  EXPECT_EQ(boundClassOf(trace, out), BoundClass::MemoryOut);
  EXPECT_EQ(boundClassOf(trace, tie), BoundClass::Cube);
  EXPECT_EQ(boundClassOf(trace, none), BoundClass::Unknown);
  EXPECT_EQ(boundClassOf(trace, unknownOnly), BoundClass::Unknown);
  EXPECT_EQ(name(BoundClass::MemoryIn), "memory-in");
  EXPECT_EQ(pipesOf(BoundClass::MemoryOut), "MTE3, FIXPIPE");
}

} // namespace
} // namespace pto::widgets
