// ExpandFunction's user errors (full message text and the kernel line they point at), how the
// project's tile_settings choose an op's tile: call site, then semantic label, then the kernel's own
// set_vec_tile_shapes / set_cube_tile_shapes, then "DEFAULT", and the note on a tile larger than all it
// cuts (once per place the tile is set, at that place).
#include "CompilerTestSupport.h"
#include "compiler/passes/ExpandFunction.h"
#include "compiler/settings/TileSettings.h"
#include "compiler/passes/Pipeline.h"
#include "tests/TestDtypes.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {


// The project's tile_settings as the project file gives them (docs/project-format.md).
CompileSettings withTileSettings(const char* json) {
  CompileSettings settings;
  settings.tileSettings = nlohmann::ordered_json::parse(json);
  settings.projectFile = "/home/dev/ops/project.json";
  return settings;
}

// The tile shapes of every tile op of the graph's ops of `kind`, as text.
std::vector<std::string> tileLines(const CompileResult& result, TensorOpKind kind) {
  std::vector<std::string> lines;
  for (const TileOp& op : result.compilation.tiles.tileOps())
    if (op.kind == kind) lines.push_back(tileOpLine(result.compilation.tiles, op));
  return lines;
}

// y = exp(x) on [6, 40], the kernel's own tile set at /home/dev/ops/kernel.py:4 (a call-site key uses the
// file name only), the op at line 7, under `label` when given.
TensorGraph expKernel(const std::vector<std::int64_t>& kernelTile, const std::string& label = {}) {
  TensorGraphBuilder builder("exp_kernel", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({6, 40}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({6, 40}), kernelLine(1));
  builder.beginPath();
  if (!kernelTile.empty()) builder.setVecTile(kernelTile, SourceLocation{"/home/dev/ops/kernel.py", 4, 5});
  if (!label.empty()) builder.setLabel(label);
  addOp(builder, TensorOpKind::Exp, {x}, {}, 7, {y});
  builder.endPath();
  return builder.finish();
}

std::optional<CompileResult> compile(const TensorGraph& graph, CompileSettings settings, DiagnosticEngine& diags) {
  return compileKernel(graph, std::move(settings), diags);
}

TEST(ExpandFunctionDiagnostics, VectorOpWithoutAnyTileShapeIsAnErrorAtItsLine) {
  DiagnosticEngine diags;
  EXPECT_FALSE(compile(expKernel({}), CompileSettings{}, diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "exp runs on the vector unit but no tile shape is set; call pypto.set_vec_tile_shapes(...) before it, "
            "or set tile_settings.vec.DEFAULT in the project");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(7));
  EXPECT_EQ(diags.diagnostics()[0].severity, Severity::Error);
}

TEST(ExpandFunctionDiagnostics, ALongerTileAppliesItsLeadingDims) {
  // PyPTO's rule: a tile set for 3-D work also cuts 2-D ops, axis i by tile
  // dim i (its tiling indexes the tile by axis); the 32-byte rule is checked
  // on the tile as set, whose innermost dim is 16 x 4 bytes.
  DiagnosticEngine diags;
  auto compiled = compile(expKernel({}), withTileSettings(R"({"vec": {"DEFAULT": [4, 2, 16]}})"), diags);
  ASSERT_TRUE(compiled);
  bool sawExp = false;
  for (const TileOp& op : compiled->compilation.tiles.tileOps())
    if (op.kind == TensorOpKind::Exp) {
      sawExp = true;
      EXPECT_EQ(op.tileShape, (std::vector<std::int64_t>{4, 2}));
    }
  EXPECT_TRUE(sawExp);
}

TEST(ExpandFunctionDiagnostics, ProjectDefaultTileOfTheWrongRankIsAnErrorAtTheOpsLine) {
  DiagnosticEngine diags;
  EXPECT_FALSE(compile(expKernel({}), withTileSettings(R"({"vec": {"DEFAULT": [64]}})"), diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "exp works on rank-2 tensors but tile_settings.vec.DEFAULT in /home/dev/ops/project.json gives the tile "
            "[64] with 1 dim; give one per tensor dim");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(7));
}

TEST(ExpandFunctionDiagnostics, ProjectTileForALabelOfTheWrongRankIsAnErrorAtTheOpsLine) {
  DiagnosticEngine diags;
  EXPECT_FALSE(compile(expKernel({2, 16}, "rows"), withTileSettings(R"({"vec": {"rows": [16]}})"), diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "exp works on rank-2 tensors but tile_settings.vec.rows in /home/dev/ops/project.json gives the tile [16] "
            "with 1 dim; give one per tensor dim");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(7));
}

TEST(ExpandFunctionDiagnostics, ProjectTileForACallSiteOfTheWrongRankIsAnErrorAtTheOpsLine) {
  DiagnosticEngine diags;
  EXPECT_FALSE(compile(expKernel({2, 16}), withTileSettings(R"({"vec": {"kernel.py:4": [32]}})"), diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "exp works on rank-2 tensors but tile_settings.vec.kernel.py:4 in /home/dev/ops/project.json gives the tile "
            "[32] with 1 dim; give one per tensor dim");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(7));
}

TEST(ExpandFunctionDiagnostics, ShapeDependingOnALoopIndexIsAnErrorAtTheLineThatMadeIt) {
  // for b in range(4): v = x[0:b+1, :]  (line 6); y[0:b+1, :] = exp(v) — the view's rows change per iteration.
  TensorGraphBuilder builder("growing", kernelLine(1));
  const TensorId x = builder.addArgument("x", kF32, dimsOf({4, 16}), kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({4, 16}), kernelLine(1));
  builder.beginPath();
  builder.setVecTile({1, 16}, kernelLine(3));
  const LoopId loop = builder.beginLoop("grow", "b", 0, 4, 1, false, kernelLine(5));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  const TensorId v =
      addOp(builder, TensorOpKind::View, {x}, {{"offsets", dimsOf({0, 0})}, {"shape", SymbolicShape{b + 1, 16}}}, 6);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {v}, {}, 7);
  addOp(builder, TensorOpKind::Assemble, {e}, {{"offsets", dimsOf({0, 0})}}, 8, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  const TensorGraph graph = builder.finish();

  DiagnosticEngine diags;
  EXPECT_FALSE(compile(graph, CompileSettings{}, diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].message,
            "the shape [b + 1, 16] made here is not known at compile time (unbound symbol 'b'); shapes may depend "
            "on dynamic dims, which each run binds, but not on loop indices");
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(6));
}

