// The graph views' model (analysis/IrGraph) and the pass viewer's data
// (analysis/PassHistory): levels built from a real compile of
// muls_add_matmul_rowsum checked against `pto graph`'s own dumps and against
// the kernel's hand-worked structure; grouping, lazy expansion and the
// neighbourhood mode on synthetic graphs whose counts are known by
// construction; partition edit checks with the compiler's own messages.
#include "analysis/irviews/IrGraph.h"
#include "analysis/run/PassHistory.h"
#include "core/project/ProjectFile.h"

#include "CliRunner.h"

#include "tests/support/SyntheticIrGraph.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace {

using namespace pto;

const std::string kExample = std::string(PTO_SOURCE_DIR) + "/resources/examples/muls_add_matmul_rowsum";

OperatorProject loadExample() {
  DiagnosticEngine diags;
  auto project = loadProject(kExample, diags);
  EXPECT_TRUE(project.has_value());
  return *project;
}

const PassHistory& exampleHistory() {
  static const PassHistory history = compilePassHistory(loadExample(), std::nullopt, [] { return false; });
  return history;
}

const IrJson& finalSnapshot() { return *exampleHistory().steps.back().snapshot; }

TEST(PassHistory, KeepsEveryPassWithItsSnapshotAndCounts) {
  const PassHistory& history = exampleHistory();
  ASSERT_TRUE(history.complete) << history.problems;
  // The pipeline `pto passes` lists (13 passes for this kernel).
  ASSERT_EQ(history.steps.size(), 13u);
  EXPECT_EQ(history.steps.front().name, "ExpandFunction");
  EXPECT_EQ(history.steps.back().name, "BuildExecuteGraph");
  EXPECT_GE(partitionStep(history), 0);
  // Counts add up pass by pass.
  for (std::size_t level = 0; level < kIrLevelCount; ++level) {
    int net = 0;
    for (const PassStep& step : history.steps) {
      net += step.counts[level].added - step.counts[level].removed;
      EXPECT_EQ(step.counts[level].count, net) << step.name;
    }
  }
  // ForwardAssemble: +2 sums into out, -2 sums into the temporary, -2 copies (as `pto passes --diff`).
  for (const PassStep& step : history.steps)
    if (step.name == "ForwardAssemble") {
      EXPECT_EQ(step.counts[0].added, 2);
      EXPECT_EQ(step.counts[0].removed, 4);
      for (const NodeChange& change : step.changes) EXPECT_FALSE(change.key.empty());
    }
}

TEST(IrGraph, TileLevelMatchesTheTileAndBlockDumps) {
  const nlohmann::json tile = nlohmann::json::parse(test::runPto("graph '" + kExample + "' --stage tile --format json").out);
  const nlohmann::json block = nlohmann::json::parse(test::runPto("graph '" + kExample + "' --stage block --format json").out);
  IrGraph graph = buildIrGraph(GraphLevel::Tile, exampleHistory().tensor, finalSnapshot());
  ASSERT_TRUE(graph.missing.empty());
  EXPECT_EQ(graph.nodes.size(), tile["operations"].size());
  ASSERT_EQ(graph.clusters.size(), block["subgraphs"].size());
  // Every tile op in exactly one cluster, and the cluster is its subgraph.
  std::map<std::int64_t, std::int64_t> subgraphOf;
  for (const auto& subgraph : block["subgraphs"])
    for (const auto& op : subgraph["ops"]) subgraphOf[op["id"].get<std::int64_t>()] = subgraph["id"].get<std::int64_t>();
  std::size_t clustered = 0;
  for (const IrGraphCluster& cluster : graph.clusters) clustered += cluster.nodes.size();
  EXPECT_EQ(clustered, graph.nodes.size());
  for (const IrGraphNode& node : graph.nodes) {
    ASSERT_GE(node.cluster, 0) << node.title;
    EXPECT_EQ(graph.clusters[static_cast<std::size_t>(node.cluster)].id, subgraphOf.at(node.id)) << node.title;
    EXPECT_TRUE(node.memory == "UB" || node.memory == "L0C" || node.memory == "L1") << node.memory;
  }
  // Edges are the dump's producers, each once.
  std::size_t producers = 0;
  for (const auto& op : tile["operations"]) producers += op["producers"].size();
  EXPECT_EQ(graph.edges.size(), producers);
  // The 32x32 scale-and-add tiles: four of each tensor op, numbered 0..3 in execution order.
  std::map<int, std::set<int>> tilesOf;
  for (const IrGraphNode& node : graph.nodes)
    if (node.label == "scale_add") tilesOf[node.tensorOp].insert(node.tileIndex);
  ASSERT_FALSE(tilesOf.empty());
  for (const auto& [op, tiles] : tilesOf) EXPECT_EQ(tiles, (std::set<int>{0, 1, 2, 3})) << "tensor op " << op;
}

