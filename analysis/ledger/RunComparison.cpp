// Comparing two recorded runs (RunComparison.h).
#include "analysis/ledger/RunComparison.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

// RFC 6901: "~" -> "~0", "/" -> "~1".
std::string pointerToken(const std::string& key) {
  std::string token;
  for (char c : key) token += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return token;
}

void differences(const Json* a, const Json* b, const std::string& pointer, std::vector<SettingDifference>& out) {
  if (a && b && *a == *b) return;
  // An object on one side only counts as an empty one on the other, so that
  // the differences are leaves ("/tile_settings/vec/softmax", not "/tile_settings/vec").
  const Json empty = Json::object();
  if ((!a || a->is_object()) && (!b || b->is_object())) {
    const Json& left = a ? *a : empty;
    const Json& right = b ? *b : empty;
    for (const auto& [key, value] : left.items()) {
      auto found = right.find(key);
      differences(&value, found != right.end() ? &*found : nullptr, pointer + "/" + pointerToken(key), out);
    }
    for (const auto& [key, value] : right.items())
      if (!left.contains(key)) differences(nullptr, &value, pointer + "/" + pointerToken(key), out);
    return;
  }
  // Arrays of objects or arrays (partition_overrides) element by element;
  // an array of numbers (a tile shape) is one value.
  auto structured = [](const Json& value) { return value.is_object() || value.is_array(); };
  if (a && b && a->is_array() && b->is_array() && a->size() == b->size() &&
      (std::any_of(a->begin(), a->end(), structured) || std::any_of(b->begin(), b->end(), structured))) {
    for (std::size_t i = 0; i < a->size(); ++i) differences(&(*a)[i], &(*b)[i], pointer + "/" + std::to_string(i), out);
    return;
  }
  SettingDifference difference;
  difference.pointer = pointer.empty() ? "/" : pointer;
  if (a) difference.a = *a;
  if (b) difference.b = *b;
  out.push_back(std::move(difference));
}

struct LabelTotals {
  int tasks = 0;
  std::int64_t busyCycles = 0;
  std::int64_t firstStart = -1, lastEnd = -1;
};

// Per label: from the task table, else (pruned) from the metrics' waves,
// which have no start and end.
std::map<std::string, LabelTotals> labelTotals(const RunRecord& run) {
  std::map<std::string, LabelTotals> totals;
  if (run.traceKept) {
    for (const LedgerTask& task : run.taskTable) {
      LabelTotals& label = totals[task.label];
      ++label.tasks;
      label.busyCycles += task.endCycle - task.startCycle;
      label.firstStart = label.firstStart < 0 ? task.startCycle : std::min(label.firstStart, task.startCycle);
      label.lastEnd = std::max(label.lastEnd, task.endCycle);
    }
    return totals;
  }
  for (const Json& wave : run.metrics.value("waves", Json::array())) {
    LabelTotals& label = totals[wave.value("label", "")];
    label.tasks += wave.value("tasks", 0);
    label.busyCycles += wave.value("busy_cycles", std::int64_t{0});
  }
  return totals;
}

struct GroupTotals {
  int subgraphs = 0, tasks = 0;
  double taskCycles = 0.0;
  std::map<std::string, double> cyclesByBound;
};

std::map<std::pair<std::string, std::string>, GroupTotals> groupTotals(const RunRecord& run) {
  std::map<std::pair<std::string, std::string>, GroupTotals> totals;
  for (const Json& entry : run.metrics.value("subgraph_groups", Json::array())) {
    GroupTotals& group = totals[{entry.value("label", ""), entry.value("core_type", "")}];
    group.subgraphs += entry.value("subgraphs", 0);
    group.tasks += entry.value("tasks", 0);
    group.taskCycles += entry.value("task_cycles", 0.0);
    const Json byBound = entry.value("cycles_by_bound", Json::object());  // items() of a temporary would dangle
    for (const auto& [kind, cycles] : byBound.items()) group.cyclesByBound[kind] += cycles.get<double>();
  }
  return totals;
}

std::string dominantBound(const GroupTotals& group) {
  std::string bound;
  double most = -1.0;
  for (const auto& [kind, cycles] : group.cyclesByBound)
    if (cycles > most) most = cycles, bound = kind;
  return bound;
}

