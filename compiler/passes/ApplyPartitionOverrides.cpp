// Implementation of ApplyPartitionOverrides.
#include "compiler/passes/ApplyPartitionOverrides.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/GraphPartition.h"
#include "core/json/JsonReader.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string_view>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;
using GroupId = std::int32_t;  // a subgraph while overrides apply: GraphPartition's ids, then new ones

constexpr std::string_view kSelectorKeys[] = {"label", "line", "tensor_op", "tile", "tiles"};
constexpr std::string_view kKinds[] = {"move", "split", "merge"};

// What an OPS object names, as read.
struct OpsSelector {
  std::optional<std::string> label;
  std::optional<std::int64_t> line, tensorOp;
  std::vector<std::int64_t> indices;  // empty: all tiles
};

// Reads entries as far as the traced kernel decides them: their form, and the
// labels, lines and tensor op ids they name. The pass reads each entry with it
// before resolving tiles and subgraphs, and checkPartitionOverrides reads them
// without compiling, so both say the same about a bad entry.
class EntryReader {
public:
  // `hasTiles`: whether an op gets tile ops (lines listed when one is unknown).
  EntryReader(const TensorGraph& graph, DiagnosticEngine& diags, std::function<bool(const TensorOp&)> hasTiles)
      : m_graph(graph), m_diags(diags), m_hasTiles(std::move(hasTiles)) {}

  void begin(std::size_t index, SourceLocation where) {
    m_entry = index;
    m_kind.clear();
    m_where = std::move(where);
  }
  const std::string& kind() const { return m_kind; }

  // "partition_overrides[2] (merge): ..." at the entry's line.
  DiagnosticBuilder error() {
    DiagnosticBuilder builder = m_diags.error(m_where);
    builder << "partition_overrides[" << m_entry << "]";
    if (!m_kind.empty()) builder << " (" << m_kind << ")";
    builder << ": ";
    return builder;
  }

  std::optional<std::int64_t> integer(const Json& value, const std::string& what, std::int64_t minimum) {
    if (!value.is_number_integer() || value.get<std::int64_t>() < minimum)
      return error() << what << " must be an integer >= " << minimum << ", got " << describe(value);
    return value.get<std::int64_t>();
  }

  // The entry's form and every name in it; sets kind().
  bool readEntry(const Json& entry) {
    if (!entry.is_object())
      return error() << "an entry must be an object such as {\"move\": {\"label\": \"exp\"}, \"to\": \"new\"}, got "
                     << describe(entry);
    std::vector<std::string> kinds;
    for (std::string_view kind : kKinds)
      if (entry.contains(kind)) kinds.emplace_back(kind);
    if (kinds.size() != 1) {
      if (kinds.empty())
        for (const auto& [key, value] : entry.items())
          if (key != "note") return error() << "unknown key '" << key << "'" << suggestion(key, kKinds)
                                            << "; an entry is a \"move\", \"split\" or \"merge\"";
      return error() << "an entry needs exactly one of \"move\", \"split\" or \"merge\"";
    }
    m_kind = kinds.front();
    if (m_kind == "move") {
      static constexpr std::string_view kKeys[] = {"move", "to", "note"};
      if (!checkKeys(entry, "", kKeys)) return false;
      if (!entry.contains("to")) return error() << "missing \"to\": the subgraph to move the tile ops into, or \"new\"";
      if (!readSelector(entry["move"], "move")) return false;
      const Json& to = entry["to"];
      if (to.is_string() && to.get<std::string>() != "new")
        return error() << "\"to\" must name a subgraph or be \"new\", got \"" << to.get<std::string>() << "\"";
      return to.is_string() || readSubgraph(to, "to");
    }
    if (m_kind == "split") {
      static constexpr std::string_view kKeys[] = {"split", "at", "note"};
      if (!checkKeys(entry, "", kKeys)) return false;
      if (!entry.contains("at")) return error() << "missing \"at\": the tile op the second part starts with";
      return readSubgraph(entry["split"], "split") && readSelector(entry["at"], "at");
    }
    static constexpr std::string_view kKeys[] = {"merge", "note"};
    if (!checkKeys(entry, "", kKeys)) return false;
    const Json& list = entry["merge"];
    if (!list.is_array() || list.size() < 2)
      return error() << "\"merge\" must list at least two subgraphs, got " << describe(list);
    for (std::size_t i = 0; i < list.size(); ++i)
      if (!readSubgraph(list[i], "merge[" + std::to_string(i) + "]")) return false;
    return true;
  }

