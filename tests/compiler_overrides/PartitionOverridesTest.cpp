// ApplyPartitionOverrides: each kind of entry on small kernels, the resulting partition written by hand from
// the entry's meaning, and the result executed subgraph by subgraph (runSubgraphs: a subgraph runs whole where
// its first op is, so a broken dependency reads stale data) against the reference interpreter; and every
// rejection's full message at its entry's line, with the entries read by the project loader from a project file;
// and checkPartitionOverrides (`pto check`), which says the same about names before anything is compiled.
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/ApplyPartitionOverrides.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/reference/TileInterpreter.h"
#include "core/project/ProjectFile.h"
#include "tests/TestDtypes.h"
#include "tests/support/KernelBuilding.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace pto::testing {
namespace {

namespace fs = std::filesystem;

TensorId addOp(TensorGraphBuilder& builder, TensorOpKind kind, std::vector<TensorId> inputs, int line,
               std::vector<TensorId> into = {}, Attributes attrs = {}) {
  const TensorGraphBuilder::OpResult result =
      builder.addOp(kind, std::move(inputs), std::move(attrs), kernelLine(line), std::move(into));
  EXPECT_EQ(result.error, "") << "at line " << line;
  return result.outputs.empty() ? kNoId : result.outputs[0];
}

// y = exp(x + x) on [64, 128] in [32, 64] tiles: add ("double", line 3), exp ("exp", line 4), the copy into y
// ("out", line 5), 4 tiles each, so tile ops add #0-3, exp #4-7, copy #8-11. GraphPartition makes sg g =
// {#g, #4+g, #8+g}, all one program.
TensorGraph chain() {
  auto [builder, x, y] = beginXyKernel("chain", {64, 128}, {64, 128}, {32, 64});
  builder.setLabel("double");
  const TensorId a = addOp(builder, TensorOpKind::Add, {x, x}, 3);
  builder.setLabel("exp");
  const TensorId b = addOp(builder, TensorOpKind::Exp, {a}, 4);
  builder.setLabel("out");
  addOp(builder, TensorOpKind::Copy, {b}, 5, {y});
  builder.endPath();
  return builder.finish();
}

// a = exp(x) ("exp", line 3); c = a @ w ("mm", line 4); d = c + a ("add", line 5); y = d ("out", line 6). All
// [64, 64], one tile each (#0 exp, #1 matmul, #2 add, #3 copy). On a2 GraphPartition makes sg0 {#0}, sg1 {#1},
// sg2 {#2, #3}; with an L0C -> UB path sg0 {#0}, sg1 {#1, #2, #3}.
TensorGraph vectorCubeVector() { return vectorCubeVectorKernel({"exp", "mm", "add", "out"}); }

// t = exp(x) ("pre", line 3) in the kernel body; for b in range(2) (loop "rows", line 4): y[b] = t[b] + t[b]
// ("inner", lines 5-7); then z = exp(x) ("post", line 8) after the loop. x, y, z: [2, 64], vec tile [1, 64].
TensorGraph bodyLoopBody() {
  TensorGraphBuilder builder("scoped", kernelLine(1));
  const auto [x, y, z] = addArguments(builder, {{"x", kF32, {2, 64}}, {"y", kF32, {2, 64}}, {"z", kF32, {2, 64}}});
  builder.beginPath();
  builder.setVecTile({1, 64}, kernelLine(2));
  builder.setLabel("pre");
  const TensorId t = addOp(builder, TensorOpKind::Exp, {x}, 3);
  const LoopId loop = builder.beginLoop("rows", "b", 0, 2, 1, false, kernelLine(4));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicShape at{SymbolicScalar::symbol(builder.loop(loop).indexSymbol), 0};
  builder.setLabel("inner");
  const TensorId row = addOp(builder, TensorOpKind::View, {t}, 5, {}, {{"offsets", at}, {"shape", dimsOf({1, 64})}});
  const TensorId sum = addOp(builder, TensorOpKind::Add, {row, row}, 6);
  addOp(builder, TensorOpKind::Assemble, {sum}, 7, {y}, {{"offsets", at}});
  builder.endPath();
  builder.endLoop(loop);
  builder.setLabel("post");
  addOp(builder, TensorOpKind::Exp, {x}, 8, {z});
  builder.endPath();
  return builder.finish();
}

// "sg0 AIV p0 pinned: 0 1 4 8" per subgraph; checks subgraphOfTileOp on the way.
std::string summary(const Compilation& compilation) {
  std::string text;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) {
    text += "sg" + std::to_string(subgraph.id) + " " + std::string(name(subgraph.coreType)) + " p" +
            std::to_string(subgraph.programId) + (subgraph.pinned ? " pinned" : "") + ":";
    for (TileOpId op : subgraph.ops) {
      text += " " + std::to_string(op);
      EXPECT_EQ(compilation.blocks.subgraphOfTileOp[static_cast<std::size_t>(op)], subgraph.id);
    }
    text += "\n";
  }
  return text;
}

