// Machine-model checks 2 and 3: a single matmul instruction costs exactly
// overhead + ceil(M/m0)·ceil(K/k0)·ceil(N/n0) cycles (the file's fields); a
// large GEMM never beats 2·M·N·K / (cores · MAC/cycle · 2) cycles; n equal
// tasks on p cores take ceil(n/p)·t (exactly, with free scheduling; plus a
// bounded overhead with the AICPU costs); random task graphs keep
// max(W/p, critical path) <= makespan <= W/p + critical path.
#include "TimingTestSupport.h"

#include <gtest/gtest.h>

#include <random>

namespace pto::testing {
namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The reference page's formula with the machine file's numbers.
std::int64_t matmulFormula(const MachineDescription& machine, std::int64_t m, std::int64_t k, std::int64_t n,
                           DataType dtype) {
  const CubeRate& rate = *machine.cube[static_cast<std::size_t>(dtype)];
  return machine.cubeOverheadCycles + ceilDiv(m, rate.m0) * ceilDiv(k, rate.k0) * ceilDiv(n, rate.n0);
}

TEST(Cube, OneMatmulInstructionCostsExactlyTheFormula) {
  struct Shape {
    std::int64_t m, k, n;
    DataType dtype;
  };
  for (const char* machineName : {"a2", "950"}) {
    MachineDescription machine = bundledMachine(machineName);
    for (Shape shape : {Shape{16, 16, 16, DataType::Fp16}, Shape{128, 64, 128, DataType::Fp16},
                        Shape{17, 33, 100, DataType::Bf16}, Shape{128, 128, 256, DataType::Int8},
                        Shape{64, 96, 48, DataType::Fp32}}) {
      ExecuteGraph graph;
      addTask(graph, 0, CoreType::AIC, 0, 0);
      PtoProgram program = ProgramBuilder(0, CoreType::AIC).matmul(shape.m, shape.k, shape.n, shape.dtype).build();
      Schedule schedule = simulate(graph, {program}, machine, freeScheduling(1, 0));
      std::int64_t expected = matmulFormula(machine, shape.m, shape.k, shape.n, shape.dtype);
      EXPECT_EQ(duration(schedule.tasks[0]), expected) << machineName << " " << shape.m << "x" << shape.k << "x" << shape.n;
      EXPECT_EQ(busyCycles(schedule, schedule.tasks[0], "CUBE"), expected);
    }
  }
}

// A 128x128 output block of C = A·B with K in 128-steps, double-buffered in
// L1 and L0 by two event ids: MTE2 loads A and B panels, MTE1 moves them to
// L0A/L0B, CUBE accumulates, FIXPIPE stores the block.
PtoProgram gemmBlockProgram(int kSteps) {
  ProgramBuilder builder(0, CoreType::AIC);
  const std::int64_t panel = 128 * 128 * 2;
  for (int s = 0; s < kSteps; ++s) {
    int e = s % 2;
    if (s >= 2) builder.waitFlag(Pipe::MTE1, Pipe::MTE2, e);
    builder.load(MemoryKind::L1, panel, 2 * s).load(MemoryKind::L1, panel, 2 * s + 1).setFlag(Pipe::MTE2, Pipe::MTE1, e);
    builder.waitFlag(Pipe::MTE2, Pipe::MTE1, e);
    if (s >= 2) builder.waitFlag(Pipe::CUBE, Pipe::MTE1, e);
    builder.move(MemoryKind::L1, MemoryKind::L0A, panel).move(MemoryKind::L1, MemoryKind::L0B, panel);
    builder.setFlag(Pipe::MTE1, Pipe::MTE2, e).setFlag(Pipe::MTE1, Pipe::CUBE, e);
    builder.waitFlag(Pipe::MTE1, Pipe::CUBE, e).matmul(128, 128, 128, DataType::Fp16, s > 0).setFlag(Pipe::CUBE, Pipe::MTE1, e);
  }
  builder.setFlag(Pipe::CUBE, Pipe::FIXPIPE, 0).waitFlag(Pipe::CUBE, Pipe::FIXPIPE, 0).store(MemoryKind::L0C, 128 * 128 * 4, 0);
  return builder.build();
}

TEST(Cube, LargeGemmNeverBeatsThePeakMacRate) {
  MachineDescription a2 = bundledMachine("a2");
  const std::int64_t m = 1024, n = 1024, k = 1024;
  const int kSteps = static_cast<int>(k / 128);
  ExecuteGraph graph;
  for (int block = 0; block < (m / 128) * (n / 128); ++block) addTask(graph, 0, CoreType::AIC, 2 * kSteps, 1);
  Schedule schedule = simulate(graph, {gemmBlockProgram(kSteps)}, a2, freeScheduling(a2.aicCores, 0));
  // 2·M·N·K flops / (cores · MAC/cycle · 2 flops per MAC), in cycles.
  double bound = 2.0 * m * n * k / (a2.aicCores * 4096.0 * 2.0);
  EXPECT_GE(static_cast<double>(schedule.makespanCycles), bound);
  EXPECT_LE(static_cast<double>(schedule.makespanCycles), 20.0 * bound) << "and not absurdly slower";
}

// A program of one fixed-cost instruction: a task of exactly `cycles` when
// nothing is shared (the cube takes no shared resource).
std::int64_t cubeOnlyCycles(const MachineDescription& machine, std::int64_t size) {
  return matmulFormula(machine, size, size, size, DataType::Fp16);
}

TEST(Waves, SixtyFourEqualTasksOnTwentyFourCoresTakeThreeWaves) {
  MachineDescription a2 = bundledMachine("a2");
  const int n = 64, p = a2.aicCores;
  ExecuteGraph graph;
  for (int i = 0; i < n; ++i) addTask(graph, 0, CoreType::AIC, 0, 0);
  PtoProgram program = ProgramBuilder(0, CoreType::AIC).matmul(256, 256, 256, DataType::Fp16).build();
  const std::int64_t t = cubeOnlyCycles(a2, 256);
  Schedule free = simulate(graph, {program}, a2, freeScheduling(p, 0));
  EXPECT_EQ(free.makespanCycles, ceilDiv(n, p) * t) << "3t exactly without scheduling costs";
  int lastWave = 0;
  for (const TaskRecord& record : free.tasks) lastWave += record.startCycle == 2 * t;
  EXPECT_EQ(lastWave, n - 2 * p) << "16 of 24 cores busy in the last wave";

  // With the machine's AICPU costs: 3t plus what the threads add. Every task
  // pays dispatch before it starts and completion + resolve after it ends;
  // the threads serialise those, so the overhead is at most the submit plus
  // n · (dispatch + completion + resolve) / threads per wave boundary, summed.
  SchedulerConfig config = freeScheduling(p, 0);
  config.aicpuCount = a2.scheduler.aicpuCount;
  config.costs.dispatchCycles = a2.scheduler.dispatchCycles;
  config.costs.completionCycles = a2.scheduler.completionCycles;
  config.costs.resolveCycles = a2.scheduler.resolveCycles;
  config.costs.deviceTaskSubmitCycles = a2.scheduler.deviceTaskSubmitCycles;
  Schedule costed = simulate(graph, {program}, a2, config);
  std::int64_t perTask = a2.scheduler.dispatchCycles + a2.scheduler.completionCycles + a2.scheduler.resolveCycles;
  std::int64_t overhead = a2.scheduler.deviceTaskSubmitCycles + ceilDiv(n, p) * (perTask + ceilDiv(p, config.aicpuCount) * perTask);
  EXPECT_GE(costed.makespanCycles, 3 * t);
  EXPECT_LE(costed.makespanCycles, 3 * t + overhead);
}

TEST(Waves, RandomGraphsStayWithinTheListSchedulingBounds) {
  MachineDescription a2 = bundledMachine("a2");
  std::vector<PtoProgram> programs;
  std::vector<std::int64_t> cycles;
  for (std::int64_t size : {64, 128, 192, 256, 384}) {
    programs.push_back(
        ProgramBuilder(static_cast<int>(programs.size()), CoreType::AIC).matmul(size, size, size, DataType::Fp16).build());
    cycles.push_back(cubeOnlyCycles(a2, size));
  }
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    const int p = 1 + static_cast<int>(random() % 8);
    const int n = 30 + static_cast<int>(random() % 60);
    const double edgeProbability = 0.02 + 0.1 * (seed % 4);
    ExecuteGraph graph;
    std::vector<std::int64_t> finish(static_cast<std::size_t>(n), 0);  // longest path ending at each task
    double work = 0.0, critical = 0.0;
    for (int i = 0; i < n; ++i) {
      std::vector<TaskId> predecessors;
      std::int64_t ready = 0;
      for (int j = 0; j < i; ++j)
        if (std::uniform_real_distribution<double>(0.0, 1.0)(random) < edgeProbability) {
          predecessors.push_back(j);
          ready = std::max(ready, finish[static_cast<std::size_t>(j)]);
        }
      int program = static_cast<int>(random() % programs.size());
      addTask(graph, program, CoreType::AIC, 0, 0, predecessors);
      std::int64_t t = cycles[static_cast<std::size_t>(program)];
      finish[static_cast<std::size_t>(i)] = ready + t;
      work += static_cast<double>(t);
      critical = std::max(critical, static_cast<double>(finish[static_cast<std::size_t>(i)]));
    }
    Schedule schedule = simulate(graph, programs, a2, freeScheduling(p, 0));
    auto makespan = static_cast<double>(schedule.makespanCycles);
    EXPECT_GE(makespan, std::max(work / p, critical)) << "seed " << seed;
    EXPECT_LE(makespan, work / p + critical) << "seed " << seed;
  }
}

} // namespace
} // namespace pto::testing
