// Reading PyPTO's own artifacts (see PyptoArtifacts.h and docs/pypto-artifacts.md).
#include "analysis/pypto/PyptoArtifacts.h"

#include "core/json/JsonReader.h"
#include "runtime/trace/ChromeTraceReader.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

namespace pto {
namespace {

namespace fs = std::filesystem;
using Json = IrJson;

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }
bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// Health reports by the suffix PyPTO gives their file names.
struct HealthSuffix {
  std::string_view suffix;
  PyptoHealthKind kind;
};
constexpr HealthSuffix kHealthSuffixes[] = {
    {"_TensorGraphHealthReport.json", PyptoHealthKind::TensorGraph},
    {"_TileGraphHealthReport.json", PyptoHealthKind::TileGraph},
    {"_Block_Graph_Health_Report.json", PyptoHealthKind::BlockGraph},
    {"_ExecuteGraph_Health_Report.json", PyptoHealthKind::ExecuteGraph},
};

bool isPassFolderName(const std::string& name) {
  static const std::regex pattern(R"(Pass_(\d+)_(.+))");
  return std::regex_match(name, pattern);
}

bool isCoreTraceName(const std::string& name) {
  static const std::regex pattern(R"(trace_core(\d+)\.json)");
  return std::regex_match(name, pattern);
}

bool isGraphDumpName(const std::string& name) {
  return (startsWith(name, "Before_") || startsWith(name, "After_")) && endsWith(name, ".json") &&
         !pyptoHealthKindOfFile(name);
}

// The Pass_ folders directly in `folder` (or `folder` itself when it is one).
std::vector<fs::path> passFolders(const fs::path& folder) {
  std::vector<fs::path> found;
  std::error_code error;
  if (isPassFolderName(folder.filename().string())) return {folder};
  for (const auto& entry : fs::directory_iterator(folder, error))
    if (entry.is_directory(error) && isPassFolderName(entry.path().filename().string())) found.push_back(entry.path());
  return found;
}

std::optional<Json> readJsonFile(const fs::path& file, DiagnosticEngine& diags) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return diags.error({file.string(), 0, 0}) << "cannot open the file for reading";
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseJsonDocument(text, file, diags, "the file is empty: PyPTO writes JSON here");
}

const Json& arrayAt(const Json& object, const char* key) {
  static const Json empty = Json::array();
  if (!object.is_object()) return empty;
  auto found = object.find(key);
  return found != object.end() && found->is_array() ? *found : empty;
}

std::int64_t integerAt(const Json& object, const char* key, std::int64_t fallback) {
  if (!object.is_object()) return fallback;
  auto found = object.find(key);
  return found != object.end() && found->is_number_integer() ? found->get<std::int64_t>() : fallback;
}