// Executes the compiled partition subgraph by subgraph and the Tensor graph with the reference interpreter on
// the same inputs; float32 elementwise and one-tile matmuls: rtol 1e-5, atol 1e-6.
::testing::AssertionResult matchesReference(const Compilation& compilation) {
  const TensorGraph& graph = compilation.tiles.graph;
  std::vector<HostTensor> expected, actual;
  std::mt19937 random(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (TensorId id : graph.arguments) {
    const std::vector<std::int64_t>& shape = compilation.tiles.shapeOf(id);
    std::int64_t count = 1;
    for (std::int64_t dim : shape) count *= dim;
    std::vector<double> values(static_cast<std::size_t>(count));
    for (double& value : values) value = uniform(random);
    expected.push_back(HostTensor::fromDoubles(graph.tensor(id).dtype, Shape(shape), values));
    actual.push_back(HostTensor::fromDoubles(graph.tensor(id).dtype, Shape(shape), values));
  }
  DiagnosticEngine diags;
  if (!runReference(graph, expected, diags)) return ::testing::AssertionFailure() << "reference failed";
  if (!runSubgraphs(compilation.tiles, compilation.blocks, actual, diags))
    return ::testing::AssertionFailure() << "runSubgraphs failed";
  for (std::size_t i = 0; i < expected.size(); ++i)
    if (!actual[i].allClose(expected[i], 1e-5, 1e-6))
      return ::testing::AssertionFailure() << "argument " << graph.tensor(graph.arguments[i]).name
                                           << " differs from the reference";
  return ::testing::AssertionSuccess();
}

// Entries go into a project file, one per line from kFirstEntryLine (column 5), and are read back by the
// project loader, so diagnostics carry the lines the loader found.
constexpr int kFirstEntryLine = 7;

class Overrides : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("pto-overrides-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "kernel.py") << "# the graphs are built in the test\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  std::optional<CompileResult> compile(const TensorGraph& graph, const std::vector<std::string>& entries,
                                       nlohmann::ordered_json passOptions = nlohmann::ordered_json::object(),
                                       std::int64_t ubBytes = 192 * 1024) {
    std::string text = "{\n  \"name\": \"t\",\n  \"source\": \"kernel.py\",\n  \"entry\": \"kernel\",\n"
                       "  \"args\": [{\"name\": \"x\", \"shape\": [1], \"dtype\": \"float32\"}],\n"
                       "  \"partition_overrides\": [\n";
    for (std::size_t i = 0; i < entries.size(); ++i) text += "    " + entries[i] + (i + 1 < entries.size() ? ",\n" : "\n");
    text += "  ]\n}\n";
    m_diags = DiagnosticEngine();
    auto project = parseProject(text, m_dir / "pto-project.json", m_diags);
    if (!project) {
      ADD_FAILURE() << "the project does not load:\n" << errors();
      return std::nullopt;
    }
    CompileSettings settings;
    settings.partitionOverrides = project->partitionOverrides;
    settings.partitionOverrideLocations = project->partitionOverrideLocations;
    settings.passOptions = std::move(passOptions);
    settings.projectFile = project->file.string();
    settings.target.capacityBytes[static_cast<std::size_t>(MemoryKind::UB)] = ubBytes;
    CompileOptions options;
    options.disabledPasses.insert("ForwardAssemble");  // keep the copies the expected partitions list
    return compileKernel(graph, settings, m_diags, options);
  }

  // The partition that `entries` make of `graph`, as summary() prints it ("" when the compile fails); its
  // subgraphs must compute what the reference interpreter computes.
  std::string overridden(const TensorGraph& graph, const std::vector<std::string>& entries) {
    auto result = compile(graph, entries);
    EXPECT_TRUE(result) << errors();
    if (!result) return {};
    EXPECT_TRUE(matchesReference(result->compilation));
    return summary(result->compilation);
  }

  std::string errors() const {
    std::string text;
    for (const Diagnostic& diagnostic : m_diags.diagnostics())
      text += diagnostic.location.str() + ": " + diagnostic.message + "\n";
    return text;
  }

  // The one error, which must be at entry `entry`'s line of the project file.
  std::string rejection(int entry) const {
    if (m_diags.diagnostics().size() != 1) {
      ADD_FAILURE() << "expected one diagnostic, got:\n" << errors();
      return {};
    }
    const Diagnostic& diagnostic = m_diags.diagnostics().front();
    EXPECT_EQ(diagnostic.location.file, (m_dir / "pto-project.json").string());
    EXPECT_EQ(diagnostic.location.line, kFirstEntryLine + entry);
    EXPECT_EQ(diagnostic.location.column, 5);
    return diagnostic.message;
  }

  fs::path m_dir;
  DiagnosticEngine m_diags;
};

