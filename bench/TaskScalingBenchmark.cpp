// Compile and timing-simulation time against the number of tasks, from 1k to
// 1M, to show that both grow about linearly: the loop kernel of BenchGraphs.h
// whose iterations share no data, compiled (the whole pipeline; the tasks come
// from BuildExecuteGraph) and simulated (simulateTiming on the a2 machine);
// and the dependency analysis alone on a tiled four-stage workload whose
// accumulation chains give the implied-edge search the most to walk.
// Counters: tasks, edges (and the edges before implied ones are removed),
// and time per task, which stays about flat when the growth is linear; the
// simulation's also split into user and kernel time per task (getrusage).
#include "bench/BenchMachines.h"
#include "compiler/passes/BuildExecuteGraph.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/MachineFile.h"
#include "npusim/TimingRun.h"

#include "BenchGraphs.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>

#include <sys/resource.h>

namespace pto {
namespace {

CompileSettings a2Settings() {
  CompileSettings settings;
  settings.target = a2Machine().targetInfo();
  return settings;
}

// Tasks one iteration of independentIterationsGraph makes (the partition decides).
std::int64_t tasksPerIteration() {
  static const std::int64_t perIteration = [] {
    DiagnosticEngine diags;
    auto compiled = compileKernel(independentIterationsGraph(1), a2Settings(), diags);
    return compiled ? std::max<std::int64_t>(1, static_cast<std::int64_t>(compiled->compilation.tasks.tasks.size())) : 1;
  }();
  return perIteration;
}

// This process's CPU time so far, in user and in kernel mode.
struct ProcessTimes {
  double userNs = 0;
  double kernelNs = 0;
};
ProcessTimes processTimes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto ns = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_usec) * 1e3; };
  return {ns(usage.ru_utime), ns(usage.ru_stime)};
}

void countPerTask(benchmark::State& state, const ExecuteGraph& graph) {
  const auto tasks = static_cast<double>(graph.tasks.size());
  state.counters["tasks"] = tasks;
  state.counters["edges"] = static_cast<double>(graph.edgeCount);
  state.counters["per_task"] = benchmark::Counter(tasks * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The argument is the wanted number of tasks.
void compileIndependentIterations(benchmark::State& state) {
  const TensorGraph graph = independentIterationsGraph(state.range(0) / tasksPerIteration());
  const CompileSettings settings = a2Settings();
  ExecuteGraph tasks;
  for (auto _ : state) {
    DiagnosticEngine diags;
    auto compiled = compileKernel(graph, settings, diags);
    if (!compiled) {
      state.SkipWithError("compile failed");
      return;
    }
    tasks = std::move(compiled->compilation.tasks);
  }
  countPerTask(state, tasks);
}
BENCHMARK(compileIndependentIterations)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(compileIndependentIterations)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond);

void simulateIndependentIterations(benchmark::State& state) {
  // Compiled once per size; only the simulation is timed.
  static std::map<std::int64_t, Compilation> compiled;
  auto found = compiled.find(state.range(0));
  if (found == compiled.end()) {
    DiagnosticEngine diags;
    auto result = compileKernel(independentIterationsGraph(state.range(0) / tasksPerIteration()), a2Settings(), diags);
    if (!result) {
      state.SkipWithError("compile failed");
      return;
    }
    found = compiled.emplace(state.range(0), std::move(result->compilation)).first;
  }
  const Compilation& compilation = found->second;
  const MachineDescription a2 = a2Machine();
  double makespanUs = 0, pipeIntervals = 0;
  const ProcessTimes before = processTimes();
  for (auto _ : state) {
    DiagnosticEngine diags;
    std::optional<Schedule> schedule = simulateTiming(compilation, a2, {}, diags);
    if (!schedule) {
      state.SkipWithError("simulation failed");
      return;
    }
    makespanUs = static_cast<double>(schedule->makespanCycles) / (a2.clockGHz * 1e3);
    pipeIntervals = static_cast<double>(schedule->pipeIntervals.size());
  }
  const ProcessTimes after = processTimes();
  countPerTask(state, compilation.tasks);
  // The CPU time split: what grows per task from 1k to 1M is the kernel's
  // (the first touch of the schedule's fresh memory, which the smaller sizes'
  // repeated iterations reuse), not the simulator's own.
  const double taskRuns = static_cast<double>(compilation.tasks.tasks.size()) * static_cast<double>(state.iterations());
  state.counters["user_ns_per_task"] = (after.userNs - before.userNs) / taskRuns;
  state.counters["kernel_ns_per_task"] = (after.kernelNs - before.kernelNs) / taskRuns;
  state.counters["makespan_us"] = makespanUs;
  // What the schedule keeps per task: the intervals are most of its memory.
  state.counters["pipe_intervals_per_task"] = pipeIntervals / static_cast<double>(compilation.tasks.tasks.size());
  // The larger sizes are not needed again; their graphs are large.
  if (state.range(0) >= 100000) compiled.erase(found);
}
BENCHMARK(simulateIndependentIterations)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(simulateIndependentIterations)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond);

// Four stages over a [1280, 64 * columns] plane of 64 x 64 tiles, 20 tile rows:
// t = exp(x) per tile, u = t * w (w's column panel), row sums of u accumulated
// per tile into s (read-modify-write: a chain per tile row), y = u / s. Each
// y tile follows its u tile and the last link of its row's chain, which the
// u tile precedes through the chain: an implied edge the bounded search
// finds for the last 64 tiles of a row (a chain step costs two links of the
// 128 a search may inspect) and keeps for the others.
ExecuteGraph tiledFourStages(std::int64_t tasks) {
  constexpr std::int64_t kTile = 64, kRows = 20;
  const std::int64_t columns = std::max<std::int64_t>(1, tasks / (4 * kRows));
  enum : TensorId { X, T, W, U, S, Y };
  ExecuteGraph graph;
  auto tile = [&](TensorId tensor, std::int64_t r, std::int64_t c) {
    return ConcreteRegion{tensor, {r * kTile, c * kTile}, {kTile, kTile}};
  };
  auto add = [&](std::vector<ConcreteRegion> reads, std::vector<ConcreteRegion> writes) {
    Task task;
    task.id = static_cast<TaskId>(graph.tasks.size());
    task.reads = std::move(reads);
    task.writes = std::move(writes);
    graph.tasks.push_back(std::move(task));
  };
  auto sum = [&](std::int64_t r) { return ConcreteRegion{S, {r * kTile, 0}, {kTile, 1}}; };
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) add({tile(X, r, c)}, {tile(T, r, c)});
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < columns; ++c)
      add({tile(T, r, c), ConcreteRegion{W, {0, c * kTile}, {1, kTile}}}, {tile(U, r, c)});
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) add({tile(U, r, c), sum(r)}, {sum(r)});
  for (std::int64_t r = 0; r < kRows; ++r)
    for (std::int64_t c = 0; c < columns; ++c) add({tile(U, r, c), sum(r)}, {tile(Y, r, c)});
  return graph;
}

void dependenciesOfTiledStages(benchmark::State& state) {
  ExecuteGraph graph = tiledFourStages(state.range(0));
  computeTaskDependencies(graph, ImpliedEdges::Kept);
  const auto kept = static_cast<double>(graph.edgeCount);
  for (auto _ : state) computeTaskDependencies(graph);
  countPerTask(state, graph);
  state.counters["edges_kept"] = kept;
}
BENCHMARK(dependenciesOfTiledStages)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(dependenciesOfTiledStages)->Arg(1000000)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace pto
