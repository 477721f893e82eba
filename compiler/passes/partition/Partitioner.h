// The state and steps of GraphPartition, shared by the files that make it
// up (private to the pass):
//   GraphPartition.cpp          options, per-op facts, placing ops into
//                               groups, on-chip capacity, one scope
//   partition/Edges.cpp         regions and the ordering edges of a scope
//   partition/Assembly.cpp      splitting for parallelism, ordering parts,
//                               and assembling the block graph
#pragma once

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/Compilation.h"
#include "compiler/ir/Regions.h"
#include "compiler/passes/GraphPartition.h"
#include "core/Diagnostics.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace pto::partition {

// Placements of a scope at most: the first without capacity checks, then
// with the ops of each group that overflowed checked.
constexpr int kCapacityRounds = 4;

struct Options {
  std::int64_t copyInUpperBound = 0;
  std::int64_t parallelLowerBound = 0;
  std::map<std::string, std::string> pinOfLabel;  // semantic label -> pin key
  bool cubeVectorMayShare = false;  // L0C -> UB: a matmul result may feed a vector op on chip
  bool vectorCubeMayShare = false;  // UB -> L1: a vector result may feed a matmul operand on chip
};

inline bool onChip(CoreType producer, CoreType consumer, const Options& options) {
  return producer == consumer || (producer == CoreType::AIC && options.cubeVectorMayShare) ||
         (producer == CoreType::AIV && options.vectorCubeMayShare);
}

// Whether cube and vector ops may share a subgraph at all: data passes between them on chip one way or both.
inline bool mixedSubgraphs(const Options& options) { return options.cubeVectorMayShare || options.vectorCubeMayShare; }

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

  // Partitions every scope and assembles the block graph.
  bool run();
  // Program ids for a block graph made elsewhere (see numberPrograms(Compilation&)).
  void numberPrograms();
  // The rules a hand-made partition is checked against (partitionRules(Compilation&)).
  PartitionRules rules();