TaskMatching matchTasks(const RunRecord& a, const RunRecord& b, int listed) {
  TaskMatching matching;
  if (!a.traceKept || !b.traceKept) return matching;
  matching.compared = true;
  std::unordered_map<std::string, const LedgerTask*> inB;
  for (const LedgerTask& task : b.taskTable) inB.emplace(task.key, &task);
  std::unordered_map<std::string, bool> matchedInB;
  std::vector<TaskShift> shifts;
  for (const LedgerTask& task : a.taskTable) {
    auto found = inB.find(task.key);
    if (found == inB.end()) {
      ++matching.onlyInA;
      if (static_cast<int>(matching.onlyInAKeys.size()) < listed) matching.onlyInAKeys.push_back(task.key);
      continue;
    }
    ++matching.matched;
    matchedInB[task.key] = true;
    shifts.push_back({task.key, task.startCycle, found->second->startCycle, task.endCycle, found->second->endCycle});
  }
  for (const LedgerTask& task : b.taskTable)
    if (!matchedInB.count(task.key)) {
      ++matching.onlyInB;
      if (static_cast<int>(matching.onlyInBKeys.size()) < listed) matching.onlyInBKeys.push_back(task.key);
    }
  auto largest = [&](auto shiftOf) {
    std::vector<TaskShift> sorted = shifts;
    const auto keep = std::min<std::size_t>(sorted.size(), static_cast<std::size_t>(std::max(0, listed)));
    std::partial_sort(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(keep), sorted.end(),
                      [&](const TaskShift& x, const TaskShift& y) {
                        const std::int64_t sx = std::llabs(shiftOf(x)), sy = std::llabs(shiftOf(y));
                        return sx > sy || (sx == sy && x.key < y.key);
                      });
    sorted.resize(keep);
    // Only tasks that moved.
    sorted.erase(std::remove_if(sorted.begin(), sorted.end(), [&](const TaskShift& s) { return shiftOf(s) == 0; }),
                 sorted.end());
    return sorted;
  };
  matching.largestStartShifts = largest([](const TaskShift& s) { return s.startB - s.startA; });
  matching.largestEndShifts = largest([](const TaskShift& s) { return s.endB - s.endA; });
  return matching;
}

} // namespace

std::vector<SettingDifference> settingsDifferences(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  std::vector<SettingDifference> out;
  differences(&a, &b, "", out);
  return out;
}

RunComparison compareRuns(const RunRecord& a, const RunRecord& b, int listed) {
  RunComparison comparison;
  comparison.idA = a.id;
  comparison.idB = b.id;
  comparison.makespanCyclesA = a.makespanCycles;
  comparison.makespanCyclesB = b.makespanCycles;
  comparison.deltaCycles = b.makespanCycles - a.makespanCycles;
  comparison.makespanUsA = a.makespanUs;
  comparison.makespanUsB = b.makespanUs;
  comparison.deltaUs = b.makespanUs - a.makespanUs;
  comparison.deltaPercent = a.makespanUs > 0.0 ? 100.0 * comparison.deltaUs / a.makespanUs : 0.0;
  comparison.kernelChanged = a.kernelHash != b.kernelHash;
  comparison.modeChanged = a.mode != b.mode;
  comparison.settings = settingsDifferences(a.settings, b.settings);

  const auto labelsA = labelTotals(a), labelsB = labelTotals(b);
  std::map<std::string, LabelDelta> labels;
  for (const auto& [label, totals] : labelsA) {
    LabelDelta& delta = labels[label];
    delta.tasksA = totals.tasks;
    delta.busyCyclesA = totals.busyCycles;
    delta.firstStartA = totals.firstStart;
    delta.lastEndA = totals.lastEnd;
  }
  for (const auto& [label, totals] : labelsB) {
    LabelDelta& delta = labels[label];
    delta.tasksB = totals.tasks;
    delta.busyCyclesB = totals.busyCycles;
    delta.firstStartB = totals.firstStart;
    delta.lastEndB = totals.lastEnd;
  }
  for (auto& [label, delta] : labels) {
    delta.label = label;
    comparison.labels.push_back(delta);
  }
  std::stable_sort(comparison.labels.begin(), comparison.labels.end(), [](const LabelDelta& x, const LabelDelta& y) {
    return std::llabs(x.busyCyclesB - x.busyCyclesA) > std::llabs(y.busyCyclesB - y.busyCyclesA);
  });

  const auto groupsA = groupTotals(a), groupsB = groupTotals(b);
  std::map<std::pair<std::string, std::string>, SubgraphGroupDelta> groups;
  for (const auto& [key, totals] : groupsA) {
    SubgraphGroupDelta& delta = groups[key];
    delta.subgraphsA = totals.subgraphs;
    delta.tasksA = totals.tasks;
    delta.taskCyclesA = totals.taskCycles;
    delta.boundA = dominantBound(totals);
  }
  for (const auto& [key, totals] : groupsB) {
    SubgraphGroupDelta& delta = groups[key];
    delta.subgraphsB = totals.subgraphs;
    delta.tasksB = totals.tasks;
    delta.taskCyclesB = totals.taskCycles;
    delta.boundB = dominantBound(totals);
  }
  for (auto& [key, delta] : groups) {
    delta.label = key.first;
    delta.coreType = key.second;
    comparison.subgraphGroups.push_back(delta);
  }
  std::stable_sort(comparison.subgraphGroups.begin(), comparison.subgraphGroups.end(),
                   [](const SubgraphGroupDelta& x, const SubgraphGroupDelta& y) {
                     return std::abs(x.taskCyclesB - x.taskCyclesA) > std::abs(y.taskCyclesB - y.taskCyclesA);
                   });

  comparison.tasks = matchTasks(a, b, listed);
  return comparison;
}

