// Block graphs of small kernels, compared with structures written by hand from GraphPartition.h and
// GenerateMoveOp.h: which tile ops share a subgraph, core types, program ids, and the copies in and out.
// Tile op ids follow ExpandFunction's order (tensor ops in program order, each op's tiles row-major), with
// the view tile ops removed by RemoveRedundantOp.
#include "PartitionTestSupport.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {


// for b in range(2): y[b:b+1] = softmax(x[b:b+1]) over the last dim; x, y: [2, 32, 1, 256], vec tile
// [1, 4, 1, 64]. Each of amax, sub, exp, sum, div and the assemble's copy has 32 tiles: row group g
// (rows 4g..4g+3) and column block j make tile 4g + j of each.
TensorGraph softmaxLoop() {
  auto [builder, x, y] = beginXyKernel("softmax", {2, 32, 1, 256}, {2, 32, 1, 256}, {1, 4, 1, 64});
  const LoopId loop = builder.beginLoop("rows", "b", 0, 2, 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const SymbolicShape at{b, 0, 0, 0};
  const std::vector<std::int64_t> last{3};
  const TensorId xv = addOp(builder, TensorOpKind::View, {x}, {{"offsets", at}, {"shape", dimsOf({1, 32, 1, 256})}}, 4);
  const TensorId m = addOp(builder, TensorOpKind::Amax, {xv}, {{"dims", last}, {"keepdim", true}}, 5);
  const TensorId d = addOp(builder, TensorOpKind::Sub, {xv, m}, {}, 6);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {d}, {}, 7);
  const TensorId s = addOp(builder, TensorOpKind::Sum, {e}, {{"dims", last}, {"keepdim", true}}, 8);
  const TensorId r = addOp(builder, TensorOpKind::Div, {e, s}, {}, 9);
  addOp(builder, TensorOpKind::Assemble, {r}, {{"offsets", at}}, 10, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  return builder.finish();
}

TEST(GraphPartition, SoftmaxRowGroupsAreEightIsomorphicVectorSubgraphsPerIteration) {
  auto result = compileWith(softmaxLoop(), {});
  ASSERT_TRUE(result);
  const Compilation& compilation = result->compilation;
  ASSERT_EQ(compilation.blocks.scopes.size(), 2u);  // the kernel body (no ops) and the loop body
  EXPECT_EQ(compilation.blocks.programCount, 1);
  std::string expected;
  const char* kinds[] = {"amax", "sub", "exp", "sum", "div", "copy"};
  for (int g = 0; g < 8; ++g) {
    expected += "sg" + std::to_string(g) + " scope 1 AIV program 0\n  ops";
    for (int k = 0; k < 6; ++k)
      for (int j = 0; j < 4; ++j)
        expected += std::string(k || j ? ", #" : " #") + std::to_string(32 * k + 4 * g + j) + " " + kinds[k];
    std::string rows = std::to_string(4 * g) + ":" + std::to_string(4 * g + 4);
    auto tiles = [&](const char* tensor) {
      std::string text;
      for (int j = 0; j < 4; ++j)
        text += std::string(j ? "; " : " ") + tensor + "[b:b + 1, " + rows + ", 0:1, " + std::to_string(64 * j) + ":" +
                std::to_string(64 * j + 64) + "]";
      return text;
    };
    expected += "\n  in" + tiles("x") + "\n  out" + tiles("y") + "\n";
  }
  EXPECT_EQ(describeAll(compilation), expected);
  for (std::size_t op = 0; op < compilation.blocks.subgraphOfTileOp.size(); ++op)
    EXPECT_EQ(compilation.blocks.subgraphOfTileOp[op], static_cast<SubgraphId>(op % 32 / 4)) << "tile op " << op;
}

// a = exp(x); c = a @ w; d = c + a; y = d. All [64, 64] float32, one tile each (vec [64, 64], cube 64^3).
TensorGraph vectorCubeVector() { return vectorCubeVectorKernel(); }

TEST(GraphPartition, VectorCubeVectorMakesThreeSubgraphsWithoutACycle) {
  // add reads exp's result directly too, but joining exp's subgraph would need the matmul between them.
  EXPECT_EQ(partitionOf(vectorCubeVector()),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp\n"
            "  in x[0:64, 0:64]\n"
            "  out a[0:64, 0:64]\n"
            "sg1 scope 0 AIC program 1\n"
            "  ops #1 matmul\n"
            "  in a[0:64, 0:64]; w[0:64, 0:64]\n"
            "  out c[0:64, 0:64]\n"
            "sg2 scope 0 AIV program 2\n"
            "  ops #2 add, #3 copy\n"
            "  in c[0:64, 0:64]; a[0:64, 0:64]\n"
            "  out y[0:64, 0:64]\n");
}

TEST(GraphPartition, WithAnL0CToUBPathTheMatmulFeedsItsVectorConsumerOnChip) {
  EXPECT_EQ(partitionOf(vectorCubeVector(), {{"machine_has_l0c_to_ub", true}}),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp\n"
            "  in x[0:64, 0:64]\n"
            "  out a[0:64, 0:64]\n"
            "sg1 scope 0 AIC program 1\n"
            "  ops #1 matmul, #2 add, #3 copy\n"
            "  in a[0:64, 0:64]; w[0:64, 0:64]\n"
            "  out y[0:64, 0:64]\n");
}

TEST(GraphPartition, WithAUbToL1PathTooTheVectorResultFeedsTheMatmulOnChip) {
  // The 950: exp's result reaches the matmul through L1, so all four ops are one cube task.
  CompileSettings settings;
  settings.projectFile = "pto-project.json";
  settings.target.capacityBytes.fill(std::int64_t{1} << 40);
  settings.target.hasL0cToUb = true;
  settings.target.hasUbToL1 = true;
  CompileOptions options;
  options.disabledPasses.insert("ForwardAssemble");
  DiagnosticEngine diags;
  auto result = compileKernel(vectorCubeVector(), settings, diags, options);
  ASSERT_TRUE(result) << messages(diags);
  EXPECT_EQ(describeAll(result->compilation),
            "sg0 scope 0 AIC program 0\n"
            "  ops #0 exp, #1 matmul, #2 add, #3 copy\n"
            "  in x[0:64, 0:64]; w[0:64, 0:64]\n"
            "  out y[0:64, 0:64]\n");
}

// c = (a @ b) in float16: a [64, 128], b [128, 64]; cube tile m 32, k 32, n 64, so two output blocks, each
// four k-steps into the float32 accumulator c_acc and one cast; then y = c (one copy tile).
TEST(GraphPartition, MatmulKStepsAndTheirCastStayInOneCubeSubgraph) {
  TensorGraphBuilder builder("mm", kernelLine(1));
  const auto [a, b, y] =
      addArguments(builder, {{"a", DataType::Fp16, {64, 128}}, {"b", DataType::Fp16, {128, 64}},
                             {"y", DataType::Fp16, {64, 64}}});
  builder.beginPath();
  builder.setCubeTile(CubeTileShape{32, 32, 32, 32, 32, 64, 64, false}, kernelLine(2));
  const TensorId c = addOp(builder, TensorOpKind::Matmul, {a, b}, {{"out_dtype", DataType::Fp16}}, 3);
  addOp(builder, TensorOpKind::Copy, {c}, {}, 4, {y});
  EXPECT_EQ(partitionOf(finishNamed(builder, {{c, "c"}})),
            "sg0 scope 0 AIC program 0\n"
            "  ops #0 matmul, #1 matmul, #2 matmul, #3 matmul, #4 cast\n"
            "  in a[0:32, 0:32]; b[0:32, 0:64]; a[0:32, 32:64]; b[32:64, 0:64]; a[0:32, 64:96]; b[64:96, 0:64]; "
            "a[0:32, 96:128]; b[96:128, 0:64]\n"
            "  out c[0:32, 0:64]\n"
            "sg1 scope 0 AIC program 0\n"
            "  ops #5 matmul, #6 matmul, #7 matmul, #8 matmul, #9 cast\n"
            "  in a[32:64, 0:32]; b[0:32, 0:64]; a[32:64, 32:64]; b[32:64, 0:64]; a[32:64, 64:96]; b[64:96, 0:64]; "
            "a[32:64, 96:128]; b[96:128, 0:64]\n"
            "  out c[32:64, 0:64]\n"
            "sg2 scope 0 AIV program 1\n"
            "  ops #10 copy\n"
            "  in c[0:64, 0:64]\n"
            "  out y[0:64, 0:64]\n");
}

// t = exp(x); u = t + w; y = u. x, w, y: [1, 64] float32 (256 bytes per tile), vec tile [1, 64].
TensorGraph expThenAdd() {
  TensorGraphBuilder builder("bound", kernelLine(1));
  const auto [x, w, y] = addArguments(builder, {{"x", kF32, {1, 64}}, {"w", kF32, {1, 64}}, {"y", kF32, {1, 64}}});
  builder.beginPath();
  builder.setVecTile({1, 64}, kernelLine(2));
  const TensorId t = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  const TensorId u = addOp(builder, TensorOpKind::Add, {t, w}, {}, 4);
  addOp(builder, TensorOpKind::Copy, {u}, {}, 5, {y});
  return finishNamed(builder, {{t, "t"}, {u, "u"}});
}

TEST(GraphPartition, CopyInUpperBoundKeepsAMergeFromLoadingTooMuch) {
  const std::string merged = "sg0 scope 0 AIV program 0\n"
                             "  ops #0 exp, #1 add, #2 copy\n"
                             "  in x[0:1, 0:64]; w[0:1, 0:64]\n"
                             "  out y[0:1, 0:64]\n";
  auto unbounded = compileWith(expThenAdd(), {});
  ASSERT_TRUE(unbounded);
  EXPECT_EQ(describeAll(unbounded->compilation), merged);
  // 512 bytes of copy-in fit a bound of 512 exactly.
  auto fits = compileWith(expThenAdd(), {{"mg_copyin_upper_bound", 512}});
  ASSERT_TRUE(fits);
  EXPECT_EQ(describeAll(fits->compilation), merged);
  // With 300, add would bring w's 256 bytes on top of x's: it starts a subgraph (alone over the bound, which
  // one op may be), and copy joins it since it loads nothing new.
  auto split = compileWith(expThenAdd(), {{"mg_copyin_upper_bound", 300}});
  ASSERT_TRUE(split);
  EXPECT_EQ(describeAll(split->compilation),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp\n"
            "  in x[0:1, 0:64]\n"
            "  out t[0:1, 0:64]\n"
            "sg1 scope 0 AIV program 1\n"
            "  ops #1 add, #2 copy\n"
            "  in t[0:1, 0:64]; w[0:1, 0:64]\n"
            "  out y[0:1, 0:64]\n");
}

// a = exp(x); b = exp(a); s = sum(b, dim 1); y = s. x [1, 128] float32 in vec tiles [1, 64] (256 bytes);
// s and y [1, 1] (one 32-byte block). Tile ops: #0 #1 exp, #2 #3 exp, #4 #5 sum (the second accumulates),
// #6 copy. The sum ties both tiles' chains into one subgraph.
TensorGraph twoChainsSummed() {
  auto [builder, x, y] = beginXyKernel("chains", {1, 128}, {1, 1}, {1, 64});
  const TensorId a = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  const TensorId b = addOp(builder, TensorOpKind::Exp, {a}, {}, 4);
  const TensorId s = addOp(builder, TensorOpKind::Sum, {b}, {{"dims", std::vector<std::int64_t>{1}}, {"keepdim", true}}, 5);
  addOp(builder, TensorOpKind::Copy, {s}, {}, 6, {y});
  return finishNamed(builder, {{a, "a"}, {b, "b"}, {s, "s"}});
}

std::optional<CompileResult> compileWithUnifiedBuffer(const TensorGraph& graph, std::int64_t bytes,
                                                      DiagnosticEngine& diags) {
  CompileSettings settings;
  settings.projectFile = "pto-project.json";
  settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = bytes;
  CompileOptions options;
  options.disabledPasses.insert("ForwardAssemble");
  return compileKernel(graph, settings, diags, options);
}

TEST(GraphPartition, AGroupThatOverflowsTheUnifiedBufferIsCutIntoSubgraphsThatFit) {
  // One subgraph holds a0 and a1 while b0 is made (or a1, b0, b1 while b1 is): 3 x 256 = 768 bytes at the
  // peak, first fit reusing the dead x tiles' bytes. With 640 bytes each tile's chain is its own
  // subgraph, 2 x 256 at its peak: x -> a -> b, then the sum; the second chain's partial sum reads the
  // first's s (written by sg0, which starts earlier) and the copy joins it; s, now written by two
  // subgraphs, is stored by the later one too (GenerateMoveOp).
  DiagnosticEngine diags;
  auto whole = compileWithUnifiedBuffer(twoChainsSummed(), 768, diags);
  ASSERT_TRUE(whole) << messages(diags);
  ASSERT_EQ(whole->compilation.blocks.subgraphs.size(), 1u) << describeAll(whole->compilation);
  EXPECT_EQ(whole->compilation.blocks.subgraphs[0].peakBytes[static_cast<std::size_t>(MemoryKind::UB)], 768);
  auto cut = compileWithUnifiedBuffer(twoChainsSummed(), 640, diags);
  ASSERT_TRUE(cut) << messages(diags);
  EXPECT_EQ(describeAll(cut->compilation),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp, #2 exp, #4 sum\n"
            "  in x[0:1, 0:64]\n"
            "  out s[0:1, 0:1]\n"
            "sg1 scope 0 AIV program 1\n"
            "  ops #1 exp, #3 exp, #5 sum, #6 copy\n"
            "  in x[0:1, 64:128]; s[0:1, 0:1]\n"
            "  out s[0:1, 0:1]; y[0:1, 0:1]\n");
  for (const Subgraph& subgraph : cut->compilation.blocks.subgraphs)
    EXPECT_LE(subgraph.peakBytes[static_cast<std::size_t>(MemoryKind::UB)], 640) << "sg" << subgraph.id;
}

TEST(GraphPartition, ATileOpTooBigForTheUnifiedBufferOnItsOwnStaysALocatedError) {
  // Every exp's tile is 256 bytes, more than the 250 there are: no cut helps, so the subgraph stays whole and
  // the error names the line of its largest tile, the first exp's. Made op by op it needs 768 bytes;
  // AllocateBuffers then runs each chain to its end first (SubgraphOpOrder) and, still overflowing, writes
  // each exp over its dying input (in place), which needs 288: one 256-byte tile and the first chain's
  // 32-byte partial sum.
  DiagnosticEngine diags;
  EXPECT_FALSE(compileWithUnifiedBuffer(twoChainsSummed(), 250, diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u) << messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].location.file, "kernel.py");
  EXPECT_EQ(diags.diagnostics()[0].location.line, 3);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "subgraph 0 (AIV) needs 288 bytes of unified buffer but a2 has 250 per core; the largest tile is exp's "
            "[1, 64] float32 (256 bytes) here — use smaller vec tile shapes (pypto.set_vec_tile_shapes)");
}