private:
  CoreType coreOf(std::int32_t local) const { return m_core[static_cast<std::size_t>(m_ops[static_cast<std::size_t>(local)])]; }
  const TileOp& tileOf(std::int32_t local) const { return m_tiles.tileOp(m_ops[static_cast<std::size_t>(local)]); }
  Group& group(std::int32_t id) { return m_groups[static_cast<std::size_t>(id)]; }
  std::int32_t groupOfOp(std::int32_t local) { return find(m_groupOf[static_cast<std::size_t>(local)]); }

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

  static constexpr std::size_t kMaxCheckedGroupOps = 1024;

  // Per tile op facts, groups, on-chip capacity, one scope (GraphPartition.cpp).
  void classifyOps();
  std::int32_t segmentOf(std::int32_t local) const;
  std::int32_t pinOf(std::int32_t local) const;
  std::int32_t scopeRunOf(std::int32_t local) const;
  std::int32_t find(std::int32_t id);
  std::int32_t newGroup(std::int32_t pin, std::int32_t first);
  bool place(std::int32_t v);
  void measureOperands();
  std::int64_t smallestCapacity(bool cube) const;
  bool fitsOnChip(std::vector<std::int32_t> locals, bool cube, std::int64_t operandBytes) const;
  bool fitsWith(const std::vector<std::int32_t>& chosen, std::int32_t extra, std::int32_t v);
  bool markOverfullGroups(bool everyOp);
  void cutOverfullPinnedParts(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned);
  bool partsAcyclic(const std::vector<std::int32_t>& partOf, std::size_t count) const;
  bool placeScope(DiagnosticEngine& diags);
  void numberGroups(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned);
  bool partitionScope(const std::vector<TileOpId>& ops, std::vector<Part>& parts);

  // Regions and edges (partition/Edges.cpp).
  std::int32_t internRegion(const RegionBox& box);  // `box`: one of m_readBoxes
  std::int32_t gatheredRegion(const TileOp& op);
  RegionBox boxOf(const TileRegion& region);
  void collectBoxes();
  void buildEdges();
  std::optional<RegionBox> bytesUnder(const RegionBox& read) const;
  void placeViews();

  // All scopes (partition/Assembly.cpp).
  void splitForParallelism(std::vector<std::int32_t>& partOf, std::vector<bool>& pinned);
  bool orderParts(const std::vector<std::int32_t>& partOf, const std::vector<bool>& pinned, std::vector<Part>& parts);
  // A tensor a subgraph's canonical form names, numbered in order of first use.
  struct CanonicalSlot {
    TensorId tensor;
    const RegionBox* box;     // its first region's box
    const TileRegion* region;  // its first region
  };
  void canonicalForm(const Subgraph& subgraph, std::string& text, std::vector<CanonicalSlot>& slots);
  bool sameCanonicalForm(const Subgraph& a, const Subgraph& b, std::vector<CanonicalSlot>& slotsA,
                         std::vector<CanonicalSlot>& slotsB);
  void assignProgramIds();
  bool assemble(std::vector<std::vector<Part>>& partsOfScope);

  Compilation& m_compilation;
  const TileGraph& m_tiles;
  TensorGraph& m_graph;
  DiagnosticEngine& m_diags;
  Options m_options;
  RegionBoxes m_boxes;

  std::vector<CoreType> m_core;            // by TileOpId
  std::vector<std::size_t> m_readBoxStart, m_writeBoxStart;  // CSR by TileOpId into the boxes
  std::vector<RegionBox> m_readBoxes, m_writeBoxes;
  std::vector<std::int32_t> m_pinOfOp;     // by OpId: index into m_pinNames, or -1
  std::vector<std::int32_t> m_scopeRunOfOp; // by OpId: which run of consecutive ops under one scope, or -1
  std::vector<int> m_segmentOfOp; // by OpId: see loopSegmentOfOps
  std::vector<std::string> m_pinNames;

  // The scope being partitioned; local index = position in m_ops.
  std::vector<TileOpId> m_ops;
  std::vector<std::int32_t> m_predStart;  // CSR: preds of local op v are m_preds[m_predStart[v], m_predStart[v + 1])
  std::vector<Pred> m_preds;
  std::vector<std::int32_t> m_readStart;  // CSR: region ids of the reads of each op
  std::vector<std::int32_t> m_readRegions;
  std::vector<std::int32_t> m_viewConsumer;  // for view tile ops: the first op reading the view, or -1
  RegionBoxIds m_regionIds;                // distinct read boxes of the scope, kept in m_readBoxes
  std::vector<std::int32_t> m_regionOfBox;  // by the box's id in m_regionIds: its region id
  std::vector<std::int64_t> m_regionBytes;  // by region id

  std::vector<Group> m_groups;
  std::vector<std::int32_t> m_groupOf;  // local op -> group (resolve with find)
  std::vector<std::uint32_t> m_mark;  // by group: stamps of the set being built
  std::uint32_t m_markStamp = 0;
  std::vector<std::int32_t> m_predGroups;  // of the op being placed
  std::vector<std::int32_t> m_producers;   // of the op being placed: data producers per read
  // place()'s working lists, kept from one op to the next.
  std::vector<std::array<std::int32_t, 3>> m_placeData;
  std::vector<std::int32_t> m_placeChosen, m_placeInside, m_placeTrialInside, m_placeCandidates, m_placeAdded,
      m_placeOwn, m_placeOwnRegions;
  std::unordered_set<std::int32_t> m_placeExtras, m_placeAddedSet;
  std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> m_pinGroup;  // (pin, segment) -> group
  DiagnosticEngine* m_placeDiags = nullptr;  // where place() reports
  std::vector<std::int64_t> m_operandBytes;  // by local op: its operand tiles' bytes
  std::vector<bool> m_capacityChecked;       // by local op: its merges are checked against the machine
};

} // namespace pto::partition
