// The advisor rule l1-reuse (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// l1-reuse: see the header.
void adviseL1Reuse(Context& context) {
  const Compilation& compilation = context.baseline.compiled.compilation;
  const Schedule& schedule = context.baseline.simulation.schedule;
  // Per label: how many of its cube tasks read each GM region.
  std::map<std::string, std::map<std::tuple<TensorId, std::vector<std::int64_t>, std::vector<std::int64_t>>, int>> reads;
  std::map<std::string, int> tasksOf;
  for (const Task& task : compilation.tasks.tasks) {
    if (schedule.tasks[static_cast<std::size_t>(task.id)].core.type != CoreType::AIC) continue;
    const std::string& label = compilation.blocks.subgraph(task.subgraph).label;
    ++tasksOf[label];
    for (const ConcreteRegion& region : task.reads)
      if (!region.gathered) ++reads[label][{region.tensor, region.offsets, region.shape}];
  }
  for (const auto& [label, regions] : reads) {
    int shared = 0;
    for (const auto& [region, count] : regions) shared = std::max(shared, count);
    if (shared < 4) continue;
    const std::string key = mergeKeyFor(label);
    const int current = mergeCountFor(context.traced.project, "cube_l1_reuse_setting", key);
    std::vector<int> counts = mergeCounts(current, shared);
    std::erase_if(counts, [&](int n) { return n <= current; });
    const std::string evidence = std::to_string(tasksOf[label]) + " " + labelInEvidence(label) + " cube tasks; one global-memory " +
                                 "region is loaded by " + std::to_string(shared) +
                                 " of them, each loading it into L1 again";
    proposeMergeCount(context, "l1-reuse", "cube_l1_reuse_setting", key, evidence, counts,
                      [](const std::string& count) {
                        return ": " + count + " matmuls per cube task share one load of their common operand";
                      });
  }
}

} // namespace pto::advisor
