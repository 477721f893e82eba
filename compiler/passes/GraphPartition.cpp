// GraphPartition: its options, and the Partitioner's per-op facts, groups,
// on-chip capacity and single scopes. Edges and assembly are under partition/.
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/partition/Partitioner.h"

#include "compiler/ir/ExecuteGraph.h"
#include "compiler/ir/Regions.h"
#include "compiler/ir/TensorGraphJson.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <climits>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <span>
#include <string>
#include <unordered_set>

namespace pto {

// ---------------------------------------------------------------------------
// The pass

namespace {

using partition::Options;

std::optional<Options> readOptions(const CompileSettings& settings, DiagnosticEngine& diags) {
  const std::vector<OptionInfo>& declared = graphPartitionOptions();
  const OptionInfo& copyInBound = *findDeclaration(declared, "mg_copyin_upper_bound");
  const OptionInfo& parallelBound = *findDeclaration(declared, "pg_parallel_lower_bound");
  Options options;
  options.copyInUpperBound = copyInBound.defaultInteger();
  options.parallelLowerBound = parallelBound.defaultInteger();
  // The machine decides; pass_options.machine_has_l0c_to_ub overrides it (what-if experiments, tests).
  options.cubeVectorMayShare = settings.target.hasL0cToUb;
  options.vectorCubeMayShare = settings.target.hasUbToL1;
  const nlohmann::ordered_json& json = settings.passOptions;
  if (!json.is_object()) return options;
  const SourceLocation where = settings.locationOf("pass_options");
  auto integer = [&](const OptionInfo& declaration, std::int64_t& value) -> bool {
    const std::string& key = declaration.name;
    if (!json.contains(key)) return true;
    const auto& given = json[key];
    if (!given.is_number_integer() || given.get<std::int64_t>() < declaration.minimum)
      return diags.error(where) << "pass_options." << key << " must be an integer >= " << declaration.minimum
                                << ", got " << given.dump();
    value = given.get<std::int64_t>();
    return true;
  };
  if (!integer(copyInBound, options.copyInUpperBound)) return std::nullopt;
  if (!integer(parallelBound, options.parallelLowerBound)) return std::nullopt;
  if (json.contains("machine_has_l0c_to_ub")) {
    const auto& given = json["machine_has_l0c_to_ub"];
    if (!given.is_boolean())
      return diags.error(where) << "pass_options.machine_has_l0c_to_ub must be true or false, got " << given.dump();
    options.cubeVectorMayShare = given.get<bool>();
  }
  if (json.contains("sg_set_scope")) {
    const auto& given = json["sg_set_scope"];
    if (given.is_object()) {
      for (const auto& [label, id] : given.items()) {
        if (!id.is_number_integer())
          return diags.error(where) << "pass_options.sg_set_scope." << label << " must be an integer scope id, got "
                                    << id.dump();
        if (id.get<std::int64_t>() >= 0) options.pinOfLabel[label] = "id " + std::to_string(id.get<std::int64_t>());
      }
    } else if (given.is_array()) {
      for (const auto& label : given) {
        if (!label.is_string())
          return diags.error(where) << "pass_options.sg_set_scope must list semantic labels (strings), got "
                                    << label.dump();
        options.pinOfLabel[label.get<std::string>()] = "labels";
      }
    } else {
      return diags.error(where) << "pass_options.sg_set_scope must be an object {\"label\": id} or a list of "
                                << "labels, got " << given.dump();
    }
  }
  return options;
}

} // namespace

const std::vector<OptionInfo>& graphPartitionOptions() {
  static const std::vector<OptionInfo> declarations = [] {
    const auto P = OptionScope::Pass;
    std::vector<OptionInfo> list;
    // PyPTO's default (tile_fwk_config.json): large enough that a matmul's
    // whole k-chain stays in one subgraph instead of accumulating through GM.
    list.push_back(declareOption("mg_copyin_upper_bound", P, OptionType::Int, std::int64_t{100} << 20,
                                 "104857600 (100 MiB, as PyPTO)",
                                 "Largest global-memory copy-in one fused subgraph may gather, in bytes; lower it to "
                                 "cut big fusions into more, smaller tasks (a matmul's k-chain cut this way "
                                 "accumulates through global memory).",
                                 "GraphPartition")
                       .range(1, std::int64_t{1} << 40));
    list.push_back(declareOption("pg_parallel_lower_bound", P, OptionType::Int, 1, "1 (off)",
                                 "Split a loop body's largest subgraphs along independent outputs until it has at "
                                 "least this many, to keep more cores busy.",
                                 "GraphPartition")
                       .range(1, std::int64_t{1} << 20));
    list.push_back(declareOption("sg_set_scope", P, OptionType::LabelMap, nlohmann::ordered_json::object(), "none",
                                 "Pin the ops of these semantic labels into one subgraph per id: {\"label\": id} or "
                                 "[\"label\", ...].",
                                 "GraphPartition"));
    list.push_back(declareOption("machine_has_l0c_to_ub", P, OptionType::Bool, nullptr, "the machine's (a2: false)",
                                 "What-if: pretend the cube's L0C can feed the vector unit's UB directly, so matmul "
                                 "results stay on chip.",
                                 "GraphPartition"));
    return list;
  }();
  return declarations;
}

namespace partition {

bool Partitioner::run() {
  BlockGraph& blocks = m_compilation.blocks;
  blocks = BlockGraph{};
  std::vector<ScopeId> scopeOfOp;
  blocks.scopes = collectScopes(m_graph, scopeOfOp);
  classifyOps();
  collectBoxes();

  std::vector<std::vector<Part>> partsOfScope(blocks.scopes.size());
  for (const Scope& scope : blocks.scopes) {
    std::vector<TileOpId> ops;
    for (OpId op : scope.ops)
      for (TileOpId tile : m_tiles.tilesOf(op)) ops.push_back(tile);
    std::sort(ops.begin(), ops.end());
    if (!partitionScope(ops, partsOfScope[static_cast<std::size_t>(scope.id)])) return false;
  }
  return assemble(partsOfScope);
}

// ---- per tile op facts ----
void Partitioner::classifyOps() {
  m_segmentOfOp = loopSegmentOfOps(m_graph);
  m_core.resize(m_tiles.tileOps().size());
  for (const TileOp& op : m_tiles.tileOps()) {
    bool cube = op.kind == TensorOpKind::Matmul || gathersIntoL1(op) ||
                (op.kind == TensorOpKind::Cast && m_graph.op(op.tensorOp).kind == TensorOpKind::Matmul);
    m_core[static_cast<std::size_t>(op.id)] = cube ? CoreType::AIC : CoreType::AIV;
  }
  m_pinOfOp.assign(m_graph.ops().size(), -1);
  m_scopeRunOfOp.assign(m_graph.ops().size(), -1);
  std::map<std::string, std::int32_t> pinIds;
  std::string previousKey;  // the scope of the op recorded before, "" for none
  std::int32_t runs = 0;
  for (const TensorOp& op : m_graph.ops()) {
    std::string key;
    bool inKernel = false;  // the kernel's own pypto.set_pass_options(sg_set_scope=id), not a label's pin
    if (auto found = m_options.pinOfLabel.find(op.label); !op.label.empty() && found != m_options.pinOfLabel.end()) {
      key = found->second;
    } else if (op.passOptions.is_object() && op.passOptions.contains("sg_set_scope") &&
               op.passOptions["sg_set_scope"].is_number_integer() &&
               op.passOptions["sg_set_scope"].get<std::int64_t>() >= 0) {
      key = "id " + std::to_string(op.passOptions["sg_set_scope"].get<std::int64_t>());
      inKernel = true;
    }
    // A run: ops recorded one after another inside one sg_set_scope=id ... -1 region of the kernel. Ops a
    // label pins are one run whatever lies between them: the label names the whole group.
    if (inKernel && key != previousKey) ++runs;
    previousKey = inKernel ? key : std::string();
    if (key.empty()) continue;
    m_scopeRunOfOp[static_cast<std::size_t>(op.id)] = inKernel ? runs : 0;
    auto [it, inserted] = pinIds.try_emplace(key, static_cast<std::int32_t>(m_pinNames.size()));
    if (inserted) m_pinNames.push_back(key);
    m_pinOfOp[static_cast<std::size_t>(op.id)] = it->second;
  }
}

std::int32_t Partitioner::segmentOf(std::int32_t local) const {
  return m_segmentOfOp[static_cast<std::size_t>(tileOf(local).tensorOp)];
}

std::int32_t Partitioner::pinOf(std::int32_t local) const {
  return m_pinOfOp[static_cast<std::size_t>(tileOf(local).tensorOp)];
}

std::int32_t Partitioner::scopeRunOf(std::int32_t local) const {
  return m_scopeRunOfOp[static_cast<std::size_t>(tileOf(local).tensorOp)];
}

// ---- groups ----
std::int32_t Partitioner::find(std::int32_t id) {
  while (m_groups[static_cast<std::size_t>(id)].parent != id) {
    Group& g = m_groups[static_cast<std::size_t>(id)];
    g.parent = m_groups[static_cast<std::size_t>(g.parent)].parent;
    id = g.parent;
  }
  return id;
}

std::int32_t Partitioner::newGroup(std::int32_t pin, std::int32_t first) {
  auto id = static_cast<std::int32_t>(m_groups.size());
  Group g;
  g.parent = id;
  g.pin = pin;
  g.first = first;
  g.segment = segmentOf(first);
  m_groups.push_back(std::move(g));
  m_mark.push_back(0);
  return id;
}

// Places tile op `v` (local index) into a group: the groups of its data
// producers that the data may stay in, latest-starting first, as many as
// keep every edge running forward in first-op order and the copy-in bound.
bool Partitioner::place(std::int32_t v) {
  auto vi = static_cast<std::size_t>(v);
  CoreType type = coreOf(v);
  std::int32_t pin = pinOf(v);
  std::int32_t segment = segmentOf(v);
  auto reads = static_cast<std::size_t>(m_readStart[vi + 1] - m_readStart[vi]);

  // Predecessor groups; data producers by group: (group, read, producer).
  std::uint32_t predMark = ++m_markStamp;
  m_predGroups.clear();
  // The working lists below are members kept from one op to the next: a
  // dozen vectors and sets made and freed per op were most of placing one.
  std::vector<std::array<std::int32_t, 3>>& data = m_placeData;
  data.clear();
  m_producers.assign(reads, 0);
  for (std::int32_t p = m_predStart[vi]; p < m_predStart[vi + 1]; ++p) {
    const Pred& pred = m_preds[static_cast<std::size_t>(p)];
    std::int32_t g = groupOfOp(pred.from);
    if (pred.read >= 0) {
      data.push_back({g, pred.read, pred.from});
      ++m_producers[static_cast<std::size_t>(pred.read)];
    }
    if (m_mark[static_cast<std::size_t>(g)] == predMark) continue;
    m_mark[static_cast<std::size_t>(g)] = predMark;
    m_predGroups.push_back(g);
  }
  std::sort(data.begin(), data.end());
  auto producedBy = [&](std::int32_t g) {
    return std::equal_range(data.begin(), data.end(), std::array<std::int32_t, 3>{g, INT32_MIN, INT32_MIN},
                            [](const auto& a, const auto& b) { return a[0] < b[0]; });
  };
  // A producer in `g` whose data cannot reach v on chip, or -1.
  auto offChipProducer = [&](std::int32_t g) -> std::int32_t {
    auto [from, to] = producedBy(g);
    for (auto it = from; it != to; ++it)
      if (!onChip(coreOf((*it)[2]), type, m_options)) return (*it)[2];
    return -1;
  };

  std::vector<std::int32_t>& chosen = m_placeChosen;
  chosen.clear();
  std::vector<std::int32_t>& inside = m_placeInside;  // producers of each read inside the chosen groups
  inside.assign(reads, 0);
  // Copy-in of the chosen groups: the base group's set (the largest) plus
  // `extras`, the others' regions beyond it; and v's own beyond those.
  std::int32_t base = -1;
  std::unordered_set<std::int32_t>& extras = m_placeExtras;
  extras.clear();
  std::int64_t extrasBytes = 0;
  std::vector<std::int32_t>& ownRegions = m_placeOwnRegions;
  ownRegions.clear();
  std::int64_t ownBytes = 0;

  std::pair<std::int32_t, std::int32_t> pinKey{pin, segment};
  if (pin >= 0 && m_pinGroup.count(pinKey)) {
    std::int32_t target = find(m_pinGroup[pinKey]);
    chosen.push_back(target);
    const TensorOp& op = m_graph.op(tileOf(v).tensorOp);
    const TensorOp& first = m_graph.op(tileOf(group(target).first).tensorOp);
    std::string groupName = "sg_set_scope (" + m_pinNames[static_cast<std::size_t>(pin)] + ")";
    bool cube = group(target).cube || type == CoreType::AIC, vector = group(target).vector || type == CoreType::AIV;
    if (cube && vector && !mixedSubgraphs(m_options)) {
      auto error = m_placeDiags->error(op.location);
      error << groupName << " puts " << name(op.kind) << " (" << name(type) << ") into one subgraph with "
            << (type == CoreType::AIC ? "vector" : "cube") << " ops, but this machine cannot pass data between "
            << "cube and vector cores on chip; give the " << (type == CoreType::AIC ? "cube" : "vector")
            << " ops their own sg_set_scope id";
      error.note(first.location, "the group starts here");
      return false;
    }
    if (std::int32_t producer = offChipProducer(target); producer >= 0) {
      auto error = m_placeDiags->error(op.location);
      error << groupName << " puts " << name(op.kind) << " into one subgraph with the "
            << name(tileOf(producer).kind) << " that produces its input, but data cannot move from the vector "
            << "unit to the cube on chip; give the cube ops their own sg_set_scope id";
      error.note(m_graph.op(tileOf(producer).tensorOp).location, "the producer is here");
      return false;
    }
    for (std::int32_t h : m_predGroups) {
      if (h == target || group(h).first < group(target).first) continue;
      // A later sg_set_scope region reusing the id (Kimi's block attention residuals set id 1 twice in
      // one loop body, the second reading ops between the two) cannot join the first one's subgraph:
      // PyPTO runs such a kernel, so the later region starts the id's next subgraph.
      if (scopeRunOf(v) != scopeRunOf(group(target).first)) {
        chosen.clear();
        break;
      }
      const TensorOp& other = m_graph.op(tileOf(group(h).first).tensorOp);
      auto error = m_placeDiags->error(op.location);
      error << groupName << " cannot keep " << name(op.kind) << " in the group's subgraph: it needs data from a "
            << "subgraph that starts after the group's first op, so neither subgraph could run first; add that "
            << "subgraph's ops (from " << name(other.kind) << ") to the group, or start a new sg_set_scope id here";
      error.note(first.location, "the group starts here");
      error.note(other.location, "the other subgraph starts here");
      return false;
    }
  } else if (pin < 0) {
    // Candidates: groups of data producers whose data may stay on chip.
    std::vector<std::int32_t>& candidates = m_placeCandidates;
    candidates.clear();
    std::uint32_t candidateMark = ++m_markStamp;
    for (const auto& [g, k, producer] : data) {
      if (!onChip(coreOf(producer), type, m_options) || group(g).pin >= 0 ||
          group(g).segment != segment || m_mark[static_cast<std::size_t>(g)] == candidateMark)
        continue;
      m_mark[static_cast<std::size_t>(g)] = candidateMark;
      candidates.push_back(g);
    }
    // A feasible set is a run of the latest-starting candidates: any
    // predecessor group left out must start before the merged group.
    std::int32_t latestOther = -1;
    for (std::int32_t h : m_predGroups)
      if (m_mark[static_cast<std::size_t>(h)] != candidateMark) latestOther = std::max(latestOther, group(h).first);
    std::sort(candidates.begin(), candidates.end(),
              [&](std::int32_t a, std::int32_t b) { return group(a).first > group(b).first; });
    std::int32_t maxInFirst = -1;
    std::int64_t largestPart = 0;  // the largest copy-in of a chosen group
    for (std::int32_t candidate : candidates) {
      const Group& g = group(candidate);
      if (g.first <= latestOther || std::max(maxInFirst, g.maxInFirst) >= g.first || offChipProducer(candidate) >= 0)
        break;
      std::vector<std::int32_t>& trialInside = m_placeTrialInside;
      trialInside = inside;
      auto [from, to] = producedBy(candidate);
      for (auto it = from; it != to; ++it) ++trialInside[static_cast<std::size_t>((*it)[1])];
      // The union of the chosen groups' copy-ins and the candidate's,
      // iterating the smaller side.
      bool swap = base >= 0 && g.copyIns.size() > group(base).copyIns.size() + extras.size();
      std::vector<std::int32_t>& added = m_placeAdded;  // new extras (relative to the new base)
      added.clear();
      std::int64_t addedBytes = 0;
      if (base >= 0 && !swap) {
        for (std::int32_t region : g.copyIns)
          if (!group(base).copyIns.count(region) && !extras.count(region)) {
            added.push_back(region);
            addedBytes += m_regionBytes[static_cast<std::size_t>(region)];
          }
      } else if (swap) {
        auto keep = [&](std::int32_t region) {
          if (g.copyIns.count(region)) return;
          added.push_back(region);
          addedBytes += m_regionBytes[static_cast<std::size_t>(region)];
        };
        for (std::int32_t region : group(base).copyIns) keep(region);
        for (std::int32_t region : extras) keep(region);
      }
      const Group& newBase = base < 0 || swap ? g : group(base);
      std::int64_t groupsBytes = newBase.copyInBytes + (swap ? addedBytes : extrasBytes + addedBytes);
      std::unordered_set<std::int32_t>& addedSet = m_placeAddedSet;
      addedSet.clear();
      addedSet.insert(added.begin(), added.end());
      std::vector<std::int32_t>& own = m_placeOwn;
      own.clear();
      std::int64_t ownTrialBytes = 0;
      ownCopyIns(v, trialInside, [&](std::int32_t region) {
        bool known = newBase.copyIns.count(region) || addedSet.count(region) || (!swap && extras.count(region)) ||
                     std::find(own.begin(), own.end(), region) != own.end();
        if (known) return;
        own.push_back(region);
        ownTrialBytes += m_regionBytes[static_cast<std::size_t>(region)];
      });
      std::int64_t total = groupsBytes + ownTrialBytes;
      if (total > m_options.copyInUpperBound && total > std::max(largestPart, g.copyInBytes)) break;
      if (m_capacityChecked[vi] && !fitsWith(chosen, candidate, v)) break;

      chosen.push_back(candidate);
      inside.swap(trialInside);
      if (swap) {
        extras.swap(addedSet);
        extrasBytes = addedBytes;
      } else {
        extras.insert(added.begin(), added.end());
        extrasBytes += addedBytes;
      }
      if (base < 0 || swap) base = candidate;
      ownRegions.swap(own);
      ownBytes = ownTrialBytes;
      largestPart = std::max(largestPart, g.copyInBytes);
      maxInFirst = std::max(maxInFirst, g.maxInFirst);
    }
    // A read produced only in part inside the chosen groups would be
    // copied in from GM by a subgraph that itself writes the rest of it
    // later (a [1, 64, 64] slice of a reshape cut into [8, 1, 192] tiles):
    // the load cannot see its own subgraph's store. Such a consumer starts
    // a subgraph of its own and reads all of it from GM.
    for (std::size_t k = 0; k < reads; ++k)
      if (inside[k] > 0 && inside[k] < m_producers[k]) {
        chosen.clear();
        std::fill(inside.begin(), inside.end(), 0);
        break;
      }
  }

  std::int32_t home;
  if (chosen.empty()) {
    home = newGroup(pin, v);
    Group& g = group(home);
    ownCopyIns(v, inside, [&](std::int32_t region) {
      if (g.copyIns.insert(region).second) g.copyInBytes += m_regionBytes[static_cast<std::size_t>(region)];
    });
    if (pin >= 0) m_pinGroup[pinKey] = home;
  } else {
    // The base group (largest copy-in set) absorbs the others.
    home = pin >= 0 ? chosen.front() : base;
    if (pin < 0) {
      Group& merged = group(home);
      merged.copyIns.insert(extras.begin(), extras.end());
      merged.copyIns.insert(ownRegions.begin(), ownRegions.end());
      merged.copyInBytes += extrasBytes + ownBytes;
    }
    for (std::int32_t id : chosen) {
      if (id == home) continue;
      Group& other = group(id);
      Group& merged = group(home);
      other.parent = home;
      merged.size += other.size;
      merged.first = std::min(merged.first, other.first);
      merged.maxInFirst = std::max(merged.maxInFirst, other.maxInFirst);
      merged.cube = merged.cube || other.cube;
      merged.vector = merged.vector || other.vector;
      merged.members.insert(merged.members.end(), other.members.begin(), other.members.end());
      merged.operandBytes += other.operandBytes;
      std::unordered_set<std::int32_t>().swap(other.copyIns);
      std::vector<std::int32_t>().swap(other.members);
    }
  }
  Group& g = group(home);
  g.size += 1;
  g.members.push_back(v);
  g.operandBytes += m_operandBytes[vi];
  (type == CoreType::AIC ? g.cube : g.vector) = true;
  m_groupOf[vi] = home;
  for (std::int32_t h : m_predGroups) {
    std::int32_t from = find(h);
    if (from != home) g.maxInFirst = std::max(g.maxInFirst, group(from).first);
  }
  return true;
}

// ---- on-chip capacity ----
// Operand tile bytes of each op of the scope, as AllocateBuffers sizes
// buffers: a group's sum bounds its plan's peak in every memory (each
// buffer holds one operand's tile, and first fit never places a buffer
// above the sum of the others).
void Partitioner::measureOperands() {
  const TargetInfo& target = m_compilation.settings.target;
  m_operandBytes.assign(m_ops.size(), 0);
  for (std::size_t v = 0; v < m_ops.size(); ++v) {
    const TileOp& op = m_tiles.tileOp(m_ops[v]);
    for (const auto* list : {&op.inputs, &op.outputs})
      for (const TileRegion& region : *list)
        m_operandBytes[v] += tileBytes(region.shape, m_graph.tensor(region.tensor).dtype,
                                       target.allocationGranularityBytes);
  }
}

// The smallest on-chip memory a subgraph of this kind plans buffers in.
std::int64_t Partitioner::smallestCapacity(bool cube) const {
  const TargetInfo& target = m_compilation.settings.target;
  if (!cube) return target.capacity(MemoryKind::UB);
  return std::min({target.capacity(MemoryKind::L1), target.capacity(MemoryKind::L0A),
                   target.capacity(MemoryKind::L0B), target.capacity(MemoryKind::L0C)});
}

// Whether a subgraph of these ops (local indices) keeps every memory
// within the machine, buffers reused as soon as they are dead (the most
// AllocateBuffers can fall back to).
bool Partitioner::fitsOnChip(std::vector<std::int32_t> locals, bool cube, std::int64_t operandBytes) const {
  if (operandBytes <= smallestCapacity(cube)) return true;
  std::sort(locals.begin(), locals.end());
  Subgraph trial;
  trial.coreType = cube ? CoreType::AIC : CoreType::AIV;
  trial.ops.reserve(locals.size());
  for (std::int32_t v : locals) trial.ops.push_back(m_ops[static_cast<std::size_t>(v)]);
  const TargetInfo& target = m_compilation.settings.target;
  return fitsCapacities(planSubgraphPeaks(m_tiles, target, trial, BufferOverlap::Single), target);
}

// Whether op `v` fits on chip together with the groups `chosen` and `extra`.
bool Partitioner::fitsWith(const std::vector<std::int32_t>& chosen, std::int32_t extra, std::int32_t v) {
  bool cube = coreOf(v) == CoreType::AIC;
  std::int64_t bytes = m_operandBytes[static_cast<std::size_t>(v)];
  std::vector<std::int32_t> locals{v};
  for (std::int32_t id : chosen) {
    cube = cube || group(id).cube;
    bytes += group(id).operandBytes;
  }
  cube = cube || group(extra).cube;
  bytes += group(extra).operandBytes;
  if (bytes <= smallestCapacity(cube)) return true;
  std::size_t size = 1 + group(extra).members.size();
  for (std::int32_t id : chosen) size += group(id).members.size();
  // Planning costs the group's size, and a scope's ops are checked one by one: past a bound, a merge of
  // ops whose group overflowed once is refused unplanned, so the checks stay linear in the scope (PyPTO's
  // sparse attention places 18 000 such ops in one scope).
  if (size > kMaxCheckedGroupOps) return false;
  for (std::int32_t id : chosen) locals.insert(locals.end(), group(id).members.begin(), group(id).members.end());
  locals.insert(locals.end(), group(extra).members.begin(), group(extra).members.end());
  return fitsOnChip(std::move(locals), cube, bytes);
}

// Marks the ops of every unpinned group that overflows a memory, so that
// the next placement checks their merges; false when nothing new is marked.
// Pinned groups, and groups with an op too big for the machine on its own
// (no cut would help; the tile shape must change), stay as they are for
// AllocateBuffers to report at the kernel line. With `everyOp` (a round
// after the first that still overflows), every unpinned op of the scope is
// marked instead: an unchecked op placed anew may join the group its
// checked neighbours left (a tile shared by all of a scope's chains, as the
// Cmps bit form's weights, pulls in each round the next chains up to the
// copy-in bound), and a few rounds would not reach the end of a long scope.
// A first round that settles the partition stays as it was.
bool Partitioner::markOverfullGroups(bool everyOp) {
  bool marked = false;
  auto mark = [&](std::size_t v) {
    if (m_capacityChecked[v]) return;
    m_capacityChecked[v] = true;
    marked = true;
  };
  bool overflowed = false;
  std::uint32_t seen = ++m_markStamp;
  for (std::size_t v = 0; v < m_ops.size(); ++v) {
    std::int32_t root = groupOfOp(static_cast<std::int32_t>(v));
    if (m_mark[static_cast<std::size_t>(root)] == seen) continue;
    m_mark[static_cast<std::size_t>(root)] = seen;
    const Group& g = group(root);
    if (g.pin >= 0 || fitsOnChip(g.members, g.cube, g.operandBytes)) continue;
    bool eachFits = std::all_of(g.members.begin(), g.members.end(), [&](std::int32_t member) {
      return fitsOnChip({member}, g.cube, m_operandBytes[static_cast<std::size_t>(member)]);
    });
    if (!eachFits) continue;
    overflowed = true;
    if (!everyOp)
      for (std::int32_t member : g.members) mark(static_cast<std::size_t>(member));
  }
  if (overflowed && everyOp)
    for (std::size_t v = 0; v < m_ops.size(); ++v)
      if (group(groupOfOp(static_cast<std::int32_t>(v))).pin < 0) mark(v);
  return marked;
}

// A pinned group (sg_set_scope) whose buffers fit the machine in no op order AllocateBuffers tries is cut
// into runs of its ops in the order they were made, each the longest that fits (found by bisection), so that
// what a later run needs of an earlier one goes through global memory. PyPTO keeps such a scope one task and
// its scheduler spills: when a buffer cannot be allocated, a live L1 tile is copied out to a workspace in GM
// and copied in again before its next use (SpillGeneralL1BufferFor3510, schedule_ooo/post_schedule/
// spill_engine.cpp). Its sparse attention on the 950 pins both matmuls and the softmax between them into one
// scope, and the second matmul reads again the eight [128, 256] key tiles (524 288 bytes, all of L1) the first
// one read: a cut before the second matmul's later steps moves those tiles through GM once, as the spill does.
// A group with an op that fits no run on its own is left whole (AllocateBuffers reports it at its line), and
// so is a cut that would make the parts depend on each other in a cycle.
void Partitioner::cutOverfullPinnedParts(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned) {
  const std::size_t count = pinned.size();
  if (std::find(pinned.begin(), pinned.end(), true) == pinned.end()) return;  // most scopes pin nothing
  // Only pinned parts are cut, so only they list their ops.
  std::vector<std::vector<std::int32_t>> members(count);
  for (std::size_t v = 0; v < partOf.size(); ++v) {
    const auto part = static_cast<std::size_t>(partOf[v]);
    if (pinned[part]) members[part].push_back(static_cast<std::int32_t>(v));
  }
  const TargetInfo& target = m_compilation.settings.target;
  for (std::size_t part = 0; part < count; ++part) {
    if (!pinned[part]) continue;
    const std::vector<std::int32_t>& list = members[part];
    bool cube = false;
    std::int64_t bytes = 0;
    for (std::int32_t v : list) {
      cube = cube || coreOf(v) == CoreType::AIC;
      bytes += m_operandBytes[static_cast<std::size_t>(v)];
    }
    if (bytes <= smallestCapacity(cube)) continue;
    // Whether the ops list[from, to) fit as one subgraph.
    auto fits = [&](std::size_t from, std::size_t to) {
      Subgraph trial;
      trial.coreType = CoreType::AIV;
      for (std::size_t i = from; i < to; ++i) {
        if (coreOf(list[i]) == CoreType::AIC) trial.coreType = CoreType::AIC;
        trial.ops.push_back(m_ops[static_cast<std::size_t>(list[i])]);
      }
      return fitsOnChipInSomeOrder(m_tiles, target, trial);
    };
    if (fits(0, list.size())) continue;
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    bool cuttable = true;
    for (std::size_t from = 0; from < list.size() && cuttable;) {
      std::size_t end = list.size();
      if (from == 0 || !fits(from, end)) {
        std::size_t good = from + 1, bad = end;  // [from, good) fits, [from, bad) does not
        if (!fits(from, good)) {
          cuttable = false;
          break;
        }
        while (bad - good > 1) {
          const std::size_t middle = good + (bad - good) / 2;
          (fits(from, middle) ? good : bad) = middle;
        }
        end = good;
      }
      runs.emplace_back(from, end);
      from = end;
    }
    if (!cuttable || runs.size() < 2) continue;
    const std::vector<std::int32_t> before = partOf;
    const std::size_t partsBefore = pinned.size();
    for (std::size_t r = 1; r < runs.size(); ++r) {
      const auto id = static_cast<std::int32_t>(pinned.size());
      pinned.push_back(true);
      for (std::size_t i = runs[r].first; i < runs[r].second; ++i) partOf[static_cast<std::size_t>(list[i])] = id;
    }
    if (!partsAcyclic(partOf, pinned.size())) {
      partOf = before;
      pinned.resize(partsBefore);
    }
  }
}

// Whether the parts' edges (between ops of different parts) form no cycle.
bool Partitioner::partsAcyclic(const std::vector<std::int32_t>& partOf, std::size_t count) const {
  std::vector<std::pair<std::int32_t, std::int32_t>> edges;
  for (std::size_t v = 0; v < partOf.size(); ++v)
    for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
      const std::int32_t from = partOf[static_cast<std::size_t>(m_preds[static_cast<std::size_t>(p)].from)];
      if (from != partOf[v]) edges.emplace_back(from, partOf[v]);
    }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<std::int32_t> waiting(count, 0);
  std::vector<std::vector<std::int32_t>> next(count);
  for (const auto& [from, to] : edges) {
    ++waiting[static_cast<std::size_t>(to)];
    next[static_cast<std::size_t>(from)].push_back(to);
  }
  std::vector<std::int32_t> ready;
  for (std::size_t i = 0; i < count; ++i)
    if (waiting[i] == 0) ready.push_back(static_cast<std::int32_t>(i));
  std::size_t done = 0;
  while (!ready.empty()) {
    const std::int32_t at = ready.back();
    ready.pop_back();
    ++done;
    for (std::int32_t to : next[static_cast<std::size_t>(at)])
      if (--waiting[static_cast<std::size_t>(to)] == 0) ready.push_back(to);
  }
  return done == count;
}

// ---- one scope ----
// Places every op of the scope into groups; errors go to `diags`.
bool Partitioner::placeScope(DiagnosticEngine& diags) {
  m_placeDiags = &diags;
  m_groups.clear();
  m_mark.clear();
  m_pinGroup.clear();
  m_groupOf.assign(m_ops.size(), -1);
  for (std::size_t v = 0; v < m_ops.size(); ++v)
    if (tileOf(static_cast<std::int32_t>(v)).kind != TensorOpKind::View && !place(static_cast<std::int32_t>(v)))
      return false;
  placeViews();
  return true;
}

// Dense group numbers in order of first op.
void Partitioner::numberGroups(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned) {
  std::vector<std::int32_t> dense(m_groups.size(), -1);
  partOf.assign(m_ops.size(), 0);
  pinned.clear();
  for (std::size_t v = 0; v < m_ops.size(); ++v) {
    std::int32_t root = find(m_groupOf[v]);
    if (dense[static_cast<std::size_t>(root)] < 0) {
      dense[static_cast<std::size_t>(root)] = static_cast<std::int32_t>(pinned.size());
      pinned.push_back(group(root).pin >= 0);
    }
    partOf[v] = dense[static_cast<std::size_t>(root)];
  }
}

bool Partitioner::partitionScope(const std::vector<TileOpId>& ops, std::vector<Part>& parts) {
  m_ops = ops;
  buildEdges();
  measureOperands();
  m_capacityChecked.assign(ops.size(), false);
  if (!placeScope(m_diags)) return false;
  std::vector<std::int32_t> partOf;
  std::vector<bool> pinned;
  numberGroups(partOf, pinned);
  // A group whose buffers overflow a memory is placed again with every
  // merge of its ops checked against the machine: such an op joins only
  // the producers' groups it fits with, else starts a group of its own
  // (a new group starts after every group it needs, so the ordering rule
  // holds as before). Placing anew keeps the rule for all groups at once;
  // an unchecked op that then fills a group gets checked in the next
  // round. Should a round fail (the groups around a pinned group moved),
  // the last partition made stands and AllocateBuffers reports what is
  // too big.
  for (int round = 1; round < kCapacityRounds && markOverfullGroups(round > 1); ++round) {
    DiagnosticEngine ignored;
    if (!placeScope(ignored)) break;
    numberGroups(partOf, pinned);
  }
  cutOverfullPinnedParts(partOf, pinned);
  if (static_cast<std::int64_t>(pinned.size()) < m_options.parallelLowerBound) splitForParallelism(partOf, pinned);
  return orderParts(partOf, pinned, parts);
}

} // namespace partition

bool checkGraphPartitionOptions(const CompileSettings& settings, const TensorGraph&, DiagnosticEngine& diags) {
  return readOptions(settings, diags).has_value();
}

bool graphPartition(Compilation& compilation, DiagnosticEngine& diags) {
  auto options = readOptions(compilation.settings, diags);
  if (!options) return false;
  return partition::Partitioner(compilation, diags, std::move(*options)).run();
}

bool cubeResultsMayStayOnChip(const CompileSettings& settings) {
  DiagnosticEngine ignored;  // GraphPartition has reported a malformed option already
  auto options = readOptions(settings, ignored);
  return options ? options->cubeVectorMayShare : settings.target.hasL0cToUb;
}

PartitionRules partitionRules(Compilation& compilation) {
  DiagnosticEngine ignored;  // rules() reports nothing
  return partition::Partitioner(compilation, ignored, Options{}).rules();
}

void numberPrograms(Compilation& compilation) {
  DiagnosticEngine ignored;
  partition::Partitioner(compilation, ignored, Options{}).numberPrograms();
}

} // namespace pto
