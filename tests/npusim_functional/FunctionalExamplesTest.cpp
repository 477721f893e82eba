// The example projects (resources/examples) traced, compiled and executed in functional mode: every output
// must meet the project's own tolerance against the reference interpreter's golden (softmax: rtol 1e-5,
// atol 1e-6; matmul fp16 -> fp32: 1e-3 / 1e-3; muls_add_matmul_rowsum: the project's, or the fp32
// default). Also the per-task entry point: tasks run one by one in a random order that respects the
// dependencies give the same golden.
#include "analysis/simulation/PrecisionCompare.h"
#include "analysis/run/ProjectRun.h"
#include "compiler/frontend/ProjectTrace.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "core/project/ArgumentData.h"
#include "core/project/ProjectFile.h"
#include "npusim/FunctionalExecutor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace pto {
namespace {

std::string messagesOf(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics()) text += diags.format(diagnostic) + "\n";
  return text;
}

struct PreparedExample {
  OperatorProject project;
  TensorGraph graph;
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> golden;
  std::optional<CompileResult> compiled;
};

class FunctionalExamples : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1); }

  // Traced, with the project's arguments, the golden and the compilation (as runProject makes them).
  static std::optional<PreparedExample> prepare(const std::string& name) {
    DiagnosticEngine diags;
    auto project = loadProject(std::filesystem::path(PTO_SOURCE_DIR) / "resources/examples" / name, diags);
    EXPECT_TRUE(project) << messagesOf(diags);
    if (!project) return std::nullopt;
    PreparedExample example{*project, {}, {}, {}, std::nullopt};
    auto graph = traceProject(example.project, diags);
    EXPECT_TRUE(graph) << messagesOf(diags);
    if (!graph) return std::nullopt;
    example.graph = std::move(*graph);
    SourceLocation where{example.project.file.string()};
    for (std::size_t i = 0; i < example.project.args.size(); ++i) {
      const KernelArgument& arg = example.project.args[i];
      auto data = makeArgumentData(arg, *example.project.concreteShape(arg), example.project.directory(), diags, where,
                                   static_cast<int>(i));
      EXPECT_TRUE(data) << messagesOf(diags);
      if (!data) return std::nullopt;
      example.inputs.push_back(std::move(*data));
    }
    EXPECT_EQ(example.inputs.size(), example.graph.arguments.size());
    for (const HostTensor& input : example.inputs) example.golden.push_back(input.contiguous());
    EXPECT_TRUE(runReference(example.graph, example.golden, diags)) << messagesOf(diags);
    auto settings = compileSettingsFor(example.project, example.graph, example.inputs, diags);
    EXPECT_TRUE(settings) << messagesOf(diags);
    if (!settings) return std::nullopt;
    example.compiled = compileKernel(example.graph, *settings, diags);
    EXPECT_TRUE(example.compiled) << messagesOf(diags);
    if (!example.compiled) return std::nullopt;
    return example;
  }

  static void expectGolden(const PreparedExample& example, const std::vector<HostTensor>& actual) {
    for (TensorId id : example.graph.writtenArguments()) {
      const std::size_t index = static_cast<std::size_t>(example.graph.tensor(id).argumentIndex);
      const std::string& argName = example.graph.tensor(id).name;
      const KernelArgument* arg = example.project.findArgument(argName);
      const Tolerance tolerance = arg ? example.project.toleranceFor(*arg) : defaultTolerance(actual[index].dtype());
      const OutputComparison comparison = compareOutput(actual[index], example.golden[index], tolerance);
      EXPECT_TRUE(comparison.pass()) << argName << ": " << comparison.mismatches << " of " << comparison.elements
                                     << " elements off (max abs " << comparison.maxAbsError << ", max rel "
                                     << comparison.maxRelError << "; rtol " << tolerance.rtol << ", atol "
                                     << tolerance.atol << ")";
    }
  }

  static void runWhole(const std::string& name) {
    std::optional<PreparedExample> example = prepare(name);
    ASSERT_TRUE(example);
    std::vector<HostTensor> actual;
    for (const HostTensor& input : example->inputs) actual.push_back(input.contiguous());
    DiagnosticEngine diags;
    ASSERT_TRUE(executeFunctional(example->compiled->compilation, actual, diags)) << messagesOf(diags);
    EXPECT_EQ(diags.diagnostics().size(), 0u) << messagesOf(diags);
    expectGolden(*example, actual);
  }
};

TEST_F(FunctionalExamples, SoftmaxMeetsItsGolden) { runWhole("softmax"); }
TEST_F(FunctionalExamples, MatmulMeetsItsGolden) { runWhole("matmul"); }
TEST_F(FunctionalExamples, MulsAddMatmulRowsumMeetsItsGolden) { runWhole("muls_add_matmul_rowsum"); }

TEST_F(FunctionalExamples, TasksRunOneByOneInAnyDependencyOrderMeetTheGolden) {
  for (const std::string name : {"softmax", "muls_add_matmul_rowsum"}) {
    SCOPED_TRACE(name);
    std::optional<PreparedExample> example = prepare(name);
    ASSERT_TRUE(example);
    const Compilation& compilation = example->compiled->compilation;
    std::vector<HostTensor> actual;
    for (const HostTensor& input : example->inputs) actual.push_back(input.contiguous());
    DiagnosticEngine diags;
    std::unique_ptr<FunctionalExecutor> executor = FunctionalExecutor::create(compilation, actual, diags);
    ASSERT_TRUE(executor) << messagesOf(diags);
    // A random topological order: any ready task next, on a random core.
    const std::vector<Task>& tasks = compilation.tasks.tasks;
    std::vector<std::size_t> waiting(tasks.size());
    std::vector<TaskId> ready;
    for (const Task& task : tasks) {
      waiting[static_cast<std::size_t>(task.id)] = task.predecessors.size();
      if (task.predecessors.empty()) ready.push_back(task.id);
    }
    std::mt19937 random(7);
    std::size_t done = 0;
    while (!ready.empty()) {
      std::size_t pick = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(random);
      const Task& task = tasks[static_cast<std::size_t>(ready[pick])];
      ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
      ASSERT_TRUE(executor->executeTask(task, std::uniform_int_distribution<int>(0, 3)(random))) << messagesOf(diags);
      ++done;
      for (TaskId next : task.successors)
        if (--waiting[static_cast<std::size_t>(next)] == 0) ready.push_back(next);
    }
    EXPECT_EQ(done, tasks.size());
    EXPECT_EQ(executor->tasksExecuted(), static_cast<std::int64_t>(tasks.size()));
    expectGolden(*example, actual);
  }
}

} // namespace
} // namespace pto
