// The advisor rule scheduling-bound-vector (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// scheduling-bound-vector: see the header.
void adviseVectorMerging(Context& context) {
  const CoreTypeHealth& aiv = coreTypeHealth(context.health, CoreType::AIV);
  if (aiv.idleWhileReady < 0.05) return;
  for (const auto& [label, tasks] : labelTasks(context, CoreType::AIV)) {
    if (tasks.tasks < 2 * aiv.cores || 2 * tasks.schedulingBound < tasks.tasks) continue;
    const std::string key = mergeKeyFor(label);
    const std::string named = labelInEvidence(label);
    const int current = mergeCountFor(context.traced.project, "vec_nbuffer_setting", key);
    // Up to twice the tasks per core: fewer tasks than cores can still win when dispatching dominates.
    std::vector<int> counts = mergeCounts(current, 2 * tasks.tasks / aiv.cores);
    std::erase_if(counts, [&](int n) { return n <= current; });
    char evidence[400];
    std::snprintf(evidence, sizeof evidence,
                  "%d %s vector tasks, %d of them shorter than a scheduler round over the %d vector cores (%s); "
                  "the vector cores sat idle %.0f %% of the time while tasks were ready",
                  tasks.tasks, named.c_str(), tasks.schedulingBound, aiv.cores,
                  formatUs(aiv.schedulerRoundCycles / (context.health.clockGHz * 1000.0)).c_str(),
                  100.0 * aiv.idleWhileReady);
    proposeMergeCount(context, "scheduling-bound-vector", "vec_nbuffer_setting", key, evidence, counts,
                      [unlabelled = label.empty()](const std::string& count) {
                        return ": " + count + (unlabelled ? " tiles per vector task for every vector subgraph "
                                                            "without a setting of its own"
                                                          : " of its tiles per vector task");
                      });
  }
}

} // namespace pto::advisor
