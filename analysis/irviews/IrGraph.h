// IrGraph: one IR level of a compiled kernel as a graph a person can look
// at — the graph views of the IDE and `pto graph --group` draw it. Built from
// the compiler's JSON dumps (the tensor graph, and a pass snapshot: the tile
// graph plus "block" and "execute" once those exist), so the graph after any
// pass of the pass viewer is built exactly like the final one.
//
// Levels and their nodes:
//   tensor   tensor ops (kind, result shape and dtype), edges along tensors;
//            grouped by loop
//   tile     tile ops (kind, tile shape, memory the result lives in, tile
//            index among its tensor op's tiles); clustered by subgraph once
//            GraphPartition has run; grouped by loop scope
//   block    per subgraph its copy-ins (GM -> UB/L1), ops and copy-outs,
//            each subgraph a cluster; edges between clusters through GM
//   exec     tasks (subgraph, program, loop indices), edges their
//            dependencies
//
// Node keys are PassDiff's identities (a tile op is its tensor op, opcode
// and regions), so a node keeps its key across passes and recompiles: the
// pass viewer's diff marks and a stable layout both hang on it.
//
// Big graphs: `visibleGraph` collapses groups (by subgraph, loop scope or
// label) into one node each, expanding only the ones asked for, and above
// kNeighbourhoodAbove visible nodes keeps only the k-hop neighbourhood of a
// focus node, so what gets laid out stays small enough to read and to lay
// out within a second.
#pragma once

#include "analysis/irviews/IrJson.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class GraphLevel { Tensor, Tile, Block, Execute };
std::string_view name(GraphLevel level);  // "tensor", "tile", "block", "exec"
std::optional<GraphLevel> graphLevelNamed(std::string_view text);

struct IrGraphNode {
  std::string key;     // identity across passes (see above)
  std::string kind;    // "add", "matmul", "copy_in", "task"
  std::string title;   // "add #12"
  std::string detail;  // "[32, 32] fp32 · UB · tile 2"
  std::string label;   // semantic label
  std::string file;    // kernel file and line the node comes from (0: none)
  int line = 0;
  std::int64_t id = -1;     // tensor op / tile op (opmagic) / subgraph / task id in this snapshot
  int tensorOp = -1;        // the tensor op it belongs to
  int tileIndex = -1;       // tile level: place among its tensor op's tiles (partition_overrides' "tile")
  int cluster = -1;         // index into IrGraph::clusters (its subgraph), -1 when none
  int scope = -1;           // loop scope (tile, block) or loop id (tensor), -1 at top level
  std::string memory;       // where the result lives: GM, UB, L1, L0C, ...
  std::string coreType;     // AIC or AIV, once partitioned
  int program = -1;         // isomorphism class (PTO program id)
  std::int64_t subgraph = -1;  // subgraph id, once partitioned
};

struct IrGraphEdge {
  int from = 0;  // node indices
  int to = 0;
};

// A subgraph (tile, block levels).
struct IrGraphCluster {
  std::int64_t id = -1;  // subgraph id in this snapshot
  std::string key;       // identity: "sg:" + its first tile op's key
  std::string title;     // "sg3 AIV 'scale_add'"
  std::string label;
  std::string coreType;
  int program = -1;
  std::vector<int> nodes;
};

struct IrGraph {
  GraphLevel level = GraphLevel::Tile;
  std::string kernel;
  std::vector<IrGraphNode> nodes;
  std::vector<IrGraphEdge> edges;
  std::vector<IrGraphCluster> clusters;
  // Empty when the level exists; otherwise why not ("the block graph exists
  // after GraphPartition").
  std::string missing;
};

// `tensorJson` is tensorGraphToJson's output; `snapshot` a pass snapshot or
// the final one (Pipeline.h). A level the snapshot does not have yet gives
// an empty graph with `missing` set.
IrGraph buildIrGraph(GraphLevel level, const IrJson& tensorJson, const IrJson& snapshot);

// --- What gets laid out -----------------------------------------------------

// Structure: nested, as people think of a kernel — by label, inside a label
// by subgraph (tile ops before partitioning: by tensor op), inside a big
// subgraph by tensor op; each level collapsed until opened, a level of too
// many children split into parts.
enum class GraphGrouping { None, Subgraph, TensorOp, Scope, Label, Structure };
std::string_view name(GraphGrouping grouping);  // "none", "subgraph", "op", "scope", "label", "structure"
std::optional<GraphGrouping> graphGroupingNamed(std::string_view text);