std::string stringAt(const Json& object, const char* key) {
  if (!object.is_object()) return {};
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// A tensor operand: its magic (newer dumps) or an object with "magic".
std::int64_t operandMagic(const Json& operand) {
  if (operand.is_number_integer()) return operand.get<std::int64_t>();
  return integerAt(operand, "magic", -1);
}

// PyPTO's MemoryType values (tilefwk/data_type.h) as our memory names.
std::string memoryName(std::int64_t memoryType) {
  switch (memoryType) {
  case 0: return "UB";
  case 1: return "L1";
  case 2: return "L0A";
  case 3: return "L0B";
  case 4: return "L0C";
  case 12: return "BT";
  case 13: return "L2";
  case 15: return "GM";
  default: return memoryType >= 5 && memoryType <= 11 ? "FIX" : std::string();
  }
}

// A tensor's memory: its "mem_type" ("mem.type" in older dumps) {asis, tobe}; tobe wins.
std::string tensorMemory(const Json& tensor) {
  const Json* type = nullptr;
  for (const char* key : {"mem_type", "mem.type"})
    if (tensor.is_object() && tensor.contains(key) && tensor[key].is_object()) type = &tensor[key];
  if (!type) return {};
  std::int64_t value = integerAt(*type, "tobe", integerAt(*type, "asis", -1));
  return value < 0 ? std::string() : memoryName(value);
}

std::string shapeText(const Json& shape) {
  if (!shape.is_array()) return {};
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + (shape[i].is_number() ? shape[i].dump() : std::string("?"));
  return text + "]";
}

// The semantic label: an object {label, filename, lineno} (current dumps),
// a string, or an array whose first element is it (older dumps).
void readLabel(const Json& op, IrGraphNode& node) {
  if (!op.contains("semantic_label")) return;
  const Json& label = op["semantic_label"];
  if (label.is_object()) {
    node.label = stringAt(label, "label");
    node.file = stringAt(label, "filename");
    node.line = static_cast<int>(integerAt(label, "lineno", 0));
  } else if (label.is_string()) {
    node.label = label.get<std::string>();
  } else if (label.is_array() && !label.empty() && label[0].is_string()) {
    node.label = label[0].get<std::string>();
  }
  if (op.contains("file") && op["file"].is_string()) {
    node.file = op["file"].get<std::string>();
    node.line = static_cast<int>(integerAt(op, "line", node.line));
  }
}

GraphLevel levelOf(const Json& function, const std::string& fileName) {
  switch (integerAt(function, "graphtype", -1)) {
  case 0: return GraphLevel::Tensor;
  case 1: return GraphLevel::Tile;
  case 2: return GraphLevel::Execute;
  case 3: return GraphLevel::Block;
  default: break;
  }
  if (fileName.find("_LEAF_program_id_") != std::string::npos) return GraphLevel::Block;
  if (endsWith(fileName, "_ROOT.json")) return GraphLevel::Execute;
  for (const Json& op : arrayAt(function, "operations"))
    if (op.is_object() && op.contains("tile")) return GraphLevel::Tile;
  return GraphLevel::Tensor;
}

// The function a dump is about. A Before_/After_ file holds exactly one; a
// program dump names its current one in curr_funcmagic, but when that is
// only an entry calling the others (every op a CALL) the one with the most
// operations is what a person wants to see.
const Json* mainFunction(const Json& document) {
  const Json& functions = arrayAt(document, "functions");
  if (functions.empty()) return nullptr;
  const Json* chosen = &functions.back();
  std::int64_t current = integerAt(document, "curr_funcmagic", -1);
  for (const Json& function : functions)
    if (current >= 0 && integerAt(function, "funcmagic", -2) == current) chosen = &function;
  const Json& ops = arrayAt(*chosen, "operations");
  bool onlyCalls = std::all_of(ops.begin(), ops.end(), [](const Json& op) { return stringAt(op, "opcode") == "CALL"; });
  if (functions.size() > 1 && onlyCalls)
    for (const Json& function : functions)
      if (arrayAt(function, "operations").size() > arrayAt(*chosen, "operations").size()) chosen = &function;
  return chosen;
}

// Adds `function`'s operations to `graph`; `programCluster` >= 0 puts them
// all in one new cluster (a block-level program), else clusters by subgraph id.
void addFunction(IrGraph& graph, const Json& function, const std::string& clusterTitle) {
  const std::size_t firstNode = graph.nodes.size();
  std::unordered_map<std::int64_t, const Json*> tensors;
  for (const Json& tensor : arrayAt(function, "tensors")) tensors[integerAt(tensor, "magic", -1)] = &tensor;
  std::unordered_map<std::int64_t, std::vector<int>> producers;  // tensor magic -> nodes writing it
  std::map<std::int64_t, int> clusterOfSubgraph;
  int ownCluster = -1;
  if (!clusterTitle.empty()) {
    ownCluster = static_cast<int>(graph.clusters.size());
    IrGraphCluster cluster;
    cluster.id = static_cast<std::int64_t>(ownCluster);
    cluster.key = "pypto-program:" + clusterTitle;
    cluster.title = clusterTitle;
    graph.clusters.push_back(std::move(cluster));
  }
  for (const Json& op : arrayAt(function, "operations")) {
    if (!op.is_object()) continue;  // not an operation PyPTO writes
    IrGraphNode node;
    node.id = integerAt(op, "opmagic", -1);
    std::string opcode = stringAt(op, "opcode");
    node.kind = lower(opcode);
    node.key = "pypto:" + (clusterTitle.empty() ? std::string() : clusterTitle + "/") + std::to_string(node.id);
    node.title = opcode + " #" + std::to_string(node.id);
    readLabel(op, node);
    node.subgraph = integerAt(op, "subgraphid", -1);
    const Json& outs = arrayAt(op, "ooperands");
    if (!outs.empty()) {
      std::int64_t magic = operandMagic(outs[0]);
      const Json* tensor = outs[0].is_object() ? &outs[0] : (tensors.count(magic) ? tensors[magic] : nullptr);
      if (tensor) {
        node.memory = tensorMemory(*tensor);
        node.detail = shapeText((*tensor).value("shape", Json()));
      }
    }
    if (op.contains("invoke_info") && op["invoke_info"].is_object()) node.program = static_cast<int>(integerAt(op["invoke_info"], "program_id", -1));
    if (!node.memory.empty()) node.detail += (node.detail.empty() ? "" : " · ") + node.memory;
    if (!node.label.empty()) node.detail += (node.detail.empty() ? "'" : " · '") + node.label + "'";
    if (node.line > 0) node.detail += " · line " + std::to_string(node.line);
    int index = static_cast<int>(graph.nodes.size());
    if (ownCluster >= 0) {
      node.cluster = ownCluster;
    } else if (node.subgraph >= 0) {
      auto [found, added] = clusterOfSubgraph.try_emplace(node.subgraph, static_cast<int>(graph.clusters.size()));
      if (added) {
        IrGraphCluster cluster;
        cluster.id = node.subgraph;
        cluster.key = "pypto-sg:" + std::to_string(node.subgraph);
        cluster.title = "sg" + std::to_string(node.subgraph);
        graph.clusters.push_back(std::move(cluster));
      }
      node.cluster = found->second;
    }
    if (node.cluster >= 0) graph.clusters[static_cast<std::size_t>(node.cluster)].nodes.push_back(index);
    for (const Json& out : outs) producers[operandMagic(out)].push_back(index);
    graph.nodes.push_back(std::move(node));
  }
  // A cluster takes the first label its ops carry.
  for (IrGraphCluster& cluster : graph.clusters)
    for (int member : cluster.nodes)
      if (cluster.label.empty() && !graph.nodes[static_cast<std::size_t>(member)].label.empty()) {
        cluster.label = graph.nodes[static_cast<std::size_t>(member)].label;
        cluster.title += " '" + cluster.label + "'";
      }
  std::set<std::pair<int, int>> seen;
  std::size_t index = firstNode;
  for (const Json& op : arrayAt(function, "operations")) {
    if (!op.is_object()) continue;
    const int to = static_cast<int>(index++);
    for (const Json& in : arrayAt(op, "ioperands")) {
      auto found = producers.find(operandMagic(in));
      if (found == producers.end()) continue;
      for (int from : found->second)
        if (from != to && seen.emplace(from, to).second) graph.edges.push_back({from, to});
    }
  }
}

std::string functionName(const Json& function) {
  std::string name = stringAt(function, "func_magicname");
  return name.empty() ? stringAt(function, "rawname") : name;
}

// A health report's value as table text.
std::string valueText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    bool scalars = std::all_of(value.begin(), value.end(), [](const Json& item) { return !item.is_structured(); });
    if (scalars) {
      std::string text;
      for (const Json& item : value) text += (text.empty() ? "" : ", ") + valueText(item);
      return text.empty() ? "(none)" : text;
    }
  }
  return value.dump();
}