// ---- each kind works ----

TEST_F(Overrides, WithoutEntriesThePassChangesNothing) {
  auto result = compile(chain(), {});
  ASSERT_TRUE(result) << errors();
  EXPECT_EQ(summary(result->compilation),
            "sg0 AIV p0: 0 4 8\n"
            "sg1 AIV p0: 1 5 9\n"
            "sg2 AIV p0: 2 6 10\n"
            "sg3 AIV p0: 3 7 11\n");
  for (const PassRecord& pass : result->passes) {
    if (pass.name == "ApplyPartitionOverrides") {
      EXPECT_FALSE(pass.changed);
    }
  }
  EXPECT_TRUE(matchesReference(result->compilation));
}

TEST_F(Overrides, MoveATileOpIntoTheSubgraphOfAnother) {
  auto result = compile(chain(), {R"({"move": {"label": "double", "tile": 1}, "to": {"label": "exp", "tile": 0}})"});
  ASSERT_TRUE(result) << errors();
  // sg0 gains add tile 1; what is left of sg1 starts at #5, so it comes last; sg1/sg2 keep one program.
  EXPECT_EQ(summary(result->compilation),
            "sg0 AIV p0 pinned: 0 1 4 8\n"
            "sg1 AIV p1: 2 6 10\n"
            "sg2 AIV p1: 3 7 11\n"
            "sg3 AIV p2 pinned: 5 9\n");
  EXPECT_EQ(result->compilation.blocks.programCount, 3);
  EXPECT_TRUE(matchesReference(result->compilation));
}

TEST_F(Overrides, MoveAllTilesOfAnOpIntoANewSubgraph) {
  EXPECT_EQ(overridden(chain(), {R"({"move": {"line": 5}, "to": "new", "note": "one store task"})"}),
            "sg0 AIV p0 pinned: 0 4\n"
            "sg1 AIV p0 pinned: 1 5\n"
            "sg2 AIV p0 pinned: 2 6\n"
            "sg3 AIV p0 pinned: 3 7\n"
            "sg4 AIV p1 pinned: 8 9 10 11\n");
}

TEST_F(Overrides, SplitASubgraphAtATileOp) {
  EXPECT_EQ(overridden(chain(), {R"({"split": {"label": "double", "tile": 0}, "at": {"tensor_op": 1, "tile": 0}})"}),
            "sg0 AIV p0 pinned: 0\n"
            "sg1 AIV p1: 1 5 9\n"
            "sg2 AIV p1: 2 6 10\n"
            "sg3 AIV p1: 3 7 11\n"
            "sg4 AIV p2 pinned: 4 8\n");
}

TEST_F(Overrides, MergeSubgraphsNamedByTileOpsAndById) {
  EXPECT_EQ(overridden(chain(), {R"({"merge": [{"label": "double", "tile": 0}, {"subgraph": 1}]})"}),
            "sg0 AIV p0 pinned: 0 1 4 5 8 9\n"
            "sg1 AIV p1: 2 6 10\n"
            "sg2 AIV p1: 3 7 11\n");
}

TEST_F(Overrides, EntriesApplyInOrderEachToWhatTheLastLeft) {
  // The split names the merged subgraph by exp tile 1, which only the merge put there.
  EXPECT_EQ(overridden(chain(), {R"({"merge": [{"label": "double", "tile": 0}, {"label": "double", "tile": 1}]})",
                                   R"({"split": {"label": "exp", "tile": 1}, "at": {"label": "out", "tile": 0}})"}),
            "sg0 AIV p0 pinned: 0 1 4 5\n"
            "sg1 AIV p1: 2 6 10\n"
            "sg2 AIV p1: 3 7 11\n"
            "sg3 AIV p2 pinned: 8 9\n");
}

