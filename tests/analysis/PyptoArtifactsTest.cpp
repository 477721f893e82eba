// PyPTO's own artifacts (analysis/pypto): the hand-written files of
// tests/data/pypto_artifacts, made from the fields PyPTO's writers emit
// (docs/pypto-artifacts.md); every expected count is worked out by hand
// from those files. Plus `pto inspect` on them.
#include "analysis/pypto/PyptoArtifacts.h"
#include "CliRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

namespace pto {
namespace {

const std::filesystem::path kData = std::filesystem::path(PTO_SOURCE_DIR) / "tests/data/pypto_artifacts";

int edgesBetween(const IrGraph& graph, const std::string& fromKind, const std::string& toKind) {
  return static_cast<int>(std::count_if(graph.edges.begin(), graph.edges.end(), [&](const IrGraphEdge& edge) {
    return graph.nodes[static_cast<std::size_t>(edge.from)].kind == fromKind && graph.nodes[static_cast<std::size_t>(edge.to)].kind == toKind;
  }));
}

TEST(PyptoArtifacts, KindsByName) {
  EXPECT_EQ(pyptoArtifactKind(kData / "passes"), PyptoArtifactKind::PassDumps);
  EXPECT_EQ(pyptoArtifactKind(kData / "passes/Pass_016_GraphPartition"), PyptoArtifactKind::PassDumps);
  EXPECT_EQ(pyptoArtifactKind(kData / "passes/Pass_004_ExpandFunction/Before_004_ExpandFunction_TENSOR_softmax_2.json"),
            PyptoArtifactKind::GraphDump);
  EXPECT_EQ(pyptoArtifactKind(kData / "passes/Pass_004_ExpandFunction/Before_004_ExpandFunction_TENSOR_softmax_2_TensorGraphHealthReport.json"),
            PyptoArtifactKind::HealthReport);
  EXPECT_EQ(pyptoArtifactKind(kData / "merged_swimlane.json"), PyptoArtifactKind::ChipSwimlane);
  EXPECT_EQ(pyptoArtifactKind(kData / "trace_core3.json"), PyptoArtifactKind::CoreTrace);
  EXPECT_EQ(pyptoArtifactKind(kData), std::nullopt);  // holds artifacts, is none
  EXPECT_EQ(pyptoHealthKindOfFile("x_Block_Graph_Health_Report.json"), PyptoHealthKind::BlockGraph);
  EXPECT_EQ(pyptoHealthKindOfFile("x_ExecuteGraph_Health_Report.json"), PyptoHealthKind::ExecuteGraph);
}

TEST(PyptoArtifacts, TensorGraphDump) {
  DiagnosticEngine diags;
  auto dump = readPyptoGraphDump(kData / "passes/Pass_004_ExpandFunction/Before_004_ExpandFunction_TENSOR_softmax_2.json", diags);
  ASSERT_TRUE(dump) << diags.printed();
  const IrGraph& graph = *dump->graph;
  EXPECT_EQ(graph.level, GraphLevel::Tensor);
  EXPECT_EQ(dump->function, "TENSOR_softmax_2");
  EXPECT_EQ(dump->tensors, 4);
  // exp -> rowsum_single, exp -> div, rowsum_single -> div.
  ASSERT_EQ(graph.nodes.size(), 3u);
  EXPECT_EQ(graph.edges.size(), 3u);
  EXPECT_EQ(edgesBetween(graph, "exp", "div"), 1);
  EXPECT_EQ(edgesBetween(graph, "rowsum_single", "div"), 1);
  EXPECT_EQ(graph.nodes[2].label, "softmax");
  EXPECT_EQ(graph.nodes[2].line, 16);
  EXPECT_EQ(graph.nodes[2].id, 12);
  EXPECT_TRUE(graph.clusters.empty());
}

TEST(PyptoArtifacts, PassFolderAsHistory) {
  DiagnosticEngine diags;
  auto history = readPyptoPassDumps(kData / "passes", diags);
  ASSERT_TRUE(history) << diags.printed();
  ASSERT_EQ(history->steps.size(), 3u);
  EXPECT_EQ(history->steps[0].name, "ExpandFunction");
  EXPECT_EQ(history->steps[1].name, "GraphPartition");
  EXPECT_EQ(history->steps[2].name, "CodegenPreproc");
  EXPECT_FALSE(history->importedFrom.empty());
  auto graphAt = [&](std::size_t step, GraphLevel level) { return history->steps[step].graphs[static_cast<std::size_t>(level)]; };
  // ExpandFunction's After_ file (its Before_ tensor graph is not the step's): two row tiles of
  // copy_in -> exp -> {rowsum, div}, rowsum -> div, div -> copy_out: 10 ops, 10 edges, no subgraphs yet.
  ASSERT_TRUE(graphAt(0, GraphLevel::Tile));
  EXPECT_FALSE(graphAt(0, GraphLevel::Tensor));
  EXPECT_EQ(graphAt(0, GraphLevel::Tile)->nodes.size(), 10u);
  EXPECT_EQ(graphAt(0, GraphLevel::Tile)->edges.size(), 10u);
  EXPECT_EQ(graphAt(0, GraphLevel::Tile)->clusters.size(), 0u);
  // GraphPartition: the same ops, one subgraph per row.
  ASSERT_TRUE(graphAt(1, GraphLevel::Tile));
  ASSERT_EQ(graphAt(1, GraphLevel::Tile)->clusters.size(), 2u);
  EXPECT_EQ(graphAt(1, GraphLevel::Tile)->clusters[0].nodes.size(), 5u);
  EXPECT_EQ(graphAt(1, GraphLevel::Tile)->clusters[0].label, "softmax");
  EXPECT_EQ(history->steps[1].counts[1].count, 2);
  EXPECT_FALSE(history->steps[1].changed);  // same op keys as ExpandFunction's
  // CodegenPreproc: two independent CALLs (execute) and one program of 3 ops, 3 edges (block).
  ASSERT_TRUE(graphAt(2, GraphLevel::Execute));
  EXPECT_EQ(graphAt(2, GraphLevel::Execute)->nodes.size(), 2u);
  EXPECT_EQ(graphAt(2, GraphLevel::Execute)->edges.size(), 0u);
  EXPECT_EQ(graphAt(2, GraphLevel::Execute)->nodes[1].program, 0);
  ASSERT_TRUE(graphAt(2, GraphLevel::Block));
  EXPECT_EQ(graphAt(2, GraphLevel::Block)->nodes.size(), 3u);
  EXPECT_EQ(graphAt(2, GraphLevel::Block)->edges.size(), 3u);
  EXPECT_EQ(graphAt(2, GraphLevel::Block)->clusters.size(), 1u);
  EXPECT_EQ(history->steps[2].counts[2].count, 1);
  EXPECT_EQ(history->steps[2].counts[3].count, 2);
  EXPECT_FALSE(graphAt(2, GraphLevel::Tile));
}

TEST(PyptoArtifacts, BlockHealthReport) {
  DiagnosticEngine diags;
  auto report = readPyptoHealthReport(kData / "After_030_OoOSchedule_TENSOR_softmax_2_LEAF_program_id_00_155_Block_Graph_Health_Report.json", diags);
  ASSERT_TRUE(report) << diags.printed();
  EXPECT_EQ(report->kind, PyptoHealthKind::BlockGraph);
  EXPECT_EQ(report->graph, "After_030_OoOSchedule_TENSOR_softmax_2_LEAF_program_id_00_155");
  auto row = [&](const std::string& section, const std::string& key) -> std::string {
    for (const PyptoHealthRow& r : report->rows)
      if (r.section == section && r.key == key) return r.value;
    return "(missing)";
  };
  EXPECT_EQ(row("", "totalCycles"), "5120");
  EXPECT_EQ(row("pipeUsageRate", "PIPE_V_Usage_Rate"), "50.0");
  EXPECT_EQ(row("memoryUsage", "MEM_UB_Peak_Usage"), "62.5");
  EXPECT_EQ(row("spillDetails", "[0].spillTensorMagic"), "22");
  EXPECT_EQ(row("", "maxOutputsOps"), "600, 601, 602");
  // 13 top-level values, 7 pipes, 10 memory figures, 9 fields of the one spill.
  EXPECT_EQ(report->rows.size(), 13u + 7u + 10u + 9u);
  // Top-level scalars come first.
  EXPECT_TRUE(report->rows.front().section.empty());
  EXPECT_NE(std::find(report->headline.begin(), report->headline.end(), "total cycles 5120"), report->headline.end());
  EXPECT_NE(std::find(report->headline.begin(), report->headline.end(), "spills 1"), report->headline.end());
}

TEST(PyptoArtifacts, ExecuteHealthReportHeadline) {
  DiagnosticEngine diags;
  auto report = readPyptoHealthReport(kData / "After_026_SubgraphToFunction_TENSOR_softmax_2_ExecuteGraph_Health_Report.json", diags);
  ASSERT_TRUE(report) << diags.printed();
  EXPECT_EQ(report->kind, PyptoHealthKind::ExecuteGraph);
  EXPECT_NE(std::find(report->headline.begin(), report->headline.end(), "subgraphs 2"), report->headline.end());
  bool mapping = false;
  for (const PyptoHealthRow& row : report->rows)
    mapping = mapping || (row.section == "execution_graph_analysis" && row.key == "instanceMapping.0" && row.value == "0, 1");
  EXPECT_TRUE(mapping);
}

TEST(PyptoArtifacts, SwimlaneAndCoreTrace) {
  DiagnosticEngine diags;
  auto swimlane = readPyptoTrace(kData / "merged_swimlane.json", diags);
  ASSERT_TRUE(swimlane) << diags.printed();
  EXPECT_EQ(swimlane->tasks().size(), 3u);
  EXPECT_EQ(swimlane->lanes().size(), 2u);
  EXPECT_EQ(swimlane->edgeCount(), 1u);
  EXPECT_EQ(swimlane->tasks()[2].startNs, 4000);
  EXPECT_EQ(swimlane->tasks()[2].endNs, 7000);
  auto core = readPyptoTrace(kData / "trace_core3.json", diags);
  ASSERT_TRUE(core) << diags.printed();
  EXPECT_EQ(core->tasks().size(), 5u);
  ASSERT_EQ(core->lanes().size(), 4u);
  std::vector<std::string> lanes;
  for (const auto& lane : core->lanes()) lanes.emplace_back(core->str(lane.name));
  std::sort(lanes.begin(), lanes.end());
  EXPECT_EQ(lanes, (std::vector<std::string>{"core3 MTE2", "core3 MTE3", "core3 SCALAR", "core3 VECTOR"}));
  EXPECT_EQ(core->tasks()[4].startNs, 1000);
  EXPECT_EQ(core->tasks()[4].endNs, 1350);
}

TEST(PyptoArtifacts, BadInputNamesTheFileAndPlace) {
  DiagnosticEngine diags;
  EXPECT_FALSE(readPyptoArtifact(kData / "broken_TileGraphHealthReport.json", diags));
  ASSERT_TRUE(diags.hasErrors());
  const Diagnostic& error = diags.diagnostics().front();
  EXPECT_NE(error.location.file.find("broken_TileGraphHealthReport.json"), std::string::npos);
  EXPECT_EQ(error.location.line, 4);  // the '}' where a value should be
  DiagnosticEngine unknown;
  EXPECT_FALSE(readPyptoArtifact(kData, unknown));
  EXPECT_NE(unknown.printed().find("not a PyPTO artifact"), std::string::npos);
  // A health report's name on a graph dump's content is fine JSON of the wrong shape for a graph:
  DiagnosticEngine shape;
  EXPECT_FALSE(readPyptoGraphDump(kData / "merged_swimlane.json", shape));
  EXPECT_NE(shape.printed().find("not a PyPTO graph dump"), std::string::npos);
}

// Shapes PyPTO never writes, as a damaged or foreign file may hold them: each is read without a crash,
// into an error naming the file or into the ops it could make sense of.
TEST(PyptoArtifacts, OddShapesDoNotCrash) {
  test::ScratchFolder scratch("pypto-odd");
  struct Case {
    const char* text;
    bool readable;  // a graph comes out (of the ops that are objects)
    std::size_t nodes;
  };
  const Case cases[] = {
      {R"({"functions": 5})", false, 0},
      {R"({"functions": [7, "x"]})", false, 0},
      {R"({"functions": [{"operations": 3}]})", true, 0},
      {R"({"functions": [{"operations": [1, null, {"opcode": 5, "opmagic": "x", "ioperands": 4, "ooperands": [{"magic": []}],
          "semantic_label": 12, "subgraphid": 18446744073709551615, "invoke_info": 3, "file": 9}]}]})", true, 1},
      {R"({"functions": [{"graphtype": 9, "tensors": [1, {"magic": 1, "mem_type": [1]}],
          "operations": [{"opcode": "ADD", "opmagic": 1, "ioperands": [1, 1, 1], "ooperands": [1]}]}]})", true, 1},
      {R"([])", false, 0},
  };
  int index = 0;
  for (const Case& odd : cases) {
    std::filesystem::path file = scratch.dir() / ("After_001_X_case" + std::to_string(index++) + ".json");
    std::ofstream(file) << odd.text;
    DiagnosticEngine diags;
    auto dump = readPyptoGraphDump(file, diags);
    EXPECT_EQ(dump.has_value(), odd.readable) << odd.text;
    if (dump) EXPECT_EQ(dump->graph->nodes.size(), odd.nodes) << odd.text;
    else EXPECT_NE(diags.printed().find(file.filename().string()), std::string::npos) << diags.printed();
  }
  for (const char* text : {"[1, 2]", "\"text\"", "{\"a\": {\"b\": [[{\"c\": []}]]}}"}) {
    std::filesystem::path file = scratch.dir() / "x_TileGraphHealthReport.json";
    std::ofstream(file) << text;
    DiagnosticEngine diags;
    auto report = readPyptoHealthReport(file, diags);
    EXPECT_EQ(report.has_value(), std::string(text).front() == '{') << text;
  }
}