// Labelled "grp": a = exp(x); y1 = a; b = abs(w); y2 = b. Unlabelled: n = neg(a); y3 = n. All [1, 64].
// `scoped` instead tags the "grp" ops with the kernel's own pass option sg_set_scope = 7.
TensorGraph labelledOps(bool scoped) {
  TensorGraphBuilder builder("pins", kernelLine(1));
  const auto [x, w, y1, y2, y3] =
      addArguments(builder, {{"x", kF32, {1, 64}}, {"w", kF32, {1, 64}}, {"y1", kF32, {1, 64}}, {"y2", kF32, {1, 64}},
                             {"y3", kF32, {1, 64}}});
  builder.beginPath();
  builder.setVecTile({1, 64}, kernelLine(2));
  if (scoped) builder.setPassOptions({{"sg_set_scope", 7}});
  else builder.setLabel("grp");
  const TensorId a = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  addOp(builder, TensorOpKind::Copy, {a}, {}, 4, {y1});
  const TensorId b = addOp(builder, TensorOpKind::Abs, {w}, {}, 5);
  addOp(builder, TensorOpKind::Copy, {b}, {}, 6, {y2});
  builder.setLabel("");
  builder.setPassOptions(nlohmann::ordered_json::object());
  const TensorId n = addOp(builder, TensorOpKind::Neg, {a}, {}, 7);
  addOp(builder, TensorOpKind::Copy, {n}, {}, 8, {y3});
  return finishNamed(builder, {{a, "a"}});
}

