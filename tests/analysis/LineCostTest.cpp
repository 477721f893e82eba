// The busy time per kernel line (analysis/report/LineCost.h), checked two ways:
// - the split rule on one subgraph and task records written by hand, on a
//   1 GHz machine whose vector unit streams 256 bytes per cycle with no
//   start-up (exp costs 2 per byte-cycle, mul 1) and whose copy engines move
//   32 (GM -> UB) and 64 (UB -> GM) bytes per cycle with no start-up, so every
//   expected figure is worked out in the comments;
// - a real kernel (exp on line 3, times 2 on line 4) compiled by the whole
//   pipeline and simulated on the bundled a2, where the vector pipe's split
//   between the lines is the two instructions' costs from a2's own figures.
// Tolerances are for floating-point rounding only.
#include "analysis/report/LineCost.h"

#include "analysis/simulation/Simulation.h"
#include "compiler/passes/Pipeline.h"
#include "npusim/MachineFile.h"
#include "tests/support/KernelBuilding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numeric>

namespace pto::testing {
namespace {

constexpr double kRounding = 1e-9;
constexpr std::size_t kAivSlot = static_cast<std::size_t>(CoreType::AIV);
constexpr std::size_t kAicSlot = static_cast<std::size_t>(CoreType::AIC);

std::size_t pipeSlot(Pipe pipe) { return static_cast<std::size_t>(pipe); }

PtoOperand ubOrGm(MemoryKind memory, std::int64_t bytes, int gmRegion = -1) {
  PtoOperand result;
  result.memory = memory;
  result.bytes = bytes;
  result.shape = {bytes / 4};
  result.gmRegion = gmRegion;
  result.gmAlias = gmRegion;
  return result;
}

PtoInstruction handInstruction(PtoOpcode opcode, TileOpId tileOp, PtoOperand dst, PtoOperand src) {
  PtoInstruction result;
  result.opcode = opcode;
  result.pipe = pipeOf(opcode);
  result.tileOp = tileOp;
  result.dst = {std::move(dst)};
  result.srcs = {std::move(src)};
  result.bytes = result.dst[0].bytes;
  result.elements = result.bytes / 4;
  return result;
}

// x -> exp (line 3) -> e -> muls (line 4) -> y, then a view of y (line 5)
// that emits nothing: one subgraph of tile ops #0, #1, #2. Its program:
//   TLOAD 512 B (op #0)   MTE2    512 / 32 = 16 cycles
//   TEXP 512 B (op #0)    VECTOR  2 x 512 / 256 = 4 cycles
//   TMULS 512 B (op #1)   VECTOR  1 x 512 / 256 = 2 cycles
//   TSTORE 512 B (op #1)  MTE3    512 / 64 = 8 cycles
class HandLineCostTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_machine.name = "hand";
    m_machine.aicCores = 1;
    m_machine.aivCores = 2;
    m_machine.clockGHz = 1.0;
    const double gibPerSecondPerBytePerCycle = 1e9 / (1024.0 * 1024.0 * 1024.0);
    m_machine.paths[static_cast<std::size_t>(DataPath::GmToUb)] = PathRate{32 * gibPerSecondPerBytePerCycle, 0.0};
    m_machine.paths[static_cast<std::size_t>(DataPath::UbToGm)] = PathRate{64 * gibPerSecondPerBytePerCycle, 0.0};
    m_machine.vector.bytesPerCycle = 256.0;
    m_machine.vector.startupCycles = 0;
    m_machine.vector.costFactors.fill(1.0);
    m_machine.vector.costFactors[static_cast<std::size_t>(VectorOpClass::Exp)] = 2.0;

    TensorGraph& graph = m_compilation.tiles.graph;
    auto tensor = [&] {
      TensorValue value;
      value.dtype = DataType::Fp32;
      value.role = TensorRole::Temporary;
      const TensorId id = graph.addTensor(value);
      m_compilation.tiles.setShape(id, {128});
      return id;
    };
    const TensorId x = tensor(), e = tensor(), y = tensor(), v = tensor();
    auto op = [&](TensorOpKind kind, TensorId in, TensorId out, int line) {
      TensorOp tensorOp;
      tensorOp.kind = kind;
      tensorOp.inputs = {in};
      tensorOp.outputs = {out};
      tensorOp.location = kernelLine(line);
      const OpId id = graph.addOp(tensorOp);
      TileOp tile;
      tile.tensorOp = id;
      tile.kind = kind;
      return m_compilation.tiles.addTileOp(tile);
    };
    const TileOpId exp = op(TensorOpKind::Exp, x, e, 3);
    const TileOpId muls = op(TensorOpKind::MulS, e, y, 4);
    op(TensorOpKind::View, y, v, 5);

