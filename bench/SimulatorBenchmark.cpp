// Timing-mode simulation speed: the MPMD scheduler driving the NPU timing
// model (simulateTiming's parts) on a synthetic 10 000-task graph and on a
// lightning-indexer-sized compiled kernel. Counters: simulated tasks/s and
// PTO instructions/s (non-sync instructions of finished tasks), and the
// simulated makespan. Target (DESIGN.md): ~10k tasks well under 1 s.
#include "bench/BenchMachines.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/MachineFile.h"
#include "npusim/NpuExecutor.h"
#include "npusim/TimingRun.h"

#include "BenchGraphs.h"

#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

namespace pto {
namespace {

PtoOperand operand(MemoryKind memory, std::int64_t offset, std::int64_t bytes, int gmRegion = -1) {
  PtoOperand result;
  result.memory = memory;
  result.offsetBytes = offset;
  result.bytes = bytes;
  result.shape = {bytes / 4};
  result.gmRegion = gmRegion;
  result.gmAlias = gmRegion;
  return result;
}

PtoInstruction make(PtoOpcode opcode, std::vector<PtoOperand> dst, std::vector<PtoOperand> srcs, std::int64_t bytes = 0) {
  PtoInstruction instruction;
  instruction.opcode = opcode;
  instruction.pipe = pipeOf(opcode);
  instruction.dst = std::move(dst);
  instruction.srcs = std::move(srcs);
  instruction.bytes = bytes;
  return instruction;
}

PtoInstruction flag(PtoOpcode opcode, Pipe src, Pipe dst, int event) {
  PtoInstruction instruction = make(opcode, {}, {});
  instruction.pipe = opcode == PtoOpcode::SET_FLAG ? src : dst;
  instruction.srcPipe = src;
  instruction.dstPipe = dst;
  instruction.eventId = event;
  return instruction;
}

// A double-buffered vector kernel: 8 chunks of 16 KiB, load -> exp -> mul -> store.
PtoProgram vectorProgram() {
  PtoProgram program;
  program.programId = 0;
  program.coreType = CoreType::AIV;
  const std::int64_t chunk = 16 * 1024;
  for (int i = 0; i < 8; ++i) {
    int e = i % 2;
    std::int64_t at = e * chunk;
    auto& list = program.instructions;
    if (i >= 2) list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::MTE3, Pipe::MTE2, e));
    list.push_back(make(PtoOpcode::TLOAD, {operand(MemoryKind::UB, at, chunk)}, {operand(MemoryKind::GM, 0, chunk, i)}, chunk));
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::MTE2, Pipe::VECTOR, e));
    list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::MTE2, Pipe::VECTOR, e));
    list.push_back(make(PtoOpcode::TEXP, {operand(MemoryKind::UB, at, chunk)}, {operand(MemoryKind::UB, at, chunk)}));
    list.push_back(make(PtoOpcode::TMULS, {operand(MemoryKind::UB, at, chunk)}, {operand(MemoryKind::UB, at, chunk)}));
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::VECTOR, Pipe::MTE3, e));
    list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::VECTOR, Pipe::MTE3, e));
    list.push_back(make(PtoOpcode::TSTORE, {operand(MemoryKind::GM, 0, chunk, i)}, {operand(MemoryKind::UB, at, chunk)}, chunk));
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::MTE3, Pipe::MTE2, e));
  }
  program.recountPipes();
  return program;
}