TEST(GraphPartition, SgSetScopePinsLabelledOpsIntoOneSubgraphThatNoOtherOpJoins) {
  auto free = compileWith(labelledOps(false), {});
  ASSERT_TRUE(free);
  EXPECT_EQ(describeAll(free->compilation),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp, #1 copy, #4 neg, #5 copy\n"
            "  in x[0:1, 0:64]\n"
            "  out y1[0:1, 0:64]; y3[0:1, 0:64]\n"
            "sg1 scope 0 AIV program 1\n"
            "  ops #2 abs, #3 copy\n"
            "  in w[0:1, 0:64]\n"
            "  out y2[0:1, 0:64]\n");
  const std::string pinned = "sg0 scope 0 AIV program 0 pinned\n"
                             "  ops #0 exp, #1 copy, #2 abs, #3 copy\n"
                             "  in x[0:1, 0:64]; w[0:1, 0:64]\n"
                             "  out a[0:1, 0:64]; y1[0:1, 0:64]; y2[0:1, 0:64]\n"
                             "sg1 scope 0 AIV program 1\n"
                             "  ops #4 neg, #5 copy\n"
                             "  in a[0:1, 0:64]\n"
                             "  out y3[0:1, 0:64]\n";
  auto byId = compileWith(labelledOps(false), {{"sg_set_scope", {{"grp", 7}}}});
  ASSERT_TRUE(byId);
  EXPECT_EQ(describeAll(byId->compilation), pinned);
  auto byList = compileWith(labelledOps(false), {{"sg_set_scope", {"grp"}}});
  ASSERT_TRUE(byList);
  EXPECT_EQ(describeAll(byList->compilation), pinned);
  auto scoped = compileWith(labelledOps(true), {});
  ASSERT_TRUE(scoped);
  EXPECT_EQ(describeAll(scoped->compilation), pinned);
}