void flatten(const Json& value, const std::string& section, const std::string& key, std::vector<PyptoHealthRow>& rows) {
  if (value.is_object()) {
    for (const auto& [member, inner] : value.items())
      flatten(inner, section.empty() ? member : section, key.empty() ? (section.empty() ? std::string() : member) : key + "." + member, rows);
    return;
  }
  if (value.is_array() && std::any_of(value.begin(), value.end(), [](const Json& item) { return item.is_structured(); })) {
    for (std::size_t i = 0; i < value.size(); ++i) flatten(value[i], section, key + "[" + std::to_string(i) + "]", rows);
    return;
  }
  rows.push_back({section, key, valueText(value)});
}

// A report's figures worth a headline, by the names PyPTO's writers use.
std::vector<std::string> headlineOf(const Json& report) {
  static const std::pair<const char*, const char*> kFigures[] = {
      {"totalOpCount", "ops"},         {"totalTensorCount", "tensors"},   {"maxDepth", "depth"},
      {"maxWidth", "width"},           {"totalCycles", "total cycles"},  {"theoreticalMinimumCycles", "busiest pipe cycles"},
      {"spillCount", "spills"},        {"totalSubgraphCount", "subgraphs"}, {"uniqueSubgraphTypes", "subgraph types"},
      {"maxSubgraphCycle", "longest subgraph cycles"}};
  const Json& body = report.contains("execution_graph_analysis") ? report["execution_graph_analysis"] : report;
  std::vector<std::string> headline;
  for (const auto& [key, text] : kFigures)
    if (body.is_object() && body.contains(key) && body[key].is_number()) headline.push_back(std::string(text) + " " + body[key].dump());
  return headline;
}

