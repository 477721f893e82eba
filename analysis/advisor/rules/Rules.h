// The advisor's rules, one file each in this folder, registered in one place
// (Rules.cpp, in the order they run). A rule reads the baseline run's health
// and schedule through its Context and proposes changes it has simulated.
#pragma once

#include "analysis/advisor/AdvisorContext.h"

#include <vector>

namespace pto::advisor {

// A rule: it proposes through `context` (each suggestion names its rule, as
// docs/cli.md's table of rules does).
using Rule = void (*)(Context& context);

// Every rule, in the order the advisor runs them.
const std::vector<Rule>& advisorRules();

void adviseVectorMerging(Context& context);
void adviseL1Reuse(Context& context);
void adviseWaveTail(Context& context);
void adviseStitching(Context& context);
void adviseUnevenWaves(Context& context);
void adviseSmallMMatmul(Context& context);
void adviseConsumerTiles(Context& context);
void adviseEmptySubgraphs(Context& context);
void adviseTileNearCapacity(Context& context);
void adviseLowOverlap(Context& context);
void adviseLoopBarriers(Context& context);

} // namespace pto::advisor