TEST(IrGraph, TensorLevelIsTheKernelsDataflow) {
  IrGraph graph = buildIrGraph(GraphLevel::Tensor, exampleHistory().tensor, finalSnapshot());
  ASSERT_TRUE(graph.missing.empty());
  // hidden = a * 0.5 + b; product = hidden @ w; out = sum(product): muls -> add -> matmul -> sum.
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) index[graph.nodes[i].kind] = static_cast<int>(i);
  std::set<std::pair<std::string, std::string>> edges;
  for (const IrGraphEdge& edge : graph.edges)
    edges.emplace(graph.nodes[static_cast<std::size_t>(edge.from)].kind, graph.nodes[static_cast<std::size_t>(edge.to)].kind);
  EXPECT_TRUE(edges.count({"muls", "add"})) << graph.nodes.size();
  EXPECT_TRUE(edges.count({"add", "matmul"}));
  EXPECT_TRUE(edges.count({"matmul", "sum"}));
  EXPECT_EQ(graph.nodes[static_cast<std::size_t>(index["matmul"])].line, 22);
}

TEST(IrGraph, BlockLevelHasCopiesPerSubgraphAndExecLevelTheTasks) {
  const nlohmann::json exec = nlohmann::json::parse(test::runPto("graph '" + kExample + "' --stage exec --format json").out);
  IrGraph block = buildIrGraph(GraphLevel::Block, exampleHistory().tensor, finalSnapshot());
  ASSERT_TRUE(block.missing.empty());
  for (const IrGraphCluster& cluster : block.clusters) {
    int ins = 0, outs = 0;
    for (int node : cluster.nodes) {
      ins += block.nodes[static_cast<std::size_t>(node)].kind == "copy_in";
      outs += block.nodes[static_cast<std::size_t>(node)].kind == "copy_out";
    }
    EXPECT_GT(ins, 0) << cluster.title;
    EXPECT_GT(outs, 0) << cluster.title;
  }
  IrGraph tasks = buildIrGraph(GraphLevel::Execute, exampleHistory().tensor, finalSnapshot());
  EXPECT_EQ(tasks.nodes.size(), exec["tasks"].size());
  std::size_t predecessors = 0;
  for (const auto& task : exec["tasks"]) predecessors += task["predecessors"].size();
  EXPECT_EQ(tasks.edges.size(), predecessors);
  // Before GraphPartition there is no block graph.
  IrGraph early = buildIrGraph(GraphLevel::Block, exampleHistory().tensor, *exampleHistory().steps.front().snapshot);
  EXPECT_EQ(early.missing, "the block graph exists after GraphPartition");
}

TEST(IrGraph, NodeKeysSurviveThePassesThatDoNotTouchThem) {
  const PassHistory& history = exampleHistory();
  int partition = partitionStep(history);
  IrGraph atPartition = buildIrGraph(GraphLevel::Tile, history.tensor, *history.steps[static_cast<std::size_t>(partition)].snapshot);
  IrGraph last = buildIrGraph(GraphLevel::Tile, history.tensor, finalSnapshot());
  std::set<std::string> lastKeys;
  for (const IrGraphNode& node : last.nodes) lastKeys.insert(node.key);
  // The matmul and the scale-and-add tiles are not rewritten after partitioning.
  for (const IrGraphNode& node : atPartition.nodes) {
    if (node.label == "scale_add" || node.kind == "matmul") {
      EXPECT_TRUE(lastKeys.count(node.key)) << node.key;
    }
  }
}

using test::chainedClusters;

