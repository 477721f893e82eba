// Merged block graphs written out by hand from the contracts of NBufferMerge and L1CopyInReuseMerge
// (input kernel, options, the expected subgraphs with their members and copies), capacity clamping, and
// option errors.
#include "MergeTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {


// y = exp(x) + x over [32, 64] float32, vec tile [8, 64]: four row blocks, each one subgraph of program 0.
TensorGraph rowBlocks() {
  auto [builder, x, y] = beginXyKernel("rows", {32, 64}, {32, 64}, {8, 64});
  builder.setLabel("E");
  const TensorId e = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  builder.setLabel("");
  addOp(builder, TensorOpKind::Add, {e, x}, {}, 4, {y});
  builder.endPath();
  return builder.finish();
}

std::string compiledSummary(const TensorGraph& graph, const nlohmann::ordered_json& options) {
  auto result = compileWith(graph, options);
  return result ? summary(result->compilation) : "compilation failed";
}

TEST(NBufferMerge, WithoutTheOptionNothingIsMerged) {
  EXPECT_EQ(compiledSummary(rowBlocks(), {}),
            "sg0 scope 0 AIV program 0\n  ops #0 exp, #4 add\n  in x[0:8, 0:64]\n  out y[0:8, 0:64]\n"
            "sg1 scope 0 AIV program 0\n  ops #1 exp, #5 add\n  in x[8:16, 0:64]\n  out y[8:16, 0:64]\n"
            "sg2 scope 0 AIV program 0\n  ops #2 exp, #6 add\n  in x[16:24, 0:64]\n  out y[16:24, 0:64]\n"
            "sg3 scope 0 AIV program 0\n  ops #3 exp, #7 add\n  in x[24:32, 0:64]\n  out y[24:32, 0:64]\n");
}

// Two row blocks per task: members run one after the other, each loads its own x block and stores its y block.
TEST(NBufferMerge, TwoPerTask) {
  const std::string expected =
      "sg0 scope 0 AIV program 0\n  ops #0 exp, #4 add, #1 exp, #5 add\n  in x[0:8, 0:64]; x[8:16, 0:64]\n"
      "  out y[0:8, 0:64]; y[8:16, 0:64]\n  members 0 2\n"
      "sg1 scope 0 AIV program 0\n  ops #2 exp, #6 add, #3 exp, #7 add\n  in x[16:24, 0:64]; x[24:32, 0:64]\n"
      "  out y[16:24, 0:64]; y[24:32, 0:64]\n  members 0 2\n";
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 2}}}}), expected);
  // PyPTO's older integer key -1, a plain count and the program key say the same.
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", {{"-1", 2}}}}), expected);
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", 2}}), expected);
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 1}, {"func0_0", 2}}}}), expected);
  // PyPTO's integer order key (its DeepSeek kernels write {-1: 1, 0: 2}): program 0 in every function.
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", {{"-1", 1}, {"0", 2}}}}), expected);
}

// Three per task over four blocks: a run of three and the last block alone, which is another program.
TEST(NBufferMerge, ARemainderIsItsOwnProgram) {
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 3}}}}),
            "sg0 scope 0 AIV program 0\n  ops #0 exp, #4 add, #1 exp, #5 add, #2 exp, #6 add\n"
            "  in x[0:8, 0:64]; x[8:16, 0:64]; x[16:24, 0:64]\n  out y[0:8, 0:64]; y[8:16, 0:64]; y[16:24, 0:64]\n"
            "  members 0 2 4\n"
            "sg1 scope 0 AIV program 1\n  ops #3 exp, #7 add\n  in x[24:32, 0:64]\n  out y[24:32, 0:64]\n");
}

