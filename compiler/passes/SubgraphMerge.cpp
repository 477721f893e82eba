// Implementation of the merge machinery NBufferMerge and L1CopyInReuseMerge share.
#include "compiler/passes/SubgraphMerge.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/ir/Regions.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

namespace pto {

namespace {

// A merge run never looks past this many other subgraphs between its
// members: beyond that the order check would cost more than the merge gains.
constexpr std::size_t kMaxBetween = 256;

std::optional<int> parseCount(const nlohmann::ordered_json& value) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < 1 || value.get<std::int64_t>() > (1 << 20))
    return std::nullopt;
  return static_cast<int>(value.get<std::int64_t>());
}

// "func<magic>_<order>" -> order. PyPTO's integer keys ("0", "1", ...: JSON
// spells dict keys as strings) name an order in every function; a kernel
// here is one function, so they mean the same.
std::optional<int> programOfKey(const std::string& key) {
  if (!key.empty() && key.size() <= 9 && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::stoi(key);
  if (key.rfind("func", 0) != 0) return std::nullopt;
  const std::size_t underscore = key.find('_', 4);
  if (underscore == std::string::npos || underscore == 4 || underscore + 1 == key.size()) return std::nullopt;
  for (std::size_t i = 4; i < key.size(); ++i)
    if (i != underscore && (key[i] < '0' || key[i] > '9')) return std::nullopt;
  return std::stoi(key.substr(underscore + 1));
}

} // namespace

namespace {

std::optional<MergeCountSetting> parseMergeCountSetting(const nlohmann::ordered_json& json, const TensorGraph& graph,
                                                        const char* key, const SourceLocation& where,
                                                        DiagnosticEngine& diags) {
  MergeCountSetting setting;
  if (!json.is_object() || !json.contains(key)) return setting;
  setting.given = true;
  const auto& given = json[key];
  if (given.is_number_integer()) {
    setting.defaultCount = parseCount(given);
    if (!setting.defaultCount)
      return diags.error(where) << "pass_options." << key << " must be a count >= 1 or an object, got " << given.dump();
    return setting;
  }
  if (!given.is_object())
    return diags.error(where) << "pass_options." << key
                              << " must be an object such as {\"DEFAULT\": 2, \"<semantic label>\": 1} or a count, got "
                              << given.dump();
  std::set<std::string> labels;
  for (const TensorOp& op : graph.ops())
    if (!op.label.empty()) labels.insert(op.label);
  for (const auto& [name, value] : given.items()) {
    std::optional<int> count = parseCount(value);
    if (!count)
      return diags.error(where) << "pass_options." << key << "." << name << " must be a count >= 1, got "
                                << value.dump();
    if (name == "DEFAULT" || name == "-1") {
      setting.defaultCount = count;
    } else if (std::optional<int> program = programOfKey(name)) {
      setting.byProgram[*program] = *count;
    } else if (labels.count(name)) {
      setting.byLabel[name] = *count;
    } else {
      auto diagnostic = diags.error(where);
      diagnostic << "pass_options." << key << " key '" << name
                 << "' is neither \"DEFAULT\", an order (\"0\", \"func<magic>_<order>\") nor a semantic label of the kernel";
      if (!labels.empty()) {
        diagnostic << " (labels:";
        for (const std::string& label : labels) diagnostic << " '" << label << "'";
        diagnostic << ")";
      }
      return std::nullopt;
    }
  }
  return setting;
}

} // namespace

std::optional<MergeCountSetting> readMergeCountSetting(const CompileSettings& settings, const TensorGraph& graph,
                                                       const char* key, DiagnosticEngine& diags) {
  // The project's options are in its file; a jit kernel's at its decorator.
  const SourceLocation where = settings.projectFile.empty() ? graph.kernelLocation : settings.locationOf("pass_options");
  return parseMergeCountSetting(settings.passOptions, graph, key, where, diags);
}

std::optional<MergeCountSetting> groupMergeCountSetting(const Compilation& compilation, const MergeCountSetting& project,
                                                        SubgraphId first, const char* key, DiagnosticEngine& diags) {
  if (project.given) return project;
  const Subgraph& subgraph = compilation.blocks.subgraph(first);
  if (subgraph.ops.empty()) return project;
  const TensorGraph& graph = compilation.tiles.graph;
  const TensorOp& op = graph.op(compilation.tiles.tileOp(subgraph.ops.front()).tensorOp);
  return parseMergeCountSetting(op.passOptions, graph, key, op.location, diags);
}

