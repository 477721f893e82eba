// Implementation of SubgraphOpOrder.
#include "compiler/passes/SubgraphOpOrder.h"

#include "compiler/ir/Regions.h"
#include "compiler/passes/GraphPartition.h"

#include <algorithm>
#include <queue>
#include <tuple>

namespace pto {
namespace {

// The ops before each op that it must follow, found per region through two
// overlap indexes (regions read, regions written) filled in program order.
std::vector<std::vector<int>> predecessorsOf(const TileGraph& tiles, const Subgraph& subgraph) {
  const TensorGraph& graph = tiles.graph;
  const std::size_t count = subgraph.ops.size();
  std::vector<std::vector<int>> predecessors(count);
  RegionBoxes boxes;
  RegionIndex reads(OverlapMode::SameIteration), writes(OverlapMode::SameIteration);
  // Bytes shared under two names (a folded reshape's alias and its
  // source): an op writing them follows every earlier op touching them, an
  // op reading them every earlier op writing them (reads need no order
  // among themselves, and chaining them would keep every tile they read
  // live at once).
  std::vector<int> sharedBytesUsers, sharedBytesWriters;
  std::vector<char> shared(graph.tensors().size(), 0);  // by tensor: an alias, or the source of one
  for (const TensorValue& value : graph.tensors())
    if (value.reshapeOf != kNoId) {
      shared[static_cast<std::size_t>(value.id)] = 1;
      shared[static_cast<std::size_t>(value.reshapeOf)] = 1;
    }
  auto isShared = [&](TensorId tensor) { return shared[static_cast<std::size_t>(tensor)] != 0; };

  for (std::size_t position = 0; position < count; ++position) {
    const TileOp& op = tiles.tileOp(subgraph.ops[position]);
    std::vector<int>& before = predecessors[position];
    auto collect = [&](std::int32_t earlier, const RegionBox&) {
      before.push_back(earlier);
      return RegionIndex::Visit::Keep;
    };
    bool readsShared = false, writesShared = false;
    for (const TileRegion& input : op.inputs) {
      readsShared = readsShared || isShared(input.tensor);
      writes.visitOverlapping(boxes.box(input), collect);
    }
    for (const TileRegion& output : op.outputs) {
      writesShared = writesShared || isShared(output.tensor);
      const RegionBox box = boxes.box(output);
      writes.visitOverlapping(box, collect);
      reads.visitOverlapping(box, collect);
    }
    if (writesShared) before.insert(before.end(), sharedBytesUsers.begin(), sharedBytesUsers.end());
    else if (readsShared) before.insert(before.end(), sharedBytesWriters.begin(), sharedBytesWriters.end());
    if (readsShared || writesShared) sharedBytesUsers.push_back(static_cast<int>(position));
    if (writesShared) sharedBytesWriters.push_back(static_cast<int>(position));
    for (const TileRegion& input : op.inputs) reads.insert(boxes.box(input), static_cast<std::int32_t>(position));
    for (const TileRegion& output : op.outputs)
      writes.insert(boxes.box(output), static_cast<std::int32_t>(position));
    std::sort(before.begin(), before.end());
    before.erase(std::unique(before.begin(), before.end()), before.end());
  }
  return predecessors;
}

} // namespace

std::vector<int> depthFirstOpOrder(const TileGraph& tiles, const Subgraph& subgraph) {
  const std::size_t count = subgraph.ops.size();
  const std::vector<std::vector<int>> predecessors = predecessorsOf(tiles, subgraph);
  std::vector<std::vector<int>> successors(count);
  std::vector<int> waiting(count, 0);
  for (std::size_t position = 0; position < count; ++position) {
    waiting[position] = static_cast<int>(predecessors[position].size());
    for (int earlier : predecessors[position]) successors[static_cast<std::size_t>(earlier)].push_back(static_cast<int>(position));
  }
  // (when it became ready, newest first; then the op made first)
  using Ready = std::pair<int, int>;
  auto later = [](const Ready& a, const Ready& b) { return std::tie(a.first, b.second) < std::tie(b.first, a.second); };
  std::priority_queue<Ready, std::vector<Ready>, decltype(later)> ready(later);
  for (std::size_t position = 0; position < count; ++position)
    if (waiting[position] == 0) ready.emplace(-1, static_cast<int>(position));
  std::vector<int> order;
  order.reserve(count);
  while (!ready.empty()) {
    const int position = ready.top().second;
    ready.pop();
    const int step = static_cast<int>(order.size());
    order.push_back(position);
    for (int next : successors[static_cast<std::size_t>(position)])
      if (--waiting[static_cast<std::size_t>(next)] == 0) ready.emplace(step, next);
  }
  return order;  // every op: predecessors always come earlier in the subgraph
}

} // namespace pto
