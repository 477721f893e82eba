// The advisor's rules, registered: a new rule is a file in this folder and a line here.
#include "analysis/advisor/rules/Rules.h"

namespace pto::advisor {

const std::vector<Rule>& advisorRules() {
  static const std::vector<Rule> rules = {
      {"scheduling-bound-vector", "VectorMerging", &adviseVectorMerging},
      {"l1-reuse", "L1Reuse", &adviseL1Reuse},
      {"wave-tail", "WaveTail", &adviseWaveTail},
      {"stitch", "Stitching", &adviseStitching},
      {"uneven-waves", "UnevenWaves", &adviseUnevenWaves},
      {"small-m-matmul", "SmallMMatmul", &adviseSmallMMatmul},
      {"consumer-finer-than-producer", "ConsumerTiles", &adviseConsumerTiles},
      {"empty-subgraph", "EmptySubgraphs", &adviseEmptySubgraphs},
      {"tile-near-capacity", "TileNearCapacity", &adviseTileNearCapacity},
      {"low-double-buffer-overlap", "LowOverlap", &adviseLowOverlap},
      {"loop-barrier", "LoopBarriers", &adviseLoopBarriers},
  };
  return rules;
}

} // namespace pto::advisor
