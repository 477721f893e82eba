// The roofline on programs and task times written by hand, on a machine
// whose rates make the arithmetic exact: 2 GHz; copy engines of 64 bytes per
// cycle GM -> L1, 32 GM -> UB, 128 L0C -> GM and 64 UB -> GM; a 0.256 TB/s
// GM at full efficiency (128 bytes per cycle for the chip); 4 cube and 8
// vector cores; an fp16 cube of 4096 MACs per cycle; a 256-byte-per-cycle
// vector unit where exp costs 2, a cast 0.5 and the rest 1. Every expected
// figure is worked out in the comments; tolerances are for floating-point
// rounding only.
#include "analysis/report/HealthReport.h"
#include "analysis/run/ProjectRun.h"
#include "analysis/report/Roofline.h"
#include "core/project/ProjectFile.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pto::testing {
namespace {

constexpr double kTight = 1e-9;  // relative

PtoOperand operand(MemoryKind memory, DataType dtype, std::int64_t bytes) {
  PtoOperand result;
  result.memory = memory;
  result.dtype = dtype;
  result.bytes = bytes;
  return result;
}

PtoInstruction instruction(PtoOpcode opcode, std::vector<PtoOperand> dst, std::vector<PtoOperand> srcs,
                           std::int64_t bytes, std::int64_t elements) {
  PtoInstruction result;
  result.opcode = opcode;
  result.pipe = pipeOf(opcode);
  result.dst = std::move(dst);
  result.srcs = std::move(srcs);
  result.bytes = bytes;
  result.elements = elements;
  return result;
}

TaskRecord taskRecord(TaskId task, CoreType type, std::int64_t start, std::int64_t end) {
  TaskRecord record;
  record.task = task;
  record.core = CoreId{type, 0};
  record.startCycle = start;
  record.endCycle = end;
  return record;
}

class RooflineTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_machine.name = "hand";
    m_machine.aicCores = 4;
    m_machine.aivCores = 8;
    m_machine.clockGHz = 2.0;
    const double gibPerSecondPerBytePerCycle = 2e9 / (1024.0 * 1024.0 * 1024.0);
    m_machine.paths[static_cast<std::size_t>(DataPath::GmToL1)] = PathRate{64 * gibPerSecondPerBytePerCycle, 0.0};
    m_machine.paths[static_cast<std::size_t>(DataPath::GmToUb)] = PathRate{32 * gibPerSecondPerBytePerCycle, 0.0};
    m_machine.paths[static_cast<std::size_t>(DataPath::L0CToGm)] = PathRate{128 * gibPerSecondPerBytePerCycle, 0.0};
    m_machine.paths[static_cast<std::size_t>(DataPath::UbToGm)] = PathRate{64 * gibPerSecondPerBytePerCycle, 0.0};
    m_machine.memory = {0.256, 1.0};
    m_machine.cube[static_cast<std::size_t>(DataType::Fp16)] = CubeRate{4096, 16, 16, 16};
    m_machine.vector.bytesPerCycle = 256.0;
    m_machine.vector.costFactors.fill(1.0);
    m_machine.vector.costFactors[static_cast<std::size_t>(VectorOpClass::Exp)] = 2.0;
    m_machine.vector.costFactors[static_cast<std::size_t>(VectorOpClass::Cast)] = 0.5;

    using enum PtoOpcode;
    const MemoryKind GM = MemoryKind::GM, L1 = MemoryKind::L1, UB = MemoryKind::UB, L0C = MemoryKind::L0C;
    const DataType f16 = DataType::Fp16, f32 = DataType::Fp32;

