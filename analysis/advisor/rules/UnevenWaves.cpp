// The advisor rule uneven-waves (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// uneven-waves: see Advisor.h. The wave arithmetic: a label's T tasks of the
// mean duration d on C cores take ceil(T / C) waves of d. An m' x n' output
// block instead of m x n makes T' = T x blocks' / blocks tasks of d' each,
// d' scaled as the task's busiest pipe after each pipe is scaled by what it
// moves for the block (the loads, MTE2 and MTE1: m' + n' rows and columns of
// operands) or computes and writes (CUBE, FIXPIPE, MTE3: m' x n').
void adviseUnevenWaves(Context& context) {
  constexpr double kNoticeableShare = 0.05;  // of the makespan, what the partial wave must cost
  constexpr std::int64_t kCubeAlignment = 16, kLargestTile = 512;
  constexpr std::size_t kSimulated = 3;  // the best estimates that fit are simulated
  const HealthReport& health = context.health;
  const double makespan = static_cast<double>(health.makespanCycles);
  const double cyclesPerUs = health.clockGHz * 1000.0;
  const Compilation& compilation = context.compilation();
  const Sites sites(context);
  auto ceilDiv = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  for (const WaveHealth& wave : health.waves) {
    if (wave.label.empty() || wave.coreType != "AIC" || wave.pathCoreWaitCycles == 0 || wave.tasks <= wave.cores ||
        wave.lastWaveTasks >= wave.cores || cyclesPerUs <= 0)
      continue;
    const double taskCycles = static_cast<double>(wave.busyCycles) / wave.tasks;
    auto spanCycles = [&](std::int64_t tasks, double cyclesEach) {
      return static_cast<double>(ceilDiv(tasks, wave.cores)) * cyclesEach;
    };
    const double span = spanCycles(wave.tasks, taskCycles);
    const double partialWaveCost = span - wave.tasks * taskCycles / wave.cores;
    if (partialWaveCost < kNoticeableShare * makespan) continue;
    // The label's matmuls: one key deciding their tile and one output shape, or the arithmetic does not hold.
    const TileSite* site = nullptr;
    std::int64_t rowsM = 0, colsN = 0;
    bool alike = true;
    for (const TensorOp& op : context.traced.graph.ops()) {
      if (op.kind != TensorOpKind::Matmul || op.label != wave.label || op.outputs.empty()) continue;
      const TileSite* governing = sites.governing(TileSection::Cube, op.id);
      const auto& output = compilation.tiles.shapeOf(op.outputs[0]);
      if (!governing || output.size() < 2 ||
          (site && (governing != site || output[output.size() - 2] != rowsM || output.back() != colsN))) {
        alike = false;
        break;
      }
      site = governing;
      rowsM = output[output.size() - 2];
      colsN = output.back();
    }
    std::string error;
    if (!alike || !site || site->effectiveValue.is_null()) continue;
    const auto shape = cubeTileShapeFromSetting(site->effectiveValue, error);
    if (!shape || shape->mL0 <= 0 || shape->nL0 <= 0) continue;
    auto blocks = [&](std::int64_t m, std::int64_t n) { return ceilDiv(rowsM, m) * ceilDiv(colsN, n); };
    const std::int64_t blocksNow = blocks(shape->mL0, shape->nL0);
    if (wave.tasks % blocksNow != 0) continue;  // not one task per output block (and batch or loop copy)
    struct Estimate {
      std::int64_t m = 0, n = 0, tasks = 0;
      double makespanCycles = 0.0;
    };
    // The label's mean pipe cycles per task, for scaling a task's time with its block.
    std::map<std::string, double> pipeCycles;
    for (const SubgraphHealth& subgraph : health.subgraphs)
      if (subgraph.label == wave.label && subgraph.coreType == wave.coreType)
        for (const PipeBusy& pipe : subgraph.pipes) pipeCycles[pipe.pipe] += static_cast<double>(pipe.cycles) / wave.tasks;
    auto busiest = [&](double loadScale, double blockScale) {
      double most = 0.0;
      for (const auto& [pipe, cycles] : pipeCycles) {
        const bool loads = pipe == "MTE2" || pipe == "MTE1";
        const bool perBlock = pipe == "CUBE" || pipe == "FIXPIPE" || pipe == "MTE3";
        most = std::max(most, cycles * (loads ? loadScale : perBlock ? blockScale : 1.0));
      }
      return most;
    };
    const double busiestNow = busiest(1.0, 1.0);
    if (busiestNow <= 0) continue;
    std::vector<Estimate> estimates;
    for (std::int64_t m = kCubeAlignment; m <= std::min(kLargestTile, ceilDiv(rowsM, kCubeAlignment) * kCubeAlignment);
         m += kCubeAlignment)
      for (std::int64_t n = kCubeAlignment; n <= std::min(kLargestTile, ceilDiv(colsN, kCubeAlignment) * kCubeAlignment);
           n += kCubeAlignment) {
        const std::int64_t tasks = wave.tasks / blocksNow * blocks(m, n);
        const double loadScale = static_cast<double>(m + n) / static_cast<double>(shape->mL0 + shape->nL0);
        const double blockScale = static_cast<double>(m * n) / static_cast<double>(shape->mL0 * shape->nL0);
        const double each = taskCycles * busiest(loadScale, blockScale) / busiestNow;
        const double estimate = makespan - span + spanCycles(tasks, each);
        if (estimate <= makespan * (1.0 - kNoticeableShare)) estimates.push_back({m, n, tasks, estimate});
      }
    // Best first; estimates within half a percent of the makespan count as equal, and then fewer, larger
    // tasks come first (less dispatching, each operand panel loaded for more of the output).
    auto bucket = [&](const Estimate& e) { return std::llround(e.makespanCycles / (0.005 * makespan)); };
    std::stable_sort(estimates.begin(), estimates.end(), [&](const Estimate& a, const Estimate& b) {
      return std::make_pair(bucket(a), a.tasks) < std::make_pair(bucket(b), b.tasks);
    });
    // The best estimates whose tiles fit, k cut (L0 first, then the L1 panels) where the larger block needs it.
    const TileBufferChecker checker = sites.checker(*site);
    std::vector<std::pair<std::string, json>> candidates;
    std::vector<double> estimatesUs;
    std::map<std::string, std::string> outcomes;  // value -> its tasks and waves, for the title
    for (const Estimate& estimate : estimates) {
      if (candidates.size() == kSimulated) break;
      std::optional<CubeTileShape> fitting;
      for (std::int64_t kCut = 1; kCut <= 4 && !fitting; kCut *= 2)
        for (std::int64_t panelCut = 1; panelCut <= 4 && !fitting; panelCut *= 2) {
          CubeTileShape tile = *shape;
          tile.mL0 = estimate.m;
          tile.mL1 = std::max(estimate.m, shape->mL1 / shape->mL0 * estimate.m);
          tile.nL0 = estimate.n;
          tile.nL1 = std::max(estimate.n, shape->nL1 / shape->nL0 * estimate.n);
          tile.kL0 = std::max(kCubeAlignment, shape->kL0 / kCut);
          tile.kAL1 = std::max(tile.kL0, shape->kAL1 / panelCut);
          tile.kBL1 = std::max(tile.kL0, shape->kBL1 / panelCut);
          if (checker.checkCube(tile).fits()) fitting = tile;
        }
      if (!fitting) continue;
      const std::string value = "m " + std::to_string(estimate.m) + ", n " + std::to_string(estimate.n) + ", k " +
                                std::to_string(fitting->kL0) + "/" + std::to_string(fitting->kAL1);
      candidates.emplace_back(value, setMemberPatch(context.traced.project.document, "tile_settings", "cube", site->key,
                                                    cubeShapeJson(*fitting)));
      estimatesUs.push_back(estimate.makespanCycles / cyclesPerUs);
      char outcome[120];
      std::snprintf(outcome, sizeof outcome, "%lld tasks, %.2f waves on %d cores",
                    static_cast<long long>(estimate.tasks), static_cast<double>(estimate.tasks) / wave.cores, wave.cores);
      outcomes[value] = outcome;
    }
    char evidence[600];
    std::snprintf(evidence, sizeof evidence,
                  "%d '%s' cube tasks on %d cube cores: %.2f waves, the last with %d of %d cores busy; the critical "
                  "path waited %s for a free cube core behind them. By the wave arithmetic (%lld waves of %s tasks "
                  "where %.2f would do) the partial wave costs %s, %s of the makespan",
                  wave.tasks, wave.label.c_str(), wave.cores, wave.waves, wave.lastWaveTasks, wave.cores,
                  formatUs(static_cast<double>(wave.pathCoreWaitCycles) / cyclesPerUs).c_str(),
                  static_cast<long long>(ceilDiv(wave.tasks, wave.cores)), formatUs(taskCycles / cyclesPerUs).c_str(),
                  wave.waves, formatUs(partialWaveCost / cyclesPerUs).c_str(), percent(partialWaveCost / makespan).c_str());
    const std::string now = "m " + std::to_string(shape->mL0) + ", n " + std::to_string(shape->nL0) + ", k " +
                            std::to_string(shape->kL0) + "/" + std::to_string(shape->kAL1);
    context.propose("uneven-waves", wave.label, evidence,
                    [&](const std::string& value) {
                      return "cube tile " + value + " for '" + site->key + "' (now " + now + "): " + outcomes[value] +
                             ", waves that fill the cores";
                    },
                    candidates, estimatesUs);
  }
}

} // namespace pto::advisor
