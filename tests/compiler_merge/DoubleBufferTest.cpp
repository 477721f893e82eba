// With vec_nbuffer_setting = 2, the PTO program of a merged subgraph lets the copy-in of tile 2 overlap the
// compute on tile 1: no dependence (dependencePredecessors, taken transitively) leads from a VECTOR
// instruction of member 1 to a TLOAD of member 2, and OoOSchedule issues that TLOAD before member 1's
// last VECTOR instruction. Where the buffers only fit with the members sharing bytes, the dependence is
// there (the check is sensitive to what AllocateBuffers does).
#include "MergeTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

#include <set>

namespace pto::testing {
namespace {


// y = exp(x) * x over [32, 64] float32, vec tile [8, 64].
TensorGraph expTimesRowBlocks() {
  TensorGraphBuilder builder("rows", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({32, 64}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({32, 64}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({8, 64}, kernelLine(2));
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

} // namespace
} // namespace pto::testing
