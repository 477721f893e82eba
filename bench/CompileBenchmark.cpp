// Compile and reference-run speed: the bundled examples (traced through the
// embedded interpreter once), and synthetic graphs whose size sweeps show
// how compile time grows with the number of tile ops.
#include "analysis/run/ProjectRun.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "core/ProcessMemory.h"
#include "core/project/ArgumentData.h"
#include "core/project/ProjectFile.h"

#include "BenchGraphs.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>

#include <sys/resource.h>

namespace pto {
namespace {

struct TracedExample {
  OperatorProject project;
  TensorGraph graph;
  CompileSettings settings;
  std::vector<HostTensor> arguments;
};

const TracedExample& example(const std::string& name) {
  static std::map<std::string, TracedExample> cache;
  auto found = cache.find(name);
  if (found != cache.end()) return found->second;
  ::setenv("PTO_PYTHON_PATH", PTO_PYTHON_PACKAGE_DIR, 1);
  DiagnosticEngine diags;
  TracedExample traced;
  traced.project = *loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + name, diags);
  traced.graph = *traceProject(traced.project, diags);
  for (std::size_t i = 0; i < traced.project.args.size(); ++i) {
    const KernelArgument& arg = traced.project.args[i];
    traced.arguments.push_back(*makeArgumentData(arg, *traced.project.concreteShape(arg), traced.project.directory(), diags,
                                                 SourceLocation{}, static_cast<int>(i)));
  }
  traced.settings = *compileSettingsFor(traced.project, traced.graph, traced.arguments, diags);
  return cache.emplace(name, std::move(traced)).first->second;
}

void compileExample(benchmark::State& state, const std::string& name) {
  const TracedExample& traced = example(name);
  std::size_t tileOps = 0;
  for (auto _ : state) {
    DiagnosticEngine diags;
    auto compiled = compileKernel(traced.graph, traced.settings, diags);
    if (!compiled) state.SkipWithError("compile failed");
    else tileOps = compiled->compilation.tiles.tileOps().size();
  }
  state.counters["tile_ops"] = static_cast<double>(tileOps);
}

void referenceExample(benchmark::State& state, const std::string& name) {
  const TracedExample& traced = example(name);
  for (auto _ : state) {
    std::vector<HostTensor> arguments;
    for (const HostTensor& tensor : traced.arguments) arguments.push_back(tensor.contiguous());
    DiagnosticEngine diags;
    if (!runReference(traced.graph, arguments, diags)) state.SkipWithError("reference run failed");
  }
}

BENCHMARK_CAPTURE(compileExample, softmax, std::string("softmax"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileExample, matmul, std::string("matmul"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compileExample, muls_add_matmul_rowsum, std::string("muls_add_matmul_rowsum"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(referenceExample, softmax, std::string("softmax"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(referenceExample, matmul, std::string("matmul"))->Unit(benchmark::kMillisecond);

long minorPageFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// The vector chain of BenchGraphs.h: `rows` sweeps the tile-op count linearly.
void compileSyntheticVector(benchmark::State& state) {
  const TensorGraph graph = vectorChainGraph(state.range(0));
  std::size_t tileOps = 0;
  // Page faults a tile op: the fresh memory the compile touches, which on a
  // virtual machine costs more to fault in than the work done in it (with
  // PTO_HEAP_HUGE_PAGES=0 each fault is a 4 KiB page; with huge pages, a
  // fault may be 2 MiB). A count, not a time: repeatable where times are not.
  const long faultsBefore = minorPageFaults();
  for (auto _ : state) {
    DiagnosticEngine diags;
    auto compiled = compileKernel(graph, CompileSettings{}, diags);
    if (!compiled) state.SkipWithError("compile failed");
    else {
      tileOps = compiled->compilation.tiles.tileOps().size();
      state.counters["subgraphs"] = static_cast<double>(compiled->compilation.blocks.subgraphs.size());
      state.counters["programs"] = static_cast<double>(compiled->compilation.programs.size());
      state.counters["tasks"] = static_cast<double>(compiled->compilation.tasks.tasks.size());
      // PTO_BENCH_PASS_MS=1: each pass's time too, to see which one grows faster than its input.
      if (std::getenv("PTO_BENCH_PASS_MS"))
        for (const PassRecord& record : compiled->passes) state.counters["ms_" + record.name] = record.milliseconds;
    }
  }
  state.counters["tile_ops"] = static_cast<double>(tileOps);
  state.counters["faults_per_op"] = static_cast<double>(minorPageFaults() - faultsBefore) /
                                    (static_cast<double>(tileOps) * static_cast<double>(state.iterations()));
  state.counters["tile_ops_per_s"] =
      benchmark::Counter(static_cast<double>(tileOps) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(compileSyntheticVector)->RangeMultiplier(4)->Range(256, 4096)->Unit(benchmark::kMillisecond);
// 328k and 512k tile ops (issue 36's range goes to 500k), once each: a few seconds.
BENCHMARK(compileSyntheticVector)->Arg(16384)->Arg(25600)->Iterations(1)->Unit(benchmark::kMillisecond);

// The indexer-sized graph of BenchGraphs.h: 1 024 matmul tiles plus a row max.
void compileIndexerSized(benchmark::State& state) {
  TensorGraph graph = indexerSizedGraph();
  std::size_t tileOps = 0;
  for (auto _ : state) {
    DiagnosticEngine diags;
    auto compiled = compileKernel(graph, CompileSettings{}, diags);
    if (!compiled) state.SkipWithError(diags.diagnostics().empty() ? "compile failed" : diags.diagnostics()[0].message.c_str());
    else tileOps = compiled->compilation.tiles.tileOps().size();
  }
  state.counters["tile_ops"] = static_cast<double>(tileOps);
}
BENCHMARK(compileIndexerSized)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace pto

// The programs' memory settings (core/ProcessMemory.h), so the figures are the ones `pto` sees.
int main(int argc, char** argv) {
  pto::useHeapHugePages(argv);
  pto::keepFreedMemoryForReuse();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