    Subgraph subgraph;
    subgraph.id = 0;
    subgraph.programId = 0;
    subgraph.ops = {0, 1, 2};
    m_compilation.blocks.subgraphs.push_back(subgraph);

    PtoProgram program;
    program.programId = 0;
    program.subgraph = 0;
    program.instructions = {
        handInstruction(PtoOpcode::TLOAD, exp, ubOrGm(MemoryKind::UB, 512), ubOrGm(MemoryKind::GM, 512, 0)),
        handInstruction(PtoOpcode::TEXP, exp, ubOrGm(MemoryKind::UB, 512), ubOrGm(MemoryKind::UB, 512)),
        handInstruction(PtoOpcode::TMULS, muls, ubOrGm(MemoryKind::UB, 512), ubOrGm(MemoryKind::UB, 512)),
        handInstruction(PtoOpcode::TSTORE, muls, ubOrGm(MemoryKind::GM, 512, 0), ubOrGm(MemoryKind::UB, 512)),
    };
    program.recountPipes();
    m_compilation.programs.push_back(program);
    for (TaskId id = 0; id < 2; ++id) {
      Task task;
      task.id = id;
      task.subgraph = 0;
      task.programId = 0;
      m_compilation.tasks.tasks.push_back(task);
    }
  }

  static TaskRecord record(Schedule& schedule, TaskId task, std::int64_t start, std::int64_t end,
                           const std::vector<PipeInterval>& pipes) {
    TaskRecord result;
    result.task = task;
    result.core = CoreId{CoreType::AIV, static_cast<int>(task)};
    result.startCycle = start;
    result.endCycle = end;
    schedule.setPipes(result, pipes);
    return result;
  }

  MachineDescription m_machine;
  Compilation m_compilation;
};

TEST_F(HandLineCostTest, PipeIntervalsSplitByModelledCostAndTaskTimeByBusyPipes) {
  // Task 0 runs cycles 0-100: MTE2 0-40, VECTOR 30-70, MTE3 70-90, nothing 90-100.
  Schedule schedule;
  schedule.tasks = {record(schedule, 0, 0, 100, {{"MTE2", 0, 40}, {"VECTOR", 30, 70}, {"MTE3", 70, 90}})};
  const LineCostReport report = lineCostReport(m_compilation, schedule, m_machine);
  ASSERT_EQ(report.lines.size(), 3u);
  const SourceLineCost& exp = report.lines[0];
  const SourceLineCost& muls = report.lines[1];
  const SourceLineCost& view = report.lines[2];
  EXPECT_EQ(exp.line, 3);
  EXPECT_EQ(muls.line, 4);
  EXPECT_EQ(view.line, 5);

  // Pipe cycles: MTE2's 40 all to the load's line 3; VECTOR's 40 as TEXP 4 :
  // TMULS 2, 80/3 and 40/3; MTE3's 20 all to the store's line 4.
  EXPECT_NEAR(exp.pipeCycles[pipeSlot(Pipe::MTE2)], 40.0, kRounding);
  EXPECT_NEAR(exp.pipeCycles[pipeSlot(Pipe::VECTOR)], 80.0 / 3.0, kRounding);
  EXPECT_NEAR(muls.pipeCycles[pipeSlot(Pipe::VECTOR)], 40.0 / 3.0, kRounding);
  EXPECT_NEAR(muls.pipeCycles[pipeSlot(Pipe::MTE3)], 20.0, kRounding);
  EXPECT_EQ(exp.pipeCycles[pipeSlot(Pipe::MTE3)], 0.0);

  // Task time: 0-30 MTE2 alone (30), 30-40 MTE2 and VECTOR (5 each), 40-70
  // VECTOR (30), 70-90 MTE3 (20): MTE2 35, VECTOR 35, MTE3 20 of 90 covered;
  // the idle 10 scale everything by 100/90. Line 3: (35 + 35 x 2/3) x 100/90
  // = 58.33 x 1.111 = 64.81; line 4: (35/3 + 20) x 100/90 = 35.19.
  EXPECT_NEAR(exp.coreCycles[kAivSlot], (35.0 + 35.0 * 2.0 / 3.0) * 100.0 / 90.0, kRounding);
  EXPECT_NEAR(muls.coreCycles[kAivSlot], (35.0 / 3.0 + 20.0) * 100.0 / 90.0, kRounding);
  EXPECT_EQ(view.cycles(), 0.0) << "a view moves nothing";
  EXPECT_EQ(exp.coreCycles[kAicSlot], 0.0);
  EXPECT_NEAR(exp.share + muls.share + view.share, 1.0, kRounding);
  EXPECT_NEAR(exp.share, exp.cycles() / 100.0, kRounding);

  // Every line of the fused task counts it, the view's too.
  for (const SourceLineCost* line : {&exp, &muls, &view}) EXPECT_EQ(line->tasks, (std::vector<TaskId>{0})) << line->line;
  EXPECT_EQ(exp.instructions, 2);
  EXPECT_EQ(muls.instructions, 2);
  EXPECT_EQ(view.instructions, 0);
  EXPECT_EQ(exp.opcodes, (std::vector<std::pair<PtoOpcode, std::int64_t>>{{PtoOpcode::TLOAD, 1}, {PtoOpcode::TEXP, 1}}));
  EXPECT_EQ(report.pipeCycles[pipeSlot(Pipe::VECTOR)], 40.0);
  EXPECT_EQ(report.busyCycles[kAivSlot], 100.0);
}

