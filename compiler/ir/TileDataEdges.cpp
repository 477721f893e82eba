// Implementation of the tile producer -> consumer relation.
#include "compiler/ir/TileDataEdges.h"

// The region boxes and their grid index are the ones GraphPartition uses, so
// a dump's edges are the data edges the partition itself sees.
#include "compiler/ir/Regions.h"

#include <algorithm>

namespace pto {

std::vector<TileDataEdge> tileDataEdges(const TileGraph& graph) {
  RegionBoxes boxes;
  RegionIndex liveWrites(OverlapMode::SameIteration);
  std::vector<TileDataEdge> edges;
  std::vector<TileOpId> producers;
  for (const TileOp& op : graph.tileOps()) {
    producers.clear();
    auto readFrom = [&](const TileRegion& region) {
      liveWrites.forEachOverlapping(boxes.box(region), [&](std::int32_t from) { producers.push_back(from); });
    };
    for (const TileRegion& region : op.inputs) readFrom(region);
    if (op.accumulate != TileAccumulate::None)
      for (const TileRegion& region : op.outputs) readFrom(region);
    for (const TileRegion& region : op.outputs) {
      const RegionBox box = boxes.box(region);
      liveWrites.visitOverlapping(box, [&](std::int32_t, const RegionBox& earlier) {
        return containsBox(box, earlier) ? RegionIndex::Visit::Drop : RegionIndex::Visit::Keep;
      });
      liveWrites.insert(box, op.id);
    }
    std::sort(producers.begin(), producers.end());
    producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
    for (TileOpId from : producers) edges.push_back(TileDataEdge{from, op.id});
  }
  return edges;
}

} // namespace pto