  // An OPS object: its form, then its names one key at a time, so the
  // message says which is unknown.
  std::optional<OpsSelector> readSelector(const Json& selector, const std::string& key) {
    if (!selector.is_object())
      return error() << "\"" << key << "\" must name tile ops, e.g. {\"label\": \"matmul\", \"tile\": 0}, got "
                     << describe(selector);
    if (!checkKeys(selector, "\"" + key + "\"", kSelectorKeys)) return std::nullopt;
    if (!selector.contains("label") && !selector.contains("line") && !selector.contains("tensor_op"))
      return error() << "\"" << key << "\" must name a tensor op by \"label\", \"line\" or \"tensor_op\"";
    if (selector.contains("tile") && selector.contains("tiles"))
      return error() << "\"" << key << "\" has both \"tile\" and \"tiles\"; use one";

    OpsSelector result;
    if (selector.contains("label")) {
      const Json& value = selector["label"];
      if (!value.is_string() || value.get<std::string>().empty())
        return error() << key << ".label must be a semantic label (a non-empty string), got " << describe(value);
      result.label = value.get<std::string>();
    }
    if (selector.contains("line") && !(result.line = integer(selector["line"], key + ".line", 1))) return std::nullopt;
    if (selector.contains("tensor_op") && !(result.tensorOp = integer(selector["tensor_op"], key + ".tensor_op", 0)))
      return std::nullopt;
    if (selector.contains("tile")) {
      auto index = integer(selector["tile"], key + ".tile", 0);
      if (!index) return std::nullopt;
      result.indices.push_back(*index);
    }
    if (selector.contains("tiles")) {
      const Json& value = selector["tiles"];
      if (!value.is_array() || value.empty())
        return error() << key << ".tiles must be a non-empty list of tile indices, got " << describe(value);
      for (const Json& item : value) {
        auto index = integer(item, key + ".tiles[]", 0);
        if (!index) return std::nullopt;
        result.indices.push_back(*index);
      }
    }

    const auto& ops = m_graph.ops();
    if (result.tensorOp && *result.tensorOp >= static_cast<std::int64_t>(ops.size()))
      return error() << "there is no tensor op " << *result.tensorOp << " (the kernel has " << ops.size() << ", 0.."
                     << ops.size() - 1 << ")";
    if (result.label && std::none_of(ops.begin(), ops.end(), [&](const TensorOp& op) { return op.label == *result.label; })) {
      std::set<std::string> labels;
      for (const TensorOp& op : ops)
        if (!op.label.empty()) labels.insert(op.label);
      return error() << "no tensor op has the semantic label '" << *result.label << "'" << suggestion(*result.label, labels);
    }
    if (result.line &&
        std::none_of(ops.begin(), ops.end(), [&](const TensorOp& op) { return op.location.line == *result.line; })) {
      std::set<int> lines;
      for (const TensorOp& op : ops)
        if (m_hasTiles(op)) lines.insert(op.location.line);
      auto builder = error();
      builder << "no tensor op comes from kernel line " << *result.line << "; ops with tiles are on lines";
      int shown = 0;
      for (int at : lines) {
        if (++shown > 12) {
          builder << " ...";
          break;
        }
        builder << (shown > 1 ? ", " : " ") << at;
      }
      return builder;
    }
    return result;
  }

private:
  template <std::size_t N>
  bool checkKeys(const Json& object, const std::string& where, const std::string_view (&known)[N]) {
    for (const auto& [key, value] : object.items()) {
      if (std::find(std::begin(known), std::end(known), key) != std::end(known)) continue;
      std::string hint = suggestion(key, known);
      if (hint.empty()) {
        hint = "; expected ";
        for (std::size_t i = 0; i < N; ++i)
          hint += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + ("\"" + std::string(known[i]) + "\"");
      }
      return error() << "unknown key '" << key << "'" << (where.empty() ? "" : " in " + where) << hint;
    }
    return true;
  }

