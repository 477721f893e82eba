// The advisor rule scheduling-bound-vector (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// scheduling-bound-vector: see the header.
void adviseVectorMerging(Context& context) {
  const CoreTypeHealth& aiv = coreTypeHealth(context.health, CoreType::AIV);
  if (aiv.idleWhileReady < 0.05) return;
  for (const auto& [label, tasks] : labelTasks(context, CoreType::AIV)) {
    if (label.empty() || tasks.tasks < 2 * aiv.cores || 2 * tasks.schedulingBound < tasks.tasks) continue;
    const int current = mergeCountFor(context.traced.project, "vec_nbuffer_setting", label);
    std::vector<std::pair<std::string, json>> candidates;
    // Up to twice the tasks per core: fewer tasks than cores can still win when dispatching dominates.
    for (int n : mergeCounts(current, 2 * tasks.tasks / aiv.cores))
      if (n > current)
        candidates.emplace_back(std::to_string(n), setMemberPatch(context.traced.project.document, "pass_options",
                                                                  "vec_nbuffer_setting", label, n));
    char evidence[400];
    std::snprintf(evidence, sizeof evidence,
                  "%d '%s' vector tasks, %d of them shorter than a scheduler round over the %d vector cores (%s); "
                  "the vector cores sat idle %.0f %% of the time while tasks were ready",
                  tasks.tasks, label.c_str(), tasks.schedulingBound, aiv.cores,
                  formatUs(aiv.schedulerRoundCycles / (context.health.clockGHz * 1000.0)).c_str(),
                  100.0 * aiv.idleWhileReady);
    context.propose("scheduling-bound-vector", label, evidence,
                    // A copy: clang before 16 cannot capture a structured binding.
                    [label = label](const std::string& value) {
                      return "vec_nbuffer_setting " + value + " for '" + label + "': " + value +
                             " of its tiles per vector task";
                    },
                    candidates);
  }
}

} // namespace pto::advisor