TEST(VisibleGraph, SmallGraphsShowWholeBigOnesStartGroupedByStructure) {
  IrGraph small = chainedClusters(4, 10);
  EXPECT_EQ(defaultVisibleOptions(small).grouping, GraphGrouping::None);
  VisibleGraph whole = visibleGraph(small, defaultVisibleOptions(small));
  EXPECT_EQ(whole.items.size(), 40u);
  EXPECT_EQ(whole.edges.size(), 39u);

  IrGraph big = chainedClusters(100, 50);  // 5000 tile ops
  EXPECT_EQ(defaultVisibleOptions(big).grouping, GraphGrouping::Structure);
  VisibleGraphOptions options;
  options.grouping = GraphGrouping::Subgraph;
  VisibleGraph grouped = visibleGraph(big, options);
  ASSERT_EQ(grouped.items.size(), 100u);
  ASSERT_EQ(grouped.edges.size(), 99u);  // the chain between subgraphs, once each
  for (const VisibleItem& item : grouped.items) EXPECT_EQ(item.members.size(), 50u);
  EXPECT_EQ(grouped.items[7].detail, "50 tile ops · double-click to expand");

  // Lazy expansion: one subgraph opens, the rest stay boxes.
  options.expanded = {"sg:7"};
  VisibleGraph expanded = visibleGraph(big, options);
  EXPECT_EQ(expanded.items.size(), 99u + 50u);
  EXPECT_EQ(expanded.edges.size(), 97u + 49u + 2u);  // box to box (sg0..6, sg8..99), inside sg7, into and out of it
  for (int node = 350; node < 400; ++node) {
    int item = expanded.itemOfNode[static_cast<std::size_t>(node)];
    ASSERT_GE(item, 0);
    EXPECT_EQ(expanded.items[static_cast<std::size_t>(item)].node, node);
    EXPECT_EQ(expanded.items[static_cast<std::size_t>(item)].cluster, 7);
  }
  // By label: two groups, 50 subgraphs each.
  options = {};
  options.grouping = GraphGrouping::Label;
  VisibleGraph labels = visibleGraph(big, options);
  ASSERT_EQ(labels.items.size(), 2u);
  EXPECT_EQ(labels.items[0].title, "even in 50 subgraphs");
  EXPECT_EQ(labels.edges.size(), 2u);  // even -> odd (50 times) and odd -> even (49 times)
  int total = 0;
  for (const VisibleEdge& edge : labels.edges) total += edge.count;
  EXPECT_EQ(total, 99);
}

TEST(VisibleGraph, StructureOpensLabelThenSubgraphThenTensorOp) {
  // 1000 subgraphs of 5 ops (labels alternate even/odd by subgraph), each op
  // of its own tensor op (0..4): 5000 tile ops.
  IrGraph graph = chainedClusters(1000, 5);
  for (IrGraphNode& node : graph.nodes) {
    node.tensorOp = static_cast<int>(node.tileIndex);
    node.kind = "exp";
    node.line = 10 + node.tensorOp;
  }
  VisibleGraphOptions options = defaultVisibleOptions(graph);
  ASSERT_EQ(options.grouping, GraphGrouping::Structure);
  // First sight: one box per label, with its counts.
  VisibleGraph labels = visibleGraph(graph, options);
  ASSERT_EQ(labels.items.size(), 2u);
  EXPECT_EQ(labels.items[0].title, "even in 500 subgraphs");
  EXPECT_EQ(labels.items[0].detail, "2500 tile ops · double-click to expand");
  EXPECT_EQ(labels.items[0].members.size(), 2500u);
  EXPECT_EQ(labels.edges.size(), 2u);  // even -> odd and odd -> even
  // A label opens into its 500 subgraphs in 5 parts; the other label stays one box.
  options.expanded = {"label:even"};
  VisibleGraph parts = visibleGraph(graph, options);
  ASSERT_EQ(parts.items.size(), 6u);
  EXPECT_EQ(parts.items[0].title, "subgraphs 1-100 of 500");
  // A part opens into its subgraphs, each a box.
  options.expanded.insert("label:even/part:0");
  VisibleGraph subgraphs = visibleGraph(graph, options);
  ASSERT_EQ(subgraphs.items.size(), 100u + 4u + 1u);
  EXPECT_EQ(subgraphs.items[0].key, "group:label:even/sg:0");
  EXPECT_EQ(subgraphs.items[0].title, "sg0");
  EXPECT_EQ(subgraphs.items[0].members.size(), 5u);
  EXPECT_EQ(subgraphs.items[0].openGroup, "label:even/part:0");
  // A subgraph opens into its ops (each tensor op has one tile here), drawn
  // in its frame; double-clicking the frame closes the subgraph again.
  options.expanded.insert("label:even/sg:0");
  VisibleGraph ops = visibleGraph(graph, options);
  ASSERT_EQ(ops.items.size(), 99u + 5u + 4u + 1u);
  for (int node = 0; node < 5; ++node) {
    const VisibleItem& item = ops.items[static_cast<std::size_t>(ops.itemOfNode[static_cast<std::size_t>(node)])];
    EXPECT_EQ(item.node, node);
    EXPECT_EQ(item.cluster, 0);
    EXPECT_EQ(item.openGroup, "label:even/sg:0");
  }
  // Every node is shown by exactly one item.
  std::size_t shown = 0;
  for (const VisibleItem& item : ops.items) shown += item.members.size();
  EXPECT_EQ(shown, graph.nodes.size());
}