TEST_F(Overrides, MovedOpsKeepTheirPlaceAcrossCubeAndVectorSubgraphs) {
  // Moving the store out of the vector subgraph after the matmul: sg2 {#2}, sg3 {#3}.
  EXPECT_EQ(overridden(vectorCubeVector(), {R"({"move": {"label": "out"}, "to": "new"})"}),
            "sg0 AIV p0: 0\n"
            "sg1 AIC p1: 1\n"
            "sg2 AIV p2 pinned: 2\n"
            "sg3 AIV p3 pinned: 3\n");
}

// The oracle itself: a partition that breaks a dependency (copy tile 1 in sg0, which runs before add and exp
// tile 1) reads stale data, so runSubgraphs differs from the reference.
TEST_F(Overrides, RunSubgraphsNoticesABrokenOrder) {
  auto result = compile(chain(), {});
  ASSERT_TRUE(result) << errors();
  BlockGraph& blocks = result->compilation.blocks;
  blocks.subgraphs[1].ops = {1, 5};
  blocks.subgraphs[0].ops = {0, 4, 8, 9};
  EXPECT_FALSE(matchesReference(result->compilation));
}

// ---- rejections ----

TEST_F(Overrides, ACycleBetweenSubgraphsIsRejectedNamingIt) {
  EXPECT_FALSE(compile(vectorCubeVector(), {R"({"merge": [{"label": "exp"}, {"label": "add"}]})"}));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (merge): would create a cycle between subgraphs: sg0 -> sg1 -> sg0 (exp 'exp' "
            "tile 0 (kernel.py:3) feeds matmul 'mm' tile 0 (kernel.py:4); matmul 'mm' tile 0 (kernel.py:4) feeds add "
            "'add' tile 0 (kernel.py:5)), so neither could run first");
}

TEST_F(Overrides, WaitingForASubgraphThatStartsLaterIsRejected) {
  // The first entry is fine; the second puts copy tile 1 into sg0, which starts before exp tile 1's sg1.
  EXPECT_FALSE(compile(chain(), {R"({"merge": [{"subgraph": 2}, {"subgraph": 3}]})",
                                 R"({"move": {"label": "out", "tile": 1}, "to": {"subgraph": 0}})"}));
  EXPECT_EQ(rejection(1),
            "partition_overrides[1] (move): would make sg0 wait for sg1, which starts after it: exp 'exp' tile 1 "
            "(kernel.py:4) feeds copy 'out' tile 1 (kernel.py:5), but sg0 runs as one task from its first op (add "
            "'double' tile 0 (kernel.py:3)), before sg1 starts; move the ops sg0 would wait for into it as well");
}

TEST_F(Overrides, CubeAndVectorOpsWithoutAnL0CToUBPathAreRejected) {
  EXPECT_FALSE(compile(vectorCubeVector(), {R"({"move": {"label": "add"}, "to": {"label": "mm"}})"}));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (move): would put cube op matmul 'mm' tile 0 (kernel.py:4) and vector op add 'add' "
            "tile 0 (kernel.py:5) in one subgraph, but a2 has no L0C -> UB path, so cube and vector ops cannot share "
            "a subgraph; keep them apart");
}

TEST_F(Overrides, AVectorResultCannotFeedTheCubeOnChipEvenWithAnL0CToUBPath) {
  EXPECT_FALSE(compile(vectorCubeVector(), {R"({"move": {"label": "exp"}, "to": {"label": "mm"}})"},
                       {{"machine_has_l0c_to_ub", true}}));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (move): would put matmul 'mm' tile 0 (kernel.py:4) (cube) in one subgraph with "
            "exp 'exp' tile 0 (kernel.py:3) (vector), whose result it reads, but data cannot move from the vector unit "
            "to the cube on chip; keep them apart");
}

TEST_F(Overrides, AMergeThatOverflowsTheUnifiedBufferIsRejected) {
  // Each [32, 64] float32 tile takes 8192 bytes of UB. One chain (x, a, b, y tiles; at most two live at once)
  // peaks at 16384 bytes; two interleaved chains (ops #0 #1 #4 #5 #8 #9) keep a0, a1 and x1 live together:
  // 24576 bytes, over the 20000 this machine has.
  EXPECT_FALSE(compile(chain(), {R"({"merge": [{"subgraph": 0}, {"subgraph": 1}]})"}, {}, 20000));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (merge): would overflow unified buffer: the subgraph starting at add 'double' tile "
            "0 (kernel.py:3) (6 tile ops) needs 24576 bytes of unified buffer but a2 has 20000 per core");
}