  // A SUBGRAPH value: {"subgraph": id} (whether the id exists depends on the
  // partition), or an OPS object.
  bool readSubgraph(const Json& reference, const std::string& key) {
    if (reference.is_object() && reference.contains("subgraph")) {
      static constexpr std::string_view kKeys[] = {"subgraph"};
      return checkKeys(reference, "\"" + key + "\" (a subgraph id stands alone)", kKeys) &&
             integer(reference["subgraph"], key + ".subgraph", 0).has_value();
    }
    return readSelector(reference, key).has_value();
  }

  const TensorGraph& m_graph;
  DiagnosticEngine& m_diags;
  std::function<bool(const TensorOp&)> m_hasTiles;
  std::size_t m_entry = 0;  // the entry being read
  std::string m_kind;
  SourceLocation m_where;
};

class OverrideApplier {
public:
  OverrideApplier(Compilation& compilation, DiagnosticEngine& diags)
      : m_compilation(compilation), m_tiles(compilation.tiles), m_graph(compilation.tiles.graph), m_diags(diags),
        m_reader(m_graph, diags, [this](const TensorOp& op) { return !m_tiles.tilesOf(op.id).empty(); }) {}

  bool run() {
    const Json& entries = m_compilation.settings.partitionOverrides;
    if (entries.is_null() || (entries.is_array() && entries.empty())) return true;
    if (!entries.is_array())
      return m_diags.error(SourceLocation{m_compilation.settings.projectFile})
             << "partition_overrides must be a list of entries, got " << describe(entries);

    const BlockGraph& blocks = m_compilation.blocks;
    m_rules = partitionRules(m_compilation);
    m_vectorToCube = m_compilation.settings.target.hasUbToL1;
    m_share = cubeResultsMayStayOnChip(m_compilation.settings) || m_vectorToCube;
    m_groupOf = blocks.subgraphOfTileOp;
    m_initialCount = static_cast<GroupId>(blocks.subgraphs.size());
    m_groupCount = m_initialCount;
    for (const Subgraph& subgraph : blocks.subgraphs) m_pinned.push_back(subgraph.pinned);
    m_tileIndex.assign(m_tiles.tileOps().size(), 0);
    for (const TensorOp& op : m_graph.ops()) {
      const std::vector<TileOpId>& tiles = m_tiles.tilesOf(op.id);
      for (std::size_t i = 0; i < tiles.size(); ++i) m_tileIndex[static_cast<std::size_t>(tiles[i])] = static_cast<int>(i);
    }

    for (std::size_t i = 0; i < entries.size(); ++i)
      if (!apply(i, entries[i])) return false;
    rebuild();
    return true;
  }

private:
  // ---- messages ----
  DiagnosticBuilder error() { return m_reader.error(); }

  // "add 'scale_add' tile 2 (kernel.py:18)"
  std::string tileName(TileOpId id) const {
    const TensorOp& op = m_graph.op(m_tiles.tileOp(id).tensorOp);
    std::string text(name(op.kind));
    if (!op.label.empty()) text += " '" + op.label + "'";
    text += " tile " + std::to_string(m_tileIndex[static_cast<std::size_t>(id)]);
    if (op.location.line > 0)
      text += " (" + std::filesystem::path(op.location.file).filename().string() + ":" +
              std::to_string(op.location.line) + ")";
    return text;
  }

  std::string groupName(GroupId group) const {
    return group < m_initialCount ? "sg" + std::to_string(group) : std::string("the new subgraph");
  }

