// Machine-model checks 1 and 5 (docs: machine-model.md): streaming 12 MB with
// every core active takes bytes / (cap · e) within 2 %; with one core it is
// bound by that core's path rate instead (the saturating curve, summed over
// its transfers, within 2 %); the transfers' rates never sum above the cap;
// a memory-bound kernel approaches bytes / (cap · e) as cores are added.
// Expectations come from the machine file's numbers, not from the simulator.
#include "TimingTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pto::testing {
namespace {

// bytes / (B · e), in cycles: the chip's sustained HBM rate from the file.
double rooflineCycles(const MachineDescription& machine, double bytes) {
  double bytesPerSecond = machine.memory.bandwidthTBps * 1e12 * machine.memory.efficiency;
  return bytes / bytesPerSecond * machine.clockGHz * 1e9;
}

TEST(Streaming, TwelveMegabytesOnAllCoresRunAtTheSharedCap) {
  MachineDescription a2 = bundledMachine("a2");
  const int cores = a2.aicCores + a2.aivCores;  // 72
  const std::int64_t bytesPerTask = 12'000'000 / cores;  // 166 666: fits L1 and UB
  std::vector<PtoProgram> programs = {ProgramBuilder(0, CoreType::AIC).load(MemoryKind::L1, bytesPerTask, 0).build(),
                                      ProgramBuilder(1, CoreType::AIV).load(MemoryKind::UB, bytesPerTask, 0).build()};
  ExecuteGraph graph;
  for (int i = 0; i < a2.aicCores; ++i) addTask(graph, 0, CoreType::AIC, 1, 0);
  for (int i = 0; i < a2.aivCores; ++i) addTask(graph, 1, CoreType::AIV, 1, 0);
  Schedule schedule = simulate(graph, programs, a2, freeScheduling(a2.aicCores, a2.aivCores));
  double expected = rooflineCycles(a2, static_cast<double>(bytesPerTask * cores));
  EXPECT_NEAR(static_cast<double>(schedule.makespanCycles), expected, 0.02 * expected)
      << "12 MB at " << a2.memory.bandwidthTBps << " TB/s x " << a2.memory.efficiency;
  EXPECT_GE(static_cast<double>(schedule.makespanCycles), expected) << "nothing beats the cap";
}

TEST(Streaming, OneCoreIsBoundByItsOwnPath) {
  MachineDescription a2 = bundledMachine("a2");
  const std::int64_t chunk = 125'000;
  const int tasks = 48;  // 2 chunks each: 12 MB
  std::vector<PtoProgram> programs = {
      ProgramBuilder(0, CoreType::AIV).load(MemoryKind::UB, chunk, 0).load(MemoryKind::UB, chunk, 1, chunk).build()};
  ExecuteGraph graph;
  for (int i = 0; i < tasks; ++i) addTask(graph, 0, CoreType::AIV, 2, 0);
  Schedule schedule = simulate(graph, programs, a2, freeScheduling(0, 1));
  // Per task: the first load alone, the second back to back (its start-up
  // hidden behind the first one's data), so only its data time.
  const double first = aloneCycles(a2, DataPath::GmToUb, static_cast<double>(chunk));
  const double second = first - aloneCycles(a2, DataPath::GmToUb, 0.0);
  double expected = tasks * (first + second);
  EXPECT_NEAR(static_cast<double>(schedule.makespanCycles), expected, 0.02 * expected);
  // Far slower than the chip's cap: one copy engine cannot use it.
  EXPECT_GT(static_cast<double>(schedule.makespanCycles), 5.0 * rooflineCycles(a2, 2.0 * tasks * chunk));
}

// load -> add -> store per task, flags between the pipes.
PtoProgram memoryBoundKernel(std::int64_t bytes) {
  return ProgramBuilder(0, CoreType::AIV)
      .load(MemoryKind::UB, bytes, 0)
      .setFlag(Pipe::MTE2, Pipe::VECTOR, 0)
      .waitFlag(Pipe::MTE2, Pipe::VECTOR, 0)
      .vector(PtoOpcode::TADDS, bytes)
      .setFlag(Pipe::VECTOR, Pipe::MTE3, 0)
      .waitFlag(Pipe::VECTOR, Pipe::MTE3, 0)
      .store(MemoryKind::UB, bytes, 0)
      .build();
}

TEST(Sharing, TransfersNeverExceedTheCapInSum) {
  MachineDescription a2 = bundledMachine("a2");
  const double cap = a2.memory.bandwidthTBps * 1e12 * a2.memory.efficiency / (a2.clockGHz * 1e9);
  ExecuteGraph graph;
  for (int i = 0; i < 200; ++i) addTask(graph, 0, CoreType::AIV, 1, 1);
  double highest = 0.0;
  int samples = 0;
  auto observer = [&](double, double bytesPerCycle, int) {
    ++samples;
    highest = std::max(highest, bytesPerCycle);
    EXPECT_LE(bytesPerCycle, cap * (1.0 + 1e-9));
  };
  // The a2's scheduler costs stagger the starts, so transfers come and go in every mix.
  SchedulerConfig config = freeScheduling(a2.aicCores, a2.aivCores);
  config.aicpuCount = 5;
  config.costs.dispatchCycles = 200;
  config.costs.completionCycles = 240;
  config.costs.resolveCycles = 390;
  simulate(graph, {memoryBoundKernel(32 * 1024)}, a2, config, observer);
  EXPECT_GT(samples, 400);
  EXPECT_NEAR(highest, cap, 1e-6 * cap) << "48 copy engines saturate the cap";
}

TEST(Sharing, MemoryBoundKernelApproachesTheRooflineAsCoresAreAdded) {
  MachineDescription a2 = bundledMachine("a2");
  // Each task streams 4 chunks through two buffers (load, add, store).
  const std::int64_t chunk = 48 * 1024;
  const int tasks = 96, chunks = 4;
  ExecuteGraph graph;
  for (int i = 0; i < tasks; ++i) addTask(graph, 0, CoreType::AIV, chunks, chunks);
  const double roofline = rooflineCycles(a2, 2.0 * tasks * chunks * static_cast<double>(chunk));
  double previous = 1e300;
  for (int cores : {1, 2, 4, 8, 16, 32, 48}) {
    Schedule schedule = simulate(graph, {streamingKernel(chunks, 2, chunk)}, a2, freeScheduling(0, cores));
    auto makespan = static_cast<double>(schedule.makespanCycles);
    EXPECT_GE(makespan, roofline) << cores << " cores";
    EXPECT_LT(makespan, previous) << cores << " cores: more cores, less time";
    previous = makespan;
    if (cores == 48) {
      EXPECT_LE(makespan, 1.05 * roofline) << "within 5 % of bytes / (cap * e)";
    }
  }
}

} // namespace
} // namespace pto::testing