TEST_F(Overrides, AMergeThatFitsTheSameBufferIsAccepted) {
  auto result = compile(chain(), {R"({"merge": [{"subgraph": 0}, {"subgraph": 1}]})"}, {}, 24576);
  ASSERT_TRUE(result) << errors();
  EXPECT_EQ(result->compilation.blocks.subgraphs[0].peakBytes[static_cast<std::size_t>(MemoryKind::UB)], 24576);
}

TEST_F(Overrides, OpsOfDifferentScopesOrAcrossALoopNeverShareASubgraph) {
  EXPECT_FALSE(compile(bodyLoopBody(), {R"({"move": {"line": 6}, "to": {"label": "pre", "tile": 0}})"}));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (move): would put exp 'pre' tile 0 (kernel.py:3) and add 'inner' tile 0 "
            "(kernel.py:6) in one subgraph, but they run in different scopes (the kernel body and the body of loop "
            "'rows'); a subgraph's ops all run in one loop body");
  EXPECT_FALSE(compile(bodyLoopBody(), {R"({"move": {"label": "post", "tile": 0}, "to": {"label": "pre", "tile": 0}})"}));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (move): would put exp 'pre' tile 0 (kernel.py:3) and exp 'post' tile 0 "
            "(kernel.py:8) in one subgraph, but a nested loop runs between them; a subgraph runs as one task where "
            "its first op is, so ops on both sides of a loop never share one");
  // Within the loop body the same kind of move is fine, and runs like the reference.
  auto result = compile(bodyLoopBody(), {R"({"merge": [{"label": "pre", "tile": 0}, {"label": "pre", "tile": 1}]})"});
  ASSERT_TRUE(result) << errors();
  EXPECT_TRUE(matchesReference(result->compilation));
}

TEST_F(Overrides, UnknownNamesGetHelp) {
  EXPECT_FALSE(compile(chain(), {R"({"move": {"label": "exq"}, "to": "new"})"}));
  EXPECT_EQ(rejection(0), "partition_overrides[0] (move): no tensor op has the semantic label 'exq' (did you mean "
                          "'exp'?)");
  EXPECT_FALSE(compile(chain(), {R"({"move": {"line": 9}, "to": "new"})"}));
  EXPECT_EQ(rejection(0),
            "partition_overrides[0] (move): no tensor op comes from kernel line 9; ops with tiles are on lines 3, 4, 5");
  EXPECT_FALSE(compile(chain(), {R"({"move": {"label": "exp", "tile": 4}, "to": "new"})"}));
  EXPECT_EQ(rejection(0), "partition_overrides[0] (move): tensor op 1 (exp 'exp') has 4 tiles (0..3); there is no "
                          "tile 4");
  EXPECT_FALSE(compile(chain(), {R"({"move": {"tensor_op": 3}, "to": "new"})"}));
  EXPECT_EQ(rejection(0), "partition_overrides[0] (move): there is no tensor op 3 (the kernel has 3, 0..2)");
  EXPECT_FALSE(compile(chain(), {R"({"merge": [{"subgraph": 0}, {"subgraph": 4}]})"}));
  EXPECT_EQ(rejection(0), "partition_overrides[0] (merge): there is no subgraph 4 (GraphPartition made 4, 0..3)");
  EXPECT_FALSE(compile(chain(), {R"({"move": {"label": "exp", "line": 5}, "to": "new"})"}));
  EXPECT_EQ(rejection(0), "partition_overrides[0] (move): no single tensor op has label 'exp' and line 5");
}

