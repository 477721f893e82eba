// What each compiler pass changed, node by node: the IR after every pass
// (the pass runner's snapshots) read as nodes of four levels — tile ops,
// subgraphs, PTO programs, tasks — each with an identity that survives the
// passes (a tile op is its tensor op, opcode and operand regions, not its
// renumbered id), so two snapshots compare as added, removed and changed
// nodes. `pto passes` prints it; the IDE's pass viewer is meant to show it.
#pragma once

#include "analysis/irviews/IrJson.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class IrLevel { TileOp, Subgraph, Program, Task };
constexpr std::size_t kIrLevelCount = 4;
std::string_view name(IrLevel level);  // "tile_ops", "subgraphs", "programs", "tasks"

struct IrNode {
  IrLevel level = IrLevel::TileOp;
  std::string key;      // identity across passes
  std::string label;    // what a reader sees: "muls t4[0:32, 0:32] (kernel.py:18)"
  std::string content;  // compared to tell a changed node
};

// The nodes of one snapshot (Pipeline.h's snapshot JSON: the tile graph plus
// "block", "pto" and "execute" once they exist), sorted by level then key.
std::vector<IrNode> irNodes(const IrJson& snapshot);

// The identity of each tile op of a snapshot, by its id (opmagic): tensor op,
// opcode, output and first input regions, made unique by occurrence. Graph
// views key their nodes by it, so diffs and layouts line up with irNodes.
std::map<std::int64_t, std::string> tileOpKeys(const IrJson& snapshot);
// "muls t4[0:32, 0:32] (kernel.py:18)": how irNodes labels a tile op.
std::string tileOpText(const IrJson& operation);

struct LevelCounts {
  int count = 0;  // nodes after the pass
  int added = 0;
  int removed = 0;
  int changed = 0;
};

struct NodeChange {
  IrLevel level = IrLevel::TileOp;
  char kind = '+';  // '+' added, '-' removed, '~' changed
  std::string label;
  std::string key;  // IrNode::key
};

// Nodes of `after` not in `before` (+), of `before` not in `after` (-), and
// in both with different content (~), in level then key order.
std::vector<NodeChange> diffNodes(const std::vector<IrNode>& before, const std::vector<IrNode>& after);
std::array<LevelCounts, kIrLevelCount> countChanges(const std::vector<IrNode>& after,
                                                    const std::vector<NodeChange>& changes);

} // namespace pto
