// The advisor's rules, registered: a new rule is a file in this folder and a line here.
#include "analysis/advisor/rules/Rules.h"

namespace pto::advisor {

const std::vector<Rule>& advisorRules() {
  static const std::vector<Rule> rules = {
      &adviseVectorMerging,
      &adviseL1Reuse,
      &adviseWaveTail,
      &adviseStitching,
      &adviseUnevenWaves,
      &adviseSmallMMatmul,
      &adviseConsumerTiles,
      &adviseEmptySubgraphs,
      &adviseTileNearCapacity,
      &adviseLowOverlap,
      &adviseLoopBarriers,
  };
  return rules;
}

} // namespace pto::advisor
