// A recorded run's swimlane from its ledger task table.
#include "analysis/ledger/RunRecordTrace.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace pto {
namespace {

// More cores than any chip has: a ledger that claims them is damaged, and
// its lanes are cut here rather than allocated.
constexpr int kMaxCores = 1 << 16;

// The cores of `coreType` the run had: the health metrics' count when
// recorded, and never fewer than the tasks used (tasks on cores past
// kMaxCores are left out of the swimlane).
int coreCount(const RunRecord& run, const std::string& coreType) {
  int cores = 0;
  for (const LedgerTask& task : run.taskTable)
    if (task.coreType == coreType && task.core >= 0 && task.core < kMaxCores) cores = std::max(cores, task.core + 1);
  const auto types = run.metrics.find("core_types");
  if (types != run.metrics.end() && types->is_array())
    for (const auto& type : *types)
      if (type.is_object() && type.contains("core_type") && type["core_type"] == coreType) {
        const auto recorded = type.find("cores");
        if (recorded != type.end() && recorded->is_number_integer())
          cores = std::max(cores, static_cast<int>(std::clamp<std::int64_t>(recorded->get<std::int64_t>(), 0, kMaxCores)));
      }
  return cores;
}

} // namespace

trace::Trace runRecordTrace(const RunRecord& run) {
  trace::Trace trace;
  const double nsPerCycle = run.clockGHz > 0 ? 1.0 / run.clockGHz : 1.0;
  auto toNs = [&](std::int64_t cycles) { return static_cast<std::int64_t>(std::llround(static_cast<double>(cycles) * nsPerCycle)); };

  const int aicCores = coreCount(run, "AIC");
  const int aivCores = coreCount(run, "AIV");
  std::vector<trace::LaneIndex> aicLanes, aivLanes;
  for (int core = 0; core < aicCores; ++core) aicLanes.push_back(trace.addLane("AIC_" + std::to_string(core), core));
  for (int core = 0; core < aivCores; ++core)
    aivLanes.push_back(trace.addLane("AIV_" + std::to_string(core), aicCores + core));

  trace.reserveTasks(run.taskTable.size(), 0);
  const trace::StringId identityKey = trace.intern("identity");
  for (std::size_t id = 0; id < run.taskTable.size(); ++id) {
    const LedgerTask& task = run.taskTable[id];
    const auto& lanes = task.coreType == "AIC" ? aicLanes : aivLanes;
    if (task.core < 0 || static_cast<std::size_t>(task.core) >= lanes.size()) continue;  // a core type not known
    trace::Task entry;
    entry.id = static_cast<std::int64_t>(id);  // the table is by task id
    entry.startNs = entry.dispatchNs = toNs(task.startCycle);
    entry.endNs = toNs(task.endCycle);
    entry.subgraph = task.subgraph;
    entry.label = trace.intern(task.label);
    std::string name = task.key.empty() ? task.label : task.key;
    if (task.subgraph >= 0) name += " (sg " + std::to_string(task.subgraph) + ")";
    entry.name = trace.intern(name);
    entry.lane = lanes[static_cast<std::size_t>(task.core)];
    const trace::TaskArg identity{identityKey, trace.intern(task.key), false};
    trace.addTask(entry, {}, std::span<const trace::TaskArg>(&identity, 1));
  }
  trace.finalize();
  return trace;
}

} // namespace pto
