// The advisor rule low-double-buffer-overlap (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// low-double-buffer-overlap: see Advisor.h.
void adviseLowOverlap(Context& context) {
  // Pipes that run one after the other: their busy times add up to (nearly)
  // the task, and no pipe alone holds most of it, so overlapping them would pay.
  constexpr double kSerialShare = 0.9, kMostSerialShare = 1.1, kMostBusiestShare = 0.75;
  const Compilation& compilation = context.compilation();
  const TargetInfo& target = compilation.settings.target;
  std::set<std::string> done;
  for (const auto& [program, tasks] : programTasks(context)) {
    if (tasks.label.empty() || tasks.durationCycles <= 0 || done.count(tasks.label)) continue;
    // Tasks shorter than a scheduler round are scheduling-bound-vector's case (merging them pays for dispatch).
    if (2 * tasks.schedulingBound >= tasks.tasks) continue;
    const Subgraph& subgraph = compilation.blocks.subgraph(tasks.first);
    // A buffer too full to double-buffer is tile-near-capacity's case.
    if (subgraph.overlap != BufferOverlap::PingPong && nearlyFullMemory(subgraph, target, kNearCapacity)) continue;
    double summed = 0.0, busiest = 0.0;
    std::string busiestPipe;
    for (const auto& [pipe, cycles] : tasks.pipeCycles) {
      summed += cycles;
      if (cycles > busiest) busiest = cycles, busiestPipe = pipe;
    }
    const double serialShare = summed / tasks.durationCycles, busiestShare = busiest / tasks.durationCycles;
    if (serialShare < kSerialShare || serialShare > kMostSerialShare || busiestShare > kMostBusiestShare) continue;
    done.insert(tasks.label);
    std::vector<std::pair<std::string, json>> candidates;
    const auto& passOptions = context.traced.project.passOptions;
    if (passOptions.is_object() && passOptions.contains("ooo_sched_mode") && passOptions["ooo_sched_mode"] == 0)
      candidates.emplace_back("ooo_sched_mode 1",
                              json::array({{{"op", "replace"}, {"path", "/pass_options/ooo_sched_mode"}, {"value", 1}}}));
    // Several tiles per task: the next tile's load overlaps this tile's compute.
    const std::string option = tasks.coreType == CoreType::AIV ? "vec_nbuffer_setting" : "cube_nbuffer_setting";
    const int current = mergeCountFor(context.traced.project, option, tasks.label);
    for (int n : {current * 2, current * 4})
      if (n <= tasks.tasks)
        candidates.emplace_back(option + " " + std::to_string(n),
                                setMemberPatch(context.traced.project.document, "pass_options", option, tasks.label, n));
    std::string pipes;
    for (const auto& [pipe, cycles] : tasks.pipeCycles)
      pipes += (pipes.empty() ? "" : ", ") + pipe + " " + percent(cycles / tasks.durationCycles);
    const std::string evidence = std::to_string(tasks.tasks) + " '" + tasks.label + "' " +
                                 (tasks.coreType == CoreType::AIV ? "vector" : "cube") + " tasks keep their pipes busy " +
                                 pipes + " of their time: " + percent(serialShare) +
                                 " summed, so loads, compute and stores barely overlap (the busiest, " + busiestPipe +
                                 ", alone would take " + percent(busiestShare) + ")";
    context.propose("low-double-buffer-overlap", tasks.label, evidence,
                    [label = tasks.label](const std::string& value) {
                      return value + " for '" + label + "': loads overlap compute";
                    },
                    candidates);
  }
}

} // namespace pto::advisor