// a = exp(x) ["grp"]; c = a @ w [label `matmulLabel`]; d = c + a ["grp"]; y = d ["grp"]. With kernelScopes
// the kernel's own form instead: sg_set_scope=1 around exp, reset for the matmul, sg_set_scope=1 again around
// add and copy (Kimi's block attention residuals and GLM's attention reuse an id this way).
TensorGraph pinnedAroundMatmul(const std::string& matmulLabel, bool kernelScopes = false) {
  auto scope = [&](TensorGraphBuilder& builder, const std::string& label) {
    if (!kernelScopes) builder.setLabel(label);
    else builder.setPassOptions(label == "grp" ? nlohmann::ordered_json{{"sg_set_scope", 1}} : nlohmann::ordered_json::object());
  };
  TensorGraphBuilder builder("pins", kernelLine(1));
  const auto [x, w, y] = addArguments(builder, {{"x", kF32, {64, 64}}, {"w", kF32, {64, 64}}, {"y", kF32, {64, 64}}});
  builder.beginPath();
  builder.setVecTile({64, 64}, kernelLine(2));
  builder.setCubeTile(CubeTileShape{64, 64, 64, 64, 64, 64, 64, false}, kernelLine(2));
  scope(builder, "grp");
  const TensorId a = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  scope(builder, matmulLabel);
  const TensorId c = addOp(builder, TensorOpKind::Matmul, {a, w}, {}, 4);
  scope(builder, "grp");
  const TensorId d = addOp(builder, TensorOpKind::Add, {c, a}, {}, 5);
  addOp(builder, TensorOpKind::Copy, {d}, {}, 6, {y});
  builder.endPath();
  return builder.finish();
}

