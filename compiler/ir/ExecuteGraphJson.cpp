// JSON and DOT printing of the Execute graph.
#include "compiler/ir/ExecuteGraphJson.h"

#include "core/DotText.h"

#include <array>
#include <sstream>

namespace pto {

using Json = nlohmann::ordered_json;

namespace {

const Subgraph* subgraphOf(const Compilation& compilation, const Task& task) {
  const std::vector<Subgraph>& subgraphs = compilation.blocks.subgraphs;
  if (task.subgraph < 0 || static_cast<std::size_t>(task.subgraph) >= subgraphs.size()) return nullptr;
  return &subgraphs[static_cast<std::size_t>(task.subgraph)];
}

// The kernel line of a subgraph's first tile op.
const SourceLocation* sourceOf(const Compilation& compilation, const Subgraph& subgraph) {
  const TileGraph& tiles = compilation.tiles;
  if (subgraph.ops.empty()) return nullptr;
  TileOpId first = subgraph.ops.front();
  if (first < 0 || static_cast<std::size_t>(first) >= tiles.tileOps().size()) return nullptr;
  return &tiles.graph.op(tiles.tileOp(first).tensorOp).location;
}

std::string tensorName(const Compilation& compilation, TensorId id) {
  const TensorGraph& graph = compilation.tiles.graph;
  if (id < 0 || static_cast<std::size_t>(id) >= graph.tensors().size()) return "t" + std::to_string(id);
  return graph.tensor(id).name;
}

Json regionsJson(const Compilation& compilation, const std::vector<ConcreteRegion>& regions) {
  Json list = Json::array();
  for (const ConcreteRegion& region : regions) {
    Json entry{{"tensor", region.tensor},
               {"name", tensorName(compilation, region.tensor)},
               {"offsets", region.offsets},
               {"shape", region.shape}};
    // A loop-made temporary's per-iteration copy (ConcreteRegion::instance;
    // which iteration is the task's loop_indices).
    if (region.instance != 0) entry["per_iteration"] = true;
    list.push_back(std::move(entry));
  }
  return list;
}

} // namespace

Json executeGraphToJson(const Compilation& compilation) {
  const ExecuteGraph& graph = compilation.tasks;
  Json root;
  root["stage"] = "execute";
  root["kernel"] = compilation.tiles.graph.kernelName;
  root["task_count"] = graph.tasks.size();
  root["edge_count"] = graph.edgeCount;
  std::array<std::size_t, 2> counts{};
  for (const Task& task : graph.tasks) ++counts[task.coreType == CoreType::AIC ? 0 : 1];
  root["core_types"] = Json{{std::string(name(CoreType::AIC)), counts[0]}, {std::string(name(CoreType::AIV)), counts[1]}};
  Json tasks = Json::array();
  for (const Task& task : graph.tasks) {
    const Subgraph* subgraph = subgraphOf(compilation, task);
    Json entry;
    entry["id"] = task.id;
    entry["subgraph"] = task.subgraph;
    entry["program"] = task.programId;
    entry["core_type"] = std::string(name(task.coreType));
    entry["label"] = subgraph ? subgraph->label : std::string();
    Json indices = Json::object();
    for (const auto& [symbol, value] : task.loopIndices) indices[symbol] = value;
    entry["loop_indices"] = std::move(indices);
    const SourceLocation* source = subgraph ? sourceOf(compilation, *subgraph) : nullptr;
    entry["source"] = source ? Json{{"file", source->file}, {"line", source->line}} : Json{{"file", ""}, {"line", 0}};
    entry["reads"] = regionsJson(compilation, task.reads);
    entry["writes"] = regionsJson(compilation, task.writes);
    entry["predecessors"] = task.predecessors;
    tasks.push_back(std::move(entry));
  }
  root["tasks"] = std::move(tasks);
  // Loop barriers (pypto.loop(submit_before_loop=True)): tasks from first_task on wait for every earlier one.
  Json barriers = Json::array();
  for (const LoopBarrier& barrier : graph.barriers) {
    const Loop& loop = compilation.tiles.graph.loop(barrier.loop);
    barriers.push_back({{"first_task", barrier.firstTask},
                        {"loop", loop.name},
                        {"source", Json{{"file", loop.location.file}, {"line", loop.location.line}}},
                        {"orders_data", barrier.ordersData}});
  }
  root["barriers"] = std::move(barriers);
  return root;
}

std::string executeGraphToDot(const Compilation& compilation) {
  std::ostringstream out;
  out << "digraph \"" << dotEscaped(compilation.tiles.graph.kernelName + "_tasks") << "\" {\n"
      << "  rankdir=TB;\n"
      << "  node [fontname=\"Helvetica\", fontsize=9, shape=box, style=\"rounded,filled\"];\n";
  for (const Task& task : compilation.tasks.tasks) {
    const Subgraph* subgraph = subgraphOf(compilation, task);
    std::string label = "#" + std::to_string(task.id);
    if (subgraph && !subgraph->label.empty()) label += " " + subgraph->label;
    label += "\nsg" + std::to_string(task.subgraph) + " " + std::string(name(task.coreType));
    if (!task.loopIndices.empty()) {
      label += "\n";
      for (std::size_t i = 0; i < task.loopIndices.size(); ++i)
        label += (i ? ", " : "") + task.loopIndices[i].first + "=" + std::to_string(task.loopIndices[i].second);
    }
    out << "  n" << task.id << " [label=\"" << dotEscaped(label) << "\", fillcolor=\""
        << (task.coreType == CoreType::AIC ? "#cfe0fc" : "#d5f0d5") << "\"];\n";
  }
  for (const Task& task : compilation.tasks.tasks)
    for (TaskId predecessor : task.predecessors) out << "  n" << predecessor << " -> n" << task.id << ";\n";
  out << "}\n";
  return out.str();
}

} // namespace pto