TEST(ExpandFunctionTileSettings, KernelsOwnTileIsUsedWithoutProjectSettings) {
  DiagnosticEngine diags;
  auto result = compile(expKernel({4, 16}), CompileSettings{}, diags);
  ASSERT_TRUE(result) << messages(diags);
  EXPECT_EQ(tileLines(*result, TensorOpKind::Exp),
            (std::vector<std::string>{"#0 exp x[0:4, 0:16] -> y[0:4, 0:16] tile=[4, 16]",
                                      "#1 exp x[0:4, 16:32] -> y[0:4, 16:32] tile=[4, 16]",
                                      "#2 exp x[0:4, 32:40] -> y[0:4, 32:40] tile=[4, 16]",
                                      "#3 exp x[4:6, 0:16] -> y[4:6, 0:16] tile=[4, 16]",
                                      "#4 exp x[4:6, 16:32] -> y[4:6, 16:32] tile=[4, 16]",
                                      "#5 exp x[4:6, 32:40] -> y[4:6, 32:40] tile=[4, 16]"}));
}

TEST(ExpandFunctionTileSettings, ProjectTileForTheCallSiteOverridesTheKernels) {
  DiagnosticEngine diags;
  // The key is the set_vec_tile_shapes line (4), by file name; the op's own line (7) is not a key.
  auto result = compile(expKernel({4, 16}),
                        withTileSettings(R"({"vec": {"kernel.py:7": [1, 8], "kernel.py:4": [6, 32]}})"), diags);
  ASSERT_TRUE(result) << messages(diags);
  EXPECT_EQ(tileLines(*result, TensorOpKind::Exp),
            (std::vector<std::string>{"#0 exp x[0:6, 0:32] -> y[0:6, 0:32] tile=[6, 32]",
                                      "#1 exp x[0:6, 32:40] -> y[0:6, 32:40] tile=[6, 32]"}));
}

