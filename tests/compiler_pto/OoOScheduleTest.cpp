// OoOSchedule: every dependence kept (brute-force check over random programs and lowered subgraphs), program
// order in mode 0, and the overlap double buffering allows: with a tile's buffers apart from the previous
// tile's, the next copy-in is issued before the previous tile's compute is done; with AllocateBuffers'
// reuse of the same bytes, it waits for the last reader.
#include "PtoTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/LowerToPto.h"
#include "compiler/passes/OoOSchedule.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>
#include <tuple>

namespace pto::testing {
namespace {

using P = PtoOpcode;

TEST(OoOSchedule, RandomProgramsKeepEveryDependence) {
  std::mt19937 random(12345);
  for (int trial = 0; trial < 400; ++trial) {
    PtoProgram program;
    program.instructions = randomInstructions(random, 1 + trial % 80);
    const std::vector<PtoInstruction> original = program.instructions;
    scheduleProgram(program, 1);
    ASSERT_TRUE(keepsDependences(program.instructions, original)) << "trial " << trial;
  }
}

TEST(OoOSchedule, ModeZeroKeepsProgramOrder) {
  std::mt19937 random(5);
  PtoProgram program;
  program.instructions = randomInstructions(random, 40);
  const std::vector<PtoInstruction> original = program.instructions;
  scheduleProgram(program, 0);
  for (std::size_t i = 0; i < original.size(); ++i) EXPECT_EQ(program.instructions[i].tileOp, original[i].tileOp);
}

// y = exp(x) + 1 on x [8, 64] fp32 with vec tile [4, 64]: tile ops exp x[0:4] (0), exp x[4:8] (1),
// adds (2), adds (3); the subgraph runs them tile by tile: 0, 2, 1, 3.
Compilation twoIndependentTiles() {
  auto [builder, x, y] = beginXyKernel("exp_adds", {8, 64}, {8, 64}, {4, 64});
  const TensorId t = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::AddS, {t}, {{"scalar", 1.0}}, 4, {y});
  builder.endPath();
  Compilation compilation = tiled(builder.finish());
  addSubgraph(compilation, {0, 2, 1, 3}, CoreType::AIV);
  return compilation;
}

// Positions of the scheduled instructions, by their lowered (program-order) index.
std::vector<std::size_t> scheduledPositions(PtoProgram& program) {
  for (std::size_t i = 0; i < program.instructions.size(); ++i)
    program.instructions[i].tileOp = static_cast<TileOpId>(i);
  const std::vector<PtoInstruction> original = program.instructions;
  scheduleProgram(program, 1);
  EXPECT_TRUE(keepsDependences(program.instructions, original));
  std::vector<std::size_t> position(original.size());
  for (std::size_t p = 0; p < program.instructions.size(); ++p)
    position[static_cast<std::size_t>(program.instructions[p].tileOp)] = p;
  return position;
}

TEST(OoOSchedule, TheNextTilesCopyInOverlapsTheCurrentComputeWhenItsBufferIsSeparate) {
  Compilation compilation = twoIndependentTiles();
  DiagnosticEngine diags;
  ASSERT_TRUE(allocateBuffers(compilation, diags)) << messages(diags);
  // Double buffering: move the second tile's buffers (rows 4:8) to their own bytes.
  for (BufferAllocation& buffer : compilation.blocks.subgraphs[0].buffers)
    if (buffer.region.offsets[0].constantValue() == 4) buffer.offsetBytes += 8192;
  ASSERT_TRUE(lowerToPto(compilation, diags)) << messages(diags);
  PtoProgram& program = compilation.programs[0];
  // Program order: 0 TLOAD x0, 1 TEXP, 2 TADDS, 3 TSTORE y0, 4 TLOAD x1, 5 TEXP, 6 TADDS, 7 TSTORE y1.
  std::vector<P> lowered;
  for (const PtoInstruction& instruction : program.instructions) lowered.push_back(instruction.opcode);
  ASSERT_EQ(lowered, (std::vector<P>{P::TLOAD, P::TEXP, P::TADDS, P::TSTORE, P::TLOAD, P::TEXP, P::TADDS, P::TSTORE}));
  std::vector<std::size_t> position = scheduledPositions(program);
  // The second copy-in is issued while the first tile still computes and before its copy-out.
  EXPECT_LT(position[4], position[2]);
  EXPECT_LT(position[4], position[3]);
  // Estimated (OoOSchedule.h's model, 1024-byte tiles): TLOAD 46 cycles, TEXP 24, TADDS 20, TSTORE 38.
  // TLOAD x0 at 0; TEXP0 and TLOAD x1 could both start at 46 (program order picks TEXP0 first); TADDS0 at 70;
  // TSTORE y0 at 90; TEXP1 at 92.
  std::vector<std::size_t> expected = {0, 1, 3, 4, 2, 5, 6, 7};
  EXPECT_EQ(position, expected);
}

TEST(OoOSchedule, ACopyInIntoReusedBytesWaitsForTheirLastReader) {
  Compilation compilation = twoIndependentTiles();
  DiagnosticEngine diags;
  ASSERT_TRUE(allocateBuffers(compilation, diags)) << messages(diags);
  // The placement AllocateBuffers falls back to when ping-pong does not fit: bytes reused as soon as dead.
  Subgraph& subgraph = compilation.blocks.subgraphs[0];
  SubgraphBufferPlan single =
      planSubgraphBuffers(compilation.tiles, compilation.settings.target, subgraph, BufferOverlap::Single);
  subgraph.buffers = single.buffers;
  subgraph.peakBytes = single.peakBytes;
  ASSERT_TRUE(lowerToPto(compilation, diags)) << messages(diags);
  PtoProgram& program = compilation.programs[0];
  // Single placement puts y0 and then x1 at offset 0 (each earlier tile is dead by then): TLOAD x1
  // overwrites what TSTORE y0 reads.
  ASSERT_EQ(program.instructions[3].srcs[0].offsetBytes, 0);
  ASSERT_EQ(program.instructions[4].dst[0].offsetBytes, 0);
  std::vector<std::size_t> position = scheduledPositions(program);
  EXPECT_GT(position[4], position[3]);
}

TEST(OoOSchedule, LoweredProgramsKeepTheirDependences) {
  Compilation compilation = twoIndependentTiles();
  DiagnosticEngine diags;
  ASSERT_TRUE(allocateBuffers(compilation, diags)) << messages(diags);
  ASSERT_TRUE(lowerToPto(compilation, diags)) << messages(diags);
  scheduledPositions(compilation.programs[0]);
}

TEST(OoOSchedule, TheModeComesFromThePassOptions) {
  std::mt19937 random(3);
  Compilation compilation;
  compilation.programs.resize(1);
  compilation.programs[0].instructions = randomInstructions(random, 30);
  const std::vector<PtoInstruction> original = compilation.programs[0].instructions;
  compilation.settings.passOptions = {{"ooo_sched_mode", 0}};
  DiagnosticEngine diags;
  ASSERT_TRUE(oooSchedule(compilation, diags)) << messages(diags);
  for (std::size_t i = 0; i < original.size(); ++i)
    EXPECT_EQ(compilation.programs[0].instructions[i].tileOp, original[i].tileOp);

  compilation.settings.passOptions = {{"ooo_sched_mode", 2}};
  compilation.settings.projectFile = "pto-project.json";
  EXPECT_FALSE(oooSchedule(compilation, diags));
  EXPECT_EQ(messages(diags),
            "pass_options.ooo_sched_mode must be 0 (keep program order) or 1 (list scheduling), or PyPTO's \"\", "
            "\"GAPMIN\" or \"HLF\" (list scheduling), got 2\n");
  EXPECT_EQ(diags.diagnostics().back().location.file, "pto-project.json");
}

TEST(OoOSchedule, AHundredThousandInstructionsAreScheduledAndSynchronised) {
  // Scale only (times are printed, budgets belong to benchmarks): the passes stay near-linear.
  std::mt19937 random(1);
  PtoProgram program;
  program.instructions = randomInstructions(random, 100000);
  auto start = std::chrono::steady_clock::now();
  scheduleProgram(program, 1);
  auto scheduled = std::chrono::steady_clock::now();
  insertSyncInto(program);
  auto synced = std::chrono::steady_clock::now();
  std::map<std::tuple<Pipe, Pipe, int>, int> balance;
  std::size_t real = 0;
  for (const PtoInstruction& instruction : program.instructions) {
    if (instruction.opcode == P::SET_FLAG)
      ++balance[{instruction.srcPipe, instruction.dstPipe, instruction.eventId}];
    else if (instruction.opcode == P::WAIT_FLAG)
      --balance[{instruction.srcPipe, instruction.dstPipe, instruction.eventId}];
    else if (!isSync(instruction.opcode))
      ++real;
  }
  EXPECT_EQ(real, 100000u);
  for (const auto& [flag, count] : balance) EXPECT_EQ(count, 0);
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::cout << "100000 instructions: OoOSchedule " << ms(start, scheduled) << " ms, InsertSync "
            << ms(scheduled, synced) << " ms, " << program.instructions.size() << " after sync\n";
}

} // namespace
} // namespace pto::testing