    // Program 0 (cube): C[64x64] fp32 = A[64x128] fp16 x B[128x64] fp16.
    // Ops 2 x 64·128·64 = 1 048 576. Loads 32 768 bytes: 512 cycles at 64,
    // intensity 1 048 576 / 32 768 = 32. Store 16 384 bytes: 128 cycles at
    // 128. Arithmetic 524 288 / 4096 = 128 cycles. Roofs: compute 8192, read
    // 2048, write 8192 ops/cycle: limited by GM reads at 2048.
    PtoProgram cube;
    cube.programId = 0;
    cube.coreType = CoreType::AIC;
    cube.instructions = {
        instruction(TLOAD, {operand(L1, f16, 16384)}, {operand(GM, f16, 16384)}, 16384, 8192),
        instruction(TLOAD, {operand(L1, f16, 16384)}, {operand(GM, f16, 16384)}, 16384, 8192),
        instruction(TMOV, {operand(MemoryKind::L0A, f16, 16384)}, {operand(L1, f16, 16384)}, 16384, 8192),
        instruction(TMATMUL, {operand(L0C, f32, 16384)}, {operand(MemoryKind::L0A, f16, 16384)}, 0, 64 * 128 * 64),
        instruction(TSTORE_ACC, {operand(GM, f32, 16384)}, {operand(L0C, f32, 16384)}, 16384, 4096),
    };
    // Program 1 (vector): exp over 1024 fp32, a conversion to fp16 (runs at
    // fp32's rate), an fp16 add over 2048, and a UB copy (no arithmetic).
    // Ops 1024 + 1024 + 2048 = 4096. Arithmetic on the largest operands
    // (4096 bytes each): exp 2 x 16, cast 0.5 x 16, add 1 x 16 = 56 cycles,
    // compute roof 73.14. Load 4096 bytes: 128 cycles at 32, read roof 32,
    // intensity 1. Store 2048 bytes: 32 cycles at 64, write roof 128.
    PtoProgram vector;
    vector.programId = 1;
    vector.coreType = CoreType::AIV;
    vector.instructions = {
        instruction(TLOAD, {operand(UB, f32, 4096)}, {operand(GM, f32, 4096)}, 4096, 1024),
        instruction(TEXP, {operand(UB, f32, 4096)}, {operand(UB, f32, 4096)}, 0, 1024),
        instruction(TCVT, {operand(UB, f16, 2048)}, {operand(UB, f32, 4096)}, 0, 1024),
        instruction(TADD, {operand(UB, f16, 4096)}, {operand(UB, f16, 4096), operand(UB, f16, 4096)}, 0, 2048),
        instruction(TCOPY, {operand(UB, f16, 2048)}, {operand(UB, f16, 2048)}, 0, 1024),
        instruction(SET_FLAG, {}, {}, 0, 0),
        instruction(TSTORE, {operand(GM, f16, 2048)}, {operand(UB, f16, 2048)}, 2048, 1024),
    };
    // Program 2 (vector): a copy through UB, no arithmetic.
    PtoProgram copy;
    copy.programId = 2;
    copy.coreType = CoreType::AIV;
    copy.instructions = {
        instruction(TLOAD, {operand(UB, f32, 4096)}, {operand(GM, f32, 4096)}, 4096, 1024),
        instruction(TSTORE, {operand(GM, f32, 4096)}, {operand(UB, f32, 4096)}, 4096, 1024),
    };
    m_compilation.programs = {cube, vector, copy};

    for (int s = 0; s < 3; ++s) {
      Subgraph subgraph;
      subgraph.id = s;
      subgraph.programId = s;
      subgraph.coreType = s == 0 ? CoreType::AIC : CoreType::AIV;
      subgraph.label = s == 0 ? "mm" : s == 1 ? "act" : "copy";
      m_compilation.blocks.subgraphs.push_back(subgraph);
    }
    // Tasks: sg0 twice (1000 and 3000 cycles, mean 2000), sg1 once (400), sg2 once (50).
    const std::vector<SubgraphId> subgraphOf = {0, 0, 1, 2};
    for (TaskId t = 0; t < 4; ++t) {
      Task task;
      task.id = t;
      task.subgraph = subgraphOf[static_cast<std::size_t>(t)];
      m_compilation.tasks.tasks.push_back(task);
    }
    m_schedule.tasks = {taskRecord(0, CoreType::AIC, 0, 1000), taskRecord(1, CoreType::AIC, 0, 3000),
                        taskRecord(2, CoreType::AIV, 3000, 3400), taskRecord(3, CoreType::AIV, 3400, 3450)};
    m_schedule.makespanCycles = 3450;
  }

  MachineDescription m_machine;
  Compilation m_compilation;
  Schedule m_schedule;
};

const RooflineCeiling* ceilingNamed(const Roofline& roof, const std::string& name) {
  for (const RooflineCeiling& ceiling : roof.ceilings)
    if (ceiling.name == name) return &ceiling;
  return nullptr;
}

