#include "analysis/report/HealthReport.h"

#include "compiler/ir/TileDataEdges.h"
#include "core/DataType.h"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <numeric>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace pto {
namespace {

std::string withThousands(std::int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(static_cast<std::size_t>(i), " ");
  return value < 0 ? "-" + digits : digits;
}

std::string percent(double share) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f %%", 100.0 * share);
  return text;
}

TileGraphHealth tileGraphHealth(const TileGraph& tiles) {
  TileGraphHealth health;
  const std::size_t count = tiles.tileOps().size();
  health.tileOps = static_cast<std::int64_t>(count);
  if (count == 0) return health;
  const std::vector<TileDataEdge> edges = tileDataEdges(tiles);
  health.edges = static_cast<std::int64_t>(edges.size());
  std::vector<int> fanIn(count, 0), fanOut(count, 0), level(count, 1);
  // Edges come ordered by consumer and point forward, so a consumer's level
  // is final once its own edges are seen.
  for (const TileDataEdge& edge : edges) {
    const auto from = static_cast<std::size_t>(edge.from), to = static_cast<std::size_t>(edge.to);
    ++fanIn[to];
    ++fanOut[from];
    level[to] = std::max(level[to], level[from] + 1);
  }
  std::map<int, int> perLevel;
  int withIn = 0, withOut = 0;
  for (std::size_t op = 0; op < count; ++op) {
    health.depth = std::max(health.depth, level[op]);
    health.width = std::max(health.width, ++perLevel[level[op]]);
    if (fanIn[op] > health.maxFanIn) health.maxFanIn = fanIn[op], health.maxFanInOp = static_cast<TileOpId>(op);
    if (fanOut[op] > health.maxFanOut) health.maxFanOut = fanOut[op], health.maxFanOutOp = static_cast<TileOpId>(op);
    withIn += fanIn[op] > 0;
    withOut += fanOut[op] > 0;
  }
  health.meanFanIn = withIn ? static_cast<double>(edges.size()) / withIn : 0.0;
  health.meanFanOut = withOut ? static_cast<double>(edges.size()) / withOut : 0.0;
  return health;
}

// Busy cycles per pipe of one task (its intervals do not overlap within a pipe).
std::map<std::string, std::int64_t> pipeCycles(const Schedule& schedule, const TaskRecord& record) {
  std::map<std::string, std::int64_t> cycles;
  for (const PipeInterval& interval : schedule.pipes(record))
    cycles[std::string(interval.pipe())] += interval.endCycle - interval.startCycle;
  return cycles;
}

// Scheduler-thread cycles one task costs: its dispatch, noticing its end and
// resolving its consumers.
std::int64_t schedulerCyclesPerTask(const SchedulerCosts& costs) {
  return costs.dispatchCycles + costs.completionCycles + costs.resolveCycles;
}

// How long the scheduler threads take to serve every core of a type once.
std::int64_t schedulerRoundCycles(const SchedulerCosts& costs, int cores, int threads) {
  return schedulerCyclesPerTask(costs) * cores / std::max(1, threads);
}