  std::string scopeName(ScopeId id) const {
    const Scope& scope = m_compilation.blocks.scopes.at(static_cast<std::size_t>(id));
    if (scope.loop == kNoId) return "the kernel body";
    return "the body of loop '" + m_graph.loop(scope.loop).name + "'";
  }

  std::vector<TileOpId> membersOf(const std::vector<GroupId>& groupOf, GroupId group) const {
    std::vector<TileOpId> members;
    for (std::size_t op = 0; op < groupOf.size(); ++op)
      if (groupOf[op] == group) members.push_back(static_cast<TileOpId>(op));
    return members;
  }

  // ---- resolving an entry's names ----
  // The tile ops an OPS object names, ascending.
  std::optional<std::vector<TileOpId>> resolveOps(const Json& json, const std::string& key) {
    auto selector = m_reader.readSelector(json, key);
    if (!selector) return std::nullopt;
    const auto& [label, line, tensorOp, indices] = *selector;
    const auto& ops = m_graph.ops();
    std::vector<TileOpId> result;
    bool matched = false;
    for (const TensorOp& op : ops) {
      if ((tensorOp && op.id != *tensorOp) || (label && op.label != *label) || (line && op.location.line != *line))
        continue;
      matched = true;
      const std::vector<TileOpId>& tiles = m_tiles.tilesOf(op.id);
      // Ops that move no data (views, assembles folded into their producer) have no tiles to name.
      if (tiles.empty()) continue;
      if (indices.empty()) {
        result.insert(result.end(), tiles.begin(), tiles.end());
        continue;
      }
      for (std::int64_t index : indices) {
        if (index >= static_cast<std::int64_t>(tiles.size())) {
          auto builder = error();
          builder << "tensor op " << op.id << " (" << name(op.kind) << (op.label.empty() ? "" : " '" + op.label + "'")
                  << ") has " << tiles.size() << " tile" << (tiles.size() == 1 ? "" : "s") << " (0.."
                  << tiles.size() - 1 << "); there is no tile " << index;
          return builder;
        }
        result.push_back(tiles[static_cast<std::size_t>(index)]);
      }
    }
    if (!matched) {
      std::vector<std::string> names;
      if (label) names.push_back("label '" + *label + "'");
      if (line) names.push_back("line " + std::to_string(*line));
      if (tensorOp) names.push_back("tensor_op " + std::to_string(*tensorOp));
      auto builder = error();
      builder << "no single tensor op has " << names[0];
      for (std::size_t i = 1; i < names.size(); ++i) builder << (i + 1 == names.size() ? " and " : ", ") << names[i];
      return builder;
    }
    if (result.empty())
      return error() << "\"" << key << "\" names tensor ops that move no data, so they have no tile ops";
    std::sort(result.begin(), result.end());
    result.erase(std::unique(result.begin(), result.end()), result.end());
    return result;
  }

  // The subgraph a SUBGRAPH value names, in the current partition.
  std::optional<GroupId> resolveSubgraph(const Json& reference, const std::string& key) {
    if (reference.is_object() && reference.contains("subgraph")) {
      auto id = m_reader.integer(reference["subgraph"], key + ".subgraph", 0);
      if (!id) return std::nullopt;
      if (*id >= m_initialCount)
        return error() << "there is no subgraph " << *id << " (GraphPartition made " << m_initialCount << ", 0.."
                       << m_initialCount - 1 << ")";
      if (std::find(m_groupOf.begin(), m_groupOf.end(), static_cast<GroupId>(*id)) == m_groupOf.end())
        return error() << "subgraph " << *id << " is empty: an earlier entry moved all its tile ops away";
      return static_cast<GroupId>(*id);
    }
    auto ops = resolveOps(reference, key);
    if (!ops) return std::nullopt;
    std::map<GroupId, TileOpId> groups;  // group -> first named op in it
    for (TileOpId op : *ops) groups.try_emplace(m_groupOf[static_cast<std::size_t>(op)], op);
    if (groups.size() == 1) return groups.begin()->first;
    auto builder = error();
    builder << "\"" << key << "\" must name one subgraph, but its tile ops lie in " << groups.size() << " (";
    bool first = true;
    for (const auto& [group, op] : groups) {
      builder << (first ? "" : ", ") << groupName(group) << " holds " << tileName(op);
      first = false;
    }
    // With "tile" given, the ops are the copies of an unrolled loop's step (one label and line in each).
    builder << (reference.contains("tile") && !reference.contains("tensor_op")
                    ? "); add \"tensor_op\" (a loop unrolled when tracing repeats its label and line) to name one"
                    : "); add \"tile\" to name one tile op");
    return builder;
  }