TEST(ExpandFunctionTileSettings, ProjectTileForTheLabelOverridesTheKernels) {
  DiagnosticEngine diags;
  auto result = compile(expKernel({4, 16}, "rows"), withTileSettings(R"({"vec": {"other": [1, 8], "rows": [3, 40]}})"),
                        diags);
  ASSERT_TRUE(result) << messages(diags);
  EXPECT_EQ(tileLines(*result, TensorOpKind::Exp),
            (std::vector<std::string>{"#0 exp x[0:3, 0:40] -> y[0:3, 0:40] tile=[3, 40]",
                                      "#1 exp x[3:6, 0:40] -> y[3:6, 0:40] tile=[3, 40]"}));
}

TEST(ExpandFunctionTileSettings, CallSiteWinsOverLabel) {
  DiagnosticEngine diags;
  auto result = compile(expKernel({4, 16}, "rows"),
                        withTileSettings(R"({"vec": {"rows": [3, 40], "kernel.py:4": [6, 40]}})"), diags);
  ASSERT_TRUE(result) << messages(diags);
  EXPECT_EQ(tileLines(*result, TensorOpKind::Exp),
            (std::vector<std::string>{"#0 exp x[0:6, 0:40] -> y[0:6, 0:40] tile=[6, 40]"}));
}

TEST(ExpandFunctionTileSettings, ProjectDefaultAppliesOnlyWhereTheKernelSetsNoTile) {
  {
    DiagnosticEngine diags;
    auto result = compile(expKernel({4, 16}), withTileSettings(R"({"vec": {"DEFAULT": [6, 40]}})"), diags);
    ASSERT_TRUE(result) << messages(diags);
    EXPECT_EQ(tileLines(*result, TensorOpKind::Exp).size(), 6u);  // the kernel's [4, 16]
  }
  {
    DiagnosticEngine diags;
    auto result = compile(expKernel({}), withTileSettings(R"({"vec": {"DEFAULT": [6, 40]}})"), diags);
    ASSERT_TRUE(result) << messages(diags);
    EXPECT_EQ(tileLines(*result, TensorOpKind::Exp),
              (std::vector<std::string>{"#0 exp x[0:6, 0:40] -> y[0:6, 0:40] tile=[6, 40]"}));
  }
}

TEST(ExpandFunctionTileSettings, ProjectCubeTileForTheCallSiteOverridesTheKernels) {
  TensorGraphBuilder builder("mm", kernelLine(1));
  const TensorId a = builder.addArgument("a", kF32, dimsOf({40, 64}), kernelLine(1));
  const TensorId b = builder.addArgument("b", kF32, dimsOf({64, 32}), kernelLine(1));
  const TensorId c = builder.addArgument("c", kF32, dimsOf({40, 32}), kernelLine(1));
  builder.beginPath();
  builder.setCubeTile(CubeTileShape{16, 16, 16, 16, 16, 16, 16, false},
                      SourceLocation{"/home/dev/ops/kernel.py", 9, 5});
  addOp(builder, TensorOpKind::Matmul, {a, b}, {}, 10, {c});
  builder.endPath();
  const TensorGraph graph = builder.finish();

  DiagnosticEngine diags;
  auto result = compile(
      graph, withTileSettings(R"({"cube": {"kernel.py:9": {"m": [32, 64], "k": [64, 64], "n": [32, 32]}}})"), diags);
  ASSERT_TRUE(result) << messages(diags);
  EXPECT_EQ(tileLines(*result, TensorOpKind::Matmul),
            (std::vector<std::string>{"#0 matmul a[0:32, 0:64], b[0:64, 0:32] -> c[0:32, 0:32] tile=[32, 64, 32]",
                                      "#1 matmul a[32:40, 0:64], b[0:64, 0:32] -> c[32:40, 0:32] tile=[32, 64, 32]"}));
}