// What a subgraph reads and writes in global-memory terms, as boxes of
// storage tensors (views resolved); view tile ops touch nothing.
struct SubgraphMerger::Access {
  std::vector<RegionBox> reads, writes;
};

struct SubgraphMerger::Boxes {
  RegionBoxes boxes;
};

SubgraphMerger::SubgraphMerger(Compilation& compilation, DiagnosticEngine& diags)
    : m_compilation(compilation), m_diags(diags), m_boxes(std::make_unique<Boxes>()) {
  const TileGraph& tiles = compilation.tiles;  // read only: a non-const tileOp() counts as a change
  const TensorGraph& graph = tiles.graph;
  m_segmentOfOp = loopSegmentOfOps(graph);
  const BlockGraph& blocks = compilation.blocks;
  m_labels.resize(blocks.subgraphs.size());
  for (const Subgraph& subgraph : blocks.subgraphs)
    for (TileOpId op : subgraph.ops) {
      const std::string& label = graph.op(tiles.tileOp(op).tensorOp).label;
      if (!label.empty()) m_labels[static_cast<std::size_t>(subgraph.id)].insert(label);
    }
  m_access.resize(blocks.subgraphs.size());
}

SubgraphMerger::~SubgraphMerger() = default;

int SubgraphMerger::groupCount(const MergeCountSetting& setting, int programId,
                               const std::vector<SubgraphId>& group) const {
  if (!setting.given || group.empty()) return 1;
  int count = 0;
  if (auto found = setting.byProgram.find(programId); found != setting.byProgram.end()) count = found->second;
  else if (setting.defaultCount) count = *setting.defaultCount;
  else {
    const TargetInfo& target = m_compilation.settings.target;
    const CoreType type = m_compilation.blocks.subgraph(group.front()).coreType;
    const int cores = std::max(1, type == CoreType::AIC ? target.aicCores : target.aivCores);
    count = std::max(1, static_cast<int>(group.size()) / cores);
  }
  int byLabel = 0;
  for (SubgraphId id : group)
    if (std::optional<int> labelled = labelCount(setting, id)) byLabel = std::max(byLabel, *labelled);
  return byLabel > 0 ? byLabel : count;
}

std::optional<int> SubgraphMerger::labelCount(const MergeCountSetting& setting, SubgraphId subgraph) const {
  std::optional<int> count;
  for (const std::string& label : m_labels[static_cast<std::size_t>(subgraph)])
    if (auto found = setting.byLabel.find(label); found != setting.byLabel.end())
      count = std::max(count.value_or(0), found->second);
  return count;
}

const SubgraphMerger::Access& SubgraphMerger::accessOf(SubgraphId id) {
  std::unique_ptr<Access>& access = m_access[static_cast<std::size_t>(id)];
  if (access) return *access;
  access = std::make_unique<Access>();
  const TileGraph& tiles = m_compilation.tiles;
  for (TileOpId opId : m_compilation.blocks.subgraph(id).ops) {
    const TileOp& op = tiles.tileOp(opId);
    if (op.kind == TensorOpKind::View) continue;
    for (const TileRegion& input : op.inputs)
      access->reads.push_back(m_boxes->boxes.box(resolveViews(tiles.graph, input)));
    for (const TileRegion& output : op.outputs) {
      RegionBox box = m_boxes->boxes.box(resolveViews(tiles.graph, output));
      if (op.accumulate != TileAccumulate::None) access->reads.push_back(box);
      access->writes.push_back(box);
    }
  }
  return *access;
}

bool SubgraphMerger::conflict(SubgraphId a, SubgraphId b) {
  const Access& first = accessOf(a);
  const Access& second = accessOf(b);
  auto any = [](const std::vector<RegionBox>& xs, const std::vector<RegionBox>& ys) {
    for (const RegionBox& x : xs)
      for (const RegionBox& y : ys)
        if (mayOverlap(x, y, OverlapMode::SameIteration)) return true;
    return false;
  };
  return any(first.writes, second.reads) || any(first.writes, second.writes) || any(first.reads, second.writes);
}

