// Snapshot nodes and their differences (see PassDiff.h).
#include "analysis/irviews/PassDiff.h"

#include "core/EnumNames.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace pto {

// Named in pto, as IrGraph.cpp names it: a unity build puts both files in
// one unit, where an alias in this file's anonymous namespace was shadowed
// by IrGraph's (clang's -Wshadow).
using Json = IrJson;

namespace {

// "t4[0:32, 0:32]" from an operand or region with name, offset(s) and shape.
std::string regionText(const Json& operand) {
  std::string text = operand.value("name", std::string("?")) + "[";
  const Json& offsets = operand.contains("offset") ? operand["offset"] : operand.value("offsets", Json::array());
  const Json& shape = operand.value("shape", Json::array());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    // A number: lo:hi as in Python; a symbolic offset: offset+extent.
    const Json offset = d < offsets.size() ? offsets[d] : Json(0);
    const bool numeric = offset.is_number_integer() && shape[d].is_number_integer();
    text += (d ? ", " : "") + (numeric ? offset.dump() + ":" + std::to_string(offset.get<std::int64_t>() +
                                                                              shape[d].get<std::int64_t>())
                                       : (offset.is_string() ? offset.get<std::string>() : offset.dump()) + "+" +
                                             shape[d].dump());
  }
  return text + "]";
}

std::string sourceText(const Json& source) {
  if (!source.is_object() || !source.contains("line")) return {};
  std::string file = source.value("file", std::string());
  std::size_t slash = file.find_last_of('/');
  return " (" + (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + source["line"].dump() + ")";
}

// A member by reference (value() copies), an empty array when absent.
const Json& arrayMember(const Json& object, const char* key) {
  static const Json empty = Json::array();
  auto found = object.find(key);
  return found == object.end() ? empty : *found;
}

// Keys made unique by their occurrence: the n-th node with the same identity.
std::string occurrence(std::map<std::string, int>& seen, const std::string& key) {
  int n = seen[key]++;
  return n == 0 ? key : key + "#" + std::to_string(n);
}

} // namespace

constexpr auto kIrLevelNames = enumNames<IrLevel>({
    {IrLevel::TileOp, "tile_ops"}, {IrLevel::Subgraph, "subgraphs"}, {IrLevel::Program, "programs"},
    {IrLevel::Task, "tasks"}});

std::string_view name(IrLevel level) { return kIrLevelNames.name(level); }

std::string tileOpText(const Json& op) {
  const Json& outs = arrayMember(op, "ooperands");
  return op.value("opcode", std::string()) + " " + (outs.empty() ? std::string("-") : regionText(outs[0])) +
         sourceText(op.value("source", Json()));
}

std::map<std::int64_t, std::string> tileOpKeys(const Json& snapshot) {
  std::map<std::string, int> seen;
  std::map<std::int64_t, std::string> keys;
  for (const Json& op : arrayMember(snapshot, "operations")) {
    const Json& outs = arrayMember(op, "ooperands");
    const Json& ins = arrayMember(op, "ioperands");
    std::string key = op.value("tensor_op", Json(-1)).dump() + ":" + op.value("opcode", std::string()) + ":" +
                      (outs.empty() ? std::string("-") : regionText(outs[0])) + ":" +
                      (ins.empty() ? std::string("-") : regionText(ins[0]));
    keys[op.value("opmagic", std::int64_t{-1})] = occurrence(seen, key);
  }
  return keys;
}