Bound classifyTask(const Schedule& schedule, const TaskRecord& record, std::int64_t schedulerRound, int cores,
                   const SchedulerCosts& costs, int threads) {
  const std::int64_t duration = record.endCycle - record.startCycle;
  if (duration < schedulerRound)
    return {"scheduling", "runs " + withThousands(duration) + " cycles, less than one scheduler round over its " +
                              std::to_string(cores) + " cores (" + std::to_string(cores) + " x " +
                              withThousands(schedulerCyclesPerTask(costs)) +
                              " scheduler cycles per task: dispatch " + withThousands(costs.dispatchCycles) +
                              ", completion " + withThousands(costs.completionCycles) + ", resolve " +
                              withThousands(costs.resolveCycles) + "; / " + std::to_string(threads) +
                              (threads == 1 ? " thread" : " threads") + " = " + withThousands(schedulerRound) + ")"};
  const auto cycles = pipeCycles(schedule, record);
  auto busiest = std::max_element(cycles.begin(), cycles.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  if (busiest == cycles.end()) return {"unknown", "no pipe activity was reported for it"};
  return {busiest->first, busiest->first + " busy " + withThousands(busiest->second) + " of " +
                              withThousands(duration) + " cycles (" +
                              percent(duration > 0 ? static_cast<double>(busiest->second) / duration : 0.0) + ")"};
}

// Most bytes of GM temporaries live at once (see ExecuteGraphHealth).
std::int64_t gmWorkspacePeak(const Compilation& compilation, const Schedule& schedule) {
  const TensorGraph& graph = compilation.tiles.graph;
  struct Life {
    std::int64_t first = INT64_MAX, last = 0, bytes = 0;
  };
  std::map<std::pair<TensorId, std::uint64_t>, Life> lives;
  for (const Task& task : compilation.tasks.tasks) {
    if (static_cast<std::size_t>(task.id) >= schedule.tasks.size()) continue;
    const TaskRecord& record = schedule.tasks[static_cast<std::size_t>(task.id)];
    for (const auto* list : {&task.reads, &task.writes})
      for (const ConcreteRegion& region : *list) {
        if (region.tensor < 0 || static_cast<std::size_t>(region.tensor) >= graph.tensors().size()) continue;
        const TensorValue& value = graph.tensor(region.tensor);
        if (value.role != TensorRole::Temporary || value.reshapeOf != kNoId) continue;
        Life& life = lives[{region.tensor, region.instance}];
        if (life.bytes == 0) {
          const auto& shape = compilation.tiles.shapeOf(region.tensor);
          life.bytes = std::accumulate(shape.begin(), shape.end(), std::int64_t{1}, std::multiplies<>()) *
                       static_cast<std::int64_t>(sizeOf(value.dtype));
        }
        life.first = std::min(life.first, record.startCycle);
        life.last = std::max(life.last, record.endCycle);
      }
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> events;  // (cycle, +/- bytes); ends before starts at a tie
  for (const auto& [key, life] : lives) {
    events.emplace_back(life.first, life.bytes);
    events.emplace_back(life.last, -life.bytes);
  }
  std::sort(events.begin(), events.end());
  std::int64_t live = 0, peak = 0;
  for (const auto& [cycle, delta] : events) peak = std::max(peak, live += delta);
  return peak;
}

// Idle core-cycles of one core type split by the ready queue (see CoreTypeHealth).
void splitIdleTime(const Schedule& schedule, CoreType type, const std::vector<const TaskRecord*>& records,
                   CoreTypeHealth& health) {
  std::vector<std::pair<std::int64_t, int>> occupancy;  // (cycle, +1 dispatched / -1 ended)
  for (const TaskRecord* record : records) {
    occupancy.emplace_back(record->dispatchCycle, 1);
    occupancy.emplace_back(record->endCycle, -1);
  }
  std::sort(occupancy.begin(), occupancy.end());
  const std::vector<ReadySample>& ready = schedule.ready(type);
  const std::int64_t end = schedule.makespanCycles;
  std::size_t o = 0, r = 0;
  int busy = 0, waiting = 0;
  std::int64_t now = 0;
  double whileReady = 0.0, whileNone = 0.0;
  while (now < end) {
    while (o < occupancy.size() && occupancy[o].first <= now) busy += occupancy[o++].second;
    while (r < ready.size() && ready[r].cycle <= now) waiting = ready[r++].count;
    std::int64_t next = end;
    if (o < occupancy.size()) next = std::min(next, occupancy[o].first);
    if (r < ready.size()) next = std::min(next, ready[r].cycle);
    const int idle = std::max(0, health.cores - busy);
    const int couldRun = std::min(idle, waiting);
    whileReady += static_cast<double>(couldRun) * static_cast<double>(next - now);
    whileNone += static_cast<double>(idle - couldRun) * static_cast<double>(next - now);
    now = next;
  }
  const double capacity = static_cast<double>(health.cores) * static_cast<double>(end);
  if (capacity > 0) {
    health.idleWhileReady = whileReady / capacity;
    health.idleWhileNoneReady = whileNone / capacity;
  }
}

// A core is taken from its task's dispatch until its completion was handled
// (records written by hand may leave that cycle 0: then from the end).
std::int64_t coreFreeFrom(const TaskRecord& record) { return std::max(record.endCycle, record.coreFreedCycle); }

// When the cores of one type were taken and in which order their tasks were
// dispatched: whether a task waiting in the ready queue had a core free for it.
class CoreAvailability {
public:
  CoreAvailability(const Schedule& schedule, CoreType type, int cores) : m_cores(cores) {
    for (const TaskRecord& record : schedule.tasks) {
      if (record.core.type != type) continue;
      m_taken.push_back(record.dispatchCycle);
      m_freed.push_back(coreFreeFrom(record));
      m_byDispatch.push_back(&record);
    }
    std::sort(m_taken.begin(), m_taken.end());
    std::sort(m_freed.begin(), m_freed.end());
    std::sort(m_byDispatch.begin(), m_byDispatch.end(), dispatchedBefore);
    std::merge(m_taken.begin(), m_taken.end(), m_freed.begin(), m_freed.end(), std::back_inserter(m_changes));
    m_changes.erase(std::unique(m_changes.begin(), m_changes.end()), m_changes.end());
  }

  // Whether at `cycle` (from its ready cycle to its dispatch) a core was free
  // for `waiting`: more cores idle than older tasks still waiting, which the
  // scheduler serves first (each core type's queue is oldest first, so the
  // older ones are those dispatched after `cycle` and before it).
  bool freeFor(const TaskRecord& waiting, std::int64_t cycle) const {
    auto upTo = [cycle](const std::vector<std::int64_t>& cycles) {
      return std::upper_bound(cycles.begin(), cycles.end(), cycle) - cycles.begin();
    };
    const std::ptrdiff_t idle = m_cores - (upTo(m_taken) - upTo(m_freed));
    auto laterThan = std::upper_bound(m_byDispatch.begin(), m_byDispatch.end(), cycle,
                                      [](std::int64_t c, const TaskRecord* record) { return c < record->dispatchCycle; });
    auto self = std::lower_bound(m_byDispatch.begin(), m_byDispatch.end(), &waiting, dispatchedBefore);
    return idle > std::max<std::ptrdiff_t>(0, self - laterThan);
  }

  // The first cycle after `cycle` at which freeFor may answer otherwise.
  std::int64_t nextChange(std::int64_t cycle) const {
    auto next = std::upper_bound(m_changes.begin(), m_changes.end(), cycle);
    return next == m_changes.end() ? INT64_MAX : *next;
  }

private:
  static bool dispatchedBefore(const TaskRecord* a, const TaskRecord* b) {
    return std::tie(a->dispatchCycle, a->readyCycle, a->task) < std::tie(b->dispatchCycle, b->readyCycle, b->task);
  }

  std::ptrdiff_t m_cores = 0;
  std::vector<std::int64_t> m_taken, m_freed, m_changes;  // sorted
  std::vector<const TaskRecord*> m_byDispatch;
};

void addWait(CriticalPathStep& step, const std::string& cause, std::int64_t cycles) {
  if (cycles > 0) step.waitCycles[cause] += cycles;
}

// [from, to) of `waiting`'s time in the ready queue: "core" while no core was
// free for it, "scheduling" while one was.
void addQueueWait(const CoreAvailability& cores, const TaskRecord& waiting, std::int64_t from, std::int64_t to,
                  CriticalPathStep& step) {
  for (std::int64_t cycle = from; cycle < to;) {
    const std::int64_t next = std::min(to, cores.nextChange(cycle));
    addWait(step, cores.freeFor(waiting, cycle) ? "scheduling" : "core", next - cycle);
    cycle = next;
  }
}

// The task that ran on each task's core before it (kNoId for a core's first).
std::vector<TaskId> previousOnCore(const Schedule& schedule) {
  std::vector<const TaskRecord*> ordered;
  for (const TaskRecord& record : schedule.tasks) ordered.push_back(&record);
  std::sort(ordered.begin(), ordered.end(), [](const TaskRecord* a, const TaskRecord* b) {
    return std::tie(a->core.type, a->core.index, a->dispatchCycle, a->task) <
           std::tie(b->core.type, b->core.index, b->dispatchCycle, b->task);
  });
  std::vector<TaskId> previous(schedule.tasks.size(), kNoId);
  for (std::size_t i = 1; i < ordered.size(); ++i)
    if (ordered[i]->core == ordered[i - 1]->core) previous[static_cast<std::size_t>(ordered[i]->task)] = ordered[i - 1]->task;
  return previous;
}

// See CriticalPathHealth.
CriticalPathHealth criticalPath(const ExecuteGraph& graph, const Schedule& schedule, const std::vector<Bound>& taskBounds,
                                const MachineDescription& machine) {
  CriticalPathHealth path;
  if (schedule.tasks.empty()) return path;
  auto recordOf = [&](TaskId id) -> const TaskRecord& { return schedule.tasks[static_cast<std::size_t>(id)]; };
  TaskId last = 0;
  for (const TaskRecord& record : schedule.tasks)
    if (record.endCycle > recordOf(last).endCycle) last = record.task;
  // Device tasks run one at a time (Scheduler.h): each waits for the last task before it to resolve (the one
  // that let it be taken), whether a loop barrier or the stitch limit ended the one before.
  std::vector<TaskId> latestResolvedUpTo(schedule.tasks.size(), 0);  // of tasks [0, t]
  for (std::size_t t = 1; t < schedule.tasks.size(); ++t) {
    const TaskId previous = latestResolvedUpTo[t - 1];
    latestResolvedUpTo[t] = schedule.tasks[t].resolvedCycle > recordOf(previous).resolvedCycle ? static_cast<TaskId>(t) : previous;
  }
  int lastDeviceTask = 0;
  for (const TaskRecord& record : schedule.tasks) lastDeviceTask = std::max(lastDeviceTask, record.deviceTask);
  const auto deviceTasks = static_cast<std::size_t>(lastDeviceTask) + 1;
  std::vector<TaskId> deviceTaskGate(deviceTasks, kNoId), deviceTaskFirst(deviceTasks, kNoId);
  for (std::size_t t = 1; t < schedule.tasks.size(); ++t) {
    const int k = schedule.tasks[t].deviceTask;
    if (k != schedule.tasks[t - 1].deviceTask && k >= 0 && static_cast<std::size_t>(k) < deviceTasks) {
      deviceTaskGate[static_cast<std::size_t>(k)] = latestResolvedUpTo[t - 1];
      deviceTaskFirst[static_cast<std::size_t>(k)] = static_cast<TaskId>(t);
    }
  }
  auto openerOf = [&](TaskId task) {
    const int k = recordOf(task).deviceTask;
    return k >= 0 && static_cast<std::size_t>(k) < deviceTasks ? deviceTaskGate[static_cast<std::size_t>(k)] : kNoId;
  };
  auto startsAtLoopBarrier = [&](TaskId task) {
    const TaskId first = deviceTaskFirst[static_cast<std::size_t>(recordOf(task).deviceTask)];
    return std::any_of(graph.barriers.begin(), graph.barriers.end(),
                       [&](const LoopBarrier& barrier) { return barrier.firstTask == first; });
  };
  // When the control flow has built a device task (Scheduler.h).
  const SchedulerCosts& costs = machine.scheduler;
  auto unhinderedArrival = [&](int deviceTask) {
    return (deviceTask + 1) * costs.deviceTaskSubmitCycles + std::int64_t{deviceTask} * costs.stitchCycles;
  };
  const std::vector<TaskId> holderOf = previousOnCore(schedule);
  const std::array<CoreAvailability, 2> availability = {CoreAvailability(schedule, CoreType::AIC, machine.aicCores),
                                                         CoreAvailability(schedule, CoreType::AIV, machine.aivCores)};
  auto coresOf = [&](const TaskRecord& record) -> const CoreAvailability& {
    return availability[static_cast<std::size_t>(record.core.type)];
  };

  // Back from the last task to end. Every cycle from 0 to its end is given once: to a path task's running or
  // to a wait of the step it delayed (CriticalPathHealth names the causes).
  std::vector<CriticalPathStep> steps;  // last first
  std::vector<bool> visited(schedule.tasks.size(), false);
  std::optional<std::size_t> coreWaiter;  // the step that waited for the current task's core
  for (TaskId task = last; task != kNoId && !visited[static_cast<std::size_t>(task)];) {
    visited[static_cast<std::size_t>(task)] = true;
    const TaskRecord& record = recordOf(task);
    CriticalPathStep step;
    step.task = task;
    std::int64_t ownRunningUntil = record.endCycle;
    if (coreWaiter) {
      // From the waiter's ready cycle on, this task's running is the waiter's wait for the core it held.
      const TaskRecord& waiter = recordOf(steps[*coreWaiter].task);
      ownRunningUntil = std::clamp(waiter.readyCycle, record.startCycle, record.endCycle);
      addQueueWait(coresOf(waiter), waiter, ownRunningUntil, record.endCycle, steps[*coreWaiter]);
    }
    step.runningCycles = ownRunningUntil - record.startCycle;
    const TaskId holder = holderOf[static_cast<std::size_t>(task)];
    if (holder != kNoId && coreFreeFrom(recordOf(holder)) > record.readyCycle) {
      // Ready before its core was free: the holder's running after that is its wait; from the holder's end
      // the scheduler's (the completion, then the dispatch and its landing). A task handed to the core's
      // pending slot was dispatched while the holder ran and starts at its end, or when the dispatch lands.
      step.waitedFor = "core";
      step.after = holder;
      const std::int64_t holderEnd = recordOf(holder).endCycle;
      addWait(step, "scheduling", record.dispatchCycle - holderEnd);
      addWait(step, "scheduling", record.startCycle - std::max(record.dispatchCycle, holderEnd));
      coreWaiter = steps.size();
    } else {
      addWait(step, "scheduling", record.startCycle - record.dispatchCycle);  // the dispatch landing
      TaskId producer = kNoId;
      for (TaskId predecessor : graph.tasks[static_cast<std::size_t>(task)].predecessors)
        if (producer == kNoId || recordOf(predecessor).resolvedCycle > recordOf(producer).resolvedCycle) producer = predecessor;
      const TaskId opener = openerOf(task);
      if (producer != kNoId && recordOf(producer).resolvedCycle == record.readyCycle) {
        step.waitedFor = "data";
        step.after = producer;
      } else if (opener != kNoId && record.readyCycle > unhinderedArrival(record.deviceTask)) {
        step.waitedFor = startsAtLoopBarrier(task) ? "barrier" : "device task";
        step.after = opener;
      } else {
        step.waitedFor = "submission";
      }
      std::int64_t readyFrom = 0;
      if (step.after != kNoId) {
        const TaskRecord& gate = recordOf(step.after);
        addWait(step, "data", gate.resolvedCycle - gate.endCycle);
        readyFrom = gate.resolvedCycle;
      }
      addWait(step, "submission", record.readyCycle - readyFrom);
      addQueueWait(coresOf(record), record, record.readyCycle, record.dispatchCycle, step);
      coreWaiter.reset();
    }
    steps.push_back(std::move(step));
    task = steps.back().after;
  }
  std::reverse(steps.begin(), steps.end());

  path.lengthCycles = recordOf(last).endCycle;
  for (CriticalPathStep& step : steps) {
    path.tasks.push_back(step.task);
    path.busyCycles += step.runningCycles;
    if (step.runningCycles > 0) path.runningCyclesByClass[taskBounds[static_cast<std::size_t>(step.task)].kind] += step.runningCycles;
    std::int64_t most = 0;
    for (const auto& [cause, cycles] : step.waitCycles) {
      path.waitCycles += cycles;
      path.waitCyclesByCause[cause] += cycles;
      if (cycles > most) most = cycles, step.cause = cause;
    }
  }
  path.steps = std::move(steps);
  path.cyclesByClass = path.runningCyclesByClass;
  for (const auto& [cause, cycles] : path.waitCyclesByCause) path.cyclesByClass[cause == "core" ? "occupancy" : "scheduling"] += cycles;
  return path;
}

} // namespace

std::string subgraphSource(const Compilation& compilation, const Subgraph& subgraph) {
  if (subgraph.ops.empty() || static_cast<std::size_t>(subgraph.ops.front()) >= compilation.tiles.tileOps().size())
    return {};
  const OpId op = compilation.tiles.tileOp(subgraph.ops.front()).tensorOp;
  if (op < 0 || static_cast<std::size_t>(op) >= compilation.tiles.graph.ops().size()) return {};
  const SourceLocation& location = compilation.tiles.graph.op(op).location;
  if (!location.known()) return {};
  return std::filesystem::path(location.file).lexically_normal().string() + ":" + std::to_string(location.line);
}

HealthReport healthReport(const Compilation& compilation, const Schedule& schedule, const MachineDescription& machine) {
  HealthReport report;
  report.machine = machine.name;
  report.clockGHz = machine.clockGHz;
  report.makespanCycles = schedule.makespanCycles;
  report.tileGraph = tileGraphHealth(compilation.tiles);

  const ExecuteGraph& graph = compilation.tasks;
  const std::vector<Subgraph>& subgraphs = compilation.blocks.subgraphs;
  const int threads = std::max(1, static_cast<int>(schedule.aicpuBusyCycles.size()));
  const std::array<int, 2> cores = {machine.aicCores, machine.aivCores};
  auto coresOf = [&](CoreType type) { return cores[static_cast<std::size_t>(type)]; };

  // Tasks: bound classes, and their records grouped by core type.
  std::array<std::vector<const TaskRecord*>, 2> recordsByType;
  report.taskBounds.reserve(schedule.tasks.size());
  for (const TaskRecord& record : schedule.tasks) {
    const CoreType type = record.core.type;
    recordsByType[static_cast<std::size_t>(type)].push_back(&record);
    report.taskBounds.push_back(classifyTask(schedule, record,
                                             schedulerRoundCycles(machine.scheduler, coresOf(type), threads),
                                             coresOf(type), machine.scheduler, threads));
  }

  // Core types: utilisation, idle time by cause, dispatch latency.
  for (CoreType type : {CoreType::AIC, CoreType::AIV}) {
    CoreTypeHealth health;
    health.coreType = std::string(name(type));
    health.cores = coresOf(type);
    health.schedulerRoundCycles = schedulerRoundCycles(machine.scheduler, health.cores, threads);
    const auto& records = recordsByType[static_cast<std::size_t>(type)];
    health.tasks = static_cast<int>(records.size());
    std::int64_t busy = 0;
    double latency = 0.0;
    for (const TaskRecord* record : records) {
      busy += record->endCycle - record->startCycle;
      latency += static_cast<double>(record->startCycle - record->readyCycle);
      health.maxDispatchLatency = std::max(health.maxDispatchLatency, record->startCycle - record->readyCycle);
    }
    if (!records.empty()) health.meanDispatchLatency = latency / static_cast<double>(records.size());
    if (health.cores > 0 && schedule.makespanCycles > 0) {
      health.utilization = static_cast<double>(busy) / (static_cast<double>(health.cores) * schedule.makespanCycles);
      splitIdleTime(schedule, type, records, health);
    }
    report.coreTypes.push_back(health);
  }

  // Subgraphs, over their tasks.
  std::vector<std::vector<const TaskRecord*>> tasksOf(subgraphs.size());
  for (const Task& task : graph.tasks)
    if (static_cast<std::size_t>(task.id) < schedule.tasks.size() && task.subgraph >= 0 &&
        static_cast<std::size_t>(task.subgraph) < subgraphs.size())
      tasksOf[static_cast<std::size_t>(task.subgraph)].push_back(&schedule.tasks[static_cast<std::size_t>(task.id)]);
  std::map<int, int> subgraphsPerProgram;
  for (const Subgraph& subgraph : subgraphs) ++subgraphsPerProgram[subgraph.programId];
  for (const Subgraph& subgraph : subgraphs) {
    SubgraphHealth health;
    health.id = subgraph.id;
    health.label = subgraph.label;
    health.coreType = std::string(name(subgraph.coreType));
    health.programId = subgraph.programId;
    health.overlap = std::string(name(subgraph.overlap));
    health.source = subgraphSource(compilation, subgraph);
    for (std::size_t kind = 0; kind < kMemoryKindCount; ++kind)
      if (kind != static_cast<std::size_t>(MemoryKind::GM) && subgraph.peakBytes[kind] > 0)
        health.buffers[std::string(name(static_cast<MemoryKind>(kind)))] = {
            subgraph.peakBytes[kind], compilation.settings.target.capacityBytes[kind]};
    const auto& records = tasksOf[static_cast<std::size_t>(subgraph.id)];
    health.tasks = static_cast<int>(records.size());
    std::map<std::string, std::int64_t> pipes, timeByClass;
    std::int64_t total = 0;
    double boundSum = 0.0;
    health.minCycles = records.empty() ? 0 : INT64_MAX;
    for (const TaskRecord* record : records) {
      const std::int64_t duration = record->endCycle - record->startCycle;
      health.minCycles = std::min(health.minCycles, duration);
      health.maxCycles = std::max(health.maxCycles, duration);
      total += duration;
      std::int64_t busiest = 0;
      for (const auto& [pipe, cycles] : pipeCycles(schedule, *record)) {
        pipes[pipe] += cycles;
        busiest = std::max(busiest, cycles);
      }
      boundSum += static_cast<double>(busiest);
      timeByClass[report.taskBounds[static_cast<std::size_t>(record->task)].kind] += duration;
    }
    if (!records.empty()) {
      health.meanCycles = static_cast<double>(total) / static_cast<double>(records.size());
      health.meanBoundCycles = boundSum / static_cast<double>(records.size());
    }
    for (const auto& [pipe, cycles] : pipes)
      health.pipes.push_back({pipe, cycles, total > 0 ? static_cast<double>(cycles) / static_cast<double>(total) : 0.0});
    std::sort(health.pipes.begin(), health.pipes.end(),
              [](const PipeBusy& a, const PipeBusy& b) { return a.cycles > b.cycles || (a.cycles == b.cycles && a.pipe < b.pipe); });
    auto major = std::max_element(timeByClass.begin(), timeByClass.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
    if (major != timeByClass.end()) {
      health.bound.kind = major->first;
      // The evidence of its longest task of that class stands for the subgraph.
      const TaskRecord* longest = nullptr;
      for (const TaskRecord* record : records)
        if (report.taskBounds[static_cast<std::size_t>(record->task)].kind == major->first &&
            (!longest || record->endCycle - record->startCycle > longest->endCycle - longest->startCycle))
          longest = record;
      health.bound.evidence = percent(static_cast<double>(major->second) / static_cast<double>(std::max<std::int64_t>(1, total))) +
                              " of its task time; its longest such task " +
                              report.taskBounds[static_cast<std::size_t>(longest->task)].evidence;
    }
    report.subgraphs.push_back(std::move(health));
  }

  // The execute graph.
  ExecuteGraphHealth& execute = report.executeGraph;
  execute.tasks = static_cast<std::int64_t>(graph.tasks.size());
  execute.subgraphs = static_cast<std::int64_t>(subgraphs.size());
  execute.programs = static_cast<std::int64_t>(subgraphsPerProgram.size());
  execute.dependencies = static_cast<std::int64_t>(graph.edgeCount);
  std::int64_t shared = 0;
  for (const Subgraph& subgraph : subgraphs) shared += subgraphsPerProgram[subgraph.programId] > 1;
  if (!subgraphs.empty()) execute.isomorphicRate = static_cast<double>(shared) / static_cast<double>(subgraphs.size());
  std::int64_t total = 0;
  execute.minTaskCycles = schedule.tasks.empty() ? 0 : INT64_MAX;
  for (const TaskRecord& record : schedule.tasks) {
    const std::int64_t duration = record.endCycle - record.startCycle;
    execute.minTaskCycles = std::min(execute.minTaskCycles, duration);
    execute.maxTaskCycles = std::max(execute.maxTaskCycles, duration);
    total += duration;
  }
  if (!schedule.tasks.empty()) execute.meanTaskCycles = static_cast<double>(total) / static_cast<double>(schedule.tasks.size());
  execute.gmWorkspacePeakBytes = gmWorkspacePeak(compilation, schedule);

  // Waves per label and core type.
  std::map<std::pair<std::string, CoreType>, WaveHealth> waves;
  const std::string noLabel;
  auto labelOf = [&](const Task& task) -> const std::string& {
    return task.subgraph >= 0 && static_cast<std::size_t>(task.subgraph) < subgraphs.size()
               ? subgraphs[static_cast<std::size_t>(task.subgraph)].label
               : noLabel;
  };
  for (const Task& task : graph.tasks) {
    if (static_cast<std::size_t>(task.id) >= schedule.tasks.size()) continue;
    const TaskRecord& record = schedule.tasks[static_cast<std::size_t>(task.id)];
    const std::string& label = labelOf(task);
    WaveHealth& wave = waves[{label, record.core.type}];
    wave.label = label;
    wave.coreType = std::string(name(record.core.type));
    wave.cores = coresOf(record.core.type);
    ++wave.tasks;
    wave.busyCycles += record.endCycle - record.startCycle;
  }
  for (auto& [key, wave] : waves) {
    if (wave.cores > 0) {
      wave.waves = static_cast<double>(wave.tasks) / wave.cores;
      wave.lastWaveTasks = wave.tasks % wave.cores == 0 ? wave.cores : wave.tasks % wave.cores;
    }
    report.waves.push_back(wave);
  }
  std::sort(report.waves.begin(), report.waves.end(), [](const WaveHealth& a, const WaveHealth& b) {
    return a.busyCycles > b.busyCycles || (a.busyCycles == b.busyCycles && a.label < b.label);
  });

  report.roofline = roofline(compilation, schedule, machine);

  // The critical path and the run's class.
  report.criticalPath = criticalPath(graph, schedule, report.taskBounds, machine);
  const CriticalPathHealth& path = report.criticalPath;
  for (const CriticalPathStep& step : path.steps) {
    auto waited = step.waitCycles.find("core");
    if (waited == step.waitCycles.end()) continue;
    const std::string& label = labelOf(graph.tasks[static_cast<std::size_t>(step.task)]);
    const std::string type(name(schedule.tasks[static_cast<std::size_t>(step.task)].core.type));
    for (WaveHealth& wave : report.waves)
      if (wave.label == label && wave.coreType == type) wave.pathCoreWaitCycles += waited->second;
  }
  auto major = std::max_element(path.cyclesByClass.begin(), path.cyclesByClass.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
  if (major != path.cyclesByClass.end() && path.lengthCycles > 0) {
    report.bound.kind = major->first;
    auto shares = [&](const std::map<std::string, std::int64_t>& cycles) {
      std::vector<std::pair<std::string, std::int64_t>> ordered(cycles.begin(), cycles.end());
      std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      std::string parts;
      for (const auto& [kind, count] : ordered)
        if (count > 0)
          parts += (parts.empty() ? "" : ", ") + kind + " " +
                   percent(static_cast<double>(count) / static_cast<double>(path.lengthCycles));
      return parts;
    };
    report.bound.evidence = "the critical path (" + std::to_string(path.tasks.size()) + " tasks, " +
                            withThousands(path.lengthCycles) + " cycles): " + shares(path.cyclesByClass);
    if (!path.waitCyclesByCause.empty()) report.bound.evidence += "; its waits: " + shares(path.waitCyclesByCause);
    if (report.bound.kind == "occupancy") {
      auto most = std::max_element(report.waves.begin(), report.waves.end(), [](const WaveHealth& a, const WaveHealth& b) {
        return a.pathCoreWaitCycles < b.pathCoreWaitCycles;
      });
      if (most != report.waves.end() && most->pathCoreWaitCycles > 0) {
        char figures[200];
        std::snprintf(figures, sizeof figures, "%d tasks on %d cores make %.2f waves, the last with %d of %d cores busy",
                      most->tasks, most->cores, most->waves, most->lastWaveTasks, most->cores);
        report.bound.evidence += "; the path waited " + withThousands(most->pathCoreWaitCycles) + " cycles for a free " +
                                 most->coreType + " core: '" + most->label + "' " + figures;
      }
    }
  }
  return report;
}

std::vector<SubgraphGroup> subgraphGroups(const HealthReport& report) {
  std::map<std::tuple<std::string, int, std::string>, SubgraphGroup> groups;
  for (const SubgraphHealth& subgraph : report.subgraphs) {
    SubgraphGroup& group = groups[{subgraph.label, subgraph.programId, subgraph.source}];
    if (!group.representative || subgraph.tasks > group.representative->tasks) group.representative = &subgraph;
    ++group.subgraphs;
    group.tasks += subgraph.tasks;
    group.taskCycles += subgraph.meanCycles * subgraph.tasks;
  }
  std::vector<SubgraphGroup> ordered;
  for (const auto& [key, group] : groups) ordered.push_back(group);
  std::stable_sort(ordered.begin(), ordered.end(), [](const SubgraphGroup& a, const SubgraphGroup& b) {
    return a.taskCycles > b.taskCycles || (a.taskCycles == b.taskCycles && a.representative->id < b.representative->id);
  });
  return ordered;
}

CriticalPathSplit criticalPathSplit(const CriticalPathHealth& path) {
  auto cause = [&](const char* key) {
    auto found = path.waitCyclesByCause.find(key);
    return found == path.waitCyclesByCause.end() ? std::int64_t{0} : found->second;
  };
  CriticalPathSplit split;
  split.runningCycles = path.busyCycles;
  split.dataWaitCycles = cause("data");
  split.coreWaitCycles = cause("core");
  split.dispatchCycles = path.waitCycles - split.dataWaitCycles - split.coreWaitCycles;
  return split;
}

nlohmann::ordered_json healthReportJson(const HealthReport& report, bool withTaskBounds) {
  using json = nlohmann::ordered_json;
  auto us = [&](double cycles) { return report.clockGHz > 0 ? cycles / (report.clockGHz * 1000.0) : 0.0; };
  auto bound = [](const Bound& b) { return json{{"class", b.kind}, {"evidence", b.evidence}}; };
  json out;
  out["machine"] = report.machine;
  out["clock_ghz"] = report.clockGHz;
  out["makespan_cycles"] = report.makespanCycles;
  out["makespan_us"] = us(static_cast<double>(report.makespanCycles));
  out["bound"] = bound(report.bound);
  const TileGraphHealth& tiles = report.tileGraph;
  out["tile_graph"] = {{"tile_ops", tiles.tileOps},        {"edges", tiles.edges},
                       {"depth", tiles.depth},             {"width", tiles.width},
                       {"max_fan_in", tiles.maxFanIn},     {"max_fan_in_tile_op", tiles.maxFanInOp},
                       {"mean_fan_in", tiles.meanFanIn},   {"max_fan_out", tiles.maxFanOut},
                       {"max_fan_out_tile_op", tiles.maxFanOutOp}, {"mean_fan_out", tiles.meanFanOut}};
  const ExecuteGraphHealth& execute = report.executeGraph;
  out["execute_graph"] = {{"tasks", execute.tasks},
                          {"subgraphs", execute.subgraphs},
                          {"programs", execute.programs},
                          {"dependencies", execute.dependencies},
                          {"isomorphic_rate", execute.isomorphicRate},
                          {"task_cycles", {{"min", execute.minTaskCycles}, {"mean", execute.meanTaskCycles}, {"max", execute.maxTaskCycles}}},
                          {"gm_workspace_peak_bytes", execute.gmWorkspacePeakBytes}};
  out["core_types"] = json::array();
  for (const CoreTypeHealth& type : report.coreTypes)
    out["core_types"].push_back({{"core_type", type.coreType},
                                 {"cores", type.cores},
                                 {"tasks", type.tasks},
                                 {"utilization", type.utilization},
                                 {"idle_while_ready", type.idleWhileReady},
                                 {"idle_while_none_ready", type.idleWhileNoneReady},
                                 {"mean_dispatch_latency_cycles", type.meanDispatchLatency},
                                 {"max_dispatch_latency_cycles", type.maxDispatchLatency},
                                 {"scheduler_round_cycles", type.schedulerRoundCycles}});
  out["waves"] = json::array();
  for (const WaveHealth& wave : report.waves)
    out["waves"].push_back({{"label", wave.label},
                            {"core_type", wave.coreType},
                            {"tasks", wave.tasks},
                            {"cores", wave.cores},
                            {"waves", wave.waves},
                            {"last_wave_tasks", wave.lastWaveTasks},
                            {"busy_cycles", wave.busyCycles},
                            {"path_core_wait_cycles", wave.pathCoreWaitCycles}});
  const CriticalPathHealth& path = report.criticalPath;
  auto cycleMap = [](const std::map<std::string, std::int64_t>& cycles) {
    json entries = json::object();
    for (const auto& [key, count] : cycles) entries[key] = count;
    return entries;
  };
  json steps = json::array();
  for (const CriticalPathStep& step : path.steps) {
    steps.push_back({{"task", step.task}, {"waited_for", step.waitedFor}});
    if (step.after != kNoId) steps.back()["after"] = step.after;
    steps.back()["running_cycles"] = step.runningCycles;
    steps.back()["wait_cycles"] = cycleMap(step.waitCycles);
    steps.back()["cause"] = step.cause;
  }
  out["critical_path"] = {{"length_cycles", path.lengthCycles},
                          {"busy_cycles", path.busyCycles},
                          {"wait_cycles", path.waitCycles},
                          {"cycles_by_class", cycleMap(path.cyclesByClass)},
                          {"running_cycles_by_class", cycleMap(path.runningCyclesByClass)},
                          {"wait_cycles_by_cause", cycleMap(path.waitCyclesByCause)},
                          {"tasks", path.tasks},
                          {"steps", steps}};
  const CriticalPathSplit split = criticalPathSplit(path);
  out["critical_path"]["split"] = {{"running_cycles", split.runningCycles},
                                   {"data_wait_cycles", split.dataWaitCycles},
                                   {"core_wait_cycles", split.coreWaitCycles},
                                   {"dispatch_cycles", split.dispatchCycles}};
  out["subgraphs"] = json::array();
  for (const SubgraphHealth& subgraph : report.subgraphs) {
    json pipes = json::array();
    for (const PipeBusy& pipe : subgraph.pipes)
      pipes.push_back({{"pipe", pipe.pipe}, {"busy_cycles", pipe.cycles}, {"share", pipe.share}});
    json buffers = json::object();
    for (const auto& [memory, use] : subgraph.buffers) buffers[memory] = {{"peak_bytes", use[0]}, {"capacity_bytes", use[1]}};
    out["subgraphs"].push_back({{"id", subgraph.id},
                                {"label", subgraph.label},
                                {"core_type", subgraph.coreType},
                                {"program", subgraph.programId},
                                {"source", subgraph.source},
                                {"tasks", subgraph.tasks},
                                {"cycles", {{"min", subgraph.minCycles}, {"mean", subgraph.meanCycles}, {"max", subgraph.maxCycles}}},
                                {"bound_cycles", subgraph.meanBoundCycles},
                                {"pipes", pipes},
                                {"buffers", buffers},
                                {"overlap", subgraph.overlap},
                                {"bound", bound(subgraph.bound)}});
  }
  const Roofline& roof = report.roofline;
  json ceilings = json::array();
  for (const RooflineCeiling& ceiling : roof.ceilings) {
    json entry = {{"name", ceiling.name}, {"core_type", ceiling.coreType}, {"kind", ceiling.compute ? "compute" : "memory"}};
    if (ceiling.compute) entry["ops_per_cycle"] = ceiling.opsPerCycle;
    else entry["bytes_per_cycle"] = ceiling.bytesPerCycle;
    ceilings.push_back(std::move(entry));
  }
  json points = json::array();
  for (const RooflinePoint& point : roof.points) {
    json entry = {{"subgraph", point.subgraph},   {"label", point.label},       {"core_type", point.coreType},
                  {"source", point.source},       {"tasks", point.tasks},       {"ops", point.ops},
                  {"gm_read_bytes", point.gmReadBytes}, {"gm_write_bytes", point.gmWriteBytes},    {"mean_cycles", point.meanCycles}};
    if (point.plottable()) {
      entry["intensity"] = point.intensity;
      entry["achieved_ops_per_cycle"] = point.achievedOpsPerCycle;
      entry["compute_roof_ops_per_cycle"] = point.computeRoofOpsPerCycle;
      entry["roof_ops_per_cycle"] = point.roofOpsPerCycle;
      entry["limited_by"] = point.limitedBy;
      entry["roof_share"] = point.roofShare;
    }
    points.push_back(std::move(entry));
  }
  out["roofline"] = {{"clock_ghz", roof.clockGHz}, {"ceilings", ceilings}, {"points", points}};
  if (withTaskBounds) {
    out["task_bounds"] = json::array();
    for (const Bound& b : report.taskBounds) out["task_bounds"].push_back(bound(b));
  }
  return out;
}

} // namespace pto
