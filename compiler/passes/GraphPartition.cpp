// Implementation of GraphPartition.
#include "compiler/passes/GraphPartition.h"

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

// Placements of a scope at most: the first without capacity checks, then
// with the ops of each group that overflowed checked.
constexpr int kCapacityRounds = 4;

struct Options {
  std::int64_t copyInUpperBound = 0;
  std::int64_t parallelLowerBound = 0;
  std::map<std::string, std::string> pinOfLabel;  // semantic label -> pin key
  bool cubeVectorMayShare = false;
};

std::optional<Options> readOptions(const CompileSettings& settings, DiagnosticEngine& diags) {
  const std::vector<OptionInfo>& declared = graphPartitionOptions();
  const OptionInfo& copyInBound = *findDeclaration(declared, "mg_copyin_upper_bound");
  const OptionInfo& parallelBound = *findDeclaration(declared, "pg_parallel_lower_bound");
  Options options;
  options.copyInUpperBound = copyInBound.defaultInteger();
  options.parallelLowerBound = parallelBound.defaultInteger();
  // The machine decides; pass_options.machine_has_l0c_to_ub overrides it (what-if experiments, tests).
  options.cubeVectorMayShare = settings.target.hasL0cToUb;
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

namespace {

bool onChip(CoreType producer, CoreType consumer, bool cubeVectorMayShare) {
  return producer == consumer || (producer == CoreType::AIC && cubeVectorMayShare);
}

// An ordering edge into a tile op: `from` is an earlier tile op of the scope
// (local index); `read` is which read of the consumer it feeds (inputs, then
// the accumulated output), or -1 for write-after-read/write-after-write.
struct Pred {
  std::int32_t from = 0;
  std::int32_t read = -1;
  friend auto operator<=>(const Pred&, const Pred&) = default;
};

// A subgraph under construction. Every edge between groups runs from the
// group whose first op comes earlier to the one whose first op comes later:
// that keeps the groups acyclic and makes first-op order a topological order.
struct Group {
  std::int32_t parent = 0;
  std::int32_t size = 0;
  std::int32_t first = 0;     // its first op (local index)
  std::int32_t maxInFirst = -1;  // the latest first op of a group with an edge into it
  std::int32_t pin = -1;
  std::int32_t segment = 0;  // of its scope: the stretch between nested loops it lies in
  bool cube = false, vector = false;
  std::unordered_set<std::int32_t> copyIns;  // region ids
  std::int64_t copyInBytes = 0;
  std::vector<std::int32_t> members;  // its ops (local indices, unordered)
  std::int64_t operandBytes = 0;      // its ops' operand tiles summed: bounds every buffer plan's peak
};

// One finished subgraph of a scope.
struct Part {
  std::vector<TileOpId> ops;  // ascending
  CoreType coreType = CoreType::AIV;
  bool pinned = false;
};

class Partitioner {
public:
  Partitioner(Compilation& compilation, DiagnosticEngine& diags, Options options)
      : m_compilation(compilation), m_tiles(compilation.tiles), m_graph(compilation.tiles.graph), m_diags(diags),
        m_options(std::move(options)) {}

  bool run() {
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

private:
  // ---- per tile op facts ----
  void classifyOps() {
    // Segments: a nested loop splits its scope's ops into stretches. A task
    // runs where its first op is, so ops after a nested loop never join ops
    // before it (they may need the loop's results).
    m_segmentOfOp.assign(m_graph.ops().size(), 0);
    std::function<void(const Region&)> visit = [&](const Region& region) {
      for (const Path& path : region.paths) {
        std::int32_t segment = 0;
        for (const Statement& statement : path.statements) {
          if (statement.kind == Statement::Kind::Op) {
            m_segmentOfOp[static_cast<std::size_t>(statement.id)] = segment;
            continue;
          }
          ++segment;
          for (const LoopBody& body : m_graph.loop(statement.id).bodies) visit(body.region);
        }
      }
    };
    visit(m_graph.body);
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

  CoreType coreOf(std::int32_t local) const { return m_core[static_cast<std::size_t>(m_ops[static_cast<std::size_t>(local)])]; }
  const TileOp& tileOf(std::int32_t local) const { return m_tiles.tileOp(m_ops[static_cast<std::size_t>(local)]); }
  std::int32_t segmentOf(std::int32_t local) const {
    return m_segmentOfOp[static_cast<std::size_t>(tileOf(local).tensorOp)];
  }
  std::int32_t pinOf(std::int32_t local) const {
    return m_pinOfOp[static_cast<std::size_t>(tileOf(local).tensorOp)];
  }
  std::int32_t scopeRunOf(std::int32_t local) const {
    return m_scopeRunOfOp[static_cast<std::size_t>(tileOf(local).tensorOp)];
  }

  // ---- edges ----
  std::int32_t internRegion(const RegionBox& box) {
    auto [it, inserted] = m_regionIds.try_emplace(box, static_cast<std::int32_t>(m_regionBytes.size()));
    if (inserted) {
      std::int64_t bytes = static_cast<std::int64_t>(sizeOf(m_graph.tensor(box.tensor).dtype));
      for (std::size_t d = 0; d < box.rank; ++d) bytes *= std::max<std::int64_t>(box.hi[d] - box.lo[d], 0);
      m_regionBytes.push_back(bytes);
    }
    return it->second;
  }

  // The rows an MGATHER picks (readsInPlace) are its own copy-in: as many
  // bytes as its result, whatever region they come from, so that gathers
  // count against the copy-in bound like the loads they replace.
  std::int32_t gatheredRegion(const TileOp& op) {
    const TileRegion& result = op.outputs.at(0);
    std::int64_t bytes = static_cast<std::int64_t>(sizeOf(m_graph.tensor(result.tensor).dtype));
    for (std::int64_t extent : result.shape) bytes *= extent;
    m_regionBytes.push_back(bytes);
    return static_cast<std::int32_t>(m_regionBytes.size() - 1);
  }

  // A region's box on its storage tensor (RemoveRedundantOp may have been disabled).
  RegionBox boxOf(const TileRegion& region) {
    return m_graph.tensor(region.tensor).role == TensorRole::View ? m_boxes.box(resolveViews(m_graph, region))
                                                                  : m_boxes.box(region);
  }

  // Boxes of every tile op's reads (inputs, then the accumulated output)
  // and writes, by tile op id. View tile ops move no data: they have none.
  void collectBoxes() {
    std::size_t readCount = 0, writeCount = 0;
    for (const TileOp& op : m_tiles.tileOps()) {
      if (op.kind == TensorOpKind::View) continue;
      readCount += op.inputs.size() + (op.accumulate != TileAccumulate::None ? op.outputs.size() : 0);
      writeCount += op.outputs.size();
    }
    m_readBoxes.reserve(readCount);
    m_writeBoxes.reserve(writeCount);
    m_readBoxStart.assign(1, 0);
    m_writeBoxStart.assign(1, 0);
    for (const TileOp& op : m_tiles.tileOps()) {
      if (op.kind != TensorOpKind::View) {
        for (const TileRegion& region : op.inputs) m_readBoxes.push_back(boxOf(region));
        for (const TileRegion& region : op.outputs) m_writeBoxes.push_back(boxOf(region));
        if (op.accumulate != TileAccumulate::None)
          for (std::size_t w = m_writeBoxStart.back(); w < m_writeBoxes.size(); ++w) m_readBoxes.push_back(m_writeBoxes[w]);
      }
      m_readBoxStart.push_back(m_readBoxes.size());
      m_writeBoxStart.push_back(m_writeBoxes.size());
    }
  }

  // The ordering edges of the scope's tile ops (m_preds), the region ids of
  // their reads, and for each view tile op the first op reading its view.
  void buildEdges() {
    std::size_t count = m_ops.size();
    std::unordered_map<TensorId, std::int32_t> pendingViews;  // view tensor -> its view op
    m_viewConsumer.assign(count, -1);
    for (std::size_t i = 0; i < count; ++i) {
      const TileOp& op = m_tiles.tileOp(m_ops[i]);
      for (const TileRegion& region : op.inputs)
        if (auto found = pendingViews.find(region.tensor); found != pendingViews.end()) {
          m_viewConsumer[static_cast<std::size_t>(found->second)] = static_cast<std::int32_t>(i);
          pendingViews.erase(found);
        }
      if (op.kind == TensorOpKind::View)
        for (const TileRegion& region : op.outputs) pendingViews.emplace(region.tensor, static_cast<std::int32_t>(i));
    }
    auto reads = [&](std::size_t i) {
      auto id = static_cast<std::size_t>(m_ops[i]);
      return std::span<const RegionBox>(m_readBoxes.data() + m_readBoxStart[id], m_readBoxStart[id + 1] - m_readBoxStart[id]);
    };
    auto writes = [&](std::size_t i) {
      auto id = static_cast<std::size_t>(m_ops[i]);
      return std::span<const RegionBox>(m_writeBoxes.data() + m_writeBoxStart[id],
                                        m_writeBoxStart[id + 1] - m_writeBoxStart[id]);
    };
    // Grid cells the size of the smallest tile on each tensor; the last op
    // writing each tensor (reads after it never meet a later write).
    std::unordered_map<TensorId, std::vector<std::int64_t>> cells;
    std::unordered_map<TensorId, std::size_t> lastWrite;
    auto note = [&](const RegionBox& box) {
      std::vector<std::int64_t> extent(box.rank);
      for (std::size_t d = 0; d < extent.size(); ++d) extent[d] = box.hi[d] - box.lo[d];
      auto [it, inserted] = cells.try_emplace(box.tensor, extent);
      if (!inserted && it->second.size() == extent.size())
        for (std::size_t d = 0; d < extent.size(); ++d) it->second[d] = std::min(it->second[d], extent[d]);
    };
    for (std::size_t i = 0; i < count; ++i) {
      for (const RegionBox& box : reads(i)) note(box);
      for (const RegionBox& box : writes(i)) {
        note(box);
        lastWrite[box.tensor] = i;
      }
    }
    RegionIndex writeIndex(OverlapMode::SameIteration), readIndex(OverlapMode::SameIteration);
    for (auto& [tensor, cell] : cells) {
      writeIndex.setCellSize(tensor, cell);
      readIndex.setCellSize(tensor, cell);
    }

    m_predStart.assign(1, 0);
    m_preds.clear();
    m_readStart.assign(1, 0);
    m_readRegions.clear();
    m_regionIds.clear();
    m_regionBytes.clear();
    std::vector<Pred> found;
    for (std::size_t i = 0; i < count; ++i) {
      found.clear();
      auto opReads = reads(i);
      auto opWrites = writes(i);
      for (std::size_t k = 0; k < opReads.size(); ++k) {
        const TileOp& reader = m_tiles.tileOp(m_ops[i]);
        m_readRegions.push_back(readsInPlace(reader, k) ? gatheredRegion(reader) : internRegion(opReads[k]));
        writeIndex.visitOverlapping(opReads[k], [&](std::int32_t from, const RegionBox&) {
          found.push_back(Pred{from, static_cast<std::int32_t>(k)});
          return RegionIndex::Visit::Keep;
        });
        // A folded reshape's bytes were written under the source's name and
        // reach the reader through global memory only (GenerateMoveOp
        // writes them out): the reader follows those writes, an ordering
        // edge rather than data that could stay on chip.
        if (std::optional<RegionBox> bytes = bytesUnder(opReads[k])) {
          writeIndex.visitOverlapping(*bytes, [&](std::int32_t from, const RegionBox&) {
            found.push_back(Pred{from, -1});
            return RegionIndex::Visit::Keep;
          });
          if (auto last = lastWrite.find(bytes->tensor); last != lastWrite.end() && last->second > i)
            readIndex.insert(*bytes, static_cast<std::int32_t>(i));
        }
      }
      for (const RegionBox& box : opWrites) {
        auto supersede = [&](std::int32_t from, const RegionBox& earlier) {
          found.push_back(Pred{from, -1});
          return containsBox(box, earlier) ? RegionIndex::Visit::Drop : RegionIndex::Visit::Keep;
        };
        writeIndex.visitOverlapping(box, supersede);
        readIndex.visitOverlapping(box, supersede);
      }
      auto self = static_cast<std::int32_t>(i);
      for (const RegionBox& box : opReads)
        if (auto last = lastWrite.find(box.tensor); last != lastWrite.end() && last->second > i) readIndex.insert(box, self);
      for (const RegionBox& box : opWrites) writeIndex.insert(box, self);
      std::sort(found.begin(), found.end());
      found.erase(std::unique(found.begin(), found.end()), found.end());
      m_preds.insert(m_preds.end(), found.begin(), found.end());
      m_predStart.push_back(static_cast<std::int32_t>(m_preds.size()));
      m_readStart.push_back(static_cast<std::int32_t>(m_readRegions.size()));
    }
  }

  // The box of the bytes a read of a folded reshape's result names
  // (TensorValue::reshapeOf), on the tensor that holds them: exact for a
  // constant box, else the whole tensor. Nothing for other reads.
  std::optional<RegionBox> bytesUnder(const RegionBox& read) const {
    const TensorValue& value = m_graph.tensor(read.tensor);
    if (value.reshapeOf == kNoId || read.empty()) return std::nullopt;
    const Dims& aliasShape = m_tiles.shapeOf(read.tensor);
    const Dims& storageShape = m_tiles.shapeOf(value.reshapeOf);
    RegionBox box;
    box.tensor = value.reshapeOf;
    box.truncated = storageShape.size() > kMaxBoxRank;
    box.rank = static_cast<std::uint8_t>(std::min(storageShape.size(), kMaxBoxRank));
    for (std::size_t d = 0; d < box.rank; ++d) box.lo[d] = 0, box.hi[d] = storageShape[d];
    bool constant = !read.truncated && !box.truncated && read.rank == aliasShape.size();
    for (std::size_t d = 0; constant && d < read.rank; ++d) constant = read.symbol[d] == 0;
    if (!constant) return box;
    const ByteAlias alias{read.tensor, value.reshapeOf, aliasShape, storageShape,
                          static_cast<std::int64_t>(sizeOf(value.dtype)),
                          static_cast<std::int64_t>(sizeOf(m_graph.tensor(value.reshapeOf).dtype))};
    std::array<std::int64_t, kMaxBoxRank> sizes{};
    for (std::size_t d = 0; d < read.rank; ++d) sizes[d] = read.hi[d] - read.lo[d];
    alias.storageBox(read.lo.data(), sizes.data(), box.lo.data(), box.hi.data());
    return box;
  }

  // View tile ops (left when RemoveRedundantOp is disabled) move no data;
  // each joins the group of the first op reading its view when that keeps
  // the ordering rule, else the group of the op before it.
  void placeViews() {
    for (std::size_t v = m_ops.size(); v-- > 0;) {
      if (tileOf(static_cast<std::int32_t>(v)).kind != TensorOpKind::View) continue;
      auto view = static_cast<std::int32_t>(v);
      std::int32_t consumer = m_viewConsumer[v];
      std::int32_t home = -1;
      if (consumer >= 0) {
        std::int32_t g = groupOfOp(consumer);
        if (group(g).segment == segmentOf(view) && (group(g).first <= view || group(g).maxInFirst < view)) home = g;
      }
      if (home < 0 && v > 0 && m_groupOf[v - 1] >= 0 && group(groupOfOp(view - 1)).segment == segmentOf(view))
        home = groupOfOp(view - 1);
      if (home < 0) home = newGroup(-1, view);
      group(home).first = std::min(group(home).first, view);
      group(home).size += 1;
      group(home).members.push_back(view);
      group(home).operandBytes += m_operandBytes[v];
      group(home).vector = true;
      m_groupOf[v] = home;
    }
  }

  // ---- groups ----
  std::int32_t find(std::int32_t id) {
    while (m_groups[static_cast<std::size_t>(id)].parent != id) {
      Group& g = m_groups[static_cast<std::size_t>(id)];
      g.parent = m_groups[static_cast<std::size_t>(g.parent)].parent;
      id = g.parent;
    }
    return id;
  }
  Group& group(std::int32_t id) { return m_groups[static_cast<std::size_t>(id)]; }
  std::int32_t groupOfOp(std::int32_t local) { return find(m_groupOf[static_cast<std::size_t>(local)]); }

  std::int32_t newGroup(std::int32_t pin, std::int32_t first) {
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

  // The regions `v` would copy in as a member of a set of groups: reads
  // not produced wholly inside the set (`inside[k]` producers of read k are
  // in it), or, for a group on its own, all of them.
  template <typename Visit> void ownCopyIns(std::int32_t v, const std::vector<std::int32_t>& inside, Visit visit) {
    auto vi = static_cast<std::size_t>(v);
    for (std::int32_t k = 0; k < m_readStart[vi + 1] - m_readStart[vi]; ++k) {
      auto ki = static_cast<std::size_t>(k);
      if (m_producers[ki] > 0 && inside[ki] == m_producers[ki]) continue;
      visit(m_readRegions[static_cast<std::size_t>(m_readStart[vi] + k)]);
    }
  }

  // Places tile op `v` (local index) into a group: the groups of its data
  // producers that the data may stay in, latest-starting first, as many as
  // keep every edge running forward in first-op order and the copy-in bound.
  bool place(std::int32_t v) {
    auto vi = static_cast<std::size_t>(v);
    CoreType type = coreOf(v);
    std::int32_t pin = pinOf(v);
    std::int32_t segment = segmentOf(v);
    auto reads = static_cast<std::size_t>(m_readStart[vi + 1] - m_readStart[vi]);

    // Predecessor groups; data producers by group: (group, read, producer).
    std::uint32_t predMark = ++m_markStamp;
    m_predGroups.clear();
    std::vector<std::array<std::int32_t, 3>> data;
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
        if (!onChip(coreOf((*it)[2]), type, m_options.cubeVectorMayShare)) return (*it)[2];
      return -1;
    };

    std::vector<std::int32_t> chosen;
    std::vector<std::int32_t> inside(reads, 0);  // producers of each read inside the chosen groups
    // Copy-in of the chosen groups: the base group's set (the largest) plus
    // `extras`, the others' regions beyond it; and v's own beyond those.
    std::int32_t base = -1;
    std::unordered_set<std::int32_t> extras;
    std::int64_t extrasBytes = 0;
    std::vector<std::int32_t> ownRegions;
    std::int64_t ownBytes = 0;

    std::pair<std::int32_t, std::int32_t> pinKey{pin, segment};
    if (pin >= 0 && m_pinGroup.count(pinKey)) {
      std::int32_t target = find(m_pinGroup[pinKey]);
      chosen.push_back(target);
      const TensorOp& op = m_graph.op(tileOf(v).tensorOp);
      const TensorOp& first = m_graph.op(tileOf(group(target).first).tensorOp);
      std::string groupName = "sg_set_scope (" + m_pinNames[static_cast<std::size_t>(pin)] + ")";
      bool cube = group(target).cube || type == CoreType::AIC, vector = group(target).vector || type == CoreType::AIV;
      if (cube && vector && !m_options.cubeVectorMayShare) {
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
      std::vector<std::int32_t> candidates;
      std::uint32_t candidateMark = ++m_markStamp;
      for (const auto& [g, k, producer] : data) {
        if (!onChip(coreOf(producer), type, m_options.cubeVectorMayShare) || group(g).pin >= 0 ||
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
        std::vector<std::int32_t> trialInside = inside;
        auto [from, to] = producedBy(candidate);
        for (auto it = from; it != to; ++it) ++trialInside[static_cast<std::size_t>((*it)[1])];
        // The union of the chosen groups' copy-ins and the candidate's,
        // iterating the smaller side.
        bool swap = base >= 0 && g.copyIns.size() > group(base).copyIns.size() + extras.size();
        std::vector<std::int32_t> added;  // new extras (relative to the new base)
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
        std::unordered_set<std::int32_t> addedSet(added.begin(), added.end());
        std::vector<std::int32_t> own;
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
        inside = std::move(trialInside);
        if (swap) {
          extras = std::move(addedSet);
          extrasBytes = addedBytes;
        } else {
          extras.insert(added.begin(), added.end());
          extrasBytes += addedBytes;
        }
        if (base < 0 || swap) base = candidate;
        ownRegions = std::move(own);
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
  void measureOperands() {
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
  std::int64_t smallestCapacity(bool cube) const {
    const TargetInfo& target = m_compilation.settings.target;
    if (!cube) return target.capacity(MemoryKind::UB);
    return std::min({target.capacity(MemoryKind::L1), target.capacity(MemoryKind::L0A),
                     target.capacity(MemoryKind::L0B), target.capacity(MemoryKind::L0C)});
  }

  // Whether a subgraph of these ops (local indices) keeps every memory
  // within the machine, buffers reused as soon as they are dead (the most
  // AllocateBuffers can fall back to).
  bool fitsOnChip(std::vector<std::int32_t> locals, bool cube, std::int64_t operandBytes) const {
    if (operandBytes <= smallestCapacity(cube)) return true;
    std::sort(locals.begin(), locals.end());
    Subgraph trial;
    trial.coreType = cube ? CoreType::AIC : CoreType::AIV;
    trial.ops.reserve(locals.size());
    for (std::int32_t v : locals) trial.ops.push_back(m_ops[static_cast<std::size_t>(v)]);
    const TargetInfo& target = m_compilation.settings.target;
    return fitsCapacities(planSubgraphBuffers(m_tiles, target, trial, BufferOverlap::Single), target);
  }

  static constexpr std::size_t kMaxCheckedGroupOps = 1024;

  // Whether op `v` fits on chip together with the groups `chosen` and `extra`.
  bool fitsWith(const std::vector<std::int32_t>& chosen, std::int32_t extra, std::int32_t v) {
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
  // AllocateBuffers to report at the kernel line.
  bool markOverfullGroups() {
    bool marked = false;
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
      for (std::int32_t member : g.members)
        if (!m_capacityChecked[static_cast<std::size_t>(member)]) {
          m_capacityChecked[static_cast<std::size_t>(member)] = true;
          marked = true;
        }
    }
    return marked;
  }

  // ---- one scope ----
  // Places every op of the scope into groups; errors go to `diags`.
  bool placeScope(DiagnosticEngine& diags) {
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
  void numberGroups(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned) {
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

  bool partitionScope(const std::vector<TileOpId>& ops, std::vector<Part>& parts) {
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
    for (int round = 1; round < kCapacityRounds && markOverfullGroups(); ++round) {
      DiagnosticEngine ignored;
      if (!placeScope(ignored)) break;
      numberGroups(partOf, pinned);
    }
    if (static_cast<std::int64_t>(pinned.size()) < m_options.parallelLowerBound) splitForParallelism(partOf, pinned);
    return orderParts(partOf, pinned, parts);
  }

  // pg_parallel_lower_bound: splits the largest groups along their outputs.
  // An op belongs to the outputs it (transitively) feeds inside its group;
  // ops feeding several output chunks form the shared head. Inside the group
  // edges then run head -> chunk only; a split that would make any edge run
  // backwards in first-op order is undone.
  void splitForParallelism(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned) {
    std::size_t opCount = partOf.size();
    std::vector<std::vector<std::int32_t>> members(pinned.size());
    for (std::size_t v = 0; v < opCount; ++v) members[static_cast<std::size_t>(partOf[v])].push_back(static_cast<std::int32_t>(v));
    std::vector<std::int32_t> firstOf;
    for (const auto& ops : members) firstOf.push_back(ops.front());
    std::vector<std::int32_t> order(members.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
      return members[static_cast<std::size_t>(a)].size() > members[static_cast<std::size_t>(b)].size();
    });
    std::vector<std::vector<std::int32_t>> successors(opCount);
    for (std::size_t v = 0; v < opCount; ++v)
      for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
        auto& list = successors[static_cast<std::size_t>(m_preds[static_cast<std::size_t>(p)].from)];
        if (list.empty() || list.back() != static_cast<std::int32_t>(v)) list.push_back(static_cast<std::int32_t>(v));
      }
    auto part = [&](std::int32_t v) { return partOf[static_cast<std::size_t>(v)]; };
    constexpr std::int32_t kShared = -1;
    std::vector<std::int32_t> chunk(opCount, kShared);
    for (std::int32_t id : order) {
      if (static_cast<std::int64_t>(pinned.size()) >= m_options.parallelLowerBound) break;
      const std::vector<std::int32_t>& ops = members[static_cast<std::size_t>(id)];
      if (pinned[static_cast<std::size_t>(id)] || ops.size() < 2) continue;
      auto inside = [&](std::int32_t v, auto&& visit) {
        for (std::int32_t w : successors[static_cast<std::size_t>(v)])
          if (part(w) == id) visit(w);
      };
      std::vector<std::int32_t> sinks;
      for (std::int32_t v : ops) {
        bool sink = true;
        inside(v, [&](std::int32_t) { sink = false; });
        if (sink) sinks.push_back(v);
      }
      if (sinks.size() < 2) continue;
      std::int64_t wanted = m_options.parallelLowerBound - static_cast<std::int64_t>(pinned.size()) + 1;
      auto chunks = std::min<std::int64_t>(static_cast<std::int64_t>(sinks.size()), wanted);
      for (std::size_t s = 0; s < sinks.size(); ++s)
        chunk[static_cast<std::size_t>(sinks[s])] =
            static_cast<std::int32_t>(static_cast<std::int64_t>(s) * chunks / static_cast<std::int64_t>(sinks.size()));
      for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
        std::int32_t label = chunk[static_cast<std::size_t>(*it)];
        bool first = true;
        inside(*it, [&](std::int32_t w) {
          label = first || label == chunk[static_cast<std::size_t>(w)] ? chunk[static_cast<std::size_t>(w)] : kShared;
          first = false;
        });
        chunk[static_cast<std::size_t>(*it)] = label;
      }
      // The head keeps the group's number (or the first chunk does); other chunks get new ones.
      std::size_t before = pinned.size();
      bool numberUsed = false;
      for (std::int32_t v : ops) numberUsed = numberUsed || chunk[static_cast<std::size_t>(v)] == kShared;
      std::vector<std::int32_t> numberOfChunk(static_cast<std::size_t>(chunks), -1);
      for (std::int32_t v : ops) {
        std::int32_t c = chunk[static_cast<std::size_t>(v)];
        if (c == kShared) continue;
        std::int32_t& number = numberOfChunk[static_cast<std::size_t>(c)];
        if (number < 0) {
          number = numberUsed ? static_cast<std::int32_t>(pinned.size()) : id;
          if (numberUsed) {
            pinned.push_back(false);
            firstOf.push_back(v);
          }
          numberUsed = true;
        }
        partOf[static_cast<std::size_t>(v)] = number;
      }
      firstOf[static_cast<std::size_t>(id)] = INT32_MAX;
      for (std::int32_t v : ops)
        if (part(v) == id) firstOf[static_cast<std::size_t>(id)] = std::min(firstOf[static_cast<std::size_t>(id)], v);
      bool forward = true;
      for (std::int32_t v : ops)
        for (std::int32_t w : successors[static_cast<std::size_t>(v)])
          if (part(w) != part(v) && firstOf[static_cast<std::size_t>(part(v))] >= firstOf[static_cast<std::size_t>(part(w))])
            forward = false;
      for (std::int32_t v : ops)
        for (std::int32_t p = m_predStart[static_cast<std::size_t>(v)]; p < m_predStart[static_cast<std::size_t>(v) + 1]; ++p) {
          std::int32_t u = m_preds[static_cast<std::size_t>(p)].from;
          if (part(u) != part(v) && firstOf[static_cast<std::size_t>(part(u))] >= firstOf[static_cast<std::size_t>(part(v))])
            forward = false;
        }
      // A read produced partly in its op's new part and partly in the head
      // would be loaded from GM before its own part stores the rest (see place).
      for (std::int32_t v : ops) {
        std::map<std::int32_t, std::pair<int, int>> producersOfRead;  // read -> (in v's part, all)
        for (std::int32_t p = m_predStart[static_cast<std::size_t>(v)]; p < m_predStart[static_cast<std::size_t>(v) + 1]; ++p) {
          const Pred& pred = m_preds[static_cast<std::size_t>(p)];
          if (pred.read < 0) continue;
          auto& [mine, all] = producersOfRead[pred.read];
          mine += part(pred.from) == part(v) ? 1 : 0;
          ++all;
        }
        for (const auto& [read, counts] : producersOfRead)
          if (counts.first > 0 && counts.first < counts.second) forward = false;
      }
      if (!forward) {
        for (std::int32_t v : ops) partOf[static_cast<std::size_t>(v)] = id;
        firstOf[static_cast<std::size_t>(id)] = ops.front();
        pinned.resize(before);
        firstOf.resize(before);
      }
    }
  }

  // Orders the parts of a scope topologically (smallest first op first when
  // several are ready) and fills `parts`.
  bool orderParts(const std::vector<std::int32_t>& partOf, const std::vector<bool>& pinned, std::vector<Part>& parts) {
    std::size_t count = pinned.size();
    std::vector<std::vector<std::int32_t>> members(count);
    for (std::size_t v = 0; v < partOf.size(); ++v) members[static_cast<std::size_t>(partOf[v])].push_back(static_cast<std::int32_t>(v));
    std::vector<std::pair<std::int32_t, std::int32_t>> edges;
    for (std::size_t v = 0; v < partOf.size(); ++v)
      for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
        std::int32_t from = partOf[static_cast<std::size_t>(m_preds[static_cast<std::size_t>(p)].from)];
        if (from != partOf[v]) edges.emplace_back(from, partOf[v]);
      }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    std::vector<std::int32_t> waiting(count, 0), edgeStart(count + 1, 0);
    for (const auto& [from, to] : edges) {
      ++waiting[static_cast<std::size_t>(to)];
      ++edgeStart[static_cast<std::size_t>(from) + 1];
    }
    for (std::size_t i = 0; i < count; ++i) edgeStart[i + 1] += edgeStart[i];
    // members[i].front() is the part's first op (local indices ascend).
    using Ready = std::pair<std::int32_t, std::int32_t>;  // first op, part
    std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready;
    for (std::size_t i = 0; i < count; ++i)
      if (waiting[i] == 0) ready.emplace(members[i].front(), static_cast<std::int32_t>(i));
    while (!ready.empty()) {
      std::int32_t at = ready.top().second;
      ready.pop();
      Part part;
      part.pinned = pinned[static_cast<std::size_t>(at)];
      for (std::int32_t v : members[static_cast<std::size_t>(at)]) {
        part.ops.push_back(m_ops[static_cast<std::size_t>(v)]);
        if (coreOf(v) == CoreType::AIC) part.coreType = CoreType::AIC;
      }
      parts.push_back(std::move(part));
      for (std::int32_t e = edgeStart[static_cast<std::size_t>(at)]; e < edgeStart[static_cast<std::size_t>(at) + 1]; ++e) {
        std::int32_t to = edges[static_cast<std::size_t>(e)].second;
        if (--waiting[static_cast<std::size_t>(to)] == 0) ready.emplace(members[static_cast<std::size_t>(to)].front(), to);
      }
    }
    if (parts.size() != count)
      return m_diags.error(m_graph.kernelLocation)
             << "internal error: GraphPartition made subgraphs that depend on each other in a cycle";
    return true;
  }

  // ---- all scopes ----
  // The structure of a subgraph as text: equal text, same program.
  std::string canonicalForm(const Subgraph& subgraph) {
    std::string text = subgraph.coreType == CoreType::AIC ? "C" : "V";
    struct Slot {
      std::size_t number;
      const RegionBox* box;
      const TileRegion* region;
    };
    std::unordered_map<TensorId, Slot> slots;
    std::deque<RegionBox> viewBoxes;  // boxes of view tile ops' regions, made here
    auto region = [&](const TileRegion& r, const RegionBox* box) {
      if (!box) box = &viewBoxes.emplace_back(boxOf(r));
      auto [it, inserted] = slots.try_emplace(box->tensor, Slot{slots.size(), box, &r});
      text += " s" + std::to_string(it->second.number);
      if (inserted) {
        text += ":" + std::string(name(m_graph.tensor(box->tensor).dtype)) + "[";
        for (std::int64_t dim : m_tiles.shapeOf(box->tensor)) text += std::to_string(dim) + ",";
        text += "]";
      }
      const Slot& first = it->second;
      text += "@";
      for (std::size_t d = 0; d < r.shape.size(); ++d) {
        if (d < box->rank && box->symbol[d] == first.box->symbol[d]) {
          text += std::to_string(box->lo[d] - first.box->lo[d]);
        } else {
          TileRegion here = resolveViews(m_graph, r), there = resolveViews(m_graph, *first.region);
          text += "(" + simplify(here.offsets[d] - there.offsets[d]).str() + ")";
        }
        text += ":" + std::to_string(r.shape[d]) + ",";
      }
      // A program evaluates its tiles' valid parts per task from the first subgraph's expressions
      // (FunctionalCore), so only subgraphs with the same expressions share one.
      if (!r.valid.empty()) text += "v" + shapeString(r.valid);
    };
    for (TileOpId id : subgraph.ops) {
      const TileOp& op = m_tiles.tileOp(id);
      auto o = static_cast<std::size_t>(id);
      bool boxed = op.kind != TensorOpKind::View;
      text += "\n" + std::string(name(op.kind)) + " " + std::string(name(op.accumulate)) + " [";
      for (std::int64_t dim : op.tileShape) text += std::to_string(dim) + ",";
      text += "] {";
      for (const auto& [key, value] : op.attrs) text += key + "=" + attributeToJson(value).dump() + ";";
      text += "} in";
      for (std::size_t k = 0; k < op.inputs.size(); ++k)
        region(op.inputs[k], boxed ? &m_readBoxes[m_readBoxStart[o] + k] : nullptr);
      text += " out";
      for (std::size_t k = 0; k < op.outputs.size(); ++k)
        region(op.outputs[k], boxed ? &m_writeBoxes[m_writeBoxStart[o] + k] : nullptr);
    }
    return text;
  }

public:
  // programId of every subgraph (equal canonical form, equal program),
  // numbered in subgraph-id order. Needs collectBoxes().
  void assignProgramIds() {
    BlockGraph& blocks = m_compilation.blocks;
    std::unordered_map<std::string, int> programs;
    blocks.programCount = 0;
    for (Subgraph& subgraph : blocks.subgraphs) {
      auto [it, inserted] = programs.try_emplace(canonicalForm(subgraph), blocks.programCount);
      if (inserted) ++blocks.programCount;
      subgraph.programId = it->second;
    }
  }

  void numberPrograms() {
    collectBoxes();
    assignProgramIds();
  }

  PartitionRules rules() {
    classifyOps();
    collectBoxes();
    PartitionRules rules;
    std::size_t count = m_tiles.tileOps().size();
    rules.coreOf = m_core;
    rules.scopeOf.assign(count, kNoId);
    rules.segmentOf.assign(count, 0);
    for (const Scope& scope : m_compilation.blocks.scopes) {
      m_ops.clear();
      for (OpId op : scope.ops)
        for (TileOpId tile : m_tiles.tilesOf(op)) m_ops.push_back(tile);
      std::sort(m_ops.begin(), m_ops.end());
      buildEdges();
      for (std::size_t v = 0; v < m_ops.size(); ++v) {
        auto tile = static_cast<std::size_t>(m_ops[v]);
        rules.scopeOf[tile] = scope.id;
        rules.segmentOf[tile] = segmentOf(static_cast<std::int32_t>(v));
        for (std::int32_t p = m_predStart[v]; p < m_predStart[v + 1]; ++p) {
          const Pred& pred = m_preds[static_cast<std::size_t>(p)];
          TileOpId from = m_ops[static_cast<std::size_t>(pred.from)];
          // Preds are sorted by (from, read): merge the entries of one producer.
          if (!rules.edges.empty() && rules.edges.back().from == from && rules.edges.back().to == m_ops[v])
            rules.edges.back().data = rules.edges.back().data || pred.read >= 0;
          else
            rules.edges.push_back(TileOpEdge{from, m_ops[v], pred.read >= 0});
        }
      }
    }
    return rules;
  }

private:
  bool assemble(std::vector<std::vector<Part>>& partsOfScope) {
    BlockGraph& blocks = m_compilation.blocks;
    blocks.subgraphOfTileOp.assign(m_tiles.tileOps().size(), kNoId);
    // Interleave the scopes' topological sequences by first tile op.
    using Head = std::pair<TileOpId, std::size_t>;  // first op of the next part, scope
    std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
    std::vector<std::size_t> next(partsOfScope.size(), 0);
    for (std::size_t s = 0; s < partsOfScope.size(); ++s)
      if (!partsOfScope[s].empty()) heads.emplace(partsOfScope[s].front().ops.front(), s);
    while (!heads.empty()) {
      std::size_t s = heads.top().second;
      heads.pop();
      Part& part = partsOfScope[s][next[s]++];
      if (next[s] < partsOfScope[s].size()) heads.emplace(partsOfScope[s][next[s]].ops.front(), s);
      Subgraph subgraph;
      subgraph.id = static_cast<SubgraphId>(blocks.subgraphs.size());
      subgraph.scope = static_cast<ScopeId>(s);
      subgraph.coreType = part.coreType;
      subgraph.ops = std::move(part.ops);
      subgraph.pinned = part.pinned;
      subgraph.label = m_graph.op(m_tiles.tileOp(subgraph.ops.front()).tensorOp).label;
      for (TileOpId op : subgraph.ops) blocks.subgraphOfTileOp[static_cast<std::size_t>(op)] = subgraph.id;
      blocks.subgraphs.push_back(std::move(subgraph));
    }
    assignProgramIds();
    for (std::size_t op = 0; op < blocks.subgraphOfTileOp.size(); ++op)
      if (blocks.subgraphOfTileOp[op] == kNoId)
        return m_diags.error(m_graph.kernelLocation)
               << "internal error: tile op #" << op << " is in no scope, so GraphPartition put it in no subgraph";
    return true;
  }

  Compilation& m_compilation;
  TileGraph& m_tiles;
  TensorGraph& m_graph;
  DiagnosticEngine& m_diags;
  Options m_options;
  RegionBoxes m_boxes;

  std::vector<CoreType> m_core;            // by TileOpId
  std::vector<std::size_t> m_readBoxStart, m_writeBoxStart;  // CSR by TileOpId into the boxes
  std::vector<RegionBox> m_readBoxes, m_writeBoxes;
  std::vector<std::int32_t> m_pinOfOp;     // by OpId: index into m_pinNames, or -1
  std::vector<std::int32_t> m_scopeRunOfOp; // by OpId: which run of consecutive ops under one scope, or -1
  std::vector<std::int32_t> m_segmentOfOp; // by OpId
  std::vector<std::string> m_pinNames;

  // The scope being partitioned; local index = position in m_ops.
  std::vector<TileOpId> m_ops;
  std::vector<std::int32_t> m_predStart;  // CSR: preds of local op v are m_preds[m_predStart[v], m_predStart[v + 1])
  std::vector<Pred> m_preds;
  std::vector<std::int32_t> m_readStart;  // CSR: region ids of the reads of each op
  std::vector<std::int32_t> m_readRegions;
  std::vector<std::int32_t> m_viewConsumer;  // for view tile ops: the first op reading the view, or -1
  std::unordered_map<RegionBox, std::int32_t, RegionBoxHash> m_regionIds;
  std::vector<std::int64_t> m_regionBytes;

  std::vector<Group> m_groups;
  std::vector<std::int32_t> m_groupOf;  // local op -> group (resolve with find)
  std::vector<std::uint32_t> m_mark;  // by group: stamps of the set being built
  std::uint32_t m_markStamp = 0;
  std::vector<std::int32_t> m_predGroups;  // of the op being placed
  std::vector<std::int32_t> m_producers;   // of the op being placed: data producers per read
  std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> m_pinGroup;  // (pin, segment) -> group
  DiagnosticEngine* m_placeDiags = nullptr;  // where place() reports
  std::vector<std::int64_t> m_operandBytes;  // by local op: its operand tiles' bytes
  std::vector<bool> m_capacityChecked;       // by local op: its merges are checked against the machine
};

} // namespace

bool checkGraphPartitionOptions(const CompileSettings& settings, DiagnosticEngine& diags) {
  return readOptions(settings, diags).has_value();
}

bool graphPartition(Compilation& compilation, DiagnosticEngine& diags) {
  auto options = readOptions(compilation.settings, diags);
  if (!options) return false;
  return Partitioner(compilation, diags, std::move(*options)).run();
}

bool cubeResultsMayStayOnChip(const CompileSettings& settings) {
  DiagnosticEngine ignored;  // GraphPartition has reported a malformed option already
  auto options = readOptions(settings, ignored);
  return options ? options->cubeVectorMayShare : settings.target.hasL0cToUb;
}

PartitionRules partitionRules(Compilation& compilation) {
  DiagnosticEngine ignored;  // rules() reports nothing
  return Partitioner(compilation, ignored, Options{}).rules();
}

void numberPrograms(Compilation& compilation) {
  DiagnosticEngine ignored;
  Partitioner(compilation, ignored, Options{}).numberPrograms();
}

} // namespace pto