TEST_F(HandLineCostTest, WithoutPipeIntervalsTaskTimeSplitsByInstructionCosts) {
  // Task 1 runs 60 cycles with no pipe intervals recorded: line 3 holds TLOAD
  // 16 + TEXP 4 = 20 of the 30 modelled cycles, line 4 TMULS 2 + TSTORE 8 = 10.
  Schedule schedule;
  schedule.tasks = {record(schedule, 0, 0, 100, {{"MTE2", 0, 40}, {"VECTOR", 30, 70}, {"MTE3", 70, 90}}),
                    record(schedule, 1, 0, 60, {})};
  const LineCostReport report = lineCostReport(m_compilation, schedule, m_machine);
  ASSERT_EQ(report.lines.size(), 3u);
  EXPECT_NEAR(report.lines[0].coreCycles[kAivSlot], (35.0 + 35.0 * 2.0 / 3.0) * 100.0 / 90.0 + 40.0, kRounding);
  EXPECT_NEAR(report.lines[1].coreCycles[kAivSlot], (35.0 / 3.0 + 20.0) * 100.0 / 90.0 + 20.0, kRounding);
  EXPECT_EQ(report.busyCycles[kAivSlot], 160.0);
  EXPECT_EQ(report.lines[2].tasks, (std::vector<TaskId>{0, 1}));
  EXPECT_EQ(report.lines[0].instructions, 4) << "two per task";
  ASSERT_NE(report.find("/somewhere/kernel.py", 4), nullptr);
  EXPECT_EQ(report.find("kernel.py", 4)->line, 4);
  EXPECT_EQ(report.find("kernel.py", 6), nullptr);
  EXPECT_EQ(report.find("other.py", 4), nullptr);
}

// A real kernel: e = exp(x) (line 3); y = e * 2 (line 4) over x, y [128,
// 256] float32 with vec tile [32, 256]: one subgraph per tile, each loading
// 32 KiB, exp and muls over it, storing 32 KiB.
struct CompiledRun {
  Compilation compilation;
  Simulation simulation;
};

CompiledRun compileAndSimulate(const MachineDescription& machine) {
  auto [builder, x, y] = beginXyKernel("exp_muls", {128, 256}, {128, 256}, {32, 256});
  const TensorId e = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::MulS, {e}, {{"scalar", 2.0}}, 4, {y});
  builder.endPath();
  const TensorGraph graph = builder.finish();
  DiagnosticEngine diags;
  CompileSettings settings;
  settings.target = machine.targetInfo();
  std::optional<CompileResult> compiled = compileKernel(graph, settings, diags);
  EXPECT_TRUE(compiled) << messages(diags);
  if (!compiled) return {};
  std::vector<HostTensor> arguments{HostTensor(DataType::Fp32, {128, 256}), HostTensor(DataType::Fp32, {128, 256})};
  SimulationRequest request;
  request.machine = &machine;
  std::optional<Simulation> simulation = simulate(compiled->compilation, arguments, request, diags);
  EXPECT_TRUE(simulation) << messages(diags);
  if (!simulation) return {};
  return {std::move(compiled->compilation), std::move(*simulation)};
}

