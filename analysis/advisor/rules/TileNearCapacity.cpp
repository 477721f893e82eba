// The advisor rule tile-near-capacity (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// tile-near-capacity: see Advisor.h.
void adviseTileNearCapacity(Context& context) {
  const Compilation& compilation = context.compilation();
  const TargetInfo& target = compilation.settings.target;
  const Sites sites(context);
  std::set<std::string> done;
  for (const auto& [program, tasks] : programTasks(context)) {
    const Subgraph& subgraph = compilation.blocks.subgraph(tasks.first);
    if (subgraph.coreType != CoreType::AIV || subgraph.overlap == BufferOverlap::PingPong) continue;
    const auto memory = nearlyFullMemory(subgraph, target, kNearCapacity);
    if (!memory) continue;
    const OpId op = compilation.tiles.tileOp(subgraph.ops.front()).tensorOp;
    const TileSite* site = sites.governing(TileSection::Vec, op);
    if (!site || done.count(site->key)) continue;
    const auto tile = vecTileOf(*site);
    if (!tile) continue;
    done.insert(site->key);
    const TileBufferChecker checker = sites.checker(*site);
    std::vector<std::pair<std::string, json>> candidates;
    std::set<std::vector<std::int64_t>> seen;
    for (std::size_t d = 0; d < tile->size(); ++d)
      for (auto [numerator, denominator] : {std::pair{3, 4}, std::pair{1, 2}, std::pair{1, 4}}) {
        std::vector<std::int64_t> smaller = *tile;
        smaller[d] = (*tile)[d] * numerator / denominator;
        if (smaller[d] < 1 || smaller[d] == (*tile)[d] || !seen.insert(smaller).second) continue;
        if (!mayCompile(checker.checkVec(smaller))) continue;
        candidates.emplace_back(vecShapeText(smaller), vecTilePatch(context, *site, smaller));
      }
    const std::size_t index = static_cast<std::size_t>(*memory);
    const std::string evidence =
        std::to_string(tasks.tasks) + " '" + subgraph.label + "' tasks with " + vecShapeText(*tile) + " tiles use " +
        formatBytes(subgraph.peakBytes[index]) + " of the " + formatBytes(target.capacity(*memory)) + " " +
        memoryLabel(*memory) + " (" + percent(static_cast<double>(subgraph.peakBytes[index]) / target.capacity(*memory)) +
        "): no room to double-buffer (" + std::string(name(subgraph.overlap)) + "), so each tile's load waits for the " +
        "bytes the previous tile still uses";
    context.propose("tile-near-capacity", site->key, evidence,
                    [&](const std::string& value) {
                      return "vec tile [" + value + "] for '" + site->key + "' (now [" + vecShapeText(*tile) +
                             "]): room for the next tile's load while this one computes";
                    },
                    candidates);
  }
}

} // namespace pto::advisor
