// The advisor rule wave-tail (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// wave-tail: see the header.
void adviseWaveTail(Context& context) {
  for (const WaveHealth& wave : context.health.waves) {
    if (wave.label.empty() || wave.waves <= 1.0 || wave.waves > 4.0 || wave.lastWaveTasks * 4 > wave.cores * 3) continue;
    const CoreType type = wave.coreType == "AIC" ? CoreType::AIC : CoreType::AIV;
    const auto labels = labelTasks(context, type);
    auto found = labels.find(wave.label);
    if (found == labels.end() || !found->second.onCriticalPath) continue;
    const std::string option = type == CoreType::AIC ? "cube_l1_reuse_setting" : "vec_nbuffer_setting";
    const int current = mergeCountFor(context.traced.project, option, wave.label);
    if (current <= 1) continue;  // nothing merged: the task count is the tiles'; see the other rules
    std::vector<int> counts;
    for (int n = std::max(1, current / 2); n <= current * 2; n += std::max(1, current / 8))
      if (n != current) counts.push_back(n);
    char evidence[300];
    std::snprintf(evidence, sizeof evidence,
                  "%d '%s' tasks on %d %s cores: %.2f waves, the last with %d of %d cores busy, on the critical path",
                  wave.tasks, wave.label.c_str(), wave.cores, type == CoreType::AIC ? "cube" : "vector", wave.waves,
                  wave.lastWaveTasks, wave.cores);
    proposeMergeCount(context, "wave-tail", option, wave.label, evidence, counts, [&](const std::string&) {
      return " (now " + std::to_string(current) + "): waves that end less ragged";
    });
  }
}

} // namespace pto::advisor
