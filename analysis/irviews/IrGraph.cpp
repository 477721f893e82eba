// IR levels as graphs for the views (see IrGraph.h).
#include "analysis/irviews/IrGraph.h"

#include "analysis/irviews/PassDiff.h"
#include "compiler/ir/Regions.h"
#include "core/DotText.h"
#include "core/EnumNames.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace pto {

using Json = IrJson;

namespace {

// A member array by reference (value() would copy, and views keep pointers
// into these arrays); an empty array when absent.
const Json& arrayAt(const Json& object, const char* key) {
  static const Json empty = Json::array();
  if (!object.is_object()) return empty;
  auto found = object.find(key);
  return found != object.end() && found->is_array() ? *found : empty;
}

std::string shapeText(const Json& shape) {
  std::string text = "[";
  for (std::size_t d = 0; d < shape.size(); ++d)
    text += (d ? ", " : "") + (shape[d].is_string() ? shape[d].get<std::string>() : shape[d].dump());
  return text + "]";
}

std::string baseName(const std::string& file) {
  std::size_t slash = file.find_last_of('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

// Short dtype names as kernel engineers write them.
std::string dtypeText(const std::string& dtype) {
  static const std::map<std::string, std::string> shortNames{
      {"float32", "fp32"}, {"float16", "fp16"}, {"bfloat16", "bf16"}, {"int8", "int8"}, {"int32", "int32"}};
  auto found = shortNames.find(dtype);
  return found == shortNames.end() ? dtype : found->second;
}

bool isCubeOp(const std::string& opcode) { return opcode.rfind("matmul", 0) == 0 || opcode.rfind("mm", 0) == 0; }

// Where a tile op's result lives on chip: the cube accumulates in L0C, vector
// work happens in the unified buffer.
std::string resultMemory(const std::string& opcode) { return isCubeOp(opcode) ? "L0C" : "UB"; }

void setSource(IrGraphNode& node, const Json& source) {
  if (!source.is_object()) return;
  node.file = source.value("file", std::string());
  node.line = source.value("line", 0);
}

std::string locationSuffix(const IrGraphNode& node) {
  return node.line > 0 ? " · " + baseName(node.file) + ":" + std::to_string(node.line) : std::string();
}

void addEdge(IrGraph& graph, std::set<std::pair<int, int>>& seen, int from, int to) {
  if (from < 0 || to < 0 || from == to || !seen.emplace(from, to).second) return;
  graph.edges.push_back({from, to});
}

// An empty graph of `level` for the kernel `json` describes.
IrGraph startGraph(GraphLevel level, const Json& json) {
  IrGraph graph;
  graph.level = level;
  graph.kernel = json.value("kernel", std::string());
  return graph;
}

// `graph`, saying why it has nothing to show.
IrGraph missing(IrGraph graph, std::string why) {
  graph.missing = std::move(why);
  return graph;
}

IrGraph tensorLevel(const Json& tensorJson) {
  IrGraph graph = startGraph(GraphLevel::Tensor, tensorJson);
  if (!tensorJson.contains("ops")) return missing(std::move(graph), "the kernel has not been traced");
  std::unordered_map<std::int64_t, const Json*> tensors;
  for (const Json& tensor : arrayAt(tensorJson, "tensors")) tensors[tensor.value("id", std::int64_t{-1})] = &tensor;
  std::unordered_map<std::int64_t, int> nodeOfOp;
  for (const Json& op : tensorJson["ops"]) {
    IrGraphNode node;
    node.id = op.value("id", std::int64_t{-1});
    node.tensorOp = static_cast<int>(node.id);
    node.kind = op.value("op", std::string());
    node.label = op.value("label", std::string());
    setSource(node, op.value("source", Json()));
    node.scope = op.value("loop", -1);
    node.memory = "GM";
    node.key = "op:" + std::to_string(node.id);
    node.title = node.kind + " #" + std::to_string(node.id);
    node.detail = shapeText(arrayAt(op, "shape")) + " " +
                  dtypeText(op.value("dtype", Json("")).is_string() ? op["dtype"].get<std::string>() : "") +
                  locationSuffix(node);
    nodeOfOp[node.id] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back(std::move(node));
  }
  // A tensor's producer; a view's data comes from whoever produced its base.
  auto producerOf = [&](std::int64_t tensorId) -> int {
    for (int guard = 0; guard < 64; ++guard) {
      auto found = tensors.find(tensorId);
      if (found == tensors.end()) return -1;
      const Json& tensor = *found->second;
      if (tensor.contains("producer")) {
        auto op = nodeOfOp.find(tensor["producer"].get<std::int64_t>());
        if (op != nodeOfOp.end()) return op->second;
      }
      if (!tensor.contains("base")) return -1;
      tensorId = tensor["base"].get<std::int64_t>();
    }
    return -1;
  };
  std::set<std::pair<int, int>> seen;
  for (const Json& op : tensorJson["ops"]) {
    int to = nodeOfOp[op.value("id", std::int64_t{-1})];
    for (const Json& input : arrayAt(op, "inputs")) addEdge(graph, seen, producerOf(input.get<std::int64_t>()), to);
  }
  return graph;
}

struct TileOps {
  std::unordered_map<std::int64_t, int> nodeOfOp;  // opmagic -> node
};

// The tile ops of a snapshot as nodes, clustered by subgraph when there are subgraphs.
TileOps addTileOps(IrGraph& graph, const Json& snapshot, bool withEdges) {
  TileOps result;
  std::map<std::int64_t, std::string> keys = tileOpKeys(snapshot);
  std::unordered_map<int, int> tilesSeen;  // tensor op -> tiles so far, for the tile index
  for (const Json& op : arrayAt(snapshot, "operations")) {
    IrGraphNode node;
    node.id = op.value("opmagic", std::int64_t{-1});
    node.key = keys[node.id];
    node.kind = op.value("opcode", std::string());
    node.tensorOp = op.value("tensor_op", -1);
    node.tileIndex = tilesSeen[node.tensorOp]++;
    node.label = op.value("semantic_label", std::string());
    setSource(node, op.value("source", Json()));
    node.memory = resultMemory(node.kind);
    const Json& outs = arrayAt(op, "ooperands");
    std::string dtype = outs.empty() ? std::string() : dtypeText(outs[0].value("datatype", std::string()));
    node.title = node.kind + " #" + std::to_string(node.id) + (node.line > 0 ? " · line " + std::to_string(node.line) : "");
    node.detail = shapeText(arrayAt(op, "tile_shape")) + " " + dtype + " · " + node.memory + " · tile " +
                  std::to_string(node.tileIndex);
    result.nodeOfOp[node.id] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back(std::move(node));
  }
  if (withEdges) {
    std::set<std::pair<int, int>> seen;
    for (const Json& op : arrayAt(snapshot, "operations")) {
      int to = result.nodeOfOp[op.value("opmagic", std::int64_t{-1})];
      for (const Json& producer : arrayAt(op, "producers")) {
        auto from = result.nodeOfOp.find(producer.get<std::int64_t>());
        if (from != result.nodeOfOp.end()) addEdge(graph, seen, from->second, to);
      }
    }
  }
  if (!snapshot.contains("block")) return result;
  for (const Json& subgraph : arrayAt(snapshot["block"], "subgraphs")) {
    IrGraphCluster cluster;
    cluster.id = subgraph.value("id", std::int64_t{-1});
    cluster.label = subgraph.value("label", std::string());
    cluster.coreType = subgraph.value("core_type", std::string());
    cluster.program = subgraph.value("program_id", -1);
    const int scope = subgraph.value("scope", -1);
    const int index = static_cast<int>(graph.clusters.size());
    for (const Json& op : arrayAt(subgraph, "ops")) {
      auto found = result.nodeOfOp.find(op.value("id", std::int64_t{-1}));
      if (found == result.nodeOfOp.end()) continue;
      IrGraphNode& node = graph.nodes[static_cast<std::size_t>(found->second)];
      node.cluster = index;
      node.scope = scope;
      node.subgraph = cluster.id;
      node.coreType = cluster.coreType;
      node.program = cluster.program;
      if (cluster.coreType == "AIC" && !isCubeOp(node.kind)) node.memory = "L1";
      cluster.nodes.push_back(found->second);
    }
    cluster.key = "sg:" + (cluster.nodes.empty() ? std::string("-") : graph.nodes[static_cast<std::size_t>(cluster.nodes.front())].key);
    cluster.title = "sg" + std::to_string(cluster.id) + " " + cluster.coreType + " '" + cluster.label + "' · program " +
                    std::to_string(cluster.program);
    if (subgraph.value("pinned", false)) cluster.title += " · edited";
    graph.clusters.push_back(std::move(cluster));
  }
  return result;
}

IrGraph tileLevel(const Json& snapshot) {
  IrGraph graph = startGraph(GraphLevel::Tile, snapshot);
  if (!snapshot.contains("operations")) return missing(std::move(graph), "the tile graph exists after ExpandFunction");
  addTileOps(graph, snapshot, true);
  return graph;
}

// A region ({offset(s), shape}) read back from a dump as a box of `tensor`:
// a dim whose offset or extent is not a number may be anything, so it
// overlaps every box (OverlapMode::AnyIteration).
RegionBox regionBoxOf(const Json& region, TensorId tensor) {
  const Json& offsets = region.contains("offset") ? region["offset"] : arrayAt(region, "offsets");
  const Json& shape = arrayAt(region, "shape");
  auto number = [](const Json& value) -> std::optional<std::int64_t> {
    if (value.is_number_integer()) return value.get<std::int64_t>();
    if (value.is_string()) {
      const std::string& text = value.get_ref<const std::string&>();
      char* end = nullptr;
      long long parsed = std::strtoll(text.c_str(), &end, 10);
      if (!text.empty() && end && *end == '\0') return parsed;
    }
    return std::nullopt;
  };
  RegionBox box;
  box.tensor = tensor;
  const std::size_t rank = std::min(offsets.size(), shape.size());
  box.truncated = rank > kMaxBoxRank;
  box.rank = static_cast<std::uint8_t>(std::min(rank, kMaxBoxRank));
  for (std::size_t d = 0; d < box.rank; ++d) {
    auto low = number(offsets[d]), size = number(shape[d]);
    if (low && size) {
      box.lo[d] = *low;
      box.hi[d] = *low + *size;
    } else {
      box.symbol[d] = 1;  // unknown: overlaps anything in AnyIteration mode
      box.hi[d] = 1;
    }
  }
  return box;
}

// Whether two regions of one tensor read back from a dump may share an element.
bool regionsMayOverlap(const Json& a, const Json& b) {
  return mayOverlap(regionBoxOf(a, 0), regionBoxOf(b, 0), OverlapMode::AnyIteration);
}

std::string regionKey(const Json& region) {
  const Json& offsets = region.contains("offset") ? region["offset"] : arrayAt(region, "offsets");
  return region.value("tensor", std::string()) + offsets.dump() + arrayAt(region, "shape").dump();
}

IrGraph blockLevel(const Json& snapshot) {
  IrGraph graph = startGraph(GraphLevel::Block, snapshot);
  if (!snapshot.contains("block")) return missing(std::move(graph), "the block graph exists after GraphPartition");
  TileOps ops = addTileOps(graph, snapshot, false);
  std::set<std::pair<int, int>> seen;
  // Inside a subgraph ops pass data on chip; between subgraphs through GM,
  // which the copies show once GenerateMoveOp has made them.
  std::unordered_map<std::int64_t, int> clusterOfOp;
  std::unordered_map<std::int64_t, const Json*> operationById;
  for (const Json& op : arrayAt(snapshot, "operations")) {
    std::int64_t id = op.value("opmagic", std::int64_t{-1});
    operationById[id] = &op;
    clusterOfOp[id] = graph.nodes[static_cast<std::size_t>(ops.nodeOfOp[id])].cluster;
  }
  bool haveCopies = false;
  for (const Json& subgraph : arrayAt(snapshot["block"], "subgraphs"))
    haveCopies = haveCopies || !arrayAt(subgraph, "copy_ins").empty();
  for (const Json& op : arrayAt(snapshot, "operations")) {
    std::int64_t id = op.value("opmagic", std::int64_t{-1});
    for (const Json& producer : arrayAt(op, "producers")) {
      std::int64_t from = producer.get<std::int64_t>();
      if (haveCopies && clusterOfOp[from] != clusterOfOp[id]) continue;
      addEdge(graph, seen, ops.nodeOfOp[from], ops.nodeOfOp[id]);
    }
  }
  if (!haveCopies) return graph;

  struct CopyOut {
    int node;
    const Json* region;
  };
  std::vector<CopyOut> copyOuts;
  std::vector<std::pair<int, const Json*>> copyIns;
  const Json& subgraphs = snapshot["block"]["subgraphs"];
  for (std::size_t c = 0; c < graph.clusters.size() && c < subgraphs.size(); ++c) {
    IrGraphCluster& cluster = graph.clusters[c];
    const Json& subgraph = subgraphs[c];
    const std::string onChip = cluster.coreType == "AIC" ? "L1" : "UB";
    std::vector<int> members = cluster.nodes;
    auto addCopy = [&](const Json& region, bool in) {
      IrGraphNode node;
      node.kind = in ? "copy_in" : "copy_out";
      node.cluster = static_cast<int>(c);
      node.subgraph = cluster.id;
      node.coreType = cluster.coreType;
      node.program = cluster.program;
      node.label = cluster.label;
      node.memory = in ? onChip : "GM";
      node.key = std::string(in ? "in:" : "out:") + cluster.key + ":" + regionKey(region);
      node.title = node.kind + " " + region.value("tensor", std::string());
      node.detail = shapeText(arrayAt(region, "shape")) + " · " + (in ? "GM → " + onChip : onChip + " → GM");
      if (!members.empty()) {
        const IrGraphNode& first = graph.nodes[static_cast<std::size_t>(members.front())];
        node.scope = first.scope;
      }
      int index = static_cast<int>(graph.nodes.size());
      // Data edges with the subgraph's ops that read (or write) the tensor.
      std::string tensor = region.value("tensor", std::string());
      for (int member : members) {
        std::int64_t opId = graph.nodes[static_cast<std::size_t>(member)].id;
        auto found = operationById.find(opId);
        if (found == operationById.end()) continue;
        const Json* op = found->second;
        for (const Json& operand : (*op).value(in ? "ioperands" : "ooperands", Json::array()))
          if (operand.value("name", std::string()) == tensor && regionsMayOverlap(operand, region)) {
            if (in) graph.edges.push_back({index, member});
            else graph.edges.push_back({member, index});
            break;
          }
      }
      graph.nodes.push_back(std::move(node));
      graph.clusters[c].nodes.push_back(index);
      if (in) copyIns.emplace_back(index, &region);
      else copyOuts.push_back({index, &region});
    };
    for (const Json& region : arrayAt(subgraph, "copy_ins")) addCopy(region, true);
    for (const Json& region : arrayAt(subgraph, "copy_outs")) addCopy(region, false);
  }
  // Through GM: a copy-out feeds the later copy-ins of what it wrote.
  std::unordered_map<std::string, TensorId> tensorIds;
  auto tensorIdOf = [&](const Json& region) {
    return tensorIds.try_emplace(region.value("tensor", std::string()), static_cast<TensorId>(tensorIds.size()))
        .first->second;
  };
  RegionIndex copyInIndex(OverlapMode::AnyIteration);
  for (std::size_t i = 0; i < copyIns.size(); ++i)
    copyInIndex.insert(regionBoxOf(*copyIns[i].second, tensorIdOf(*copyIns[i].second)), static_cast<std::int32_t>(i));
  std::vector<std::int32_t> readers;
  for (const CopyOut& out : copyOuts) {
    readers.clear();
    copyInIndex.forEachOverlapping(regionBoxOf(*out.region, tensorIdOf(*out.region)),
                                   [&](std::int32_t i) { readers.push_back(i); });
    std::sort(readers.begin(), readers.end());  // in the order the copy-ins were listed
    for (std::int32_t i : readers) {
      int in = copyIns[static_cast<std::size_t>(i)].first;
      if (graph.nodes[static_cast<std::size_t>(out.node)].cluster != graph.nodes[static_cast<std::size_t>(in)].cluster)
        addEdge(graph, seen, out.node, in);
    }
  }
  return graph;
}

IrGraph executeLevel(const Json& snapshot) {
  IrGraph graph = startGraph(GraphLevel::Execute, snapshot);
  if (!snapshot.contains("execute")) return missing(std::move(graph), "the execute graph exists after BuildExecuteGraph");
  // Task identities as PassDiff gives them.
  std::map<std::int64_t, std::string> subgraphKey;
  std::map<std::int64_t, std::string> tileKeys = tileOpKeys(snapshot);
  if (snapshot.contains("block"))
    for (const Json& subgraph : arrayAt(snapshot["block"], "subgraphs")) {
      const Json& ops = arrayAt(subgraph, "ops");
      subgraphKey[subgraph.value("id", std::int64_t{-1})] =
          "sg:" + (ops.empty() ? std::string("-") : tileKeys[ops[0].value("id", std::int64_t{-1})]);
    }
  std::unordered_map<std::int64_t, int> nodeOfTask;
  std::map<std::string, int> seen;
  for (const Json& task : arrayAt(snapshot["execute"], "tasks")) {
    IrGraphNode node;
    node.id = task.value("id", std::int64_t{-1});
    node.kind = "task";
    node.subgraph = task.value("subgraph", std::int64_t{-1});
    node.program = task.value("program", -1);
    node.coreType = task.value("core_type", std::string());
    node.label = task.value("label", std::string());
    setSource(node, task.value("source", Json()));
    std::string key = "task:" + subgraphKey[node.subgraph] + ":" + task.value("loop_indices", Json::object()).dump();
    int n = seen[key]++;
    node.key = n == 0 ? key : key + "#" + std::to_string(n);
    std::string indices;
    const Json loopIndices = task.value("loop_indices", Json::object());  // items() of a temporary would dangle
    for (const auto& [loop, value] : loopIndices.items())
      indices += (indices.empty() ? " · " : ", ") + loop + "=" + value.dump();
    node.title = "#" + std::to_string(node.id) + " " + (node.label.empty() ? std::string("(no label)") : node.label);
    node.detail = "sg" + std::to_string(node.subgraph) + " · " + node.coreType + " · program " +
                  std::to_string(node.program) + indices;
    nodeOfTask[node.id] = static_cast<int>(graph.nodes.size());
    graph.nodes.push_back(std::move(node));
  }
  for (const Json& task : snapshot["execute"]["tasks"]) {
    int to = nodeOfTask[task.value("id", std::int64_t{-1})];
    for (const Json& predecessor : arrayAt(task, "predecessors")) {
      auto from = nodeOfTask.find(predecessor.get<std::int64_t>());
      if (from != nodeOfTask.end()) graph.edges.push_back({from->second, to});
    }
  }
  return graph;
}

} // namespace

constexpr auto kGraphLevelNames = enumNames<GraphLevel>({
    {GraphLevel::Tensor, "tensor"}, {GraphLevel::Tile, "tile"}, {GraphLevel::Block, "block"},
    {GraphLevel::Execute, "exec"}});

std::string_view name(GraphLevel level) { return kGraphLevelNames.name(level); }

std::optional<GraphLevel> graphLevelNamed(std::string_view text) { return kGraphLevelNames.parse(text); }

constexpr auto kGraphGroupingNames = enumNames<GraphGrouping>({
    {GraphGrouping::None, "none"}, {GraphGrouping::Subgraph, "subgraph"}, {GraphGrouping::TensorOp, "op"},
    {GraphGrouping::Scope, "scope"}, {GraphGrouping::Label, "label"}, {GraphGrouping::Structure, "structure"}});

std::string_view name(GraphGrouping grouping) { return kGraphGroupingNames.name(grouping); }

std::optional<GraphGrouping> graphGroupingNamed(std::string_view text) { return kGraphGroupingNames.parse(text); }

IrGraph buildIrGraph(GraphLevel level, const Json& tensorJson, const Json& snapshot) {
  switch (level) {
  case GraphLevel::Tensor: return tensorLevel(tensorJson);
  case GraphLevel::Tile: return tileLevel(snapshot);
  case GraphLevel::Block: return blockLevel(snapshot);
  case GraphLevel::Execute: return executeLevel(snapshot);
  }
  return {};
}

std::string visibleGraphToDot(const IrGraph& graph, const VisibleGraph& visible) {
  std::ostringstream out;
  out << "digraph \"" << dotEscaped(graph.kernel) << "_" << name(graph.level) << "\" {\n"
      << "  rankdir=TB;\n  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=10];\n";
  std::map<int, std::vector<std::size_t>> byCluster;
  for (std::size_t i = 0; i < visible.items.size(); ++i) byCluster[visible.items[i].cluster].push_back(i);
  for (const auto& [cluster, items] : byCluster) {
    const bool boxed = cluster >= 0;
    if (boxed)
      out << "  subgraph cluster_" << cluster << " {\n    label=\""
          << dotEscaped(graph.clusters[static_cast<std::size_t>(cluster)].title) << "\";\n    style=rounded;\n";
    for (std::size_t i : items) {
      const VisibleItem& item = visible.items[i];
      out << (boxed ? "    " : "  ") << "n" << i << " [label=\"" << dotEscaped(item.title) << "\\n" << dotEscaped(item.detail)
          << "\"" << (item.group >= 0 ? ", style=\"rounded,bold\"" : "") << "];\n";
    }
    if (boxed) out << "  }\n";
  }
  for (const VisibleEdge& edge : visible.edges)
    out << "  n" << edge.from << " -> n" << edge.to
        << (edge.count > 1 ? " [label=\"" + std::to_string(edge.count) + "\"]" : std::string()) << ";\n";
  out << "}\n";
  return out.str();
}

nlohmann::ordered_json tileOpSelector(const IrGraphNode& node) {
  nlohmann::ordered_json selector = nlohmann::ordered_json::object();
  if (!node.label.empty()) selector["label"] = node.label;
  if (node.line > 0) selector["line"] = node.line;
  if (node.label.empty() && node.line <= 0) selector["tensor_op"] = node.tensorOp;
  selector["tile"] = node.tileIndex;
  return selector;
}

nlohmann::ordered_json tileOpSelector(const IrGraph& graph, int node) {
  const IrGraphNode& named = graph.nodes[static_cast<std::size_t>(node)];
  nlohmann::ordered_json selector = tileOpSelector(named);
  if (selector.contains("tensor_op")) return selector;
  for (const IrGraphNode& other : graph.nodes)
    if (other.cluster != named.cluster && other.tileIndex == named.tileIndex && other.label == named.label &&
        (named.line <= 0 || other.line == named.line)) {
      nlohmann::ordered_json exact = nlohmann::ordered_json::object();
      for (const auto& [key, value] : selector.items()) {
        if (key == "tile") exact["tensor_op"] = named.tensorOp;
        exact[key] = value;
      }
      return exact;
    }
  return selector;
}

namespace {

std::string operandText(const Json& operand) {
  std::string memory = operand.value("memory", std::string("?"));
  if (memory == "GM") {
    std::string tensor = operand.contains("tensor") && operand["tensor"].is_string() ? operand["tensor"].get<std::string>() : "?";
    return tensor + "[GM]";
  }
  return memory + "@" + std::to_string(operand.value("offset", std::int64_t{0}));
}

std::string padTo(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

} // namespace

std::vector<ListingLine> programListing(const Json& snapshot, std::int64_t subgraph) {
  std::vector<ListingLine> lines;
  if (!snapshot.contains("pto")) return lines;
  for (const Json& program : arrayAt(snapshot["pto"], "programs")) {
    if (program.value("subgraph", std::int64_t{-1}) != subgraph) continue;
    lines.push_back({"; program " + program.value("program_id", Json(-1)).dump() + " (" +
                         program.value("core_type", std::string()) + ") for sg" + std::to_string(subgraph) + ", " +
                         std::to_string(arrayAt(program, "instructions").size()) + " instructions",
                     {}, 0});
    for (const Json& instruction : arrayAt(program, "instructions")) {
      ListingLine line;
      std::string number = instruction.value("index", Json(0)).dump();
      std::string text = std::string(number.size() < 4 ? 4 - number.size() : 0, ' ') + number + "  " +
                         padTo(instruction.value("pipe", std::string()), 7);
      std::string mnemonic = instruction.value("opcode", std::string());
      if (instruction.contains("op_kind")) mnemonic += "." + instruction["op_kind"].get<std::string>();
      if (instruction.contains("src_pipe")) {
        text += padTo(mnemonic, 16) + instruction["src_pipe"].get<std::string>() + "->" +
                instruction.value("dst_pipe", std::string()) + " e" + instruction.value("event", Json(0)).dump();
      } else if (!instruction.contains("dst")) {
        text += mnemonic;
      } else {
        std::string operands;
        for (const Json& dst : instruction["dst"]) operands += (operands.empty() ? "" : ", ") + operandText(dst);
        operands += " <-";
        bool first = true;
        for (const Json& src : arrayAt(instruction, "srcs")) {
          operands += (first ? " " : ", ") + operandText(src);
          first = false;
        }
        text += padTo(mnemonic, 16) + padTo(operands, 36);
        if (instruction.contains("location") && instruction["location"].is_string()) {
          std::string location = instruction["location"].get<std::string>();
          text += "  ; " + baseName(location);
          std::size_t colon = location.find(':', location.find_last_of('/') == std::string::npos ? 0 : location.find_last_of('/'));
          if (colon != std::string::npos) {
            line.file = location.substr(0, colon);
            line.line = std::atoi(location.c_str() + colon + 1);
          }
        }
      }
      line.text = text;
      lines.push_back(std::move(line));
    }
  }
  return lines;
}

} // namespace pto