TEST(LineCost, CompiledKernelSplitsTheVectorPipeByA2sInstructionCosts) {
  DiagnosticEngine diags;
  const auto a2 = loadMachine(std::filesystem::path(PTO_SOURCE_DIR) / "resources/machines/a2.json", diags);
  ASSERT_TRUE(a2) << messages(diags);
  const CompiledRun run = compileAndSimulate(*a2);
  const Schedule& schedule = run.simulation.schedule;
  ASSERT_EQ(schedule.tasks.size(), 4u) << "one task per [32, 256] tile";
  const LineCostReport report = lineCostReport(run.compilation, schedule, *a2);
  const SourceLineCost* exp = report.find("kernel.py", 3);
  const SourceLineCost* muls = report.find("kernel.py", 4);
  ASSERT_TRUE(exp && muls);

  // From a2's figures (startup + ceil(factor x bytes / bytes per cycle)) on
  // 32 KiB: exp 32 + ceil(2 x 32768 / 256) = 288, muls 32 + 128 = 160.
  const double expCycles = static_cast<double>(a2->vector.startupCycles) +
                           std::ceil(a2->vector.costFactors[static_cast<std::size_t>(VectorOpClass::Exp)] * 32768.0 /
                                     a2->vector.bytesPerCycle);
  const double mulsCycles = static_cast<double>(a2->vector.startupCycles) +
                            std::ceil(a2->vector.costFactors[static_cast<std::size_t>(VectorOpClass::Mul)] * 32768.0 /
                                      a2->vector.bytesPerCycle);
  ASSERT_EQ(expCycles, 288.0);
  ASSERT_EQ(mulsCycles, 160.0);
  const double vector = report.pipeCycles[pipeSlot(Pipe::VECTOR)];
  // Each task's vector pipe runs the two back to back; the model rounds each
  // interval's ends outwards to whole cycles.
  EXPECT_NEAR(vector, 4 * (expCycles + mulsCycles), 4 * 2.0);
  EXPECT_NEAR(exp->pipeCycles[pipeSlot(Pipe::VECTOR)], vector * expCycles / (expCycles + mulsCycles), 1e-6);
  EXPECT_NEAR(muls->pipeCycles[pipeSlot(Pipe::VECTOR)], vector * mulsCycles / (expCycles + mulsCycles), 1e-6);
  // The loads belong to their first user (the exp), the stores to their writer.
  EXPECT_GT(report.pipeCycles[pipeSlot(Pipe::MTE2)], 0.0);
  EXPECT_NEAR(exp->pipeCycles[pipeSlot(Pipe::MTE2)], report.pipeCycles[pipeSlot(Pipe::MTE2)], 1e-6);
  EXPECT_NEAR(muls->pipeCycles[pipeSlot(Pipe::MTE3)], report.pipeCycles[pipeSlot(Pipe::MTE3)], 1e-6);
  EXPECT_EQ(exp->tasks, (std::vector<TaskId>{0, 1, 2, 3}));
  EXPECT_EQ(muls->tasks, exp->tasks) << "both lines of each fused task count it";
}

TEST(LineCost, SharesSumToTheRunsBusyTimeAndPipesToTheirIntervals) {
  DiagnosticEngine diags;
  const auto a2 = loadMachine(std::filesystem::path(PTO_SOURCE_DIR) / "resources/machines/a2.json", diags);
  ASSERT_TRUE(a2) << messages(diags);
  const CompiledRun run = compileAndSimulate(*a2);
  const LineCostReport report = lineCostReport(run.compilation, run.simulation.schedule, *a2);
  std::array<double, 2> busy{};
  std::array<double, kPipeCount> pipes{};
  for (const TaskRecord& record : run.simulation.schedule.tasks) {
    busy[static_cast<std::size_t>(record.core.type)] += static_cast<double>(record.endCycle - record.startCycle);
    for (const PipeInterval& interval : run.simulation.schedule.pipes(record))
      pipes[pipeSlot(*parsePipe(interval.pipe()))] += static_cast<double>(interval.endCycle - interval.startCycle);
  }
  std::array<double, 2> lineBusy{};
  std::array<double, kPipeCount> linePipes{};
  double shares = 0.0;
  for (const SourceLineCost& line : report.lines) {
    shares += line.share;
    for (std::size_t t = 0; t < 2; ++t) lineBusy[t] += line.coreCycles[t];
    for (std::size_t p = 0; p < kPipeCount; ++p) linePipes[p] += line.pipeCycles[p];
  }
  EXPECT_NEAR(shares, 1.0, kRounding);
  EXPECT_GT(busy[kAivSlot], 0.0);
  for (std::size_t t = 0; t < 2; ++t) EXPECT_NEAR(lineBusy[t], busy[t], kRounding * busy[kAivSlot]) << t;
  for (std::size_t p = 0; p < kPipeCount; ++p) EXPECT_NEAR(linePipes[p], pipes[p], kRounding * busy[kAivSlot]) << p;
}

} // namespace
} // namespace pto::testing
