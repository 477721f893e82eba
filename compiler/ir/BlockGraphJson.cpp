// JSON and DOT printing of the Block graph.
#include "compiler/ir/BlockGraphJson.h"

#include "compiler/ir/Regions.h"
#include "core/DotText.h"
#include "core/SymbolicSimplify.h"

#include <map>
#include <set>
#include <sstream>

namespace pto {

using Json = nlohmann::ordered_json;

namespace {

Json regionJson(const TensorGraph& graph, const TileRegion& region) {
  Json offsets = Json::array();
  for (const SymbolicScalar& offset : region.offsets) offsets.push_back(simplify(offset).str());
  return Json{{"tensor", graph.tensor(region.tensor).name},
              {"tensor_id", region.tensor},
              {"offset", std::move(offsets)},
              {"shape", region.shape}};
}

} // namespace

Json blockGraphToJson(const Compilation& compilation) {
  const TileGraph& tiles = compilation.tiles;
  const TensorGraph& graph = tiles.graph;
  const BlockGraph& blocks = compilation.blocks;
  Json root;
  root["stage"] = "block";
  root["kernel"] = graph.kernelName;
  root["program_count"] = blocks.programCount;
  Json scopes = Json::array();
  for (const Scope& scope : blocks.scopes)
    scopes.push_back(Json{{"id", scope.id},
                          {"loop", scope.loop == kNoId ? Json(nullptr) : Json(graph.loop(scope.loop).name)},
                          {"loop_id", scope.loop},
                          {"body", scope.body},
                          {"path", scope.path},
                          {"ops", scope.ops}});
  root["scopes"] = std::move(scopes);
  Json subgraphs = Json::array();
  for (const Subgraph& subgraph : blocks.subgraphs) {
    Json entry;
    entry["id"] = subgraph.id;
    entry["scope"] = subgraph.scope;
    entry["core_type"] = std::string(name(subgraph.coreType));
    entry["program_id"] = subgraph.programId;
    entry["label"] = subgraph.label;
    entry["pinned"] = subgraph.pinned;
    Json ops = Json::array();
    for (TileOpId id : subgraph.ops) ops.push_back(Json{{"id", id}, {"opcode", std::string(name(tiles.tileOp(id).kind))}});
    entry["ops"] = std::move(ops);
    Json ins = Json::array(), outs = Json::array();
    for (const TileRegion& region : subgraph.copyIns) ins.push_back(regionJson(graph, region));
    for (const TileRegion& region : subgraph.copyOuts) outs.push_back(regionJson(graph, region));
    entry["copy_ins"] = std::move(ins);
    entry["copy_outs"] = std::move(outs);
    if (!subgraph.buffers.empty()) {
      // After AllocateBuffers: how much copies can overlap compute, and why not more.
      Json peaks = Json::object();
      for (std::size_t m = 0; m < kMemoryKindCount; ++m)
        if (subgraph.peakBytes[m] > 0) peaks[std::string(name(static_cast<MemoryKind>(m)))] = subgraph.peakBytes[m];
      entry["peak_bytes"] = std::move(peaks);
      Json buffering{{"overlap", std::string(name(subgraph.overlap))}};
      if (subgraph.overlap != BufferOverlap::PingPong && subgraph.overlapNeededBytes > 0) {
        buffering["limited_by"] = std::string(name(subgraph.overlapLimitedBy));
        buffering["ping_pong_needs_bytes"] = subgraph.overlapNeededBytes;
      }
      entry["buffering"] = std::move(buffering);
    }
    subgraphs.push_back(std::move(entry));
  }
  root["subgraphs"] = std::move(subgraphs);
  return root;
}

std::string blockGraphToDot(const Compilation& compilation) {
  const TileGraph& tiles = compilation.tiles;
  const TensorGraph& graph = tiles.graph;
  const BlockGraph& blocks = compilation.blocks;
  std::ostringstream out;
  out << "digraph \"" << dotEscaped(graph.kernelName) << "_blocks\" {\n  compound=true;\n  rankdir=TB;\n"
      << "  node [fontname=\"Helvetica\", fontsize=9, shape=box, style=rounded];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  for (const Subgraph& subgraph : blocks.subgraphs) {
    out << "  subgraph cluster_sg" << subgraph.id << " {\n    label=\"sg" << subgraph.id << " "
        << name(subgraph.coreType) << " program " << subgraph.programId << " scope " << subgraph.scope;
    if (!subgraph.label.empty()) out << "\\n" << dotEscaped(subgraph.label);
    out << "\";\n    style=rounded;\n    color=\"" << (subgraph.coreType == CoreType::AIC ? "#c0504d" : "#4f81bd")
        << "\";\n";
    for (TileOpId id : subgraph.ops)
      out << "    t" << id << " [label=\"" << name(tiles.tileOp(id).kind) << " #" << id << "\"];\n";
    for (std::size_t i = 1; i < subgraph.ops.size(); ++i)
      out << "    t" << subgraph.ops[i - 1] << " -> t" << subgraph.ops[i] << " [style=invis];\n";
    out << "  }\n";
  }
  // GM dependencies: a copy-in of a subgraph that an earlier subgraph of the
  // same scope copied out.
  RegionBoxes boxes;
  std::map<ScopeId, RegionIndex> written;  // per scope: copy-outs so far -> their subgraph
  for (const Subgraph& subgraph : blocks.subgraphs) {
    std::set<SubgraphId> from;
    std::map<SubgraphId, std::string> via;
    RegionIndex& earlier = written[subgraph.scope];
    for (const TileRegion& in : subgraph.copyIns)
      earlier.forEachOverlapping(boxes.box(in), [&](SubgraphId source) {
        if (via.try_emplace(source, graph.tensor(in.tensor).name).second) from.insert(source);
      });
    for (SubgraphId source : from) {
      const Subgraph& producer = blocks.subgraph(source);
      out << "  t" << producer.ops.back() << " -> t" << subgraph.ops.front() << " [ltail=cluster_sg" << source
          << ", lhead=cluster_sg" << subgraph.id << ", label=\"" << dotEscaped(via[source]) << "\"];\n";
    }
    for (const TileRegion& region : subgraph.copyOuts) earlier.insert(boxes.box(region), subgraph.id);
  }
  out << "}\n";
  return out.str();
}

} // namespace pto
