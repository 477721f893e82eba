// What the advisor's rules share beyond their Context (AdvisorContext.h):
// the kernel's tile sites and their checks, tasks grouped by label and by
// program, merge counts to try, and a few formatting helpers. Header-only:
// each rule is a file of its own in this folder.
#pragma once

#include "analysis/advisor/AdvisorContext.h"
#include "analysis/tuning/TileBufferCheck.h"
#include "analysis/tuning/TileSites.h"
#include "compiler/settings/TileSettings.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace pto::advisor {

using json = nlohmann::json;
inline std::int64_t elements(const std::vector<std::int64_t>& shape) {
  return std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>());
}

inline std::string dimsText(const std::vector<std::int64_t>& shape) {
  std::string text;
  for (std::int64_t dim : shape) text += (text.empty() ? "" : "x") + std::to_string(dim);
  return text;
}

inline std::string percent(double share) { return std::to_string(static_cast<int>(100.0 * share + 0.5)) + " %"; }

// The tile sites of the kernel under the project's settings, and the checks of their shapes.
class Sites {
public:
  explicit Sites(const Context& context)
      : m_context(context), m_sites(collectTileSites(context.traced.graph, context.traced.project.tileSettings,
                                                     context.compilation().tiles.bindings)) {}

  // The key whose entry would decide `op`'s tile: the call site's when the
  // project sets it (it takes precedence), else the op's label, else the call site.
  const TileSite* governing(TileSection section, OpId op) const {
    const TileSite* call = nullptr;
    const TileSite* label = nullptr;
    for (const TileSite& site : m_sites) {
      if (site.section != section) continue;
      const bool governs = std::any_of(site.governs.begin(), site.governs.end(),
                                       [&](const GovernedOp& governed) { return governed.op == op; });
      if (!governs) continue;
      if (site.kind == TileSiteKind::CallSite) call = &site;
      else if (site.kind == TileSiteKind::Label) label = &site;
    }
    if (call && !call->projectValue.is_null()) return call;
    return label ? label : call;
  }

  TileBufferChecker checker(const TileSite& site) const {
    const Compilation& compilation = m_context.compilation();
    return TileBufferChecker(m_context.traced.graph, site, compilation.tiles.bindings, compilation.settings.target);
  }

private:
  const Context& m_context;
  std::vector<TileSite> m_sites;
};

// A vec site's tile now in force, when all its ops agree on one.
inline std::optional<std::vector<std::int64_t>> vecTileOf(const TileSite& site) {
  std::string error;
  if (site.effectiveValue.is_null()) return std::nullopt;
  return vecShapeFromJson(site.effectiveValue, error);
}

inline json vecTilePatch(const Context& context, const TileSite& site, const std::vector<std::int64_t>& tile) {
  return setMemberPatch(context.traced.project.document, "tile_settings", "vec", site.key, tile);
}

// Whether the compiler can take `tile` at `site` (it may still not fit once ops fuse: the simulation says).
inline bool mayCompile(const TileBufferCheck& check) { return check.fit == TileFit::Fits || check.fit == TileFit::MayNotFit; }

// Tasks of one isomorphic subgraph class (one program), with their pipe time.
struct ProgramTasks {
  std::string label;
  CoreType coreType = CoreType::AIV;
  SubgraphId first = kNoId;  // its lowest-id subgraph
  int tasks = 0, schedulingBound = 0;
  double durationCycles = 0.0;
  std::map<std::string, double> pipeCycles;  // summed over the tasks
};

inline std::map<int, ProgramTasks> programTasks(const Context& context) {
  const Compilation& compilation = context.compilation();
  const Schedule& schedule = context.schedule();
  std::map<int, ProgramTasks> programs;
  for (const Task& task : compilation.tasks.tasks) {
    const Subgraph& subgraph = compilation.blocks.subgraph(task.subgraph);
    ProgramTasks& entry = programs[subgraph.programId];
    if (entry.tasks == 0) entry.label = subgraph.label, entry.coreType = subgraph.coreType, entry.first = subgraph.id;
    entry.first = std::min(entry.first, subgraph.id);
    ++entry.tasks;
    const TaskRecord& record = schedule.tasks[static_cast<std::size_t>(task.id)];
    entry.durationCycles += static_cast<double>(record.endCycle - record.startCycle);
    entry.schedulingBound += context.health.taskBounds[static_cast<std::size_t>(task.id)].kind == "scheduling";
    for (const PipeInterval& interval : schedule.pipes(record))
      entry.pipeCycles[std::string(interval.pipe())] += static_cast<double>(interval.endCycle - interval.startCycle);
  }
  return programs;
}

