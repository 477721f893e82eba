// The advisor rule consumer-finer-than-producer (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// consumer-finer-than-producer: see Advisor.h.
void adviseConsumerTiles(Context& context) {
  const Compilation& compilation = context.compilation();
  const TileGraph& tiles = compilation.tiles;
  const auto& subgraphOf = compilation.blocks.subgraphOfTileOp;
  std::map<TensorId, TileOpId> writer;  // storage tensor -> its first writing tile op
  for (const TileOp& op : tiles.tileOps())
    for (const TileRegion& output : op.outputs) writer.emplace(output.tensor, op.id);
  const Sites sites(context);
  std::set<std::string> done;
  for (const TensorOp& consumer : context.traced.graph.ops()) {
    if (movesDataOnly(consumer.kind) || static_cast<std::size_t>(consumer.id) >= tiles.graph.ops().size()) continue;
    const auto& consumerTiles = tiles.tilesOf(consumer.id);
    if (consumerTiles.empty()) continue;
    const TileOp& first = tiles.tileOp(consumerTiles.front());
    const SubgraphId consumerSubgraph = subgraphOf[static_cast<std::size_t>(first.id)];
    if (compilation.blocks.subgraph(consumerSubgraph).coreType != CoreType::AIV) continue;
    const TileSite* site = sites.governing(TileSection::Vec, consumer.id);
    if (!site || done.count(site->key)) continue;
    const auto tile = vecTileOf(*site);
    if (!tile) continue;
    for (const TileRegion& input : first.inputs) {
      auto found = writer.find(input.tensor);
      if (found == writer.end()) continue;
      const TileOp& producer = tiles.tileOp(found->second);
      if (producer.tensorOp == consumer.id || subgraphOf[static_cast<std::size_t>(producer.id)] == consumerSubgraph)
        continue;  // on chip: the consumer's tile costs no extra loads
      const TileRegion* written = nullptr;
      for (const TileRegion& output : producer.outputs)
        if (output.tensor == input.tensor) written = &output;
      const std::vector<std::int64_t>& produced = written->shape;
      if (produced.size() != input.shape.size() || tile->size() != produced.size()) continue;
      bool inside = true;
      for (std::size_t d = 0; d < produced.size(); ++d) inside = inside && input.shape[d] <= produced[d];
      const std::int64_t readsPerTile = elements(produced) / std::max<std::int64_t>(1, elements(input.shape));
      if (!inside || readsPerTile < 2) continue;
      // Grow the consumer's tile toward the producer's, along the dims where it is smaller.
      const TileBufferChecker checker = sites.checker(*site);
      std::vector<std::pair<std::string, json>> candidates;
      std::vector<std::int64_t> previous = *tile;
      for (std::int64_t factor = 2; factor <= readsPerTile; factor *= 2) {
        std::vector<std::int64_t> grown = *tile;
        for (std::size_t d = 0; d < grown.size(); ++d)
          if (input.shape[d] < produced[d]) grown[d] = std::min(produced[d], (*tile)[d] * factor);
        if (grown == previous) break;
        previous = grown;
        if (!mayCompile(checker.checkVec(grown))) continue;
        candidates.emplace_back(vecShapeText(grown), vecTilePatch(context, *site, grown));
      }
      const std::string producerLabel = tiles.graph.op(producer.tensorOp).label;
      const std::string evidence =
          "'" + consumer.label + "' (" + std::string(name(consumer.kind)) + ") reads the " + dimsText(produced) +
          " tiles '" + producerLabel + "' (" + std::string(name(tiles.graph.op(producer.tensorOp).kind)) +
          ") writes to global memory " + dimsText(input.shape) + " at a time: each produced tile is loaded by " +
          std::to_string(readsPerTile) + " vector tasks, " + std::to_string(consumerTiles.size()) + " in all";
      context.propose("consumer-finer-than-producer", site->key, evidence,
                      [&](const std::string& value) {
                        return "vec tile [" + value + "] for '" + site->key + "' (now [" + vecShapeText(*tile) +
                               "]): read what '" + producerLabel + "' writes in fewer, larger tiles";
                      },
                      candidates);
      done.insert(site->key);
      break;
    }
  }
}

} // namespace pto::advisor