  // ---- one entry ----
  bool apply(std::size_t index, const Json& entry) {
    const auto& locations = m_compilation.settings.partitionOverrideLocations;
    m_reader.begin(index, index < locations.size() ? locations[index] : SourceLocation{m_compilation.settings.projectFile});
    if (!m_reader.readEntry(entry)) return false;
    const std::string& kind = m_reader.kind();

    std::vector<GroupId> next = m_groupOf;
    std::set<GroupId> touched;
    auto newGroup = [&] {
      touched.insert(m_groupCount);
      return m_groupCount++;
    };
    // readEntry has checked the form: keys, types, required parts.
    if (kind == "move") {
      auto ops = resolveOps(entry["move"], "move");
      if (!ops) return false;
      GroupId target;
      const Json& to = entry["to"];
      if (to.is_string()) {
        target = newGroup();  // "new"
      } else {
        auto group = resolveSubgraph(to, "to");
        if (!group) return false;
        target = *group;
      }
      for (TileOpId op : *ops) {
        touched.insert(next[static_cast<std::size_t>(op)]);
        next[static_cast<std::size_t>(op)] = target;
      }
      touched.insert(target);
    } else if (kind == "split") {
      auto group = resolveSubgraph(entry["split"], "split");
      if (!group) return false;
      auto at = resolveOps(entry["at"], "at");
      if (!at) return false;
      for (TileOpId op : *at)
        if (m_groupOf[static_cast<std::size_t>(op)] != *group)
          return error() << "\"at\" names " << tileName(op) << ", which is in "
                         << groupName(m_groupOf[static_cast<std::size_t>(op)]) << ", not in the subgraph being split ("
                         << groupName(*group) << ")";
      std::vector<TileOpId> members = membersOf(m_groupOf, *group);
      if (at->front() == members.front())
        return error() << "splitting " << groupName(*group) << " at its first tile op (" << tileName(at->front())
                       << ") leaves nothing behind; name a later op";
      GroupId second = newGroup();
      for (TileOpId op : members)
        if (op >= at->front()) next[static_cast<std::size_t>(op)] = second;
      touched.insert(*group);
    } else {
      const Json& list = entry["merge"];
      std::vector<GroupId> groups;
      for (std::size_t i = 0; i < list.size(); ++i) {
        auto group = resolveSubgraph(list[i], "merge[" + std::to_string(i) + "]");
        if (!group) return false;
        groups.push_back(*group);
      }
      for (GroupId& group : next)
        if (std::find(groups.begin(), groups.end(), group) != groups.end()) group = groups.front();
      touched.insert(groups.front());
    }
    if (!validate(next, touched)) return false;
    m_groupOf = std::move(next);
    m_pinned.resize(static_cast<std::size_t>(m_groupCount), true);
    for (GroupId group : touched) m_pinned[static_cast<std::size_t>(group)] = true;
    return true;
  }

