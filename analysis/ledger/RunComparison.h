// RunComparison: what changed from one recorded run (A) to another (B), for
// `pto compare`: the makespan, per label and per subgraph label and core type
// the tasks and their time, the tasks matched by identity across the two runs
// (RunRecord.h) with the largest shifts, and the settings that differ. Every
// delta is B minus A.
#pragma once

#include "analysis/ledger/RunRecord.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// A setting whose value differs: `pointer` is an RFC 6901 JSON pointer into
// RunRecord::settings ("/tile_settings/vec/DEFAULT"); nullopt where a side
// does not have it.
struct SettingDifference {
  std::string pointer;
  std::optional<nlohmann::ordered_json> a, b;
};

// The leaves in which two settings documents differ, in document order (A's
// keys first, then those only B has). Objects are compared key by key (an
// object one side lacks as an empty one: differences are leaves), and
// arrays of equal length holding objects or arrays element by element; any
// other array (a tile shape) and values of different types are one
// difference.
std::vector<SettingDifference> settingsDifferences(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b);

// One label's tasks in both runs, from the task tables. First start and last
// end are -1 for a run without tasks of the label.
struct LabelDelta {
  std::string label;
  int tasksA = 0, tasksB = 0;
  std::int64_t busyCyclesA = 0, busyCyclesB = 0;  // summed task durations
  std::int64_t firstStartA = -1, firstStartB = -1;
  std::int64_t lastEndA = -1, lastEndB = -1;
};

// The subgraphs of one label on one core type, from the health metrics
// (RunRecord::metrics, subgraph_groups).
struct SubgraphGroupDelta {
  std::string label;
  std::string coreType;
  int subgraphsA = 0, subgraphsB = 0;
  int tasksA = 0, tasksB = 0;
  double taskCyclesA = 0.0, taskCyclesB = 0.0;  // summed task durations
  std::string boundA, boundB;                   // bound class of the group's most task time; "" when absent
};

// A task found in both runs and how far it moved.
struct TaskShift {
  std::string key;
  std::int64_t startA = 0, startB = 0;
  std::int64_t endA = 0, endB = 0;
};

struct TaskMatching {
  bool compared = false;  // false when a run's task table was pruned
  int matched = 0, onlyInA = 0, onlyInB = 0;
  std::vector<std::string> onlyInAKeys, onlyInBKeys;  // the first few, in task order
  // The matched tasks whose start (end) moved most, largest |shift| first.
  std::vector<TaskShift> largestStartShifts, largestEndShifts;
};

struct RunComparison {
  std::int64_t idA = 0, idB = 0;
  std::int64_t makespanCyclesA = 0, makespanCyclesB = 0, deltaCycles = 0;
  double makespanUsA = 0.0, makespanUsB = 0.0, deltaUs = 0.0;
  double deltaPercent = 0.0;  // of A's makespan; 0 when A's is 0
  bool kernelChanged = false;
  bool modeChanged = false;
  std::vector<SettingDifference> settings;
  std::vector<LabelDelta> labels;                  // by |busy cycles delta|, largest first
  std::vector<SubgraphGroupDelta> subgraphGroups;  // by |task cycles delta|, largest first
  TaskMatching tasks;
};

// `listed`: how many shifts and unmatched keys to keep.
RunComparison compareRuns(const RunRecord& a, const RunRecord& b, int listed = 10);

// As `pto compare --json` writes it (docs/cli.md), without the shared fields.
nlohmann::ordered_json runComparisonJson(const RunComparison& comparison);

} // namespace pto