const std::map<std::string, PyptoArtifactKind>& artifactKindNames() {
  static const std::map<std::string, PyptoArtifactKind> names{
      {"pass-dumps", PyptoArtifactKind::PassDumps},     {"graph-dump", PyptoArtifactKind::GraphDump},
      {"health-report", PyptoArtifactKind::HealthReport}, {"swimlane", PyptoArtifactKind::ChipSwimlane},
      {"core-trace", PyptoArtifactKind::CoreTrace}};
  return names;
}

} // namespace

std::string_view name(PyptoArtifactKind kind) {
  for (const auto& [text, value] : artifactKindNames())
    if (value == kind) return text;
  return "unknown";
}

std::string_view name(PyptoHealthKind kind) {
  switch (kind) {
  case PyptoHealthKind::TensorGraph: return "tensor-graph";
  case PyptoHealthKind::TileGraph: return "tile-graph";
  case PyptoHealthKind::BlockGraph: return "block-graph";
  case PyptoHealthKind::ExecuteGraph: return "execute-graph";
  }
  return "unknown";
}

std::optional<PyptoHealthKind> pyptoHealthKindOfFile(const fs::path& file) {
  std::string fileName = file.filename().string();
  for (const HealthSuffix& entry : kHealthSuffixes)
    if (endsWith(fileName, entry.suffix)) return entry.kind;
  return std::nullopt;
}

std::optional<PyptoArtifactKind> pyptoArtifactKind(const fs::path& path) {
  std::error_code error;
  std::string fileName = path.filename().string();
  if (fs::is_directory(path, error)) {
    if (!passFolders(path).empty()) return PyptoArtifactKind::PassDumps;
    return std::nullopt;
  }
  if (pyptoHealthKindOfFile(path)) return PyptoArtifactKind::HealthReport;
  if (isGraphDumpName(fileName)) return PyptoArtifactKind::GraphDump;
  if (isCoreTraceName(fileName)) return PyptoArtifactKind::CoreTrace;
  if (fileName == "merged_swimlane.json") return PyptoArtifactKind::ChipSwimlane;
  return std::nullopt;
}

std::optional<PyptoGraphDump> readPyptoGraphDump(const fs::path& file, DiagnosticEngine& diags) {
  std::optional<Json> document = readJsonFile(file, diags);
  if (!document) return std::nullopt;
  const Json* function = mainFunction(*document);
  if (!function || !function->is_object() || !function->contains("operations"))
    return diags.error({file.string(), 1, 1})
           << "not a PyPTO graph dump: expected {\"functions\": [{\"operations\": [...]}]} (a Before_/After_ file of "
              "compile_debug_mode)";
  PyptoGraphDump dump;
  dump.file = file;
  dump.function = functionName(*function);
  dump.tensors = static_cast<int>(arrayAt(*function, "tensors").size());
  auto graph = std::make_shared<IrGraph>();
  graph->level = levelOf(*function, file.filename().string());
  graph->kernel = dump.function;
  addFunction(*graph, *function, std::string());
  dump.graph = std::move(graph);
  return dump;
}

