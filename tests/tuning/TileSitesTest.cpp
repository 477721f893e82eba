// The tile sites catalog: which keys exist and which ops each governs, checked
// against the example kernels' text and against the tiles the compiler
// actually cuts (ExpandFunction) when the project sets a key.
#include "TuningTestSupport.h"

#include "analysis/run/ProjectRun.h"
#include "compiler/passes/ExpandFunction.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

std::vector<std::string> kinds(const TileSite& site) {
  std::vector<std::string> result;
  for (const GovernedOp& op : site.governs) result.emplace_back(name(op.kind));
  return result;
}

TEST(TileSites, SoftmaxHasOneCallSiteItsLabelAndDefault) {
  const TracedProject& softmax = example("softmax");
  auto sites = collectTileSites(softmax.graph, softmax.project.tileSettings, softmax.bindings);
  ASSERT_EQ(sites.size(), 3u);
  // kernel.py line 22: pypto.set_vec_tile_shapes(1, 4, 1, 64)
  const TileSite& call = siteByKey(sites, TileSection::Vec, "kernel.py:22");
  EXPECT_EQ(call.kind, TileSiteKind::CallSite);
  EXPECT_EQ(call.kernelValue, nlohmann::ordered_json({1, 4, 1, 64}));
  EXPECT_TRUE(call.projectValue.is_null());
  EXPECT_EQ(call.effectiveValue, nlohmann::ordered_json({1, 4, 1, 64}));
  EXPECT_EQ(call.effectiveFrom, "kernel");
  // row_softmax: amax, sub, exp, sum, div (lines 14-16), and the store into y (line 26).
  std::vector<std::string> expected = {"amax", "sub", "exp", "sum", "div", "assemble"};
  EXPECT_EQ(kinds(call), expected);
  EXPECT_EQ(call.lines(), (std::vector<int>{14, 15, 16, 26}));
  EXPECT_EQ(call.labels(), std::vector<std::string>{"softmax"});
  EXPECT_EQ(call.operandDtypes, std::vector<DataType>{DataType::Fp32});
  ASSERT_EQ(call.governs.front().shape, (std::vector<std::int64_t>{1, 32, 1, 256}));

  const TileSite& label = siteByKey(sites, TileSection::Vec, "softmax");
  EXPECT_EQ(label.kind, TileSiteKind::Label);
  EXPECT_EQ(kinds(label), expected);  // a label key beats the kernel's own call
  EXPECT_TRUE(label.kernelValue.is_null());
  // DEFAULT comes after the kernel's own value: it governs nothing here.
  const TileSite& fallback = siteByKey(sites, TileSection::Vec, "DEFAULT");
  EXPECT_TRUE(fallback.governs.empty());
}

TEST(TileSites, PrecedenceCallSiteThenLabelThenKernel) {
  const TracedProject& softmax = example("softmax");
  // With the label set, the call site still governs (it would win) but its ops use the label's value.
  nlohmann::ordered_json byLabel = {{"vec", {{"softmax", {1, 8, 1, 32}}}}};
  auto sites = collectTileSites(softmax.graph, byLabel, softmax.bindings);
  const TileSite& call = siteByKey(sites, TileSection::Vec, "kernel.py:22");
  EXPECT_EQ(call.governs.size(), 6u);
  EXPECT_EQ(call.effectiveFrom, "softmax");
  EXPECT_EQ(call.effectiveValue, nlohmann::ordered_json({1, 8, 1, 32}));
  // With the call site set too, the label governs nothing any more.
  nlohmann::ordered_json both = {{"vec", {{"softmax", {1, 8, 1, 32}}, {"kernel.py:22", {1, 2, 1, 128}}}}};
  sites = collectTileSites(softmax.graph, both, softmax.bindings);
  EXPECT_TRUE(siteByKey(sites, TileSection::Vec, "softmax").governs.empty());
  EXPECT_EQ(siteByKey(sites, TileSection::Vec, "kernel.py:22").governs.size(), 6u);
  // A key that names nothing is listed, governing nothing.
  nlohmann::ordered_json stale = {{"vec", {{"kernel.py:99", {8, 8}}, {"nope", {8, 8}}}}};
  sites = collectTileSites(softmax.graph, stale, softmax.bindings);
  EXPECT_TRUE(siteByKey(sites, TileSection::Vec, "kernel.py:99").governs.empty());
  EXPECT_TRUE(siteByKey(sites, TileSection::Vec, "nope").governs.empty());
}

// Independent check: compile with one key set and look at the tile shapes
// ExpandFunction gave each tensor op; the ops that took the key's value are
// exactly the ones the catalog says the key governs.
TEST(TileSites, GovernedOpsAreTheOpsTheCompilerTilesWithTheKey) {
  const TracedProject& mixed = example("muls_add_matmul_rowsum");
  auto sites = collectTileSites(mixed.graph, mixed.project.tileSettings, mixed.bindings);
  for (const TileSite& site : sites) {
    if (site.section != TileSection::Vec || site.key == "DEFAULT") continue;
    // A value no kernel call uses, so its ops can be told apart.
    nlohmann::ordered_json settings = {{"vec", {{site.key, {16, 8}}}}};
    OperatorProject project = mixed.project;
    project.tileSettings = settings;
    DiagnosticEngine diags;
    std::vector<HostTensor> shapes;
    for (const KernelArgument& arg : project.args) shapes.emplace_back(arg.dtype, Shape(*project.concreteShape(arg)));
    // ExpandFunction alone: later passes fold some tile ops (a store into its producer).
    Compilation compilation;
    compilation.settings = *compileSettingsFor(project, mixed.graph, shapes, diags);
    compilation.tiles.graph = mixed.graph;
    ASSERT_TRUE(expandFunction(compilation, diags)) << site.key;
    const TileGraph& tiles = compilation.tiles;
    std::set<OpId> cutBy;
    for (const TileOp& tile : tiles.tileOps())
      if (tile.tileShape == std::vector<std::int64_t>{16, 8} && tile.kind != TensorOpKind::Cast) cutBy.insert(tile.tensorOp);
    std::set<OpId> governed;
    for (const GovernedOp& op : site.governs) governed.insert(op.op);
    EXPECT_EQ(cutBy, governed) << site.key;
    EXPECT_FALSE(governed.empty()) << site.key;
  }
  // The kernel has two vec calls (lines 16 and 24), the cube call (20), and labels.
  EXPECT_EQ(siteByKey(sites, TileSection::Vec, "kernel.py:16").governs.size(), 2u);  // mul, add
  EXPECT_EQ(siteByKey(sites, TileSection::Vec, "kernel.py:24").governs.size(), 2u);  // sum, and the store into out
  EXPECT_EQ(siteByKey(sites, TileSection::Cube, "kernel.py:20").governs.size(), 1u);
  EXPECT_EQ(siteByKey(sites, TileSection::Cube, "matmul").governs.size(), 1u);
  EXPECT_EQ(siteByKey(sites, TileSection::Cube, "kernel.py:20").kernelValue,
            nlohmann::ordered_json::parse(R"({"m": [64, 64], "k": [64, 64], "n": [32, 32], "enable_split_k": false})"));
}

} // namespace
} // namespace pto::testing