bool SubgraphMerger::mayJoin(const std::vector<SubgraphId>& run, SubgraphId next) {
  const BlockGraph& blocks = m_compilation.blocks;
  const TileGraph& tiles = m_compilation.tiles;
  const Subgraph& head = blocks.subgraph(run.front());
  const Subgraph& candidate = blocks.subgraph(next);
  if (candidate.scope != head.scope || candidate.coreType != head.coreType || candidate.pinned || head.pinned)
    return false;
  auto segmentOf = [&](const Subgraph& subgraph) {
    return m_segmentOfOp[static_cast<std::size_t>(tiles.tileOp(subgraph.ops.front()).tensorOp)];
  };
  if (segmentOf(candidate) != segmentOf(head)) return false;
  // The subgraphs between the run's head and the candidate that are not in
  // the run: the candidate now runs before them, so it must not touch what
  // they touch.
  std::size_t between = 0;
  std::size_t member = 0;
  for (SubgraphId id = run.front() + 1; id < next; ++id) {
    while (member < run.size() && run[member] < id) ++member;
    if (member < run.size() && run[member] == id) continue;
    if (blocks.subgraph(id).scope != head.scope) continue;
    if (++between > kMaxBetween || conflict(id, next)) return false;
  }
  return true;
}

Subgraph SubgraphMerger::mergedSubgraph(const std::vector<SubgraphId>& members) const {
  const BlockGraph& blocks = m_compilation.blocks;
  const Subgraph& head = blocks.subgraph(members.front());
  Subgraph merged;
  merged.id = head.id;
  merged.scope = head.scope;
  merged.coreType = head.coreType;
  merged.label = head.label;
  for (SubgraphId id : members) {
    const Subgraph& member = blocks.subgraph(id);
    const int base = static_cast<int>(merged.ops.size());
    if (member.memberStarts.empty()) merged.memberStarts.push_back(base);
    for (int start : member.memberStarts) merged.memberStarts.push_back(base + start);
    merged.ops.insert(merged.ops.end(), member.ops.begin(), member.ops.end());
  }
  return merged;
}

bool SubgraphMerger::fits(const std::vector<SubgraphId>& members) const {
  const SubgraphBufferPlan plan =
      planSubgraphPeaks(m_compilation.tiles, m_compilation.settings.target, mergedSubgraph(members));
  return fitsCapacities(plan, m_compilation.settings.target);
}

SubgraphMerger::ChunkResult SubgraphMerger::chunk(const std::vector<SubgraphId>& candidates, int count) {
  ChunkResult result;
  if (count < 2) return result;
  // Isomorphic runs need about the same bytes, so a length that did not fit
  // once bounds the later runs (each run taken is still checked).
  int limit = count;
  std::size_t i = 0;
  while (i < candidates.size()) {
    std::vector<SubgraphId> run{candidates[i]};
    std::size_t j = i + 1;
    while (static_cast<int>(run.size()) < limit && j < candidates.size() && mayJoin(run, candidates[j]))
      run.push_back(candidates[j++]);
    if (run.size() > 1 && !fits(run)) {
      // The longest prefix that fits (peaks grow with the members).
      std::size_t low = 1, high = run.size() - 1;
      while (low < high) {
        std::size_t middle = (low + high + 1) / 2;
        if (fits(std::vector<SubgraphId>(run.begin(), run.begin() + static_cast<std::ptrdiff_t>(middle))))
          low = middle;
        else
          high = middle - 1;
      }
      limit = std::max(1, static_cast<int>(low));
      result.capacityLimit = limit;
      run.resize(low);
      j = i + low;
    }
    if (run.size() > 1) {
      m_merges.push_back(run);
      ++result.merges;
    }
    i = std::max(j, i + 1);
    if (limit < 2) break;  // not even two fit
  }
  return result;
}

std::string SubgraphMerger::canonicalRelations(const Subgraph& merged) {
  // Each storage tensor gets a slot in order of first use; every region is
  // written as its slot and its offset from the slot's first region (a
  // number where the symbolic parts agree, else the simplified difference).
  const TileGraph& tiles = m_compilation.tiles;
  struct Slot {
    std::size_t number;
    RegionBox box;
    TileRegion region;
  };
  std::unordered_map<TensorId, Slot> slots;
  std::string text;
  auto region = [&](const TileRegion& given) {
    const TileRegion r = resolveViews(tiles.graph, given);
    const RegionBox box = m_boxes->boxes.box(r);
    auto [it, inserted] = slots.try_emplace(r.tensor, Slot{slots.size(), box, r});
    const Slot& first = it->second;
    text += " s" + std::to_string(first.number) + "@";
    for (std::size_t d = 0; d < r.shape.size(); ++d) {
      if (d < box.rank && box.symbol[d] == first.box.symbol[d])
        text += std::to_string(box.lo[d] - first.box.lo[d]);
      else
        text += "(" + simplify(r.offsets[d] - first.region.offsets[d]).str() + ")";
      text += ":" + std::to_string(r.shape[d]) + ",";
    }
  };
  for (std::size_t k = 0; k < merged.memberStarts.size(); ++k) text += " m" + std::to_string(merged.memberStarts[k]);
  for (TileOpId id : merged.ops) {
    const TileOp& op = tiles.tileOp(id);
    text += "\n";
    if (op.kind == TensorOpKind::View) continue;
    for (const TileRegion& input : op.inputs) region(input);
    text += " ->";
    for (const TileRegion& output : op.outputs) region(output);
  }
  return text;
}