TEST(GraphPartition, AKernelsLaterScopeRegionReusingAnIdStartsTheIdsNextSubgraph) {
  auto scoped = compileWith(pinnedAroundMatmul("", /*kernelScopes=*/true), {});
  ASSERT_TRUE(scoped);
  EXPECT_EQ(describeAll(scoped->compilation),
            "sg0 scope 0 AIV program 0 pinned\n"
            "  ops #0 exp\n"
            "  in x[0:64, 0:64]\n"
            "  out t3[0:64, 0:64]\n"
            "sg1 scope 0 AIC program 1\n"
            "  ops #1 matmul\n"
            "  in t3[0:64, 0:64]; w[0:64, 0:64]\n"
            "  out t4[0:64, 0:64]\n"
            "sg2 scope 0 AIV program 2 pinned\n"
            "  ops #2 add, #3 copy\n"
            "  in t4[0:64, 0:64]; t3[0:64, 0:64]\n"
            "  out y[0:64, 0:64]\n");
}

TEST(GraphPartition, SgSetScopeThatCannotBeOneSubgraphIsAnErrorAtTheOp) {
  DiagnosticEngine diags;
  CompileSettings settings;
  settings.passOptions = {{"sg_set_scope", {{"grp", 1}}}};
  EXPECT_FALSE(compileKernel(pinnedAroundMatmul(""), settings, diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  const Diagnostic& cycle = diags.diagnostics()[0];
  EXPECT_EQ(cycle.message, "sg_set_scope (id 1) cannot keep add in the group's subgraph: it needs data from a "
                           "subgraph that starts after the group's first op, so neither subgraph could run first; add "
                           "that subgraph's ops (from matmul) to the group, or start a new sg_set_scope id here");
  EXPECT_EQ(cycle.location, kernelLine(5));
  ASSERT_EQ(cycle.notes.size(), 2u);
  EXPECT_EQ(cycle.notes[0].message, "the group starts here");
  EXPECT_EQ(cycle.notes[0].location, kernelLine(3));
  EXPECT_EQ(cycle.notes[1].message, "the other subgraph starts here");
  EXPECT_EQ(cycle.notes[1].location, kernelLine(4));

  DiagnosticEngine mixed;
  EXPECT_FALSE(compileKernel(pinnedAroundMatmul("grp"), settings, mixed));
  ASSERT_EQ(mixed.diagnostics().size(), 1u);
  EXPECT_EQ(mixed.diagnostics()[0].message,
            "sg_set_scope (id 1) puts matmul (AIC) into one subgraph with vector ops, but this machine cannot pass "
            "data between cube and vector cores on chip; give the cube ops their own sg_set_scope id");
  EXPECT_EQ(mixed.diagnostics()[0].location, kernelLine(4));
}

TEST(GraphPartition, MalformedOptionsAreErrorsAtTheProjectFile) {
  struct Case {
    nlohmann::ordered_json options;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{{"mg_copyin_upper_bound", "big"}}, "pass_options.mg_copyin_upper_bound must be an integer >= 1, got \"big\"\n"},
      {{{"pg_parallel_lower_bound", 0}}, "pass_options.pg_parallel_lower_bound must be an integer >= 1, got 0\n"},
      {{{"machine_has_l0c_to_ub", 1}}, "pass_options.machine_has_l0c_to_ub must be true or false, got 1\n"},
      {{{"sg_set_scope", 3}},
       "pass_options.sg_set_scope must be an object {\"label\": id} or a list of labels, got 3\n"},
      {{{"sg_set_scope", {{"grp", "one"}}}}, "pass_options.sg_set_scope.grp must be an integer scope id, got \"one\"\n"},
  };
  for (const Case& c : cases) {
    std::string errors;
    EXPECT_FALSE(compileWith(expThenAdd(), c.options, &errors));
    EXPECT_EQ(errors, c.message);
  }
}

// One row of softmax without a loop: x, y [1, 256], vec tile [1, 64]; amax #0-3, sub #4-7, exp #8-11,
// sum #12-15, div #16-19, copy #20-23.
TensorGraph softmaxRow() {
  auto [builder, x, y] = beginXyKernel("row", {1, 256}, {1, 256}, {1, 64});
  const std::vector<std::int64_t> last{1};
  const TensorId m = addOp(builder, TensorOpKind::Amax, {x}, {{"dims", last}, {"keepdim", true}}, 3);
  const TensorId d = addOp(builder, TensorOpKind::Sub, {x, m}, {}, 4);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {d}, {}, 5);
  const TensorId s = addOp(builder, TensorOpKind::Sum, {e}, {{"dims", last}, {"keepdim", true}}, 6);
  const TensorId r = addOp(builder, TensorOpKind::Div, {e, s}, {}, 7);
  addOp(builder, TensorOpKind::Assemble, {r}, {{"offsets", dimsOf({0, 0})}}, 8, {y});
  return finishNamed(builder, {{e, "e"}, {s, "s"}});
}