// ---- tiles larger than what they cut ----

// y = exp(x) at line 7 and z = exp(w) at line 8 under one set_vec_tile_shapes at kernel.py:4; x, y are
// [6, 40], w, z are `small`.
TensorGraph twoExpKernel(const std::vector<std::int64_t>& tile, const std::vector<std::int64_t>& small) {
  TensorGraphBuilder builder("two_exp", kernelLine(1));
  SymbolicShape smallShape;
  for (std::int64_t dim : small) smallShape.emplace_back(dim);
  const TensorId x = builder.addArgument("x", kF32, dimsOf({6, 40}), kernelLine(1));
  const TensorId w = builder.addArgument("w", kF32, smallShape, kernelLine(1));
  const TensorId y = builder.addArgument("y", kF32, dimsOf({6, 40}), kernelLine(1));
  const TensorId z = builder.addArgument("z", kF32, smallShape, kernelLine(1));
  builder.beginPath();
  builder.setVecTile(tile, SourceLocation{"/home/dev/ops/kernel.py", 4, 5});
  addOp(builder, TensorOpKind::Exp, {x}, {}, 7, {y});
  addOp(builder, TensorOpKind::Exp, {w}, {}, 8, {z});
  builder.endPath();
  return builder.finish();
}

TEST(ExpandFunctionClamping, ATileLargerThanAllItCutsGetsOneNoteAtItsCall) {
  DiagnosticEngine diags;
  auto result = compile(twoExpKernel({64, 1024}, {2, 8}), CompileSettings{}, diags);
  ASSERT_TRUE(result) << messages(diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u) << messages(diags);
  const Diagnostic& note = diags.diagnostics()[0];
  EXPECT_EQ(note.severity, Severity::Note);
  EXPECT_EQ(note.location, (SourceLocation{"/home/dev/ops/kernel.py", 4, 5}));
  // Per dim, the largest extent the tile meets: 6 rows, 40 columns (x).
  EXPECT_EQ(note.message, "vec tile [64, 1024] is larger than what it cuts (exp at kernel.py:7: [6, 40]; exp at "
                          "kernel.py:8: [2, 8]); it is clamped to [6, 40]");
  EXPECT_EQ(tileLines(*result, TensorOpKind::Exp),
            (std::vector<std::string>{"#0 exp x[0:6, 0:40] -> y[0:6, 0:40] tile=[64, 1024]",
                                      "#1 exp w[0:2, 0:8] -> z[0:2, 0:8] tile=[64, 1024]"}));
}

TEST(ExpandFunctionClamping, ATileOneOpUsesWholeIsNotNoted) {
  // [6, 40] is larger than w [2, 8] but exactly x: the tile is what the user asked for.
  DiagnosticEngine diags;
  ASSERT_TRUE(compile(twoExpKernel({6, 40}, {2, 8}), CompileSettings{}, diags)) << messages(diags);
  EXPECT_EQ(messages(diags), "");
}

TEST(ExpandFunctionClamping, AProjectTileIsNotedAtItsProjectFileLine) {
  DiagnosticEngine diags;
  CompileSettings settings = withTileSettings(R"({"vec": {"DEFAULT": [8, 64]}})");
  settings.settingLocations["tile_settings.vec.DEFAULT"] = SourceLocation{"/home/dev/ops/project.json", 12, 25};
  ASSERT_TRUE(compile(expKernel({}), settings, diags)) << messages(diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u) << messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].severity, Severity::Note);
  EXPECT_EQ(diags.diagnostics()[0].location, (SourceLocation{"/home/dev/ops/project.json", 12, 25}));
  EXPECT_EQ(diags.diagnostics()[0].message, "tile_settings.vec.DEFAULT: vec tile [8, 64] is larger than what it cuts "
                                            "(exp at kernel.py:7: [6, 40]); it is clamped to [6, 40]");
}

