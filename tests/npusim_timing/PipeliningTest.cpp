// Machine-model check 4: a k-loop of load -> add -> store on one core takes
// n·(L + C + S) single-buffered and fill + n·max(L', C, S) + drain
// multi-buffered (L the load alone, (K + bytes)/peak, L' its data time
// bytes/peak once loads stream back to back; C the add, startup +
// bytes/(bytes per cycle); S the store), within 2 %; every pipe's busy time
// stays within the makespan. Also the pipe semantics on small programs:
// flags count raises, a barrier drains every pipe, different pipes overlap.
#include "TimingTestSupport.h"

#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/TimingRun.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pto::testing {
namespace {

constexpr std::int64_t kChunk = 32 * 1024;
double addCycles(const MachineDescription& machine, double bytes) {
  return static_cast<double>(machine.vector.startupCycles) +
         std::ceil(machine.vector.costFactors[0] * bytes / machine.vector.bytesPerCycle);
}

Schedule runKLoop(const MachineDescription& machine, int n, int buffers) {
  ExecuteGraph graph;
  addTask(graph, 0, CoreType::AIV, n, n);
  return simulate(graph, {streamingKernel(n, buffers, kChunk)}, machine, freeScheduling(0, 1));
}

TEST(Pipelining, SingleBufferedLoopRunsTheStagesInSeries) {
  MachineDescription a2 = bundledMachine("a2");
  const int n = 16;
  double load = aloneCycles(a2, DataPath::GmToUb, kChunk), add = addCycles(a2, kChunk),
         store = aloneCycles(a2, DataPath::UbToGm, kChunk);
  Schedule schedule = runKLoop(a2, n, 1);
  double expected = n * (load + add + store);
  EXPECT_NEAR(static_cast<double>(schedule.makespanCycles), expected, 0.02 * expected);
}

TEST(Pipelining, MultiBufferedLoopRunsAtTheSlowestStage) {
  MachineDescription a2 = bundledMachine("a2");
  const int n = 16;
  double load = aloneCycles(a2, DataPath::GmToUb, kChunk), add = addCycles(a2, kChunk),
         store = aloneCycles(a2, DataPath::UbToGm, kChunk);
  // Back to back, a load's start-up hides behind the previous load's data:
  // the load stage costs its data time once the pipe is streaming.
  double latency = aloneCycles(a2, DataPath::GmToUb, 0), loadData = load - latency;
  // With three buffers a buffer is reused every third iteration, after its
  // whole load -> add -> store chain; the loads are the slowest stage and
  // outrun that chain, so they never wait for a buffer.
  ASSERT_GT(loadData, add);
  ASSERT_GT(loadData, store);
  ASSERT_GT(3 * loadData, load + add + store);
  Schedule schedule = runKLoop(a2, n, 3);
  // fill (the first load's start-up) + n x the load's data + drain (the last add and store)
  double expected = latency + n * loadData + add + store;
  EXPECT_NEAR(static_cast<double>(schedule.makespanCycles), expected, 0.02 * expected);
  EXPECT_LT(static_cast<double>(schedule.makespanCycles), 0.8 * n * (load + add + store)) << "faster than serial";
  const TaskRecord& task = schedule.tasks[0];
  for (const char* pipe : {"MTE2", "VECTOR", "MTE3"}) {
    EXPECT_LE(busyCycles(schedule, task, pipe), duration(task)) << pipe;
    EXPECT_GT(busyCycles(schedule, task, pipe), 0) << pipe;
  }
  EXPECT_NEAR(static_cast<double>(busyCycles(schedule, task, "MTE2")), latency + n * loadData, 0.01 * n * load)
      << "the load pipe never idles";
  for (const PipeInterval& interval : schedule.pipes(task)) {
    EXPECT_GE(interval.startCycle, task.startCycle);
    EXPECT_LE(interval.endCycle, task.endCycle);
  }
}

TEST(PipeModel, DifferentPipesOverlapAndABarrierDrainsThemAll) {
  MachineDescription a2 = bundledMachine("a2");
  std::int64_t exp = a2.vectorCycles(VectorOpClass::Exp, 64 * 1024);
  std::int64_t mm = *a2.cubeMatmulCycles(128, 128, 128, DataType::Fp16);
  auto run = [&](const PtoProgram& program, CoreType type) {
    ExecuteGraph graph;
    addTask(graph, 0, type, 0, 0);
    return duration(simulate(graph, {program}, a2, freeScheduling(1, 1)).tasks[0]);
  };
  // Two vector instructions on one pipe: in series.
  EXPECT_EQ(run(ProgramBuilder(0, CoreType::AIV).vector(PtoOpcode::TEXP, 64 * 1024).vector(PtoOpcode::TEXP, 64 * 1024).build(),
                CoreType::AIV),
            2 * exp);
  // A move on MTE1 and a matmul on CUBE with no sync: they overlap.
  std::int64_t move = static_cast<std::int64_t>(std::ceil(a2.transferCycles(DataPath::L1ToL0A, 32 * 1024) - 1e-9));
  EXPECT_EQ(run(ProgramBuilder(0, CoreType::AIC).move(MemoryKind::L1, MemoryKind::L0A, 32 * 1024).matmul(128, 128, 128, DataType::Fp16).build(),
                CoreType::AIC),
            std::max(move, mm));
  // A flag orders them: in series.
  EXPECT_EQ(run(ProgramBuilder(0, CoreType::AIC)
                    .matmul(128, 128, 128, DataType::Fp16)
                    .setFlag(Pipe::CUBE, Pipe::MTE1, 0)
                    .waitFlag(Pipe::CUBE, Pipe::MTE1, 0)
                    .move(MemoryKind::L1, MemoryKind::L0A, 32 * 1024)
                    .build(),
                CoreType::AIC),
            static_cast<std::int64_t>(std::ceil(static_cast<double>(mm) + a2.transferCycles(DataPath::L1ToL0A, 32 * 1024) - 1e-9)));
  // So does a barrier.
  EXPECT_EQ(run(ProgramBuilder(0, CoreType::AIC)
                    .matmul(128, 128, 128, DataType::Fp16)
                    .barrier()
                    .matmul(128, 128, 128, DataType::Fp16)
                    .build(),
                CoreType::AIC),
            2 * mm);
}

TEST(PipeModel, FlagsCountRaises) {
  MachineDescription a2 = bundledMachine("a2");
  std::int64_t mm = *a2.cubeMatmulCycles(64, 64, 64, DataType::Fp16);
  // Two raises, two waits: the second wait needs the second raise, after the second matmul.
  PtoProgram program = ProgramBuilder(0, CoreType::AIC)
                           .matmul(64, 64, 64, DataType::Fp16)
                           .setFlag(Pipe::CUBE, Pipe::FIXPIPE, 0)
                           .matmul(64, 64, 64, DataType::Fp16)
                           .setFlag(Pipe::CUBE, Pipe::FIXPIPE, 0)
                           .waitFlag(Pipe::CUBE, Pipe::FIXPIPE, 0)
                           .waitFlag(Pipe::CUBE, Pipe::FIXPIPE, 0)
                           .store(MemoryKind::L0C, 64 * 64 * 4, 0)
                           .build();
  ExecuteGraph graph;
  addTask(graph, 0, CoreType::AIC, 0, 1);
  Schedule schedule = simulate(graph, {program}, a2, freeScheduling(1, 0));
  double store = aloneCycles(a2, DataPath::L0CToGm, 64 * 64 * 4);
  EXPECT_NEAR(static_cast<double>(duration(schedule.tasks[0])), 2.0 * mm + store, 1.0);
}

// Task 0 stores a [1, 8192] fp32 row of tensor 1; task 1 then loads it back
// (an L2 hit: its start-up latency is missPenaltyCycles shorter) and task 2
// loads a row of tensor 0 nobody touched (a miss: the file's full curve).
TEST(PipeModel, ReadingWhatAPredecessorWroteHitsTheL2) {
  MachineDescription a2 = bundledMachine("a2");
  const std::int64_t bytes = 8192 * 4;
  std::vector<PtoProgram> programs = {ProgramBuilder(0, CoreType::AIV).store(MemoryKind::UB, bytes, 0).build(),
                                      ProgramBuilder(1, CoreType::AIV).load(MemoryKind::UB, bytes, 0).build()};
  ExecuteGraph graph;
  addTask(graph, 0, CoreType::AIV, 0, 1, {}, bytes);  // writes tensor 1, row 0
  addTask(graph, 1, CoreType::AIV, 0, 0, {0}, bytes);
  graph.tasks[1].reads.push_back(graph.tasks[0].writes[0]);
  addTask(graph, 1, CoreType::AIV, 1, 0, {1}, bytes);  // reads tensor 0, row 128
  std::vector<GmTensorLayout> layouts = {{{1024, 8192}, 4}, {{1024, 8192}, 4}};
  Schedule schedule = simulate(graph, programs, a2, freeScheduling(0, 1), {}, layouts);
  double miss = aloneCycles(a2, DataPath::GmToUb, bytes);
  EXPECT_NEAR(static_cast<double>(duration(schedule.tasks[2])), miss, 1.0) << "a cold read";
  EXPECT_NEAR(static_cast<double>(duration(schedule.tasks[1])), miss - static_cast<double>(a2.l2.missPenaltyCycles), 1.0)
      << "a hit saves the miss penalty";
}

// The L2 is asked when a read's first load is issued, not when its task
// starts. Task 0 stores a row of tensor 1 on one core; task 1 starts beside
// it, spends a long load and a vector op on a cold row, then loads the row
// task 0 wrote (finished by then): a hit, one miss penalty shorter than the
// same program loading a row nobody wrote. Asked at the start, both miss.
TEST(PipeModel, AReadAsksTheL2WhenItsFirstLoadIsIssued) {
  MachineDescription a2 = bundledMachine("a2");
  const std::int64_t bytes = 8192 * 4;
  auto run = [&](bool readWhatTask0Wrote) {
    ProgramBuilder reader(1, CoreType::AIV);
    reader.load(MemoryKind::UB, 8 * bytes, 0)
        .setFlag(Pipe::MTE2, Pipe::VECTOR, 0)
        .waitFlag(Pipe::MTE2, Pipe::VECTOR, 0)
        .vector(PtoOpcode::TADD, 8 * bytes)
        .setFlag(Pipe::VECTOR, Pipe::MTE2, 0)
        .waitFlag(Pipe::VECTOR, Pipe::MTE2, 0)
        .load(MemoryKind::UB, bytes, 1);
    std::vector<PtoProgram> programs = {ProgramBuilder(0, CoreType::AIV).store(MemoryKind::UB, bytes, 0).build(),
                                        reader.build()};
    ExecuteGraph graph;
    addTask(graph, 0, CoreType::AIV, 0, 1, {}, bytes);  // writes tensor 1, row 0
    addTask(graph, 1, CoreType::AIV, 2, 0, {}, bytes);  // reads tensor 0, rows 64 and 65
    if (readWhatTask0Wrote) graph.tasks[1].reads[1] = graph.tasks[0].writes[0];
    std::vector<GmTensorLayout> layouts = {{{1024, 8192}, 4}, {{1024, 8192}, 4}};
    Schedule schedule = simulate(graph, programs, a2, freeScheduling(0, 2), {}, layouts);
    EXPECT_LT(schedule.tasks[0].endCycle, schedule.tasks[1].endCycle);
    return static_cast<double>(duration(schedule.tasks[1]));
  };
  EXPECT_NEAR(run(false) - run(true), static_cast<double>(a2.l2.missPenaltyCycles), 1.0);
}

// Into L1 the DMA converts an ND tile to NZ row by row: a load of 512 rows of
// 128 bytes (an int8 [512, 128] tile) takes one row per paths.gm_to_l1.run_ns
// after its start-up. The same bytes of a tensor stored NZ go in as they lie,
// four fractal columns of 512 x 32 bytes, at the path's peak.
TEST(PipeModel, AnNdLoadIntoL1IsBoundByItsRowsAndAnNzLoadByItsBytes) {
  MachineDescription a2 = bundledMachine("a2");
  const std::int64_t rows = 512, rowBytes = 128, bytes = rows * rowBytes;
  auto run = [&](bool nz) {
    PtoProgram program = ProgramBuilder(0, CoreType::AIC).load(MemoryKind::L1, bytes, 0).build();
    PtoOperand& gm = program.instructions[0].srcs[0];
    gm.dtype = DataType::Int8;
    gm.shape = {rows, rowBytes};
    gm.gmNz = nz;
    gm.gmRunBytes = nz ? rows * 32 : rowBytes;
    ExecuteGraph graph;
    addTask(graph, 0, CoreType::AIC, 1, 0, {}, bytes);
    return static_cast<double>(duration(simulate(graph, {program}, a2, freeScheduling(1, 0)).tasks[0]));
  };
  const PathRate& rate = *a2.paths[static_cast<std::size_t>(DataPath::GmToL1)];
  ASSERT_GT(rate.runNs, 0.0);
  const double startUp = rate.saturationBytes / pathBytesPerCycle(a2, DataPath::GmToL1);
  const double rowCycles = rate.runNs * a2.clockGHz;
  ASSERT_GT(rowCycles * static_cast<double>(rows), static_cast<double>(bytes) / pathBytesPerCycle(a2, DataPath::GmToL1))
      << "128-byte rows must bind for the test to mean anything";
  EXPECT_NEAR(run(false), startUp + static_cast<double>(rows) * rowCycles, 1.0);
  EXPECT_NEAR(run(true), aloneCycles(a2, DataPath::GmToL1, static_cast<double>(bytes)), 1.0);
}

TEST(PipeModel, ProgramsThatCannotRunAreDiagnosed) {
  MachineDescription a2 = bundledMachine("a2");
  DiagnosticEngine diags;
  // A wait nobody raises.
  PtoProgram deadlock = ProgramBuilder(0, CoreType::AIV).waitFlag(Pipe::MTE2, Pipe::VECTOR, 3).vector(PtoOpcode::TADD, 256).build();
  EXPECT_FALSE(NpuExecutor::create(a2, {deadlock}, {}, diags));
  EXPECT_NE(messages(diags).find("program 0 can never finish: its synchronisation deadlocks (VECTOR waits at program 0 "
                                 "instruction 0 (WAIT_FLAG))"),
            std::string::npos)
      << messages(diags);
  // L0C -> UB on a chip without that path.
  diags.clear();
  PtoProgram l0cToUb = ProgramBuilder(1, CoreType::AIC).move(MemoryKind::L0C, MemoryKind::UB, 1024).build();
  EXPECT_FALSE(NpuExecutor::create(a2, {l0cToUb}, {}, diags));
  EXPECT_NE(messages(diags).find("program 1 instruction 0 (TMOV_ACC) moves data l0c -> ub, a path machine 'a2' does not have"),
            std::string::npos)
      << messages(diags);
  EXPECT_TRUE(NpuExecutor::create(bundledMachine("950"), {l0cToUb}, {}, diags)) << "the 950 has it";
  // A task without the regions its program loads from.
  diags.clear();
  std::optional<NpuExecutor> executor =
      NpuExecutor::create(a2, {ProgramBuilder(0, CoreType::AIV).load(MemoryKind::UB, 256, 1).build()}, {}, diags);
  ASSERT_TRUE(executor);
  ExecuteGraph graph;
  addTask(graph, 0, CoreType::AIV, 1, 0);
  addTask(graph, 5, CoreType::AIV, 0, 0);
  EXPECT_FALSE(executor->checkGraph(graph, diags));
  EXPECT_NE(messages(diags).find("task 0 has 1 read and 0 written regions; program 0 loads from 2 and stores to 0"),
            std::string::npos)
      << messages(diags);
  EXPECT_NE(messages(diags).find("task 1 runs program 5, which does not exist"), std::string::npos);
}

namespace compiled {

// y = x + x on [n * 8, 1024] fp32, vec tile [8, 1024] (32 KiB a tile), compiled by the pipeline with every
// tile merged into one task (vec_nbuffer_setting n): AllocateBuffers ping-pongs the members' buffers and
// OoOSchedule issues each tile's load as soon as its bytes are free, so the task runs as a pipeline.
Compilation streamingTask(const MachineDescription& machine, int n) {
  TensorGraphBuilder builder("stream", SourceLocation{"kernel.py", 1, 0});
  SymbolicShape shape{SymbolicScalar(std::int64_t{8} * n), SymbolicScalar(std::int64_t{1024})};
  const TensorId x = builder.addArgument("x", DataType::Fp32, shape, SourceLocation{"kernel.py", 1, 0});
  const TensorId y = builder.addArgument("y", DataType::Fp32, shape, SourceLocation{"kernel.py", 1, 0});
  builder.beginPath();
  builder.setVecTile({8, 1024}, SourceLocation{"kernel.py", 2, 0});
  EXPECT_EQ(builder.addOp(TensorOpKind::Add, {x, x}, {}, SourceLocation{"kernel.py", 3, 0}, {y}).error, "");
  builder.endPath();
  CompileSettings settings;
  settings.target = machine.targetInfo();
  settings.passOptions = {{"vec_nbuffer_setting", {{"DEFAULT", n}}}};
  DiagnosticEngine diags;
  std::optional<CompileResult> result = compileKernel(builder.finish(), settings, diags);
  EXPECT_TRUE(result) << messages(diags);
  return result ? std::move(result->compilation) : Compilation{};
}

// The task of n tiles against fill + n x max(stage) + drain, every stage from the machine file: the load
// streams at its data time once loads run back to back (the slowest stage here), the first load also pays
// its start-up (fill), the last tile's add and store follow it (drain). Within 3 %: list scheduling may
// place an instruction a few cycles off the ideal.
TEST(CompiledPipelining, AMergedStreamRunsAtItsSlowestStageBetweenFillAndDrain) {
  MachineDescription a2 = bundledMachine("a2");
  const double load = aloneCycles(a2, DataPath::GmToUb, kChunk), latency = aloneCycles(a2, DataPath::GmToUb, 0);
  const double loadData = load - latency, add = addCycles(a2, kChunk), store = aloneCycles(a2, DataPath::UbToGm, kChunk);
  ASSERT_GT(loadData, add);
  ASSERT_GT(loadData, store);
  for (int n : {4, 16}) {
    Compilation compilation = streamingTask(a2, n);
    ASSERT_EQ(compilation.tasks.tasks.size(), 1u);
    ASSERT_EQ(compilation.blocks.subgraphs[0].overlap, BufferOverlap::PingPong);
    DiagnosticEngine diags;
    std::optional<Schedule> schedule = simulateTiming(compilation, a2, TimingRunOptions{}, diags);
    ASSERT_TRUE(schedule) << messages(diags);
    const double expected = latency + n * loadData + add + store;
    const double taskCycles = static_cast<double>(duration(schedule->tasks[0]));
    EXPECT_NEAR(taskCycles, expected, 0.03 * expected) << n << " tiles";
    EXPECT_LT(taskCycles, 0.75 * n * (load + add + store)) << "well below running the stages in series";
  }
}

} // namespace compiled

} // namespace
} // namespace pto::testing
