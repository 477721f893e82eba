// RunRecord: what the run ledger (RunLedger.h) keeps of one simulated run of
// a project: the settings that shaped it, its headline figures, its health
// metrics and, per task, where and when it ran under an identity that
// survives a change of settings, so that two runs can be compared
// (RunComparison.h).
//
// Task identity. Subgraph ids and task ids are renumbered whenever a setting
// changes the partition, so a task is known across runs by what it computes
// and where: its subgraph's label, its loop indices (`name=value`) and the
// first global-memory region it writes (tensor name and offsets: the tile's
// position). Tasks that would share an identity within one run get `#2`,
// `#3`, ... in task-id order.
//
// Units: cycles of the core clock from the start of submission; times are
// UTC.
#pragma once

#include "analysis/report/HealthReport.h"
#include "analysis/simulation/Simulation.h"
#include "compiler/ir/Compilation.h"
#include "core/project/OperatorProject.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// One task of a recorded run.
struct LedgerTask {
  std::string key;       // identity across runs (see above)
  std::string label;     // its subgraph's semantic label
  int subgraph = -1;     // this run's subgraph id: not comparable across runs
  std::string coreType;  // "AIC" / "AIV"
  int core = 0;          // index among the cores of its type
  std::int64_t startCycle = 0;
  std::int64_t endCycle = 0;

  friend bool operator==(const LedgerTask&, const LedgerTask&) = default;
};

struct RunRecord {
  std::int64_t id = 0;      // given by the ledger when recorded
  std::string timeUtc;      // "2025-03-01T12:34:56Z"
  std::string project;
  std::string kernelHash;   // kernelHash() of the kernel file's bytes
  // What shapes a run: {machine (the one simulated), tile_settings,
  // pass_options, runtime_options, partition_overrides, bindings}.
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  std::string mode;         // "timing" / "functional"
  std::string machine;
  double clockGHz = 1.0;
  std::int64_t makespanCycles = 0;
  double makespanUs = 0.0;
  int tasks = 0;
  std::array<double, 2> utilization{};  // AIC, AIV: busy core time / (cores x makespan)
  // ledgerMetrics() of the run's health report, plus `pass` when the
  // outputs were checked; empty when no health report was made.
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  // Per task, by task id. A loaded record whose table the ledger pruned has
  // none (traceKept false).
  std::vector<LedgerTask> taskTable;
  bool traceKept = true;
};

// FNV-1a (64 bit) of `bytes` as 16 lowercase hex digits.
std::string kernelHash(std::string_view bytes);

// Now, as RunRecord::timeUtc spells it.
std::string utcNow();

// The health metrics a run's row keeps for good: healthReportJson without
// the lists that grow with the kernel (critical_path.tasks and .steps; subgraphs: 1 762
// of them, 1.4 MB, for the DIA example), and instead the subgraphs summed
// per label and core type: subgraph_groups[] {label, core_type, subgraphs,
// tasks, task_cycles (summed task durations), cycles_by_bound {class:
// cycles}}, by label then core type.
nlohmann::ordered_json ledgerMetrics(const HealthReport& health);

// Each task's identity (see above), by task id.
std::vector<std::string> taskIdentities(const Compilation& compilation);

// The settings of `project` that shape a run, with `machine` as the machine
// simulated (`pto run --machine` may replace the project's).
nlohmann::ordered_json runSettings(const OperatorProject& project, const std::string& machine);

// The record of a run of `project` compiled to `compilation` and simulated
// as `simulation`; `health` (may be null) gives the metrics, `pass` (null:
// not checked) whether the outputs matched. The kernel file is read for its
// hash (empty when it cannot be read). id 0, time now.
RunRecord recordOf(const OperatorProject& project, const Compilation& compilation, const Simulation& simulation,
                   const HealthReport* health, std::optional<bool> pass = std::nullopt);

} // namespace pto