nlohmann::ordered_json runComparisonJson(const RunComparison& c) {
  Json out;
  out["run_a"] = c.idA;
  out["run_b"] = c.idB;
  out["makespan"] = {{"cycles_a", c.makespanCyclesA}, {"cycles_b", c.makespanCyclesB},
                     {"delta_cycles", c.deltaCycles}, {"us_a", c.makespanUsA},
                     {"us_b", c.makespanUsB},         {"delta_us", c.deltaUs},
                     {"delta_percent", c.deltaPercent}};
  out["kernel_changed"] = c.kernelChanged;
  out["mode_changed"] = c.modeChanged;
  out["settings"] = Json::array();
  for (const SettingDifference& difference : c.settings) {
    Json entry = {{"pointer", difference.pointer}};
    if (difference.a) entry["a"] = *difference.a;
    if (difference.b) entry["b"] = *difference.b;
    out["settings"].push_back(std::move(entry));
  }
  out["labels"] = Json::array();
  for (const LabelDelta& label : c.labels)
    out["labels"].push_back({{"label", label.label},
                             {"tasks_a", label.tasksA},
                             {"tasks_b", label.tasksB},
                             {"busy_cycles_a", label.busyCyclesA},
                             {"busy_cycles_b", label.busyCyclesB},
                             {"delta_busy_cycles", label.busyCyclesB - label.busyCyclesA},
                             {"first_start_a", label.firstStartA},
                             {"first_start_b", label.firstStartB},
                             {"last_end_a", label.lastEndA},
                             {"last_end_b", label.lastEndB}});
  out["subgraph_groups"] = Json::array();
  for (const SubgraphGroupDelta& group : c.subgraphGroups)
    out["subgraph_groups"].push_back({{"label", group.label},
                                      {"core_type", group.coreType},
                                      {"subgraphs_a", group.subgraphsA},
                                      {"subgraphs_b", group.subgraphsB},
                                      {"tasks_a", group.tasksA},
                                      {"tasks_b", group.tasksB},
                                      {"task_cycles_a", group.taskCyclesA},
                                      {"task_cycles_b", group.taskCyclesB},
                                      {"bound_a", group.boundA},
                                      {"bound_b", group.boundB}});
  const TaskMatching& tasks = c.tasks;
  Json starts = Json::array(), ends = Json::array();
  for (const TaskShift& shift : tasks.largestStartShifts)
    starts.push_back({{"key", shift.key}, {"start_a", shift.startA}, {"start_b", shift.startB},
                      {"shift_cycles", shift.startB - shift.startA}});
  for (const TaskShift& shift : tasks.largestEndShifts)
    ends.push_back({{"key", shift.key}, {"end_a", shift.endA}, {"end_b", shift.endB},
                    {"shift_cycles", shift.endB - shift.endA}});
  out["tasks"] = {{"compared", tasks.compared},         {"matched", tasks.matched},
                  {"only_in_a", tasks.onlyInA},         {"only_in_b", tasks.onlyInB},
                  {"only_in_a_keys", tasks.onlyInAKeys}, {"only_in_b_keys", tasks.onlyInBKeys},
                  {"largest_start_shifts", starts},     {"largest_end_shifts", ends}};
  return out;
}

} // namespace pto