// A 128x128x512 matmul block: 4 k-steps, A and B panels through L1 and L0.
PtoProgram cubeProgram() {
  PtoProgram program;
  program.programId = 1;
  program.coreType = CoreType::AIC;
  const std::int64_t panel = 128 * 128 * 2;
  auto& list = program.instructions;
  for (int s = 0; s < 4; ++s) {
    int e = s % 2;
    if (s >= 2) list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::MTE1, Pipe::MTE2, e));
    list.push_back(make(PtoOpcode::TLOAD, {operand(MemoryKind::L1, e * 2 * panel, panel)}, {operand(MemoryKind::GM, 0, panel, 2 * s)}, panel));
    list.push_back(make(PtoOpcode::TLOAD, {operand(MemoryKind::L1, (e * 2 + 1) * panel, panel)}, {operand(MemoryKind::GM, 0, panel, 2 * s + 1)}, panel));
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::MTE2, Pipe::MTE1, e));
    list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::MTE2, Pipe::MTE1, e));
    if (s >= 2) list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::CUBE, Pipe::MTE1, e));
    list.push_back(make(PtoOpcode::TMOV, {operand(MemoryKind::L0A, e * panel, panel)}, {operand(MemoryKind::L1, e * 2 * panel, panel)}, panel));
    list.push_back(make(PtoOpcode::TMOV, {operand(MemoryKind::L0B, e * panel, panel)}, {operand(MemoryKind::L1, (e * 2 + 1) * panel, panel)}, panel));
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::MTE1, Pipe::MTE2, e));
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::MTE1, Pipe::CUBE, e));
    list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::MTE1, Pipe::CUBE, e));
    PtoOperand a = operand(MemoryKind::L0A, e * panel, panel);
    a.shape = {128, 128};
    a.dtype = DataType::Fp16;
    PtoOperand c = operand(MemoryKind::L0C, 0, 128 * 128 * 4);
    c.shape = {128, 128};
    PtoInstruction matmul = make(s == 0 ? PtoOpcode::TMATMUL : PtoOpcode::TMATMUL_ACC, {c}, {a, a});
    matmul.elements = 128 * 128 * 128;
    list.push_back(matmul);
    list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::CUBE, Pipe::MTE1, e));
  }
  list.push_back(flag(PtoOpcode::SET_FLAG, Pipe::CUBE, Pipe::FIXPIPE, 0));
  list.push_back(flag(PtoOpcode::WAIT_FLAG, Pipe::CUBE, Pipe::FIXPIPE, 0));
  list.push_back(make(PtoOpcode::TSTORE_ACC, {operand(MemoryKind::GM, 0, 128 * 128 * 4, 0)}, {operand(MemoryKind::L0C, 0, 128 * 128 * 4)},
                      128 * 128 * 4));
  program.recountPipes();
  return program;
}

struct SyntheticRun {
  Compilation compilation;  // programs and tasks only
};

// `count` tasks, 1/3 cube and 2/3 vector, each depending on up to 3 of the
// previous 200 tasks; regions of one [4096, 4096] fp32 tensor so the L2 works.
Compilation syntheticCompilation(int count) {
  Compilation compilation;
  compilation.programs = {vectorProgram(), cubeProgram()};
  std::mt19937 random(42);
  ExecuteGraph& graph = compilation.tasks;
  for (int i = 0; i < count; ++i) {
    Task task;
    task.id = i;
    task.subgraph = 0;
    bool cube = random() % 3 == 0;
    task.programId = cube ? 1 : 0;
    task.coreType = cube ? CoreType::AIC : CoreType::AIV;
    int regions = cube ? 8 : 8;
    for (int r = 0; r < regions; ++r) {
      std::int64_t row = static_cast<std::int64_t>(random() % 4000);
      task.reads.push_back({0, {row, 0}, {4, 1024}});
      task.writes.push_back({1, {row, 0}, {4, 1024}});
    }
    std::set<TaskId> predecessors;
    for (int d = 0; d < 3 && i > 0; ++d) predecessors.insert(static_cast<TaskId>(i - 1 - static_cast<int>(random() % std::min(i, 200))));
    task.predecessors.assign(predecessors.begin(), predecessors.end());
    for (TaskId p : task.predecessors) graph.tasks[static_cast<std::size_t>(p)].successors.push_back(i);
    graph.edgeCount += task.predecessors.size();
    graph.tasks.push_back(std::move(task));
  }
  return compilation;
}

