// The embedded frontend: tracing project kernels from C++, as pto and the IDE do.
#include "analysis/run/ProjectRun.h"
#include "compiler/frontend/KernelTracer.h"
#include "compiler/frontend/ProjectTrace.h"
#include "core/project/ProjectFile.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace pto {
namespace {

namespace fs = std::filesystem;

class KernelTracer : public ::testing::Test {
protected:
  static void SetUpTestSuite() { ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1); }

  OperatorProject example(const std::string& name) {
    DiagnosticEngine diags;
    auto project = loadProject(fs::path(PTO_SOURCE_DIR) / "resources/examples" / name, diags);
    EXPECT_TRUE(project);
    return *project;
  }
  static std::string kernelText(const OperatorProject& project) {
    std::ifstream in(project.sourcePath());
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  static int lineOf(const std::string& text, const std::string& needle) {
    std::size_t at = text.find(needle);
    return at == std::string::npos ? -1 : static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
  }
};

TEST_F(KernelTracer, SoftmaxGraphLinksOpsToKernelLines) {
  OperatorProject project = example("softmax");
  DiagnosticEngine diags;
  auto graph = traceProject(project, diags);
  ASSERT_TRUE(graph) << diags.format(diags.diagnostics().at(0));
  EXPECT_EQ(diags.diagnostics().size(), 0u);
  EXPECT_EQ(graph->kernelName, "softmax");
  ASSERT_EQ(graph->loops().size(), 1u);
  EXPECT_EQ(graph->loops()[0].name, "batch_loop");
  EXPECT_EQ(graph->loops()[0].indexSymbol, "b");
  std::string text = kernelText(project);
  bool sawExp = false;
  for (const TensorOp& op : graph->ops()) {
    EXPECT_EQ(op.location.file, project.sourcePath().string());
    EXPECT_EQ(op.label, "softmax");
    EXPECT_EQ(op.tiles.vec, (std::vector<std::int64_t>{1, 4, 1, 64}));
    EXPECT_EQ(op.loop, 0);
    if (op.kind == TensorOpKind::Exp) {
      sawExp = true;
      EXPECT_EQ(op.location.line, lineOf(text, "pypto.exp("));
    }
  }
  EXPECT_TRUE(sawExp);
  EXPECT_EQ(graph->writtenArguments(), std::vector<TensorId>{graph->arguments[1]});
}

TEST_F(KernelTracer, TracingTwiceGivesTheSameGraph) {
  OperatorProject project = example("muls_add_matmul_rowsum");
  DiagnosticEngine diags;
  auto first = traceProject(project, diags);
  auto second = traceProject(project, diags);
  ASSERT_TRUE(first && second);
  ASSERT_EQ(first->ops().size(), second->ops().size());
  for (std::size_t i = 0; i < first->ops().size(); ++i) {
    EXPECT_EQ(first->ops()[i].kind, second->ops()[i].kind);
    EXPECT_EQ(first->ops()[i].location, second->ops()[i].location);
    EXPECT_EQ(first->ops()[i].label, second->ops()[i].label);
  }
}

TEST_F(KernelTracer, UnsavedSourceTextIsWhatGetsTraced) {
  OperatorProject project = example("softmax");
  std::string text = kernelText(project);
  std::string edited = text;
  edited.replace(edited.find("pypto.exp("), 10, "pypto.exp2(");
  ProjectTraceOptions options;
  options.sourceText = edited;
  DiagnosticEngine diags;
  auto graph = traceProject(project, diags, options);
  ASSERT_TRUE(graph);
  bool sawExp2 = false;
  for (const TensorOp& op : graph->ops()) sawExp2 = sawExp2 || op.kind == TensorOpKind::Exp2;
  EXPECT_TRUE(sawExp2);
}

TEST_F(KernelTracer, CancellationStopsARunawayKernel) {
  OperatorProject project = example("softmax");
  ProjectTraceOptions options;
  options.sourceText = std::string("import pypto\n\n@pypto.frontend.jit\ndef softmax(x, y):\n    while True:\n        pass\n");
  std::atomic<bool> cancel = false;
  options.cancelled = [&] { return cancel.load(); };
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  DiagnosticEngine diags;
  auto start = std::chrono::steady_clock::now();
  auto graph = traceProject(project, diags, options);
  canceller.join();
  EXPECT_FALSE(graph);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(diags.errorCount(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message, "cancelled while tracing the kernel");
  EXPECT_EQ(diags.diagnostics()[0].location.line, 5);
  // The interpreter is usable afterwards: no interrupt is left pending.
  DiagnosticEngine again;
  EXPECT_TRUE(traceProject(project, again));
}

TEST_F(KernelTracer, TracesFromAnotherThread) {
  // The IDE traces on a worker thread while the main thread started Python.
  OperatorProject project = example("softmax");
  DiagnosticEngine mainDiags;
  ASSERT_TRUE(traceProject(project, mainDiags));
  bool ok = false;
  std::thread worker([&] {
    DiagnosticEngine diags;
    ok = traceProject(project, diags).has_value();
  });
  worker.join();
  EXPECT_TRUE(ok);
}

TEST_F(KernelTracer, ExamplesRunAndMatchTheirGolden) {
  for (const char* name : {"softmax", "matmul", "muls_add_matmul_rowsum"}) {
    OperatorProject project = example(name);
    DiagnosticEngine diags;
    auto run = runProject(project, diags);
    ASSERT_TRUE(run) << name << ": " << (diags.diagnostics().empty() ? "" : diags.format(diags.diagnostics()[0]));
    EXPECT_TRUE(run->pass()) << name;
    EXPECT_FALSE(run->outputs.empty()) << name;
  }
}

} // namespace
} // namespace pto