// A semantic label's count replaces DEFAULT for its whole isomorphic group; a count above the group merges it all.
TEST(NBufferMerge, ALabelReplacesTheDefault) {
  EXPECT_EQ(compiledSummary(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 2}, {"E", 16}}}}),
            "sg0 scope 0 AIV program 0\n  ops #0 exp, #4 add, #1 exp, #5 add, #2 exp, #6 add, #3 exp, #7 add\n"
            "  in x[0:8, 0:64]; x[8:16, 0:64]; x[16:24, 0:64]; x[24:32, 0:64]\n"
            "  out y[0:8, 0:64]; y[8:16, 0:64]; y[16:24, 0:64]; y[24:32, 0:64]\n  members 0 2 4 6\n");
}

// {} is automatic: subgraphs per group / AIV cores (4 / 48 -> 1: nothing to merge); with 2 cores, 2 per task.
TEST(NBufferMerge, AutomaticCountFollowsTheCores) {
  DiagnosticEngine diags;
  TargetInfo target;
  auto many = compileOn(rowBlocks(), {{"vec_nbuffer_setting", nlohmann::ordered_json::object()}}, target, diags);
  ASSERT_TRUE(many) << messages(diags);
  EXPECT_EQ(many->compilation.blocks.subgraphs.size(), 4u);
  target.aivCores = 2;
  auto few = compileOn(rowBlocks(), {{"vec_nbuffer_setting", nlohmann::ordered_json::object()}}, target, diags);
  ASSERT_TRUE(few) << messages(diags);
  EXPECT_EQ(few->compilation.blocks.subgraphs.size(), 2u);
}

// Buffers of a merged subgraph: one member needs its x block, exp block and y block (3 x 2048 bytes of UB,
// x and exp live until the add writes y). Keeping two members apart for double buffering needs 6 x 2048;
// where that does not fit the merge is still made and the members share bytes (no warning: the merge fits).
TEST(NBufferMerge, DoubleBufferingNeedsRoomAndIsDroppedWithoutIt) {
  for (std::int64_t blocks : {3, 5, 6}) {
    TargetInfo target;
    target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = blocks * 2048;
    DiagnosticEngine diags;
    auto result = compileOn(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 2}}}}, target, diags);
    ASSERT_TRUE(result) << messages(diags);
    EXPECT_EQ(diags.diagnostics().size(), 0u) << messages(diags);
    ASSERT_EQ(result->compilation.blocks.subgraphs.size(), 2u);
    for (const Subgraph& subgraph : result->compilation.blocks.subgraphs)
      EXPECT_EQ(subgraph.peakBytes[static_cast<std::size_t>(MemoryKind::UB)], (blocks >= 6 ? 6 : 3) * 2048)
          << "UB of " << blocks << " blocks";
  }
}

// A count no merge can hold is cut to what fits, with a warning (PyPTO users set one DEFAULT for a whole
// kernel). With UB below two of one member's 2048-byte blocks, not even two members fit: nothing is merged,
// the warning says so, and AllocateBuffers then reports the overflow of the single block, whose final plan
// already writes the add over its dying exp block (x, exp: 2 x 2048 bytes).
TEST(NBufferMerge, ACountTheBuffersCannotHoldIsClampedWithAWarning) {
  TargetInfo target;
  target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = 3 * 1024;
  DiagnosticEngine diags;
  EXPECT_FALSE(compileOn(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 4}}}}, target, diags));
  ASSERT_GE(diags.diagnostics().size(), 2u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "vec_nbuffer_setting asks for 4 subgraphs of program 0 (AIV, label 'E') per task, but only 1 fit in "
            "a2's on-chip buffers; merged 1 per task");
  EXPECT_EQ(diags.diagnostics()[0].location.line, 3);
  EXPECT_NE(diags.diagnostics()[1].message.find("subgraph 0 (AIV, label 'E') needs 4096 bytes of unified buffer but a2 has 3072"),
            std::string::npos)
      << diags.diagnostics()[1].message;
}