inline bool movesDataOnly(TensorOpKind kind) {
  switch (kind) {
  case TensorOpKind::Copy:
  case TensorOpKind::Assemble:
  case TensorOpKind::View:
  case TensorOpKind::Reshape:
  case TensorOpKind::Unsqueeze:
  case TensorOpKind::Bitcast: return true;
  default: return false;
  }
}

// The memory (UB or L1) a subgraph fills to at least `share` of the capacity, if any.
inline std::optional<MemoryKind> nearlyFullMemory(const Subgraph& subgraph, const TargetInfo& target, double share) {
  for (MemoryKind memory : {MemoryKind::UB, MemoryKind::L1}) {
    const std::int64_t capacity = target.capacity(memory);
    if (capacity > 0 && static_cast<double>(subgraph.peakBytes[static_cast<std::size_t>(memory)]) >= share * capacity)
      return memory;
  }
  return std::nullopt;
}

constexpr double kNearCapacity = 0.9;

inline std::vector<int> mergeCounts(int current, int limit) {
  std::vector<int> counts;
  for (int n : {2, 4, 8, 16, 32, 64})
    if (n != current && n <= std::max(2, limit)) counts.push_back(n);
  return counts;
}

// The key of a merge option (vec_nbuffer_setting, cube_l1_reuse_setting)
// that reaches a label's subgraphs: the label itself, or DEFAULT for tasks
// without one (PyPTO's GLM attention names none), which every subgraph
// without a setting of its own follows. And how evidence names the label.
inline std::string mergeKeyFor(const std::string& label) { return label.empty() ? std::string("DEFAULT") : label; }
inline std::string labelInEvidence(const std::string& label) {
  return label.empty() ? std::string("unlabelled") : "'" + label + "'";
}

// Proposes `option`, a merge count in pass_options keyed by label
// ({"LABEL": N}), at each of `counts` for `label`. A suggestion's title reads
// "OPTION N for 'LABEL'" and then what `outcome(N)` says the count does.
inline void proposeMergeCount(Context& context, const std::string& rule, const std::string& option,
                              const std::string& label, const std::string& evidence, const std::vector<int>& counts,
                              const std::function<std::string(const std::string& count)>& outcome) {
  std::vector<std::pair<std::string, json>> candidates;
  for (int n : counts)
    candidates.emplace_back(std::to_string(n),
                            setMemberPatch(context.traced.project.document, "pass_options", option, label, n));
  context.propose(rule, label, evidence,
                  [&](const std::string& count) { return option + " " + count + " for '" + label + "'" + outcome(count); },
                  candidates);
}

// Tasks of each label on a core type, with how many of them are scheduling-bound.
struct LabelTasks {
  int tasks = 0, schedulingBound = 0;
  bool onCriticalPath = false;
};

inline std::map<std::string, LabelTasks> labelTasks(const Context& context, CoreType type) {
  const Compilation& compilation = context.baseline.compiled.compilation;
  const Schedule& schedule = context.baseline.simulation.schedule;
  std::map<std::string, LabelTasks> labels;
  std::set<TaskId> onPath(context.health.criticalPath.tasks.begin(), context.health.criticalPath.tasks.end());
  for (const Task& task : compilation.tasks.tasks) {
    if (schedule.tasks[static_cast<std::size_t>(task.id)].core.type != type) continue;
    LabelTasks& entry = labels[compilation.blocks.subgraph(task.subgraph).label];
    ++entry.tasks;
    entry.schedulingBound += context.health.taskBounds[static_cast<std::size_t>(task.id)].kind == "scheduling";
    entry.onCriticalPath = entry.onCriticalPath || onPath.count(task.id);
  }
  return labels;
}

inline const CoreTypeHealth& coreTypeHealth(const HealthReport& health, CoreType type) {
  return health.coreTypes[static_cast<std::size_t>(type)];
}

} // namespace pto::advisor
