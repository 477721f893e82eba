// The advisor rule stitch (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// stitch: see the header.
void adviseStitching(Context& context) {
  const Schedule& schedule = context.baseline.simulation.schedule;
  if (schedule.deviceTaskCount <= 1) return;
  const double idleWhileNone = std::min(coreTypeHealth(context.health, CoreType::AIC).idleWhileNoneReady,
                                        coreTypeHealth(context.health, CoreType::AIV).idleWhileNoneReady);
  if (idleWhileNone < 0.1) return;
  const auto& runtime = context.traced.project.runtimeOptions;
  const int current = runtime.is_object() && runtime.contains("stitch_function_max_num") &&
                              runtime["stitch_function_max_num"].is_number_integer()
                          ? runtime["stitch_function_max_num"].get<int>()
                          : 128;
  std::vector<std::pair<std::string, json>> candidates;
  for (int n : {current * 2, current * 4, current * 16}) {
    json patch = json::array();
    const json& document = context.traced.project.document;
    if (!document.contains("runtime_options") || !document["runtime_options"].is_object())
      patch.push_back({{"op", "add"}, {"path", "/runtime_options"}, {"value", {{"stitch_function_max_num", n}}}});
    else
      patch.push_back({{"op", "add"}, {"path", "/runtime_options/stitch_function_max_num"}, {"value", n}});
    candidates.emplace_back(std::to_string(n), patch);
  }
  const std::string evidence = std::to_string(schedule.deviceTaskCount) + " device tasks of at most " +
                               std::to_string(current) + " loop iterations each; both core types idle with nothing " +
                               "ready at least " + std::to_string(static_cast<int>(100 * idleWhileNone)) + " % of the time";
  context.propose("stitch", "runtime", evidence,
                  [&](const std::string& value) {
                    return "stitch_function_max_num " + value + " (now " + std::to_string(current) +
                           "): fewer, larger device tasks";
                  },
                  candidates);
}

} // namespace pto::advisor
