// The bundled softmax and matmul examples, traced, compiled by the pipeline
// and simulated with simulateTiming on the a2: sanity bounds that hold for
// any correct timing model (the makespan covers the critical path of the
// task durations and total work / cores; every pipe interval lies inside its
// task; dependencies are respected) and determinism (two runs, one schedule).
#include "TimingTestSupport.h"

#include "analysis/run/ProjectRun.h"
#include "core/project/ArgumentData.h"
#include "core/project/ProjectFile.h"
#include "npusim/TimingRun.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace pto::testing {
namespace {

std::optional<Compilation> compileExample(const std::string& name) {
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + name, diags);
  EXPECT_TRUE(project) << messages(diags);
  if (!project) return std::nullopt;
  auto graph = traceProject(*project, diags);
  EXPECT_TRUE(graph) << messages(diags);
  if (!graph) return std::nullopt;
  std::vector<HostTensor> arguments;
  for (std::size_t i = 0; i < project->args.size(); ++i) {
    const KernelArgument& arg = project->args[i];
    arguments.push_back(*makeArgumentData(arg, *project->concreteShape(arg), project->directory(), diags, SourceLocation{},
                                          static_cast<int>(i)));
  }
  auto settings = compileSettingsFor(*project, *graph, arguments, diags);
  EXPECT_TRUE(settings) << messages(diags);
  if (!settings) return std::nullopt;
  auto compiled = compileKernel(*graph, *settings, diags);
  EXPECT_TRUE(compiled) << messages(diags);
  if (!compiled) return std::nullopt;
  return std::move(compiled->compilation);
}

void checkSane(const Compilation& compilation, const MachineDescription& machine, const Schedule& schedule) {
  const ExecuteGraph& graph = compilation.tasks;
  ASSERT_EQ(schedule.tasks.size(), graph.tasks.size());
  std::vector<std::int64_t> longest(graph.tasks.size(), 0);  // critical path ending at each task, by durations
  std::array<double, 2> work{};
  std::int64_t critical = 0;
  for (const Task& task : graph.tasks) {
    const TaskRecord& record = schedule.tasks[static_cast<std::size_t>(task.id)];
    EXPECT_GT(duration(record), 0) << "task " << task.id;
    std::int64_t ready = 0;
    for (TaskId p : task.predecessors) {
      ready = std::max(ready, longest[static_cast<std::size_t>(p)]);
      EXPECT_GE(record.startCycle, schedule.tasks[static_cast<std::size_t>(p)].endCycle) << task.id << " after " << p;
    }
    longest[static_cast<std::size_t>(task.id)] = ready + duration(record);
    critical = std::max(critical, longest[static_cast<std::size_t>(task.id)]);
    work[static_cast<std::size_t>(task.coreType)] += static_cast<double>(duration(record));
    for (const PipeInterval& interval : schedule.pipes(record)) {
      EXPECT_GE(interval.startCycle, record.startCycle) << "task " << task.id << " " << interval.pipe();
      EXPECT_LE(interval.endCycle, record.endCycle) << "task " << task.id << " " << interval.pipe();
      EXPECT_LT(interval.startCycle, interval.endCycle);
    }
    EXPECT_FALSE(schedule.pipes(record).empty()) << "task " << task.id;
  }
  EXPECT_GE(schedule.makespanCycles, critical);
  EXPECT_GE(static_cast<double>(schedule.makespanCycles), work[0] / machine.aicCores);
  EXPECT_GE(static_cast<double>(schedule.makespanCycles), work[1] / machine.aivCores);
}

void expectSameSchedule(const Schedule& a, const Schedule& b) {
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  EXPECT_EQ(a.makespanCycles, b.makespanCycles);
  for (std::size_t i = 0; i < a.tasks.size(); ++i) {
    const TaskRecord& x = a.tasks[i];
    const TaskRecord& y = b.tasks[i];
    const std::span<const PipeInterval> xPipes = a.pipes(x), yPipes = b.pipes(y);
    EXPECT_TRUE(x.core == y.core && x.startCycle == y.startCycle && x.endCycle == y.endCycle &&
                x.dispatchCycle == y.dispatchCycle && xPipes.size() == yPipes.size())
        << "task " << i;
    for (std::size_t j = 0; j < std::min(xPipes.size(), yPipes.size()); ++j)
      EXPECT_TRUE(xPipes[j].pipe() == yPipes[j].pipe() && xPipes[j].startCycle == yPipes[j].startCycle &&
                  xPipes[j].endCycle == yPipes[j].endCycle);
  }
}

class CompiledExamples : public ::testing::TestWithParam<std::string> {};

TEST_P(CompiledExamples, SimulateWithinSanityBoundsAndDeterministically) {
  std::optional<Compilation> compilation = compileExample(GetParam());
  ASSERT_TRUE(compilation);
  ASSERT_FALSE(compilation->tasks.tasks.empty());
  MachineDescription a2 = bundledMachine("a2");
  DiagnosticEngine diags;
  std::optional<Schedule> first = simulateTiming(*compilation, a2, {}, diags);
  ASSERT_TRUE(first) << messages(diags);
  checkSane(*compilation, a2, *first);
  std::optional<Schedule> second = simulateTiming(*compilation, a2, {}, diags);
  ASSERT_TRUE(second) << messages(diags);
  expectSameSchedule(*first, *second);
  // Other policies and a thread count also run.
  for (int mode : {1, 2, 3}) {
    std::optional<Schedule> other = simulateTiming(*compilation, a2, {mode, 2, 2}, diags);
    ASSERT_TRUE(other) << messages(diags);
    checkSane(*compilation, a2, *other);
  }
}

INSTANTIATE_TEST_SUITE_P(Timing, CompiledExamples, ::testing::Values("softmax", "matmul"));

} // namespace
} // namespace pto::testing