TEST(GraphPartition, ParallelLowerBoundSplitsAGroupAlongItsOutputTiles) {
  auto whole = compileWith(softmaxRow(), {});
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->compilation.blocks.subgraphs.size(), 1u);
  EXPECT_EQ(whole->compilation.blocks.subgraphs[0].ops.size(), 24u);

  // Four output tiles: div j and copy j need only their column; amax, sub, exp and sum feed every column
  // (through the row max and the row sum), so they are the shared head.
  auto split = compileWith(softmaxRow(), {{"pg_parallel_lower_bound", 4}});
  ASSERT_TRUE(split);
  std::string expected = "sg0 scope 0 AIV program 0\n  ops";
  const char* kinds[] = {"amax", "sub", "exp", "sum"};
  for (int op = 0; op < 16; ++op) expected += std::string(op ? ", #" : " #") + std::to_string(op) + " " + kinds[op / 4];
  expected += "\n  in x[0:1, 0:64]; x[0:1, 64:128]; x[0:1, 128:192]; x[0:1, 192:256]\n"
              "  out e[0:1, 0:64]; e[0:1, 64:128]; e[0:1, 128:192]; e[0:1, 192:256]; s[0:1, 0:1]\n";
  for (int j = 0; j < 4; ++j) {
    std::string columns = std::to_string(64 * j) + ":" + std::to_string(64 * j + 64);
    expected += "sg" + std::to_string(j + 1) + " scope 0 AIV program 1\n  ops #" + std::to_string(16 + j) + " div, #" +
                std::to_string(20 + j) + " copy\n  in e[0:1, " + columns + "]; s[0:1, 0:1]\n  out y[0:1, " + columns +
                "]\n";
  }
  EXPECT_EQ(describeAll(split->compilation), expected);
}