TEST(NBufferMerge, MalformedSettingsAreErrorsAtTheProjectFile) {
  std::string errors;
  EXPECT_FALSE(compileWith(rowBlocks(), {{"vec_nbuffer_setting", {{"DEFAULT", 0}}}}, &errors));
  EXPECT_EQ(errors, "pass_options.vec_nbuffer_setting.DEFAULT must be a count >= 1, got 0\n");
  EXPECT_FALSE(compileWith(rowBlocks(), {{"vec_nbuffer_setting", {{"V9", 2}}}}, &errors));
  EXPECT_EQ(errors, "pass_options.vec_nbuffer_setting key 'V9' is neither \"DEFAULT\", an order (\"0\", "
                    "\"func<magic>_<order>\") nor a semantic label of the kernel (labels: 'E')\n");
  EXPECT_FALSE(compileWith(rowBlocks(), {{"cube_nbuffer_setting", "2"}}, &errors));
  EXPECT_EQ(errors, "pass_options.cube_nbuffer_setting must be an object such as {\"DEFAULT\": 2, \"<semantic "
                    "label>\": 1} or a count, got \"2\"\n");
}

// c = a @ b with a [64, 64], b [64, 128] float16, cube tiles m 32, k 64, n 32: eight output blocks, one
// k-step each (tile ops #0..#7 row-major over (m, n)), each its own subgraph. Blocks of one row of c read
// the same a tile.
TensorGraph matmulBlocks() {
  return matmulKernel(64, 64, 128, {.mL0 = 32, .mL1 = 32, .kL0 = 64, .kAL1 = 64, .kBL1 = 64, .nL0 = 32, .nL1 = 32},
                      kF32);
}

// L1 reuse groups by the shared a tile (two groups of four beat four groups of two by b): each task loads
// its a tile once and four b tiles.
TEST(L1CopyInReuseMerge, BlocksReadingTheSameATileLoadItOnce) {
  EXPECT_EQ(compiledSummary(matmulBlocks(), {{"cube_l1_reuse_setting", {{"DEFAULT", 4}}}}),
            "sg0 scope 0 AIC program 0\n  ops #0 matmul, #1 matmul, #2 matmul, #3 matmul\n"
            "  in a[0:32, 0:64]; b[0:64, 0:32]; b[0:64, 32:64]; b[0:64, 64:96]; b[0:64, 96:128]\n"
            "  out c[0:32, 0:32]; c[0:32, 32:64]; c[0:32, 64:96]; c[0:32, 96:128]\n  members 0 1 2 3\n"
            "sg1 scope 0 AIC program 0\n  ops #4 matmul, #5 matmul, #6 matmul, #7 matmul\n"
            "  in a[32:64, 0:64]; b[0:64, 0:32]; b[0:64, 32:64]; b[0:64, 64:96]; b[0:64, 96:128]\n"
            "  out c[32:64, 0:32]; c[32:64, 32:64]; c[32:64, 64:96]; c[32:64, 96:128]\n  members 0 1 2 3\n");
}

// cube_nbuffer_setting runs after the L1 reuse merge, on its result: the two reuse tasks become one.
TEST(L1CopyInReuseMerge, CubeNBufferMergesAfterL1Reuse) {
  auto result = compileWith(matmulBlocks(), {{"cube_l1_reuse_setting", {{"DEFAULT", 4}}},
                                             {"cube_nbuffer_setting", {{"DEFAULT", 2}}}});
  ASSERT_TRUE(result);
  const BlockGraph& blocks = result->compilation.blocks;
  ASSERT_EQ(blocks.subgraphs.size(), 1u);
  EXPECT_EQ(blocks.subgraphs[0].memberStarts, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(blocks.subgraphs[0].copyIns.size(), 6u);  // two a tiles, four b tiles
  // Without the reuse merge, cube n-buffering pairs neighbouring blocks: four tasks of two.
  auto paired = compileWith(matmulBlocks(), {{"cube_nbuffer_setting", {{"DEFAULT", 2}}}});
  ASSERT_TRUE(paired);
  EXPECT_EQ(paired->compilation.blocks.subgraphs.size(), 4u);
  EXPECT_EQ(paired->compilation.blocks.programCount, 1);
}

} // namespace
} // namespace pto::testing
