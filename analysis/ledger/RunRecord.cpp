// What the run ledger keeps of one run (RunRecord.h).
#include "analysis/ledger/RunRecord.h"

#include "core/AtomicFile.h"

#include <cstdio>
#include <ctime>
#include <map>
#include <utility>

namespace pto {

std::string kernelHash(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a offset basis and prime (64 bit)
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::vector<std::string> taskIdentities(const Compilation& compilation) {
  const auto& subgraphs = compilation.blocks.subgraphs;
  const TensorGraph& graph = compilation.tiles.graph;
  std::vector<std::string> keys;
  keys.reserve(compilation.tasks.tasks.size());
  std::map<std::string, int> seen;
  for (const Task& task : compilation.tasks.tasks) {
    std::string key = task.subgraph >= 0 && static_cast<std::size_t>(task.subgraph) < subgraphs.size()
                          ? subgraphs[static_cast<std::size_t>(task.subgraph)].label
                          : std::string();
    key += '|';
    for (std::size_t i = 0; i < task.loopIndices.size(); ++i)
      key += (i ? "," : "") + task.loopIndices[i].first + "=" + std::to_string(task.loopIndices[i].second);
    key += '|';
    if (!task.writes.empty()) {
      const ConcreteRegion& region = task.writes.front();
      const bool known = region.tensor >= 0 && static_cast<std::size_t>(region.tensor) < graph.tensors().size();
      key += known ? graph.tensor(region.tensor).name : "t" + std::to_string(region.tensor);
      key += '@';
      for (std::size_t i = 0; i < region.offsets.size(); ++i) key += (i ? "," : "") + std::to_string(region.offsets[i]);
    }
    const int occurrence = ++seen[key];
    if (occurrence > 1) key += "#" + std::to_string(occurrence);
    keys.push_back(std::move(key));
  }
  return keys;
}

nlohmann::ordered_json ledgerMetrics(const HealthReport& health) {
  nlohmann::ordered_json metrics = healthReportJson(health, /*withTaskBounds=*/false);
  metrics["critical_path"].erase("tasks");
  metrics["critical_path"].erase("steps");
  metrics.erase("subgraphs");
  struct Group {
    int subgraphs = 0, tasks = 0;
    double taskCycles = 0.0;
    std::map<std::string, double> cyclesByBound;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  for (const SubgraphHealth& subgraph : health.subgraphs) {
    Group& group = groups[{subgraph.label, subgraph.coreType}];
    const double cycles = subgraph.meanCycles * subgraph.tasks;
    ++group.subgraphs;
    group.tasks += subgraph.tasks;
    group.taskCycles += cycles;
    group.cyclesByBound[subgraph.bound.kind] += cycles;
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& [key, group] : groups) {
    nlohmann::ordered_json byBound = nlohmann::ordered_json::object();
    for (const auto& [kind, cycles] : group.cyclesByBound) byBound[kind] = cycles;
    list.push_back({{"label", key.first},
                    {"core_type", key.second},
                    {"subgraphs", group.subgraphs},
                    {"tasks", group.tasks},
                    {"task_cycles", group.taskCycles},
                    {"cycles_by_bound", std::move(byBound)}});
  }
  metrics["subgraph_groups"] = std::move(list);
  return metrics;
}

nlohmann::ordered_json runSettings(const OperatorProject& project, const std::string& machine) {
  nlohmann::ordered_json bindings = nlohmann::ordered_json::object();
  for (const auto& [symbol, value] : project.bindings) bindings[symbol] = value;
  return {{"machine", machine},
          {"tile_settings", project.tileSettings},
          {"pass_options", project.passOptions},
          {"runtime_options", project.runtimeOptions},
          {"partition_overrides", project.partitionOverrides},
          {"bindings", bindings}};
}

RunRecord recordOf(const OperatorProject& project, const Compilation& compilation, const Simulation& simulation,
                   const HealthReport* health, std::optional<bool> pass) {
  RunRecord record;
  record.timeUtc = utcNow();
  record.project = project.name;
  std::string kernel, reason;
  if (readFile(project.sourcePath(), kernel, reason)) record.kernelHash = kernelHash(kernel);
  record.settings = runSettings(project, simulation.machine);
  record.mode = std::string(name(simulation.mode));
  record.machine = simulation.machine;
  record.clockGHz = simulation.clockGHz;
  record.makespanCycles = simulation.stats.makespanCycles;
  record.makespanUs = simulation.stats.makespanUs;
  record.tasks = static_cast<int>(simulation.schedule.tasks.size());
  record.utilization = simulation.stats.utilizationByCoreType;
  if (health) record.metrics = ledgerMetrics(*health);
  if (pass) record.metrics["pass"] = *pass;

  const std::vector<std::string> keys = taskIdentities(compilation);
  const auto& subgraphs = compilation.blocks.subgraphs;
  const auto& tasks = compilation.tasks.tasks;
  record.taskTable.reserve(simulation.schedule.tasks.size());
  for (const TaskRecord& ran : simulation.schedule.tasks) {
    LedgerTask task;
    const auto id = static_cast<std::size_t>(ran.task);
    if (id < tasks.size()) {
      task.key = keys[id];
      task.subgraph = tasks[id].subgraph;
      if (task.subgraph >= 0 && static_cast<std::size_t>(task.subgraph) < subgraphs.size())
        task.label = subgraphs[static_cast<std::size_t>(task.subgraph)].label;
    }
    task.coreType = std::string(name(ran.core.type));
    task.core = ran.core.index;
    task.startCycle = ran.startCycle;
    task.endCycle = ran.endCycle;
    record.taskTable.push_back(std::move(task));
  }
  return record;
}

} // namespace pto