TEST(PtoInspect, SummariesAndJson) {
  test::Result passes = test::runPto("inspect '" + (kData / "passes").string() + "'");
  EXPECT_EQ(passes.exitCode, 0) << passes.err;
  EXPECT_NE(passes.out.find("PyPTO pass dumps, 3 passes"), std::string::npos) << passes.out;
  EXPECT_NE(passes.out.find("GraphPartition: tile graph: 10 ops, 10 edges, 2 subgraphs"), std::string::npos) << passes.out;
  nlohmann::json health = test::runPtoJson("inspect '" + (kData / "After_020_L1CopyInReuseMerge_TENSOR_softmax_2_TileGraphHealthReport.json").string() + "'");
  EXPECT_EQ(health["command"], "inspect");
  EXPECT_EQ(health["kind"], "health-report");
  EXPECT_EQ(health["report"], "tile-graph");
  EXPECT_EQ(health["fields"]["peakMemory"]["peakMemoryUsage"], 12288);
  nlohmann::json core = test::runPtoJson("inspect '" + (kData / "trace_core3.json").string() + "'");
  EXPECT_EQ(core["kind"], "core-trace");
  EXPECT_EQ(core["trace"]["tasks"], 5);
  EXPECT_DOUBLE_EQ(core["trace"]["span_us"].get<double>(), 1.35);
  test::Result bad = test::runPto("inspect '" + (kData / "broken_TileGraphHealthReport.json").string() + "' --json -");
  EXPECT_EQ(bad.exitCode, 1);
  EXPECT_NE(bad.err.find("broken_TileGraphHealthReport.json:4:"), std::string::npos) << bad.err;
  EXPECT_EQ(nlohmann::json::parse(bad.out)["ok"], false);
}

} // namespace
} // namespace pto