std::optional<PassHistory> readPyptoPassDumps(const fs::path& folder, DiagnosticEngine& diags) {
  static const std::regex passPattern(R"(Pass_(\d+)_(.+))");
  struct Pass {
    long index = 0;
    std::string name;
    fs::path folder;
  };
  std::vector<Pass> passes;
  for (const fs::path& found : passFolders(folder)) {
    std::smatch match;
    std::string base = found.filename().string();
    if (std::regex_match(base, match, passPattern)) passes.push_back({std::stol(match[1].str()), match[2].str(), found});
  }
  if (passes.empty())
    return diags.error({folder.string(), 0, 0})
           << "no Pass_NNN_<pass> folders here: PyPTO writes them into its output folder with "
              "debug_options={\"compile_debug_mode\": 1}";
  std::sort(passes.begin(), passes.end(), [](const Pass& a, const Pass& b) { return a.index < b.index; });
  PassHistory history;
  history.importedFrom = folder.string();
  history.complete = true;
  std::set<std::string> previousKeys[4];
  for (const Pass& pass : passes) {
    std::vector<fs::path> before, after;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(pass.folder, error)) {
      std::string fileName = entry.path().filename().string();
      if (!isGraphDumpName(fileName)) continue;
      (startsWith(fileName, "After_") ? after : before).push_back(entry.path());
    }
    std::vector<fs::path>& files = after.empty() ? before : after;
    std::sort(files.begin(), files.end());
    PassStep step;
    step.name = pass.name;
    step.changed = true;
    std::shared_ptr<IrGraph> block;
    for (const fs::path& file : files) {
      std::optional<PyptoGraphDump> dump = readPyptoGraphDump(file, diags);
      if (!dump) return std::nullopt;
      const GraphLevel level = dump->graph->level;
      if (level == GraphLevel::Block) {
        // Each _LEAF_ program is one subgraph's block graph: one cluster each.
        if (!block) {
          block = std::make_shared<IrGraph>();
          block->level = GraphLevel::Block;
          block->kernel = dump->function;
        }
        std::optional<Json> document = readJsonFile(file, diags);
        if (!document) return std::nullopt;
        addFunction(*block, *mainFunction(*document), dump->function);
        continue;
      }
      auto& slot = step.graphs[static_cast<std::size_t>(level)];
      // The main function's dump (not its _ROOT) is the tile or tensor graph; keep the biggest of one level.
      if (!slot || slot->nodes.size() < dump->graph->nodes.size()) slot = dump->graph;
    }
    if (block) step.graphs[static_cast<std::size_t>(GraphLevel::Block)] = block;
    // Counts: tile ops, subgraphs, block programs, tasks; '+' for nodes new since the pass before.
    auto countOf = [&](GraphLevel level) {
      const auto& graph = step.graphs[static_cast<std::size_t>(level)];
      return graph ? static_cast<int>(graph->nodes.size()) : 0;
    };
    step.counts[0].count = countOf(GraphLevel::Tile) ? countOf(GraphLevel::Tile) : countOf(GraphLevel::Tensor);
    const auto& tile = step.graphs[static_cast<std::size_t>(GraphLevel::Tile)];
    step.counts[1].count = tile ? static_cast<int>(tile->clusters.size()) : 0;
    step.counts[2].count = block ? static_cast<int>(block->clusters.size()) : 0;
    step.counts[3].count = countOf(GraphLevel::Execute);
    bool changed = false;
    for (std::size_t level = 0; level < 4; ++level) {
      if (!step.graphs[level]) continue;
      std::set<std::string> keys;
      for (const IrGraphNode& node : step.graphs[level]->nodes) {
        keys.insert(node.key);
        if (!previousKeys[level].empty() && !previousKeys[level].count(node.key)) {
          step.changes.push_back({IrLevel::TileOp, '+', node.title, node.key});
          ++step.counts[0].added;
        }
      }
      changed = changed || keys != previousKeys[level];
      previousKeys[level] = std::move(keys);
    }
    step.changed = changed;
    history.steps.push_back(std::move(step));
  }
  return history;
}

PassHistory pyptoSingleDumpHistory(const PyptoGraphDump& dump) {
  PassHistory history;
  history.importedFrom = dump.file.string();
  history.complete = true;
  PassStep step;
  step.name = dump.file.stem().string();
  step.changed = true;
  step.graphs[static_cast<std::size_t>(dump.graph->level)] = dump.graph;
  step.counts[0].count = static_cast<int>(dump.graph->nodes.size());
  step.counts[1].count = static_cast<int>(dump.graph->clusters.size());
  history.steps.push_back(std::move(step));
  return history;
}