TEST(VisibleGraph, StructureOpensSmallAndLoneGroupsAtOnce) {
  // One label only: its box would say nothing, so it opens into subgraphs;
  // one big subgraph of 600 ops over 3 tensor ops opens into 3 op boxes.
  IrGraph graph = chainedClusters(1, 600);
  for (IrGraphNode& node : graph.nodes) {
    node.label = "only";
    node.tensorOp = node.tileIndex % 3;
    node.kind = "exp";
  }
  VisibleGraph visible = visibleGraph(graph, defaultVisibleOptions(graph));
  ASSERT_EQ(visible.items.size(), 3u);
  for (const VisibleItem& item : visible.items) {
    EXPECT_GE(item.group, 0);
    EXPECT_EQ(item.members.size(), 200u);
    EXPECT_EQ(item.cluster, 0);  // in the subgraph's frame
  }
  // A label of at most kOpenInnerGroupsUpTo ops shows its ops when opened.
  IrGraph few = chainedClusters(100, 5);  // labels of 250 ops each
  few.nodes[0].label = "tiny";
  few.nodes[1].label = "tiny";
  few.nodes[2].label = "tiny";
  VisibleGraphOptions options = defaultVisibleOptions(few);
  options.expanded = {"label:tiny"};
  VisibleGraph opened = visibleGraph(few, options);
  for (int node = 0; node < 3; ++node)
    EXPECT_EQ(opened.items[static_cast<std::size_t>(opened.itemOfNode[static_cast<std::size_t>(node)])].node, node);
}

TEST(VisibleGraph, StructureNestsDottedLabels) {
  // Labels "stage0.part0" .. "stage1.part1" over 100 subgraphs of 5 ops.
  IrGraph graph = chainedClusters(100, 5);
  for (IrGraphNode& node : graph.nodes)
    node.label = "stage" + std::to_string(node.subgraph / 50) + ".part" + std::to_string(node.subgraph % 2);
  VisibleGraphOptions options = defaultVisibleOptions(graph);
  VisibleGraph stages = visibleGraph(graph, options);
  ASSERT_EQ(stages.items.size(), 2u);
  EXPECT_EQ(stages.items[0].title, "stage0 in 50 subgraphs");
  EXPECT_EQ(stages.items[0].key, "group:label:stage0");
  options.expanded = {"label:stage0"};
  VisibleGraph parts = visibleGraph(graph, options);
  ASSERT_EQ(parts.items.size(), 3u);  // stage0.part0, stage0.part1, stage1
  EXPECT_EQ(parts.items[0].title, "stage0.part0 in 25 subgraphs");
  EXPECT_EQ(parts.items[0].members.size(), 125u);
  EXPECT_EQ(parts.items[0].openGroup, "label:stage0");
}

TEST(VisibleGraph, StructureSplitsTooManyChildrenIntoParts) {
  // One label over 250 subgraphs of 2 ops: the label opens (it is alone)
  // into 3 parts of at most kMostChildrenShown subgraphs, not 250 boxes.
  IrGraph graph = chainedClusters(250, 2);
  for (IrGraphNode& node : graph.nodes) node.label = "x";
  VisibleGraphOptions options = defaultVisibleOptions(graph);
  VisibleGraph parts = visibleGraph(graph, options);
  ASSERT_EQ(parts.items.size(), 3u);
  EXPECT_EQ(parts.items[0].title, "subgraphs 1-84 of 250");
  EXPECT_EQ(parts.items[2].title, "subgraphs 169-250 of 250");
  EXPECT_EQ(parts.items[0].members.size(), 168u);
  EXPECT_EQ(parts.items[0].key, "group:label:x/part:0");
  options.expanded = {"label:x/part:1"};
  VisibleGraph opened = visibleGraph(graph, options);
  ASSERT_EQ(opened.items.size(), 2u + 84u);  // parts 0 and 2, and part 1's subgraphs
  EXPECT_EQ(opened.items[1].title, "sg84");
  EXPECT_EQ(opened.items[1].openGroup, "label:x/part:1");
}