TEST(ExpandFunctionClamping, WithoutItsLineAProjectTileIsNotedAtTheFirstOpNamingTheFile) {
  DiagnosticEngine diags;
  ASSERT_TRUE(compile(expKernel({}), withTileSettings(R"({"vec": {"DEFAULT": [8, 64]}})"), diags)) << messages(diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u) << messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].location, kernelLine(7));
  EXPECT_EQ(diags.diagnostics()[0].message,
            "tile_settings.vec.DEFAULT in /home/dev/ops/project.json: vec tile [8, 64] is larger than what it cuts "
            "(exp at kernel.py:7: [6, 40]); it is clamped to [6, 40]");
}

TEST(ExpandFunctionClamping, AnOversizedProjectCubeTileIsNotedAtItsProjectFileLine) {
  // c[40, 32] = a[40, 64] @ b[64, 32]; the project's cube tile asks for 128 x 128 x 64 blocks.
  TensorGraphBuilder builder("mm", kernelLine(1));
  const TensorId a = builder.addArgument("a", kF32, dimsOf({40, 64}), kernelLine(1));
  const TensorId b = builder.addArgument("b", kF32, dimsOf({64, 32}), kernelLine(1));
  const TensorId c = builder.addArgument("c", kF32, dimsOf({40, 32}), kernelLine(1));
  builder.beginPath();
  builder.setCubeTile(CubeTileShape{16, 16, 16, 16, 16, 16, 16, false}, SourceLocation{"/home/dev/ops/kernel.py", 9, 5});
  addOp(builder, TensorOpKind::Matmul, {a, b}, {}, 10, {c});
  builder.endPath();

  DiagnosticEngine diags;
  CompileSettings settings =
      withTileSettings(R"({"cube": {"kernel.py:9": {"m": [128, 128], "k": [128, 128], "n": [64, 64]}}})");
  settings.settingLocations["tile_settings.cube.kernel.py:9"] = SourceLocation{"/home/dev/ops/project.json", 3, 30};
  auto result = compile(builder.finish(), settings, diags);
  ASSERT_TRUE(result) << messages(diags);
  ASSERT_EQ(diags.diagnostics().size(), 1u) << messages(diags);
  EXPECT_EQ(diags.diagnostics()[0].location, (SourceLocation{"/home/dev/ops/project.json", 3, 30}));
  EXPECT_EQ(diags.diagnostics()[0].message,
            "tile_settings.cube.kernel.py:9: cube tile mL0 128, kL0 128, nL0 64 is larger than what it cuts (matmul "
            "at kernel.py:10: m 40, k 64, n 32); it is clamped to mL0 40, kL0 64, nL0 32");
  EXPECT_EQ(tileLines(*result, TensorOpKind::Matmul),
            (std::vector<std::string>{"#0 matmul a[0:40, 0:64], b[0:64, 0:32] -> c[0:40, 0:32] tile=[128, 128, 64]"}));
}

TEST(ExpandFunctionClamping, ClampedTileTakesTheLargestExtentPerDim) {
  // A lower-rank op meets only the tile's leading dims; a dim no op meets keeps its value.
  std::vector<TileCut> cuts = {{"a", {4, 100}}, {"b", {16}}};
  EXPECT_EQ(clampedTile({8, 64, 32}, cuts), (std::vector<std::int64_t>{8, 64, 32}));
  EXPECT_EQ(clampedTile({32, 128, 32}, cuts), (std::vector<std::int64_t>{16, 100, 32}));
  EXPECT_EQ(tileClampNote(TileSection::Vec, {8, 64, 32}, cuts), "");
}

} // namespace
} // namespace pto::testing