std::optional<PyptoHealthReport> readPyptoHealthReport(const fs::path& file, DiagnosticEngine& diags) {
  std::optional<PyptoHealthKind> kind = pyptoHealthKindOfFile(file);
  if (!kind)
    return diags.error({file.string(), 0, 0})
           << "not a PyPTO health report: its name should end in _TensorGraphHealthReport.json, "
              "_TileGraphHealthReport.json, _Block_Graph_Health_Report.json or _ExecuteGraph_Health_Report.json";
  std::optional<Json> document = readJsonFile(file, diags);
  if (!document) return std::nullopt;
  if (!document->is_object())
    return diags.error({file.string(), 1, 1}) << "a PyPTO health report is a JSON object, this file holds " << describe(*document);
  PyptoHealthReport report;
  report.file = file;
  report.kind = *kind;
  std::string fileName = file.filename().string();
  for (const HealthSuffix& entry : kHealthSuffixes)
    if (endsWith(fileName, entry.suffix)) report.graph = fileName.substr(0, fileName.size() - entry.suffix.size());
  report.json = std::move(*document);
  // Top-level scalars first, then each section.
  std::vector<PyptoHealthRow> rows;
  flatten(report.json, std::string(), std::string(), rows);
  std::stable_partition(rows.begin(), rows.end(), [](const PyptoHealthRow& row) { return row.key.empty(); });
  for (PyptoHealthRow& row : rows)
    if (row.key.empty()) std::swap(row.section, row.key);
  report.rows = std::move(rows);
  report.headline = headlineOf(report.json);
  return report;
}

std::optional<trace::Trace> readPyptoTrace(const fs::path& file, DiagnosticEngine& diags) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return diags.error({file.string(), 0, 0}) << "cannot open the file for reading";
  std::optional<trace::Trace> read = trace::readChromeTrace(in, diags, file.string());
  if (!read) return std::nullopt;
  std::smatch match;
  std::string fileName = file.filename().string();
  static const std::regex core(R"(trace_core(\d+)\.json)");
  if (std::regex_match(fileName, match, core)) {
    // A core's pipes: "core3 MTE2", so that several cores' traces read apart.
    const std::string prefix = "core" + match[1].str() + " ";
    for (trace::LaneIndex lane = 0; lane < read->lanes().size(); ++lane) {
      std::string laneName(read->str(read->lanes()[lane].name));
      if (!startsWith(laneName, prefix)) read->renameLane(lane, prefix + laneName);
    }
    read->finalize();
  }
  return read;
}

std::optional<PyptoArtifact> readPyptoArtifact(const fs::path& path, DiagnosticEngine& diags) {
  std::error_code error;
  if (!fs::exists(path, error)) return diags.error({path.string(), 0, 0}) << "no such file or folder";
  std::optional<PyptoArtifactKind> kind = pyptoArtifactKind(path);
  if (!kind)
    return diags.error({path.string(), 0, 0})
           << "not a PyPTO artifact PTO Studio reads: a folder of Pass_NNN_<pass> dumps, a Before_/After_*.json "
              "graph dump, a *HealthReport.json / *_Health_Report.json, merged_swimlane.json or trace_core<N>.json";
  PyptoArtifact artifact;
  artifact.path = path;
  artifact.kind = *kind;
  switch (*kind) {
  case PyptoArtifactKind::PassDumps:
    artifact.passes = readPyptoPassDumps(path, diags);
    if (!artifact.passes) return std::nullopt;
    break;
  case PyptoArtifactKind::GraphDump:
    artifact.graph = readPyptoGraphDump(path, diags);
    if (!artifact.graph) return std::nullopt;
    break;
  case PyptoArtifactKind::HealthReport:
    artifact.health = readPyptoHealthReport(path, diags);
    if (!artifact.health) return std::nullopt;
    break;
  case PyptoArtifactKind::ChipSwimlane:
  case PyptoArtifactKind::CoreTrace: {
    std::optional<trace::Trace> read = readPyptoTrace(path, diags);
    if (!read) return std::nullopt;
    artifact.trace = std::make_shared<const trace::Trace>(std::move(*read));
    break;
  }
  }
  return artifact;
}