TEST_F(RooflineTest, ACubeSubgraphCountsTwoOperationsPerMacAndItsGmTraffic) {
  const Roofline roof = roofline(m_compilation, m_schedule, m_machine);
  const RooflinePoint& mm = roof.points.at(0);
  EXPECT_EQ(mm.label, "mm");
  EXPECT_EQ(mm.tasks, 2);
  EXPECT_EQ(mm.longestTask, 1);
  EXPECT_DOUBLE_EQ(mm.ops, 1048576.0);
  EXPECT_DOUBLE_EQ(mm.gmReadBytes, 32768.0);  // the L1 -> L0A move is not GM traffic
  EXPECT_DOUBLE_EQ(mm.gmWriteBytes, 16384.0);
  EXPECT_DOUBLE_EQ(mm.intensity, 32.0);
  EXPECT_DOUBLE_EQ(mm.meanCycles, 2000.0);
  EXPECT_NEAR(mm.achievedOpsPerCycle, 524.288, kTight * 524.288);
  EXPECT_NEAR(mm.computeRoofOpsPerCycle, 8192.0, kTight * 8192.0);
  EXPECT_EQ(mm.limitedBy, "GM read");
  EXPECT_NEAR(mm.roofOpsPerCycle, 2048.0, kTight * 2048.0);
  EXPECT_NEAR(mm.roofShare, 524.288 / 2048.0, kTight);
}

TEST_F(RooflineTest, AVectorSubgraphCountsElementsAndCostsEachInstructionAtItsClassRate) {
  const Roofline roof = roofline(m_compilation, m_schedule, m_machine);
  const RooflinePoint& act = roof.points.at(1);
  EXPECT_DOUBLE_EQ(act.ops, 4096.0);  // the UB copy and the flag count nothing
  EXPECT_DOUBLE_EQ(act.gmReadBytes, 4096.0);
  EXPECT_DOUBLE_EQ(act.gmWriteBytes, 2048.0);
  EXPECT_DOUBLE_EQ(act.intensity, 1.0);
  EXPECT_NEAR(act.computeRoofOpsPerCycle, 4096.0 / 56.0, 1e-9);
  EXPECT_EQ(act.limitedBy, "GM read");
  EXPECT_NEAR(act.roofOpsPerCycle, 32.0, 1e-9);
  EXPECT_NEAR(act.achievedOpsPerCycle, 10.24, 1e-12);  // 4096 ops in 400 cycles
  EXPECT_NEAR(act.roofShare, 0.32, 1e-12);
}

TEST_F(RooflineTest, ASubgraphWithoutArithmeticIsListedButNotPlotted) {
  const Roofline roof = roofline(m_compilation, m_schedule, m_machine);
  const RooflinePoint& copy = roof.points.at(2);
  EXPECT_DOUBLE_EQ(copy.ops, 0.0);
  EXPECT_DOUBLE_EQ(copy.gmReadBytes, 4096.0);
  EXPECT_FALSE(copy.plottable());
  EXPECT_TRUE(copy.limitedBy.empty());
}

TEST_F(RooflineTest, TheLowestOfTheComputeLoadAndStoreRoofsNamesTheLimit) {
  // 8x the arithmetic on 8x larger operands, the same GM traffic: compute
  // takes 448 cycles (roof 32 768 / 448 = 73.14), below the read roof
  // (32 768 / 128 = 256) and the write roof (32 768 / 32 = 1024).
  for (PtoInstruction& i : m_compilation.programs[1].instructions)
    if (i.pipe == Pipe::VECTOR) {
      i.elements *= 8;
      for (auto* operands : {&i.dst, &i.srcs})
        for (PtoOperand& o : *operands) o.bytes *= 8;
    }
  Roofline roof = roofline(m_compilation, m_schedule, m_machine);
  EXPECT_EQ(roof.points.at(1).limitedBy, "compute");
  EXPECT_NEAR(roof.points.at(1).roofOpsPerCycle, 32768.0 / 448.0, 1e-9);
  // A slow store path: 2048 bytes at 4 per cycle = 512 cycles, write roof 64.
  const double gibPerSecondPerBytePerCycle = 2e9 / (1024.0 * 1024.0 * 1024.0);
  m_machine.paths[static_cast<std::size_t>(DataPath::UbToGm)] = PathRate{4 * gibPerSecondPerBytePerCycle, 0.0};
  roof = roofline(m_compilation, m_schedule, m_machine);
  EXPECT_EQ(roof.points.at(1).limitedBy, "GM write");
  EXPECT_NEAR(roof.points.at(1).roofOpsPerCycle, 64.0, 1e-9);
}