std::vector<IrNode> irNodes(const Json& snapshot) {
  std::vector<IrNode> nodes;
  // Tile ops: tensor op, opcode, output and first input regions.
  std::map<std::int64_t, std::string> tileKey = tileOpKeys(snapshot);
  static const Json kNothing;
  auto member = [](const Json& object, const char* key) -> const Json& {
    auto found = object.find(key);
    return found == object.end() ? kNothing : *found;
  };
  if (snapshot.contains("operations"))
    for (const Json& op : snapshot["operations"]) {
      // Compared by a hash of what a pass can change (operands, attributes,
      // tile shape, accumulation), hashing the members in place: building
      // and printing a copy of each was most of the pass viewer's time.
      std::size_t hash = 0;
      for (const char* key : {"ioperands", "ooperands", "attrs", "tile_shape", "accumulate"})
        hash = hash * 1000003u ^ std::hash<Json>{}(member(op, key));
      nodes.push_back({IrLevel::TileOp, tileKey[op.value("opmagic", std::int64_t{-1})], tileOpText(op), std::to_string(hash)});
    }
  // Subgraphs: by their first tile op; content the members and the copies.
  std::map<std::int64_t, std::string> subgraphKey;
  if (snapshot.contains("block"))
    for (const Json& subgraph : snapshot["block"].value("subgraphs", Json::array())) {
      std::vector<std::string> members;
      for (const Json& op : subgraph.value("ops", Json::array())) members.push_back(tileKey[op.value("id", std::int64_t{-1})]);
      std::string key = "sg:" + (members.empty() ? std::string("-") : members.front());
      subgraphKey[subgraph.value("id", std::int64_t{-1})] = key;
      Json content = {{"core", subgraph.value("core_type", Json())},     {"members", members},
                      {"copy_ins", subgraph.value("copy_ins", Json())},  {"copy_outs", subgraph.value("copy_outs", Json())},
                      {"buffering", subgraph.value("buffering", Json())}, {"peak", subgraph.value("peak_bytes", Json())}};
      std::string label = "sg" + subgraph.value("id", Json(-1)).dump() + " " + subgraph.value("core_type", std::string()) +
                          " '" + subgraph.value("label", std::string()) + "', " + std::to_string(members.size()) +
                          (members.size() == 1 ? " tile op" : " tile ops");
      nodes.push_back({IrLevel::Subgraph, key, label, content.dump()});
    }
  // PTO programs: by the subgraph they were lowered from.
  if (snapshot.contains("pto"))
    for (const Json& program : snapshot["pto"].value("programs", Json::array())) {
      std::string key = "program:" + subgraphKey[program.value("subgraph", std::int64_t{-1})];
      Json instructions = program.value("instructions", Json::array());
      for (Json& instruction : instructions) instruction.erase("index");
      std::string label = "program " + program.value("program_id", Json(-1)).dump() + " (" +
                          program.value("core_type", std::string()) + ", " + std::to_string(instructions.size()) +
                          " instructions)";
      nodes.push_back({IrLevel::Program, key, label, instructions.dump()});
    }
  // Tasks: subgraph and loop indices; content their regions and predecessors.
  if (snapshot.contains("execute")) {
    std::map<std::int64_t, std::string> taskKey;
    std::map<std::string, int> taskSeen;
    const Json& tasks = snapshot["execute"].value("tasks", Json::array());
    for (const Json& task : tasks) {
      std::string key = "task:" + subgraphKey[task.value("subgraph", std::int64_t{-1})] + ":" +
                        task.value("loop_indices", Json::object()).dump();
      taskKey[task.value("id", std::int64_t{-1})] = occurrence(taskSeen, key);
    }
    for (const Json& task : tasks) {
      std::vector<std::string> predecessors;
      for (const Json& p : task.value("predecessors", Json::array())) predecessors.push_back(taskKey[p.get<std::int64_t>()]);
      std::sort(predecessors.begin(), predecessors.end());
      Json content = {{"reads", task.value("reads", Json())}, {"writes", task.value("writes", Json())},
                      {"after", predecessors}};
      std::string indices;
      const Json loopIndices = task.value("loop_indices", Json::object());  // items() of a temporary would dangle
      for (const auto& [loop, value] : loopIndices.items())
        indices += " " + loop + "=" + value.dump();
      std::string label = "task " + task.value("id", Json(-1)).dump() + " sg" + task.value("subgraph", Json(-1)).dump() +
                          " '" + task.value("label", std::string()) + "'" + indices;
      nodes.push_back({IrLevel::Task, taskKey[task.value("id", std::int64_t{-1})], label, content.dump()});
    }
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const IrNode& a, const IrNode& b) { return std::tie(a.level, a.key) < std::tie(b.level, b.key); });
  return nodes;
}

std::vector<NodeChange> diffNodes(const std::vector<IrNode>& before, const std::vector<IrNode>& after) {
  // Both sorted by (level, key): one merge walk.
  std::vector<NodeChange> changes;
  std::size_t i = 0, j = 0;
  auto less = [](const IrNode& a, const IrNode& b) { return std::tie(a.level, a.key) < std::tie(b.level, b.key); };
  while (i < before.size() || j < after.size()) {
    if (j == after.size() || (i < before.size() && less(before[i], after[j]))) {
      changes.push_back({before[i].level, '-', before[i].label, before[i].key});
      ++i;
    } else if (i == before.size() || less(after[j], before[i])) {
      changes.push_back({after[j].level, '+', after[j].label, after[j].key});
      ++j;
    } else {
      if (before[i].content != after[j].content) changes.push_back({after[j].level, '~', after[j].label, after[j].key});
      ++i;
      ++j;
    }
  }
  return changes;
}

std::array<LevelCounts, kIrLevelCount> countChanges(const std::vector<IrNode>& after,
                                                    const std::vector<NodeChange>& changes) {
  std::array<LevelCounts, kIrLevelCount> counts{};
  for (const IrNode& node : after) ++counts[static_cast<std::size_t>(node.level)].count;
  for (const NodeChange& change : changes) {
    LevelCounts& level = counts[static_cast<std::size_t>(change.level)];
    (change.kind == '+' ? level.added : change.kind == '-' ? level.removed : level.changed) += 1;
  }
  return counts;
}

} // namespace pto