  // ---- the checks, on the partition the entry would make ----
  bool validate(const std::vector<GroupId>& next, const std::set<GroupId>& touched) {
    std::map<GroupId, std::vector<TileOpId>> members;
    for (std::size_t op = 0; op < next.size(); ++op)
      if (touched.count(next[op])) members[next[op]].push_back(static_cast<TileOpId>(op));
    auto isView = [&](TileOpId op) { return m_tiles.tileOp(op).kind == TensorOpKind::View; };
    auto coreOf = [&](TileOpId op) { return m_rules.coreOf[static_cast<std::size_t>(op)]; };

    for (const auto& [group, ops] : members) {
      TileOpId first = ops.front();
      ScopeId scope = m_rules.scopeOf[static_cast<std::size_t>(first)];
      TileOpId cube = kNoId, vector = kNoId;
      for (TileOpId op : ops) {
        if (m_rules.scopeOf[static_cast<std::size_t>(op)] != scope)
          return error() << "would put " << tileName(first) << " and " << tileName(op)
                         << " in one subgraph, but they run in different scopes (" << scopeName(scope) << " and "
                         << scopeName(m_rules.scopeOf[static_cast<std::size_t>(op)])
                         << "); a subgraph's ops all run in one loop body";
        if (m_rules.segmentOf[static_cast<std::size_t>(op)] != m_rules.segmentOf[static_cast<std::size_t>(first)])
          return error() << "would put " << tileName(first) << " and " << tileName(op)
                         << " in one subgraph, but a nested loop runs between them; a subgraph runs as one task "
                         << "where its first op is, so ops on both sides of a loop never share one";
        if (isView(op)) continue;
        if (coreOf(op) == CoreType::AIC && cube == kNoId) cube = op;
        if (coreOf(op) == CoreType::AIV && vector == kNoId) vector = op;
      }
      if (cube != kNoId && vector != kNoId && !m_share)
        return error() << "would put cube op " << tileName(cube) << " and vector op " << tileName(vector)
                       << " in one subgraph, but " << m_compilation.settings.target.name
                       << " has no L0C -> UB path, so cube and vector ops cannot share a subgraph; keep them apart";
    }
    if (m_share && !m_vectorToCube)
      for (const TileOpEdge& edge : m_rules.edges) {
        GroupId group = next[static_cast<std::size_t>(edge.from)];
        if (edge.data && group == next[static_cast<std::size_t>(edge.to)] && touched.count(group) &&
            coreOf(edge.from) == CoreType::AIV && coreOf(edge.to) == CoreType::AIC)
          return error() << "would put " << tileName(edge.to) << " (cube) in one subgraph with "
                         << tileName(edge.from) << " (vector), whose result it reads, but data cannot move from the "
                         << "vector unit to the cube on chip; keep them apart";
      }
    if (!checkOrder(next)) return false;
    return checkBuffers(members);
  }

  // Every edge between subgraphs must run from the one whose first op comes
  // first: a subgraph runs as one task where its first op is.
  bool checkOrder(const std::vector<GroupId>& next) {
    std::vector<TileOpId> firstOf(static_cast<std::size_t>(m_groupCount), static_cast<TileOpId>(next.size()));
    for (std::size_t op = 0; op < next.size(); ++op) {
      TileOpId& first = firstOf[static_cast<std::size_t>(next[op])];
      first = std::min(first, static_cast<TileOpId>(op));
    }
    const TileOpEdge* backward = nullptr;
    for (const TileOpEdge& edge : m_rules.edges) {
      GroupId from = next[static_cast<std::size_t>(edge.from)], to = next[static_cast<std::size_t>(edge.to)];
      if (from != to && firstOf[static_cast<std::size_t>(from)] > firstOf[static_cast<std::size_t>(to)]) {
        backward = &edge;
        break;
      }
    }
    if (!backward) return true;
    if (std::vector<const TileOpEdge*> cycle = findCycle(next); !cycle.empty()) {
      auto builder = error();
      builder << "would create a cycle between subgraphs: ";
      for (const TileOpEdge* link : cycle) builder << groupName(next[static_cast<std::size_t>(link->from)]) << " -> ";
      builder << groupName(next[static_cast<std::size_t>(cycle.front()->from)]) << " (";
      for (std::size_t i = 0; i < cycle.size(); ++i)
        builder << (i ? "; " : "") << tileName(cycle[i]->from) << (cycle[i]->data ? " feeds " : " must run before ")
                << tileName(cycle[i]->to);
      builder << "), so neither could run first";
      return builder;
    }
    GroupId late = next[static_cast<std::size_t>(backward->from)], early = next[static_cast<std::size_t>(backward->to)];
    return error() << "would make " << groupName(early) << " wait for " << groupName(late) << ", which starts after it: "
                   << tileName(backward->from) << (backward->data ? " feeds " : " must run before ")
                   << tileName(backward->to) << ", but " << groupName(early) << " runs as one task from its first op ("
                   << tileName(firstOf[static_cast<std::size_t>(early)]) << "), before " << groupName(late)
                   << " starts; move the ops " << groupName(early) << " would wait for into it as well";
  }

