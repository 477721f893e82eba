// With vec_nbuffer_setting = 2, the PTO program of a merged subgraph lets the copy-in of tile 2 overlap the
// compute on tile 1: no dependence (dependencePredecessors, taken transitively) leads from a VECTOR
// instruction of member 1 to a TLOAD of member 2, and OoOSchedule issues that TLOAD before member 1's
// last VECTOR instruction. Where the buffers only fit with the members sharing bytes, the dependence is
// there (the check is sensitive to what AllocateBuffers does). Each memory keeps ping-pong on its own: a
// k-step's right-hand tile that fills L0B does not cost L1 its double buffer.
#include "MergeTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

#include <set>

namespace pto::testing {
namespace {


// y = exp(x) * x over [32, 64] float32, vec tile [8, 64].
TensorGraph expTimesRowBlocks() {
  auto [builder, x, y] = beginXyKernel("rows", {32, 64}, {32, 64}, {8, 64});
  const TensorId e = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::Mul, {e, x}, {}, 4, {y});
  builder.endPath();
  return builder.finish();
}

struct MemberInstructions {
  std::vector<int> member1Vector, member2Loads;
  std::vector<PtoInstruction> instructions;
};

MemberInstructions compileMerged(std::int64_t ubBytes) {
  TargetInfo target;
  target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = ubBytes;
  DiagnosticEngine diags;
  auto result = compileOn(expTimesRowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 2}}}}, target, diags);
  EXPECT_TRUE(result) << messages(diags);
  MemberInstructions out;
  if (!result) return out;
  const Compilation& compilation = result->compilation;
  const Subgraph& merged = compilation.blocks.subgraphs.at(0);
  EXPECT_EQ(merged.memberStarts, (std::vector<int>{0, 2}));
  const std::set<TileOpId> member1(merged.ops.begin(), merged.ops.begin() + 2);
  const std::set<TileOpId> member2(merged.ops.begin() + 2, merged.ops.end());
  const PtoProgram& program = compilation.programs.at(static_cast<std::size_t>(merged.programId));
  EXPECT_EQ(program.subgraph, merged.id);
  out.instructions = program.instructions;
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const PtoInstruction& instruction = program.instructions[i];
    if (instruction.pipe == Pipe::VECTOR && member1.count(instruction.tileOp)) out.member1Vector.push_back(int(i));
    if (instruction.opcode == PtoOpcode::TLOAD && member2.count(instruction.tileOp)) out.member2Loads.push_back(int(i));
  }
  EXPECT_EQ(out.member1Vector.size(), 2u);  // TEXP, TMUL
  EXPECT_EQ(out.member2Loads.size(), 1u);   // the x block
  return out;
}

// Whether instruction `to` depends on `from`, directly or through others.
bool dependsOn(const std::vector<std::vector<int>>& predecessors, int to, int from) {
  std::vector<bool> seen(predecessors.size(), false);
  std::vector<int> stack{to};
  while (!stack.empty()) {
    int at = stack.back();
    stack.pop_back();
    for (int p : predecessors[static_cast<std::size_t>(at)]) {
      if (p == from) return true;
      if (!seen[static_cast<std::size_t>(p)]) {
        seen[static_cast<std::size_t>(p)] = true;
        stack.push_back(p);
      }
    }
  }
  return false;
}

TEST(DoubleBuffer, TheNextTilesCopyInDoesNotWaitForThisTilesCompute) {
  const MemberInstructions program = compileMerged(192 * 1024);
  ASSERT_FALSE(program.member2Loads.empty());
  const auto predecessors = dependencePredecessors(program.instructions);
  for (int load : program.member2Loads)
    for (int compute : program.member1Vector)
      EXPECT_FALSE(dependsOn(predecessors, load, compute)) << "TLOAD #" << load << " depends on #" << compute;
  // And the scheduler uses that freedom: the load is issued before member 1's last vector instruction.
  EXPECT_LT(program.member2Loads.front(), program.member1Vector.back());
}

TEST(DoubleBuffer, MembersSharingBytesMakeTheLoadWait) {
  // 3 x 2048 bytes: one member's x, exp and y blocks; the members then reuse each other's bytes.
  const MemberInstructions program = compileMerged(3 * 2048);
  ASSERT_FALSE(program.member2Loads.empty());
  const auto predecessors = dependencePredecessors(program.instructions);
  bool waits = false;
  for (int compute : program.member1Vector) waits = waits || dependsOn(predecessors, program.member2Loads[0], compute);
  EXPECT_TRUE(waits);
}

// c = a @ b with a [16, 1024], b [1024, 128] float16, cube tiles m 16, k 256, n 128: one block of four
// k-steps whose [256, 128] b tile is 64 KiB, all of L0B, so L0B holds one at a time.
TensorGraph kStepsFillingL0b() {
  return matmulKernel(16, 1024, 128,
                      {.mL0 = 16, .mL1 = 16, .kL0 = 256, .kAL1 = 256, .kBL1 = 256, .nL0 = 128, .nL1 = 128}, kF32);
}

TEST(DoubleBuffer, AMemoryWithoutRoomForTwoTilesLeavesTheOthersDoubleBuffered) {
  DiagnosticEngine diags;
  auto result = compileOn(kStepsFillingL0b(), nlohmann::ordered_json::object(), TargetInfo{}, diags);
  ASSERT_TRUE(result) << messages(diags);
  const Compilation& compilation = result->compilation;
  ASSERT_EQ(compilation.blocks.subgraphs.size(), 1u);
  const Subgraph& block = compilation.blocks.subgraphs[0];
  EXPECT_NE(block.overlap, BufferOverlap::PingPong);
  EXPECT_EQ(block.overlapLimitedBy, MemoryKind::L0B);
  const PtoProgram& program = compilation.programs.at(static_cast<std::size_t>(block.programId));
  std::vector<int> bLoads, bMoves;  // per k-step: the b tile's TLOAD into L1 and its TMOV into L0B
  std::set<std::int64_t> bL1Offsets;
  for (std::size_t i = 0; i < program.instructions.size(); ++i) {
    const PtoInstruction& instruction = program.instructions[i];
    if (instruction.opcode == PtoOpcode::TLOAD && !instruction.dst.empty() && instruction.dst[0].memory == MemoryKind::L1 &&
        instruction.dst[0].bytes == 256 * 128 * 2) {
      bLoads.push_back(static_cast<int>(i));
      bL1Offsets.insert(instruction.dst[0].offsetBytes);
    }
    if (instruction.opcode == PtoOpcode::TMOV && instruction.dst[0].memory == MemoryKind::L0B)
      bMoves.push_back(static_cast<int>(i));
  }
  ASSERT_EQ(bLoads.size(), 4u);
  ASSERT_EQ(bMoves.size(), 4u);
  EXPECT_EQ(bL1Offsets.size(), 2u);  // two L1 buffers taken in turn
  // So k-step 2's load waits for nothing k-step 1 does on chip, though its move into L0B waits for k-step 1's matmul.
  const auto predecessors = dependencePredecessors(program.instructions);
  EXPECT_FALSE(dependsOn(predecessors, bLoads[1], bMoves[0]));
  EXPECT_TRUE(dependsOn(predecessors, bMoves[1], bMoves[0]));
}

} // namespace
} // namespace pto::testing