void simulate(benchmark::State& state, const Compilation& compilation, const std::vector<GmTensorLayout>& layouts) {
  MachineDescription a2 = a2Machine();
  DiagnosticEngine diags;
  std::optional<NpuExecutor> executor = NpuExecutor::create(a2, compilation.programs, layouts, diags);
  if (!executor || !executor->checkGraph(compilation.tasks, diags)) {
    state.SkipWithError("the timing model refused the graph");
    return;
  }
  Scheduler scheduler(schedulerConfigFor(a2, {}));
  std::int64_t makespan = 0, instructions = 0;
  for (auto _ : state) {
    std::optional<Schedule> schedule = scheduler.run(compilation.tasks, *executor, diags);
    if (!schedule) {
      state.SkipWithError("simulation failed");
      return;
    }
    makespan = schedule->makespanCycles;
    instructions = executor->instructionsSimulated();
  }
  auto tasks = static_cast<double>(compilation.tasks.tasks.size());
  auto iterations = static_cast<double>(state.iterations());
  state.counters["tasks"] = tasks;
  state.counters["tasks_per_s"] = benchmark::Counter(tasks * iterations, benchmark::Counter::kIsRate);
  state.counters["instructions_per_s"] =
      benchmark::Counter(static_cast<double>(instructions) * iterations, benchmark::Counter::kIsRate);
  state.counters["makespan_us"] = static_cast<double>(makespan) / (a2.clockGHz * 1e3);
  state.counters["l2_hit_ratio"] = static_cast<double>(executor->l2().hits()) /
                                   static_cast<double>(std::max<std::int64_t>(1, executor->l2().hits() + executor->l2().misses()));
}

void simulateSynthetic(benchmark::State& state) {
  static Compilation compilation = syntheticCompilation(static_cast<int>(state.range(0)));
  if (compilation.tasks.tasks.size() != static_cast<std::size_t>(state.range(0)))
    compilation = syntheticCompilation(static_cast<int>(state.range(0)));
  simulate(state, compilation, {{{4096, 4096}, 4}, {{4096, 4096}, 4}});
}
BENCHMARK(simulateSynthetic)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

const Compilation& indexerCompilation() {
  static Compilation compilation = [] {
    DiagnosticEngine diags;
    CompileSettings settings;
    settings.target = a2Machine().targetInfo();
    auto compiled = compileKernel(indexerSizedGraph(), settings, diags);
    return compiled ? std::move(compiled->compilation) : Compilation{};
  }();
  return compilation;
}

void simulateIndexer(benchmark::State& state) {
  const Compilation& compilation = indexerCompilation();
  if (compilation.tasks.tasks.empty()) {
    state.SkipWithError("the indexer did not compile");
    return;
  }
  std::int64_t instructionsPerRun = 0;
  for (const Task& task : compilation.tasks.tasks)
    for (const PtoInstruction& instruction : compilation.programs[static_cast<std::size_t>(task.programId)].instructions)
      instructionsPerRun += !isSync(instruction.opcode);
  state.counters["aic_tasks"] = 0;
  for (const Task& task : compilation.tasks.tasks) state.counters["aic_tasks"] += task.coreType == CoreType::AIC;
  simulate(state, compilation, gmLayoutsOf(compilation));
}
BENCHMARK(simulateIndexer)->Unit(benchmark::kMillisecond);

// Compile + simulate, the DESIGN.md budget (<= 1 s).
void compileAndSimulateIndexer(benchmark::State& state) {
  TensorGraph graph = indexerSizedGraph();
  MachineDescription a2 = a2Machine();
  CompileSettings settings;
  settings.target = a2.targetInfo();
  for (auto _ : state) {
    DiagnosticEngine diags;
    auto compiled = compileKernel(graph, settings, diags);
    if (!compiled || !simulateTiming(compiled->compilation, a2, {}, diags)) {
      state.SkipWithError("compile or simulate failed");
      return;
    }
  }
}
BENCHMARK(compileAndSimulateIndexer)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace pto