  // A cycle of the subgraph graph as its links (one tile op edge each), or
  // nothing: an iterative depth-first search.
  std::vector<const TileOpEdge*> findCycle(const std::vector<GroupId>& next) const {
    std::vector<std::vector<const TileOpEdge*>> out(static_cast<std::size_t>(m_groupCount));
    std::set<std::pair<GroupId, GroupId>> seen;
    for (const TileOpEdge& edge : m_rules.edges) {
      GroupId from = next[static_cast<std::size_t>(edge.from)], to = next[static_cast<std::size_t>(edge.to)];
      if (from != to && seen.emplace(from, to).second) out[static_cast<std::size_t>(from)].push_back(&edge);
    }
    enum : unsigned char { White, Grey, Black };
    std::vector<unsigned char> colour(out.size(), White);
    for (std::size_t root = 0; root < out.size(); ++root) {
      if (colour[root] != White) continue;
      std::vector<std::pair<GroupId, std::size_t>> stack{{static_cast<GroupId>(root), 0}};
      std::vector<const TileOpEdge*> path;  // path[i] leads from stack[i] to stack[i + 1]
      colour[root] = Grey;
      while (!stack.empty()) {
        auto& [group, nextEdge] = stack.back();
        const auto& edges = out[static_cast<std::size_t>(group)];
        if (nextEdge == edges.size()) {
          colour[static_cast<std::size_t>(group)] = Black;
          stack.pop_back();
          if (!path.empty()) path.pop_back();
          continue;
        }
        const TileOpEdge* edge = edges[nextEdge++];
        GroupId to = next[static_cast<std::size_t>(edge->to)];
        if (colour[static_cast<std::size_t>(to)] == Grey) {
          std::size_t start = 0;
          while (stack[start].first != to) ++start;
          std::vector<const TileOpEdge*> cycle(path.begin() + static_cast<std::ptrdiff_t>(start), path.end());
          cycle.push_back(edge);
          return cycle;
        }
        if (colour[static_cast<std::size_t>(to)] == White) {
          colour[static_cast<std::size_t>(to)] = Grey;
          path.push_back(edge);
          stack.emplace_back(to, 0);
        }
      }
    }
    return {};
  }

  Subgraph trialSubgraph(GroupId group, const std::vector<TileOpId>& ops) const {
    Subgraph subgraph;
    subgraph.id = group;
    subgraph.ops = ops;
    subgraph.coreType = CoreType::AIV;
    for (TileOpId op : ops)
      if (m_tiles.tileOp(op).kind != TensorOpKind::View && m_rules.coreOf[static_cast<std::size_t>(op)] == CoreType::AIC)
        subgraph.coreType = CoreType::AIC;
    return subgraph;
  }

  // A touched subgraph may not overflow a memory its parts fitted in (a
  // part already too big is AllocateBuffers' to report, at the tile).
  bool checkBuffers(const std::map<GroupId, std::vector<TileOpId>>& members) {
    const TargetInfo& target = m_compilation.settings.target;
    for (const auto& [group, ops] : members) {
      auto peaks = plannedPeakBytes(m_tiles, target, trialSubgraph(group, ops));
      for (std::size_t m = 0; m < kMemoryKindCount; ++m) {
        auto memory = static_cast<MemoryKind>(m);
        if (memory == MemoryKind::GM || peaks[m] <= target.capacity(memory)) continue;
        std::set<GroupId> parts;
        for (TileOpId op : ops) parts.insert(m_groupOf[static_cast<std::size_t>(op)]);
        std::int64_t before = 0;
        for (GroupId part : parts) {
          std::vector<TileOpId> partOps = membersOf(m_groupOf, part);
          before = std::max(before, plannedPeakBytes(m_tiles, target, trialSubgraph(part, partOps))[m]);
        }
        if (before > target.capacity(memory)) continue;
        return error() << "would overflow " << title(memory) << ": the subgraph starting at " << tileName(ops.front())
                       << " (" << ops.size() << " tile op" << (ops.size() == 1 ? "" : "s") << ") needs " << peaks[m]
                       << " bytes of " << title(memory) << " but " << target.name << " has "
                       << target.capacity(memory) << " per core";
      }
    }
    return true;
  }