// p = exp(x); for b in range(2): z[b] = p[b] + 1; y = z + p. x, y, z (a temporary): [2, 64].
TEST(GraphPartition, OpsAfterANestedLoopNeverJoinOpsBeforeIt) {
  TensorGraphBuilder builder("segments", kernelLine(1));
  const auto [x, y] = addArguments(builder, {{"x", kF32, {2, 64}}, {"y", kF32, {2, 64}}});
  builder.beginPath();
  const TensorId z = builder.addTemporary("z", kF32, dimsOf({2, 64}), kernelLine(2));
  builder.setVecTile({2, 64}, kernelLine(2));
  const TensorId p = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  const LoopId loop = builder.beginLoop("rows", "b", 0, 2, 1, false, kernelLine(4));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  builder.setVecTile({1, 64}, kernelLine(5));
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId row = addOp(builder, TensorOpKind::View, {p}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 64})}}, 6);
  const TensorId q = addOp(builder, TensorOpKind::AddS, {row}, {{"scalar", 1.0}}, 7);
  addOp(builder, TensorOpKind::Assemble, {q}, {{"offsets", SymbolicShape{b, 0}}}, 8, {z});
  builder.endPath();
  builder.endLoop(loop);
  builder.setVecTile({2, 64}, kernelLine(9));
  const TensorId r = addOp(builder, TensorOpKind::Add, {z, p}, {}, 10);
  addOp(builder, TensorOpKind::Copy, {r}, {}, 11, {y});
  EXPECT_EQ(partitionOf(finishNamed(builder, {{p, "p"}})),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp\n"
            "  in x[0:2, 0:64]\n"
            "  out p[0:2, 0:64]\n"
            "sg1 scope 1 AIV program 1\n"
            "  ops #1 adds, #2 copy\n"
            "  in p[b:b + 1, 0:64]\n"
            "  out z[b:b + 1, 0:64]\n"
            "sg2 scope 0 AIV program 2\n"
            "  ops #3 add, #4 copy\n"
            "  in z[0:2, 0:64]; p[0:2, 0:64]\n"
            "  out y[0:2, 0:64]\n");
}