// Up to this many nodes a graph is shown whole; beyond it groups start collapsed.
constexpr std::size_t kExpandAllUpTo = 400;
// Beyond this many visible items only a neighbourhood of the focus is shown.
constexpr std::size_t kNeighbourhoodAbove = 3000;
// Structure grouping: a group this small shows its members when it opens
// instead of another level of boxes.
constexpr std::size_t kOpenInnerGroupsUpTo = 48;
// Structure grouping: a group of more children than this opens into parts
// ("subgraphs 1-91 of 1088"), each opening into its share of the children.
constexpr std::size_t kMostChildrenShown = 100;

struct VisibleItem {
  int node = -1;             // a node of the graph, or
  int group = -1;            // a collapsed group (index into VisibleGraph::groups)
  int cluster = -1;          // the graph's cluster it is drawn in, -1 when none
  std::string key;           // node key, or "group:" + group key
  std::string title;
  std::string detail;
  std::vector<int> members;  // the graph's nodes it stands for
  // The open group double-clicking its subgraph's frame closes again: its
  // subgraph's group, else the innermost open group of more than itself
  // ("" at top level).
  std::string openGroup;
};

struct VisibleGroup {
  std::string key;    // "sg:...", "op:4", "scope:3", "label:softmax"; nested: "label:softmax/sg:..."
  std::string title;  // "softmax · 24 tile ops in 6 subgraphs"
  std::vector<int> members;
  bool expanded = false;
  int depth = 0;  // Structure grouping: 0 label, 1 subgraph (or tensor op), 2 tensor op
};

struct VisibleEdge {
  int from = 0;  // item indices
  int to = 0;
  int count = 1;  // graph edges it stands for
};

struct VisibleGraph {
  std::vector<VisibleItem> items;
  std::vector<VisibleEdge> edges;
  std::vector<VisibleGroup> groups;
  std::vector<int> itemOfNode;  // by graph node: the item showing it, -1 when hidden (outside the neighbourhood)
  bool neighbourhood = false;   // only the focus's neighbourhood is shown
  int hiddenNodes = 0;
};

struct VisibleGraphOptions {
  GraphGrouping grouping = GraphGrouping::None;
  // Groups to show expanded (by VisibleGroup::key); with `expandAll` every group.
  std::set<std::string> expanded;
  bool expandAll = false;
  // Neighbourhood mode: the node in the middle (-1: the first) and how far it reaches.
  int focusNode = -1;
  int hops = 2;
  std::size_t neighbourhoodAbove = kNeighbourhoodAbove;
};

// The default for a graph: whole when small (kExpandAllUpTo nodes), else by
// structure with every group collapsed: a few labelled boxes with counts
// that open level by level (a picture of hundreds of boxes explains nothing
// and takes dot seconds).
VisibleGraphOptions defaultVisibleOptions(const IrGraph& graph);
VisibleGraph visibleGraph(const IrGraph& graph, const VisibleGraphOptions& options);

// DOT text of what is visible (clusters for subgraphs, groups as boxes), for
// `pto graph --group` and the IDE's export: the same picture in both.
std::string visibleGraphToDot(const IrGraph& graph, const VisibleGraph& visible);

// A partition_overrides "OPS" object naming one tile op stably across
// recompiles: {"label": ..., "line": ..., "tile": i} (label or line only when
// known). Tile level only.
nlohmann::ordered_json tileOpSelector(const IrGraphNode& node);
// The same for node `node` of `graph` (the tile level as
// ApplyPartitionOverrides sees it), naming one subgraph's op: an unrolled
// loop repeats each label and line in every copy, so there {label, line,
// tile} matches an op in every copy's subgraph, and the tensor op id is
// added ("tensor_op", stable while the kernel traces the same).
nlohmann::ordered_json tileOpSelector(const IrGraph& graph, int node);

// The PTO program a subgraph runs, one line per instruction: index, pipe,
// mnemonic, operands (memory, offset or GM region), and the kernel line it
// comes from, so a listing can be coloured like the editor's gutter
// (Compiler-Explorer style). Empty when the snapshot has no programs yet.
struct ListingLine {
  std::string text;
  std::string file;
  int line = 0;  // kernel line, 0 for sync instructions
};
std::vector<ListingLine> programListing(const IrJson& snapshot, std::int64_t subgraph);

} // namespace pto