  // ---- the new block graph ----
  void rebuild() {
    BlockGraph& blocks = m_compilation.blocks;
    std::vector<std::vector<TileOpId>> members(static_cast<std::size_t>(m_groupCount));
    for (std::size_t op = 0; op < m_groupOf.size(); ++op)
      members[static_cast<std::size_t>(m_groupOf[op])].push_back(static_cast<TileOpId>(op));
    std::vector<GroupId> order;
    for (GroupId group = 0; group < m_groupCount; ++group)
      if (!members[static_cast<std::size_t>(group)].empty()) order.push_back(group);
    std::sort(order.begin(), order.end(), [&](GroupId a, GroupId b) {
      return members[static_cast<std::size_t>(a)].front() < members[static_cast<std::size_t>(b)].front();
    });
    std::vector<Subgraph> subgraphs;
    for (GroupId group : order) {
      const std::vector<TileOpId>& ops = members[static_cast<std::size_t>(group)];
      Subgraph subgraph = trialSubgraph(static_cast<SubgraphId>(subgraphs.size()), ops);
      subgraph.scope = m_rules.scopeOf[static_cast<std::size_t>(ops.front())];
      subgraph.label = m_graph.op(m_tiles.tileOp(ops.front()).tensorOp).label;
      subgraph.pinned = m_pinned[static_cast<std::size_t>(group)];
      for (TileOpId op : ops) blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] = subgraph.id;
      subgraphs.push_back(std::move(subgraph));
    }
    blocks.subgraphs = std::move(subgraphs);
    numberPrograms(m_compilation);
  }

  Compilation& m_compilation;
  const TileGraph& m_tiles;
  const TensorGraph& m_graph;
  DiagnosticEngine& m_diags;

  PartitionRules m_rules;
  bool m_share = false;         // cube and vector ops may share a subgraph
  bool m_vectorToCube = false;  // a vector result may feed the cube on chip (UB -> L1)
  std::vector<GroupId> m_groupOf;  // by TileOpId
  std::vector<bool> m_pinned;      // by group
  GroupId m_initialCount = 0;
  GroupId m_groupCount = 0;
  std::vector<int> m_tileIndex;    // by TileOpId: its place among its tensor op's tiles
  EntryReader m_reader;            // the entry being applied
};

} // namespace

bool applyPartitionOverrides(Compilation& compilation, DiagnosticEngine& diags) {
  return OverrideApplier(compilation, diags).run();
}

bool checkPartitionOverrides(const TensorGraph& graph, const nlohmann::ordered_json& entries,
                             const std::vector<SourceLocation>& locations, const std::string& projectFile,
                             DiagnosticEngine& diags) {
  if (entries.is_null() || (entries.is_array() && entries.empty())) return true;
  if (!entries.is_array())
    return diags.error(SourceLocation{projectFile}) << "partition_overrides must be a list of entries, got "
                                                    << describe(entries);
  // Before tiling, an op is taken to get tiles unless it is a view (views
  // and folded copies move no data once compiled).
  EntryReader reader(graph, diags, [](const TensorOp& op) { return op.kind != TensorOpKind::View; });
  bool ok = true;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    reader.begin(i, i < locations.size() ? locations[i] : SourceLocation{projectFile});
    ok = reader.readEntry(entries[i]) && ok;
  }
  return ok;
}

} // namespace pto