namespace {

Json graphFigures(const IrGraph& graph) {
  return Json{{"level", std::string(name(graph.level))},
              {"nodes", graph.nodes.size()},
              {"edges", graph.edges.size()},
              {"clusters", graph.clusters.size()}};
}

Json traceFigures(const trace::Trace& trace) {
  std::int64_t start = 0, end = 0;
  bool any = false;
  for (const trace::Task& task : trace.tasks()) {
    start = any ? std::min(start, task.startNs) : task.startNs;
    end = any ? std::max(end, task.endNs) : task.endNs;
    any = true;
  }
  Json lanes = Json::array();
  for (const trace::Lane& lane : trace.lanes()) lanes.push_back(std::string(trace.str(lane.name)));
  return Json{{"tasks", trace.tasks().size()},
              {"lanes", lanes},
              {"dependencies", trace.edgeCount()},
              {"span_us", static_cast<double>(end - start) / 1000.0}};
}

} // namespace

IrJson pyptoArtifactJson(const PyptoArtifact& artifact) {
  Json json{{"path", artifact.path.string()}, {"kind", std::string(name(artifact.kind))}};
  if (artifact.passes) {
    Json steps = Json::array();
    for (const PassStep& step : artifact.passes->steps) {
      Json levels = Json::object();
      for (const auto& graph : step.graphs)
        if (graph) levels[std::string(name(graph->level))] = graphFigures(*graph);
      steps.push_back(Json{{"pass", step.name}, {"graphs", levels}});
    }
    json["passes"] = steps;
  }
  if (artifact.graph) {
    json["function"] = artifact.graph->function;
    json["graph"] = graphFigures(*artifact.graph->graph);
    json["tensors"] = artifact.graph->tensors;
  }
  if (artifact.health) {
    json["report"] = std::string(name(artifact.health->kind));
    json["graph"] = artifact.health->graph;
    json["fields"] = artifact.health->json;
  }
  if (artifact.trace) json["trace"] = traceFigures(*artifact.trace);
  return json;
}

std::string pyptoArtifactSummary(const PyptoArtifact& artifact) {
  std::ostringstream out;
  auto graphLine = [&](const IrGraph& graph) {
    out << name(graph.level) << " graph: " << graph.nodes.size() << " ops, " << graph.edges.size() << " edges";
    if (!graph.clusters.empty()) out << ", " << graph.clusters.size() << (graph.clusters.size() == 1 ? " subgraph" : " subgraphs");
  };
  out << artifact.path.string() << ": ";
  switch (artifact.kind) {
  case PyptoArtifactKind::PassDumps:
    out << "PyPTO pass dumps, " << artifact.passes->steps.size() << " passes\n";
    for (const PassStep& step : artifact.passes->steps) {
      out << "  " << step.name << ":";
      bool first = true;
      for (const auto& graph : step.graphs) {
        if (!graph) continue;
        out << (first ? " " : "; ");
        graphLine(*graph);
        first = false;
      }
      out << "\n";
    }
    break;
  case PyptoArtifactKind::GraphDump:
    out << "PyPTO graph dump of " << artifact.graph->function << "\n  ";
    graphLine(*artifact.graph->graph);
    out << ", " << artifact.graph->tensors << " tensors\n";
    break;
  case PyptoArtifactKind::HealthReport: {
    out << "PyPTO " << name(artifact.health->kind) << " health report";
    if (!artifact.health->graph.empty()) out << " of " << artifact.health->graph;
    out << "\n";
    if (!artifact.health->headline.empty()) {
      out << " ";
      for (const std::string& figure : artifact.health->headline) out << " " << figure << ";";
      out << "\n";
    }
    for (const PyptoHealthRow& row : artifact.health->rows)
      out << "  " << row.section << (row.section.empty() || row.key.empty() || row.key[0] == '[' ? "" : ".") << row.key
          << " = " << row.value << "\n";
    break;
  }
  case PyptoArtifactKind::ChipSwimlane:
  case PyptoArtifactKind::CoreTrace: {
    Json figures = traceFigures(*artifact.trace);
    out << (artifact.kind == PyptoArtifactKind::CoreTrace ? "CA-model core trace, " : "PyPTO swimlane, ")
        << artifact.trace->tasks().size() << (artifact.kind == PyptoArtifactKind::CoreTrace ? " instructions" : " tasks")
        << " on " << artifact.trace->lanes().size() << " lanes over " << figures["span_us"].get<double>() << " us\n";
    break;
  }
  }
  return out.str();
}

} // namespace pto
