// The Execute graph dumps: the JSON of a task written out in full, counts by core type, and DOT that Graphviz
// accepts (dot -Tsvg), with one edge per dependency and labels that need escaping.
#include "ExecTestSupport.h"
#include "tests/TestDtypes.h"

#include "compiler/ir/ExecuteGraphJson.h"
#include "compiler/passes/BuildExecuteGraph.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace pto::testing {
namespace {

using Json = nlohmann::ordered_json;

// rowExpKernel(2) (support/KernelBuilding.h: for b in range(2): y[b] = exp(x[b]) on [2, 32] with tile [1, 16]),
// and a matmul with two k-steps per block and a cast.
Compilation rowExpTasks() {
  Compilation compilation = compileWithOneSubgraphPerTileOp(rowExpKernel(2));
  DiagnosticEngine diags;
  EXPECT_TRUE(buildExecuteGraph(compilation, diags)) << messages(diags);
  return compilation;
}

Compilation matmulTasks() {
  Compilation compilation = compileWithOneSubgraphPerTileOp(matmulKStepsKernel());
  DiagnosticEngine diags;
  EXPECT_TRUE(buildExecuteGraph(compilation, diags)) << messages(diags);
  return compilation;
}

TEST(ExecuteGraphJson, ATaskCarriesItsSubgraphProgramIndicesSourceRegionsAndPredecessors) {
  const Compilation compilation = rowExpTasks();
  const Json json = executeGraphToJson(compilation);
  EXPECT_EQ(json["stage"], "execute");
  EXPECT_EQ(json["kernel"], "row_exp");
  EXPECT_EQ(json["task_count"], 8);
  EXPECT_EQ(json["edge_count"], 4);  // each copy after its exp; e is each iteration's own, so the exps wait for nothing
  EXPECT_EQ(json["core_types"].dump(), R"({"AIC":0,"AIV":8})");
  ASSERT_EQ(json["tasks"].size(), 8u);
  const TensorId e = compilation.tiles.tileOp(0).outputs[0].tensor;
  const std::string eName = compilation.tiles.graph.tensor(e).name;
  const std::string expected = R"({"id":6,"subgraph":2,"program":1,"core_type":"AIV","label":"copy",)"
                               R"("loop_indices":{"b":1},"source":{"file":"kernel.py","line":6},)"
                               R"("reads":[{"tensor":)" + std::to_string(e) + R"(,"name":")" + eName +
                               R"(","offsets":[0,0],"shape":[1,16],"per_iteration":true}],)"
                               R"("writes":[{"tensor":1,"name":"y","offsets":[1,0],"shape":[1,16]}],)"
                               R"("predecessors":[4]})";
  EXPECT_EQ(json["tasks"][6].dump(), expected);
  EXPECT_EQ(json["tasks"][4]["predecessors"].dump(), "[]");
  EXPECT_EQ(json["tasks"][4]["label"], "exp");
  EXPECT_EQ(json["tasks"][4]["source"]["line"], 5);
}

TEST(ExecuteGraphJson, CountsTasksByCoreType) {
  const Json json = executeGraphToJson(matmulTasks());
  EXPECT_EQ(json["core_types"].dump(), R"({"AIC":8,"AIV":4})");
  EXPECT_EQ(json["tasks"][0]["core_type"], "AIC");
  EXPECT_EQ(json["tasks"][2]["core_type"], "AIV");
  EXPECT_EQ(json["edge_count"], 8);
}

// Runs Graphviz on the text; empty when it accepted it, else its complaint.
std::string graphvizComplaint(const std::string& dot, const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(PTO_TEST_DATA_DIR) / "exec_dot";
  std::filesystem::create_directories(dir);
  const std::filesystem::path input = dir / (name + ".dot");
  const std::filesystem::path errors = dir / (name + ".err");
  std::ofstream(input) << dot;
  const std::string command = "dot -Tsvg '" + input.string() + "' -o '" + (dir / (name + ".svg")).string() +
                              "' 2> '" + errors.string() + "'";
  if (std::system(command.c_str()) == 0) return "";
  std::ifstream in(errors);
  return "dot failed: " + std::string(std::istreambuf_iterator<char>(in), {});
}

bool haveGraphviz() { return std::system("dot -V > /dev/null 2>&1") == 0; }

TEST(ExecuteGraphDot, GraphvizAcceptsItAndItHasOneEdgePerDependency) {
  if (!haveGraphviz()) GTEST_SKIP() << "Graphviz (dot) is not installed";
  for (const Compilation& compilation : {rowExpTasks(), matmulTasks()}) {
    const std::string dot = executeGraphToDot(compilation);
    EXPECT_EQ(graphvizComplaint(dot, compilation.tiles.graph.kernelName), "");
    std::size_t arrows = 0, nodes = 0;
    for (std::size_t at = dot.find(" -> "); at != std::string::npos; at = dot.find(" -> ", at + 1)) ++arrows;
    for (std::size_t at = dot.find("[label="); at != std::string::npos; at = dot.find("[label=", at + 1)) ++nodes;
    EXPECT_EQ(arrows, compilation.tasks.edgeCount);
    EXPECT_EQ(nodes, compilation.tasks.tasks.size());
  }
}

TEST(ExecuteGraphDot, LabelsWithQuotesBackslashesAndNewlinesAreEscaped) {
  if (!haveGraphviz()) GTEST_SKIP() << "Graphviz (dot) is not installed";
  Compilation compilation = rowExpTasks();
  compilation.blocks.subgraphs.at(0).label = "say \"hi\"\\\nback\\";
  compilation.tiles.graph.kernelName = "odd \"name\"";
  const std::string dot = executeGraphToDot(compilation);
  EXPECT_NE(dot.find(R"(label="#0 say \"hi\"\\\nback\\\nsg0 AIV\nb=0")"), std::string::npos) << dot;
  EXPECT_EQ(graphvizComplaint(dot, "escaped"), "");
}

} // namespace
} // namespace pto::testing
