// Helpers for the partition tests.
#include "PartitionTestSupport.h"

namespace pto::testing {

std::optional<CompileResult> compileWith(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                         std::string* errors) {
  CompileSettings settings;
  settings.passOptions = passOptions;
  settings.projectFile = "pto-project.json";
  // These tests are about grouping, not capacity: buffers never overflow here.
  settings.target.capacityBytes.fill(std::int64_t{1} << 40);
  DiagnosticEngine diags;
  // The expected structures keep the kernels' copies: ForwardAssemble would fold them away.
  CompileOptions options;
  options.disabledPasses.insert("ForwardAssemble");
  auto result = compileKernel(graph, settings, diags, options);
  if (errors) *errors = messages(diags);
  else if (!result) ADD_FAILURE() << "compilation failed:\n" << messages(diags);
  return result;
}

std::string describe(const Compilation& compilation, const Subgraph& subgraph) {
  const TileGraph& tiles = compilation.tiles;
  std::string text = "sg" + std::to_string(subgraph.id) + " scope " + std::to_string(subgraph.scope) + " " +
                     std::string(name(subgraph.coreType)) + " program " + std::to_string(subgraph.programId) +
                     (subgraph.pinned ? " pinned" : "") + "\n  ops";
  for (std::size_t i = 0; i < subgraph.ops.size(); ++i)
    text += std::string(i ? ", #" : " #") + std::to_string(subgraph.ops[i]) + " " +
            std::string(name(tiles.tileOp(subgraph.ops[i]).kind));
  auto regions = [&](const char* title, const std::vector<TileRegion>& list) {
    text += std::string("\n  ") + title;
    if (list.empty()) text += " -";
    for (std::size_t i = 0; i < list.size(); ++i) text += (i ? "; " : " ") + regionString(tiles, list[i]);
  };
  regions("in", subgraph.copyIns);
  regions("out", subgraph.copyOuts);
  return text + "\n";
}

std::string describeAll(const Compilation& compilation) {
  std::string text;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) text += describe(compilation, subgraph);
  return text;
}

} // namespace pto::testing