TEST_F(Overrides, MalformedEntriesAreRejected) {
  struct Case {
    const char* entry;
    const char* message;
  };
  const Case cases[] = {
      {R"("move everything")",
       "partition_overrides[0]: an entry must be an object such as {\"move\": {\"label\": \"exp\"}, \"to\": \"new\"}, "
       "got \"move everything\""},
      {R"({"mvoe": {"label": "exp"}, "to": "new"})",
       "partition_overrides[0]: unknown key 'mvoe' (did you mean 'move'?); an entry is a \"move\", \"split\" or "
       "\"merge\""},
      {R"({"move": {"label": "exp"}, "merge": []})",
       "partition_overrides[0]: an entry needs exactly one of \"move\", \"split\" or \"merge\""},
      {R"({"move": {"label": "exp"}})",
       "partition_overrides[0] (move): missing \"to\": the subgraph to move the tile ops into, or \"new\""},
      {R"({"move": {"label": "exp"}, "to": "old"})",
       "partition_overrides[0] (move): \"to\" must name a subgraph or be \"new\", got \"old\""},
      {R"({"move": {"label": "exp"}, "to": "new", "from": 1})",
       "partition_overrides[0] (move): unknown key 'from'; expected \"move\", \"to\" or \"note\""},
      {R"({"move": {"tiles": [0]}, "to": "new"})",
       "partition_overrides[0] (move): \"move\" must name a tensor op by \"label\", \"line\" or \"tensor_op\""},
      {R"({"move": {"label": "exp", "tile": -1}, "to": "new"})",
       "partition_overrides[0] (move): move.tile must be an integer >= 0, got -1"},
      {R"({"move": {"label": "exp", "tiel": 0}, "to": "new"})",
       "partition_overrides[0] (move): unknown key 'tiel' in \"move\" (did you mean 'tile'?)"},
      {R"({"merge": [{"subgraph": 0}]})",
       "partition_overrides[0] (merge): \"merge\" must list at least two subgraphs, got an array"},
      {R"({"move": {"label": "double", "tile": 0}, "to": {"label": "exp"}})",
       "partition_overrides[0] (move): \"to\" must name one subgraph, but its tile ops lie in 4 (sg0 holds exp 'exp' "
       "tile 0 (kernel.py:4), sg1 holds exp 'exp' tile 1 (kernel.py:4), sg2 holds exp 'exp' tile 2 (kernel.py:4), sg3 "
       "holds exp 'exp' tile 3 (kernel.py:4)); add \"tile\" to name one tile op"},
      {R"({"split": {"subgraph": 0}, "at": {"label": "double", "tile": 0}})",
       "partition_overrides[0] (split): splitting sg0 at its first tile op (add 'double' tile 0 (kernel.py:3)) leaves "
       "nothing behind; name a later op"},
      {R"({"split": {"subgraph": 0}, "at": {"label": "exp", "tile": 1}})",
       "partition_overrides[0] (split): \"at\" names exp 'exp' tile 1 (kernel.py:4), which is in sg1, not in the "
       "subgraph being split (sg0)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.entry);
    EXPECT_FALSE(compile(chain(), {c.entry}));
    EXPECT_EQ(rejection(0), c.message);
  }
}

TEST_F(Overrides, CheckingBeforeCompilingReportsEveryBadNameInThePassesWords) {
  const std::string text = "{\n  \"name\": \"t\",\n  \"source\": \"kernel.py\",\n  \"entry\": \"kernel\",\n"
                           "  \"args\": [{\"name\": \"x\", \"shape\": [1], \"dtype\": \"float32\"}],\n"
                           "  \"partition_overrides\": [\n"
                           "    {\"move\": {\"label\": \"exq\"}, \"to\": \"new\"},\n"
                           "    {\"merge\": [{\"label\": \"exp\", \"tile\": 0}, {\"subgraph\": 9}]},\n"
                           "    {\"split\": {\"label\": \"double\"}, \"at\": {\"line\": 9}},\n"
                           "    {\"move\": {\"tensor_op\": 3}, \"to\": {\"label\": \"out\"}}\n"
                           "  ]\n}\n";
  auto project = parseProject(text, m_dir / "pto-project.json", m_diags);
  ASSERT_TRUE(project) << errors();
  EXPECT_FALSE(checkPartitionOverrides(chain(), project->partitionOverrides, project->partitionOverrideLocations,
                                       project->file.string(), m_diags));
  // Entry 1 names a tile index and a subgraph id: only the compiled partition can say whether they exist.
  const std::string file = (m_dir / "pto-project.json").string();
  EXPECT_EQ(errors(), file + ":7:5: partition_overrides[0] (move): no tensor op has the semantic label 'exq' (did you "
                             "mean 'exp'?)\n" +
                          file + ":9:5: partition_overrides[2] (split): no tensor op comes from kernel line 9; ops with "
                                 "tiles are on lines 3, 4, 5\n" +
                          file + ":10:5: partition_overrides[3] (move): there is no tensor op 3 (the kernel has 3, "
                                 "0..2)\n");

  // Compiling stops at the first bad entry with the same words.
  EXPECT_FALSE(compile(chain(), {R"({"move": {"label": "exq"}, "to": "new"})"}));
  EXPECT_EQ(rejection(0), "partition_overrides[0] (move): no tensor op has the semantic label 'exq' (did you mean "
                          "'exp'?)");
}

} // namespace
} // namespace pto::testing
