// The advisor rule small-m-matmul (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// small-m-matmul: see Advisor.h.
void adviseSmallMMatmul(Context& context) {
  constexpr std::int64_t kSmallM = 64, kLargestM = 256, kCubeAlignment = 16;
  const Compilation& compilation = context.compilation();
  const TensorGraph& graph = context.traced.graph;
  const Sites sites(context);
  std::map<std::string, std::pair<const TileSite*, std::int64_t>> targets;  // key -> site, the largest M it tiles
  for (const TensorOp& op : graph.ops()) {
    if (op.kind != TensorOpKind::Matmul || op.outputs.empty()) continue;
    const TileSite* site = sites.governing(TileSection::Cube, op.id);
    if (!site) continue;
    const auto& rows = compilation.tiles.shapeOf(op.outputs[0]);
    if (rows.size() < 2) continue;
    auto& target = targets[site->key];
    target.first = site;
    target.second = std::max(target.second, rows[rows.size() - 2]);
  }
  for (const auto& [key, target] : targets) {
    const auto& [site, rowsM] = target;
    std::string error;
    if (site->effectiveValue.is_null()) continue;
    const auto shape = cubeTileShapeFromSetting(site->effectiveValue, error);
    if (!shape || shape->mL0 >= kSmallM || rowsM <= shape->mL0) continue;
    const std::int64_t largest = std::min(kLargestM, (rowsM + kCubeAlignment - 1) / kCubeAlignment * kCubeAlignment);
    const TileBufferChecker checker = sites.checker(*site);
    std::vector<std::pair<std::string, json>> candidates;
    for (std::int64_t m = shape->mL0 * 2; m <= largest; m *= 2) {
      CubeTileShape larger = *shape;
      larger.mL0 = m;
      larger.mL1 = std::max(m, shape->mL1 / shape->mL0 * m);
      if (!checker.checkCube(larger).fits()) continue;
      candidates.emplace_back(std::to_string(m), setMemberPatch(context.traced.project.document, "tile_settings",
                                                                "cube", key, cubeShapeJson(larger)));
    }
    const std::vector<std::string> labels = site->labels();
    int tasks = 0;
    for (const Task& task : compilation.tasks.tasks)
      tasks += task.coreType == CoreType::AIC &&
               std::count(labels.begin(), labels.end(), compilation.blocks.subgraph(task.subgraph).label) > 0;
    const std::string evidence = "the matmuls of '" + key + "' are cut into output blocks of " +
                                 std::to_string(shape->mL0) + " rows of their " + std::to_string(rowsM) +
                                 " (the cube works in 16-row fractals and is fed best with 64 to 256 rows): " +
                                 std::to_string(tasks) + " cube tasks, each loading a " + std::to_string(shape->kBL1) +
                                 "x" + std::to_string(shape->nL0) + " panel of B for " + std::to_string(shape->mL0) +
                                 " rows of A";
    context.propose("small-m-matmul", key, evidence,
                    // Copies: clang before 16 cannot capture a structured binding.
                    [key = key, shape](const std::string& value) {
                      return "cube tile m " + value + " for '" + key + "' (now " + std::to_string(shape->mL0) +
                             "): fewer matmul blocks, each reusing its B panel for more rows";
                    },
                    candidates);
  }
}

} // namespace pto::advisor