TEST(VisibleGraph, AboveTheLimitOnlyTheFocusNeighbourhoodShows) {
  IrGraph big = chainedClusters(100, 50);
  VisibleGraphOptions options;
  options.grouping = GraphGrouping::None;
  options.focusNode = 2500;
  options.hops = 3;
  VisibleGraph around = visibleGraph(big, options);
  EXPECT_TRUE(around.neighbourhood);
  ASSERT_EQ(around.items.size(), 7u);  // 2497 .. 2503 on the chain
  EXPECT_EQ(around.hiddenNodes, 5000 - 7);
  EXPECT_EQ(around.edges.size(), 6u);
  EXPECT_GE(around.itemOfNode[2497], 0);
  EXPECT_EQ(around.itemOfNode[2496], -1);
}

TEST(VisibleGraph, DotHasAClusterPerSubgraphAndAnEdgePerLink) {
  IrGraph small = chainedClusters(3, 2);
  VisibleGraph whole = visibleGraph(small, {});
  std::string dot = visibleGraphToDot(small, whole);
  EXPECT_NE(dot.find("subgraph cluster_0"), std::string::npos);
  EXPECT_NE(dot.find("subgraph cluster_2"), std::string::npos);
  EXPECT_NE(dot.find("n4 -> n5;"), std::string::npos) << dot;
}

TEST(PartitionEdit, TheCompilersRulesDecideAndSayWhy) {
  const PassHistory& history = exampleHistory();
  ASSERT_TRUE(history.traced);
  OperatorProject project = loadExample();
  int partition = partitionStep(history);
  IrGraph tiles = buildIrGraph(GraphLevel::Tile, history.tensor, *history.steps[static_cast<std::size_t>(partition)].snapshot);
  const IrGraphNode* matmul = nullptr;
  const IrGraphNode* rowsum = nullptr;
  std::vector<const IrGraphNode*> scaleAdd;
  for (const IrGraphNode& node : tiles.nodes) {
    if (node.kind == "matmul" && !matmul) matmul = &node;
    if (node.label == "rowsum" && !rowsum) rowsum = &node;
    if (node.label == "scale_add") scaleAdd.push_back(&node);
  }
  ASSERT_TRUE(matmul && rowsum && !scaleAdd.empty());
  // A vector op into another vector subgraph: legal.
  const IrGraphNode* other = nullptr;
  for (const IrGraphNode* node : scaleAdd)
    if (node->cluster != scaleAdd.front()->cluster) other = node;
  ASSERT_TRUE(other);
  nlohmann::ordered_json legal = nlohmann::ordered_json::array(
      {{{"move", tileOpSelector(*scaleAdd.front())}, {"to", tileOpSelector(*other)}}});
  EXPECT_EQ(partitionOverridesProblem(project, *history.traced, legal), "");
  // The cube op into a vector subgraph: a2 has no L0C -> UB path.
  nlohmann::ordered_json mixed =
      nlohmann::ordered_json::array({{{"move", tileOpSelector(*matmul)}, {"to", tileOpSelector(*rowsum)}}});
  std::string problem = partitionOverridesProblem(project, *history.traced, mixed);
  EXPECT_NE(problem.find("no L0C -> UB path"), std::string::npos) << problem;
  EXPECT_EQ(problem.rfind("partition_overrides[0] (move): would put cube op matmul", 0), 0u) << problem;
}

// An unrolled loop's copies share label and line: their ops are named with
// the tensor op too, so one selector names one copy's op; an op its label,
// line and tile name alone keeps the short form.
TEST(IrGraphTest, SelectorsOfUnrolledCopiesNameTheTensorOp) {
  IrGraph graph;
  graph.level = GraphLevel::Tile;
  auto node = [&](int tensorOp, int tile, int cluster, const char* label, int line) {
    IrGraphNode added;
    added.label = label;
    added.line = line;
    added.tensorOp = tensorOp;
    added.tileIndex = tile;
    added.cluster = cluster;
    graph.nodes.push_back(added);
  };
  node(14, 0, 0, "weigh", 75);  // copy 1 of the loop body
  node(30, 0, 1, "weigh", 75);  // copy 2, its own subgraph
  node(40, 0, 2, "topk", 90);   // alone
  node(41, 1, 2, "topk", 90);
  EXPECT_EQ(tileOpSelector(graph, 0), (nlohmann::ordered_json{{"label", "weigh"}, {"line", 75}, {"tensor_op", 14}, {"tile", 0}}));
  EXPECT_EQ(tileOpSelector(graph, 1), (nlohmann::ordered_json{{"label", "weigh"}, {"line", 75}, {"tensor_op", 30}, {"tile", 0}}));
  EXPECT_EQ(tileOpSelector(graph, 3), (nlohmann::ordered_json{{"label", "topk"}, {"line", 90}, {"tile", 1}}));
}

} // namespace