TEST_F(RooflineTest, CeilingsAreTheMachinesForTheTypesInUse) {
  const Roofline roof = roofline(m_compilation, m_schedule, m_machine);
  ASSERT_EQ(roof.ceilings.size(), 7u);
  EXPECT_EQ(roof.ceilings.front().name, "CUBE float16 peak");
  EXPECT_DOUBLE_EQ(roof.ceilings.front().opsPerCycle, 8192.0);
  ASSERT_NE(ceilingNamed(roof, "VECTOR float32 add-class peak"), nullptr);
  EXPECT_DOUBLE_EQ(ceilingNamed(roof, "VECTOR float32 add-class peak")->opsPerCycle, 64.0);
  EXPECT_DOUBLE_EQ(ceilingNamed(roof, "VECTOR float16 add-class peak")->opsPerCycle, 128.0);
  EXPECT_NEAR(ceilingNamed(roof, "GM -> L1 peak, one core")->bytesPerCycle, 64.0, 1e-9);
  EXPECT_NEAR(ceilingNamed(roof, "GM -> UB peak, one core")->bytesPerCycle, 32.0, 1e-9);
  // 0.256e12 B/s / 2e9 cycles/s = 128 bytes per cycle for the chip.
  EXPECT_NEAR(ceilingNamed(roof, "GM shared by 4 AIC cores")->bytesPerCycle, 32.0, 1e-9);
  EXPECT_NEAR(ceilingNamed(roof, "GM shared by 8 AIV cores")->bytesPerCycle, 16.0, 1e-9);
  EXPECT_FALSE(ceilingNamed(roof, "GM shared by 8 AIV cores")->compute);
}

TEST_F(RooflineTest, TheHealthReportCarriesItIntoItsJson) {
  const HealthReport report = healthReport(m_compilation, m_schedule, m_machine);
  ASSERT_EQ(report.roofline.points.size(), 3u);
  const nlohmann::ordered_json json = healthReportJson(report);
  const auto& points = json.at("roofline").at("points");
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0].at("limited_by"), "GM read");
  EXPECT_DOUBLE_EQ(points[0].at("ops").get<double>(), 1048576.0);
  EXPECT_FALSE(points[2].contains("intensity"));  // not plotted: no arithmetic
  EXPECT_EQ(json.at("roofline").at("ceilings").size(), 7u);
}

// On real runs the simulator never beats a point's roof: each unit runs its
// instructions one at a time at no more than its peak, which is what the
// roof assumes. And the cube's operations, counted from the lowered
// instructions, are twice the multiply-adds counted from the tile graph.
class RooflineOnExamples : public ::testing::TestWithParam<const char*> {};

TEST_P(RooflineOnExamples, NoSubgraphBeatsItsRoof) {
  DiagnosticEngine diags;
  auto project = loadProject(std::string(PTO_SOURCE_DIR) + "/resources/examples/" + GetParam(), diags);
  ASSERT_TRUE(project);
  ProjectRunOptions options;
  options.check = PrecisionCheck::Never;
  auto run = runProject(*project, diags, options);
  std::ostringstream printed;
  diags.print(printed);
  ASSERT_TRUE(run && run->compiled && run->simulation && run->machine) << printed.str();
  const Roofline roof = roofline(run->compiled->compilation, run->simulation->schedule, *run->machine);
  int plotted = 0;
  double cubeOps = 0.0;
  for (const RooflinePoint& point : roof.points) {
    if (point.coreType == "AIC") cubeOps += point.ops * point.tasks;
    if (!point.plottable()) continue;
    ++plotted;
    EXPECT_LE(point.roofShare, 1.0 + 1e-9) << GetParam() << " sg " << point.subgraph << " (" << point.label
                                           << ") runs above its " << point.limitedBy << " roof";
    EXPECT_GT(point.roofShare, 0.0);
  }
  EXPECT_GT(plotted, 0);
  if (std::string(GetParam()) == "matmul") {
    EXPECT_DOUBLE_EQ(cubeOps, 2.0 * run->multiplyAdds);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, RooflineOnExamples,
                         ::testing::Values("matmul", "softmax", "lightning_indexer", "indexer_prolog", "mla_prolog"));

} // namespace
} // namespace pto::testing