void SubgraphMerger::apply() {
  if (m_merges.empty()) return;
  BlockGraph& blocks = m_compilation.blocks;
  std::vector<int> mergeOf(blocks.subgraphs.size(), -1);
  for (std::size_t m = 0; m < m_merges.size(); ++m)
    for (SubgraphId id : m_merges[m]) mergeOf[static_cast<std::size_t>(id)] = static_cast<int>(m);
  std::vector<Subgraph> rebuilt;
  std::vector<std::string> keys;
  for (const Subgraph& subgraph : blocks.subgraphs) {
    const int merge = mergeOf[static_cast<std::size_t>(subgraph.id)];
    if (merge < 0) {
      rebuilt.push_back(subgraph);
      keys.push_back("p" + std::to_string(subgraph.programId));
      continue;
    }
    const std::vector<SubgraphId>& members = m_merges[static_cast<std::size_t>(merge)];
    if (members.front() != subgraph.id) continue;  // merged into its head
    Subgraph merged = mergedSubgraph(members);
    std::string key = std::string(name(merged.coreType)) + " merged";
    for (SubgraphId id : members) key += " p" + std::to_string(blocks.subgraph(id).programId);
    key += canonicalRelations(merged);
    rebuilt.push_back(std::move(merged));
    keys.push_back(std::move(key));
  }
  // Fresh ids in the same order (still the order of first tile ops), and
  // programs numbered in order of first use.
  std::unordered_map<std::string, int> programs;
  blocks.subgraphOfTileOp.assign(m_compilation.tiles.tileOps().size(), kNoId);
  for (std::size_t s = 0; s < rebuilt.size(); ++s) {
    Subgraph& subgraph = rebuilt[s];
    subgraph.id = static_cast<SubgraphId>(s);
    subgraph.programId = programs.try_emplace(keys[s], static_cast<int>(programs.size())).first->second;
    for (TileOpId op : subgraph.ops) blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] = subgraph.id;
  }
  blocks.subgraphs = std::move(rebuilt);
  blocks.programCount = static_cast<int>(programs.size());
  m_merges.clear();
}

void warnClamped(const Compilation& compilation, DiagnosticEngine& diags, std::string_view option, SubgraphId first,
                 int asked, int used) {
  const Subgraph& subgraph = compilation.blocks.subgraph(first);
  const TileGraph& tiles = compilation.tiles;
  diags.warning(tiles.graph.op(tiles.tileOp(subgraph.ops.front()).tensorOp).location)
      << option << " asks for " << asked << " subgraphs of program " << subgraph.programId << " ("
      << name(subgraph.coreType) << (subgraph.label.empty() ? "" : ", label '" + subgraph.label + "'")
      << ") per task, but only " << used << " fit in " << compilation.settings.target.name
      << "'s on-chip buffers; merged " << used << " per task";
}

void mergeIsomorphicGroups(Compilation& compilation, DiagnosticEngine& diags, CoreType type,
                           const MergeCountSetting& projectSetting, std::string_view option) {
  SubgraphMerger merger(compilation, diags);
  const std::string key(option);  // the pass option's name, as the settings spell it
  std::map<std::pair<ScopeId, int>, std::vector<SubgraphId>> groups;
  std::vector<std::pair<ScopeId, int>> order;  // groups by first subgraph
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) {
    if (subgraph.coreType != type || subgraph.pinned) continue;
    auto [it, inserted] = groups.try_emplace({subgraph.scope, subgraph.programId});
    if (inserted) order.push_back(it->first);
    it->second.push_back(subgraph.id);
  }
  for (const auto& at : order) {
    const std::vector<SubgraphId>& group = groups[at];
    const std::optional<MergeCountSetting> setting =
        groupMergeCountSetting(compilation, projectSetting, group.front(), key.c_str(), diags);
    if (!setting || !setting->given) continue;
    const int count = merger.groupCount(*setting, at.second, group);
    const SubgraphMerger::ChunkResult result = merger.chunk(group, count);
    if (result.capacityLimit > 0) warnClamped(compilation, diags, option, group.front(), count, result.capacityLimit);
  }
  merger.apply();
}

} // namespace pto