// acc = zeros([1, 64]); for b in range(2): acc = acc + x[b]; y = acc. The loop body reads acc before it
// writes it, so it copies acc in, and copies it out again for the next iteration and for y.
TEST(GenerateMoveOp, LoopCarriedTemporaryIsCopiedInAndOut) {
  auto [builder, x, y] = beginXyKernel("carry", {2, 64}, {1, 64}, {1, 64});
  const TensorId acc =
      addOp(builder, TensorOpKind::Full, {}, {{"dtype", kF32}, {"shape", dimsOf({1, 64})}, {"value", 0.0}}, 3);
  const LoopId loop = builder.beginLoop("rows", "b", 0, 2, 1, false, kernelLine(4));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId row = addOp(builder, TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", dimsOf({1, 64})}}, 5);
  const TensorId sum = addOp(builder, TensorOpKind::Add, {acc, row}, {}, 6);
  addOp(builder, TensorOpKind::Copy, {sum}, {}, 7, {acc});
  builder.endPath();
  builder.endLoop(loop);
  addOp(builder, TensorOpKind::Copy, {acc}, {}, 8, {y});
  EXPECT_EQ(partitionOf(finishNamed(builder, {{acc, "acc"}})),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 full\n"
            "  in -\n"
            "  out acc[0:1, 0:64]\n"
            "sg1 scope 1 AIV program 1\n"
            "  ops #1 add, #2 copy\n"
            "  in acc[0:1, 0:64]; x[b:b + 1, 0:64]\n"
            "  out acc[0:1, 0:64]\n"
            "sg2 scope 0 AIV program 2\n"
            "  ops #3 copy\n"
            "  in acc[0:1, 0:64]\n"
            "  out y[0:1, 0:64]\n");
}

// a = exp(x) in [4, 64] tiles; b = abs(a) in one [8, 64] tile; y = b. abs reads what two exp tiles wrote
// together, so a stays on chip.
TEST(GenerateMoveOp, ARegionWrittenByTwoTilesOfTheSubgraphStaysOnChip) {
  auto [builder, x, y] = beginXyKernel("retile", {8, 64}, {8, 64}, {4, 64});
  const TensorId a = addOp(builder, TensorOpKind::Exp, {x}, {}, 3);
  builder.setVecTile({8, 64}, kernelLine(4));
  const TensorId b = addOp(builder, TensorOpKind::Abs, {a}, {}, 5);
  addOp(builder, TensorOpKind::Copy, {b}, {}, 6, {y});
  builder.endPath();
  EXPECT_EQ(partitionOf(builder.finish()),
            "sg0 scope 0 AIV program 0\n"
            "  ops #0 exp, #1 exp, #2 abs, #3 copy\n"
            "  in x[0:4, 0:64]; x[4:8, 0:64]\n"
            "  out y[0:8, 0:64]\n");
}

} // namespace
} // namespace pto::testing
