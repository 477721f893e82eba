// Scheduler: the MPMD runtime's event-driven simulation (see Scheduler.h).
#include "runtime/Scheduler.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <span>
#include <sstream>
#include <string>
#include <tuple>

namespace pto {
// Named, not anonymous: ScheduleFork::State holds a Simulation.
namespace scheduler_internal {

std::size_t slot(CoreType type) { return static_cast<std::size_t>(type); }
constexpr std::array<CoreType, 2> kCoreTypes{CoreType::AIC, CoreType::AIV};

// "task 3" or "tasks 0, 2, 5" (the first 10, then "and N more").
std::string taskList(const std::vector<TaskId>& ids) {
  constexpr std::size_t kShown = 10;
  std::ostringstream out;
  out << (ids.size() == 1 ? "task " : "tasks ");
  for (std::size_t i = 0; i < ids.size() && i < kShown; ++i) out << (i ? ", " : "") << ids[i];
  if (ids.size() > kShown) out << " and " << ids.size() - kShown << " more";
  return out.str();
}

bool validateConfig(const SchedulerConfig& config, DiagnosticEngine& diags) {
  if (config.aicpuCount < 1)
    return diags.error({}) << "the runtime needs at least one AICPU scheduler thread, got " << config.aicpuCount;
  if (config.deviceSchedMode < 0 || config.deviceSchedMode > 3)
    return diags.error({}) << "device_sched_mode must be 0, 1, 2 or 3, got " << config.deviceSchedMode;
  if (config.coreTaskSlots < 1 || config.coreTaskSlots > 2)
    return diags.error({}) << "a core holds 1 or 2 tasks (core_task_slots), got " << config.coreTaskSlots;
  if (config.stitchFunctionMaxNum < 1)
    return diags.error({}) << "stitch_function_max_num must be at least 1, got " << config.stitchFunctionMaxNum;
  if (config.aicCores < 0 || config.aivCores < 0)
    return diags.error({}) << "core counts must not be negative, got " << config.aicCores << " AIC and "
                           << config.aivCores << " AIV";
  const AicpuCosts& c = config.costs;
  if (std::min({c.dispatchCycles, c.resolveCycles, c.completionCycles, c.deviceTaskSubmitCycles, c.stitchCycles}) < 0)
    return diags.error({}) << "scheduler costs must not be negative";
  return true;
}

// Every task's consumers in one array (compressed rows): task i's are
// list[begin[i] .. begin[i + 1]), ascending. One allocation for the graph
// instead of one per task: at a million tasks the per-task vectors were a
// tenth of a timing run, most of it in the allocator.
struct ConsumerLists {
  std::vector<std::size_t> begin;  // n + 1 entries
  std::vector<TaskId> list;

  std::span<const TaskId> of(std::size_t task) const {
    return {list.data() + begin[task], list.data() + begin[task + 1]};
  }
};

// A dependency cycle as a path that returns to its start, smallest id first;
// empty when there is none. Edges run producer -> consumer.
std::vector<TaskId> findCycle(const ConsumerLists& consumers) {
  const std::size_t n = consumers.begin.size() - 1;
  std::vector<unsigned char> state(n, 0);  // 0 unvisited, 1 on the path, 2 done
  std::vector<std::pair<TaskId, std::size_t>> stack;
  for (std::size_t root = 0; root < n; ++root) {
    if (state[root]) continue;
    stack.assign(1, {static_cast<TaskId>(root), 0});
    state[root] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const std::span<const TaskId> out = consumers.of(static_cast<std::size_t>(node));
      if (next == out.size()) {
        state[static_cast<std::size_t>(node)] = 2;
        stack.pop_back();
        continue;
      }
      TaskId to = out[next++];
      if (state[static_cast<std::size_t>(to)] == 1) {
        std::vector<TaskId> cycle;
        auto from = std::find_if(stack.begin(), stack.end(), [&](const auto& entry) { return entry.first == to; });
        for (auto it = from; it != stack.end(); ++it) cycle.push_back(it->first);
        std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
        cycle.push_back(cycle.front());
        return cycle;
      }
      if (state[static_cast<std::size_t>(to)] == 0) {
        state[static_cast<std::size_t>(to)] = 1;
        stack.emplace_back(to, 0);
      }
    }
  }
  return {};
}

// Checks that every task can run; fills `consumers` (derived from the
// predecessor lists, which are what the runtime trusts).
bool validateGraph(const ExecuteGraph& graph, const SchedulerConfig& config, ConsumerLists& consumers,
                   DiagnosticEngine& diags) {
  const std::size_t n = graph.tasks.size();
  // Count each producer's consumers, then place them in task order.
  consumers.begin.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Task& task = graph.tasks[i];
    if (task.id != static_cast<TaskId>(i))
      return diags.error({}) << "the task at position " << i << " has id " << task.id
                             << "; task ids must equal their positions";
    for (TaskId p : task.predecessors) {
      if (p < 0 || static_cast<std::size_t>(p) >= n)
        return diags.error({}) << "task " << i << " depends on task " << p << ", which does not exist: the graph has "
                               << n << " tasks";
      ++consumers.begin[static_cast<std::size_t>(p) + 1];
    }
  }
  for (std::size_t i = 0; i < n; ++i) consumers.begin[i + 1] += consumers.begin[i];
  consumers.list.resize(consumers.begin[n]);
  {
    std::vector<std::size_t> filled(consumers.begin.begin(), consumers.begin.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      for (TaskId p : graph.tasks[i].predecessors) consumers.list[filled[static_cast<std::size_t>(p)]++] = static_cast<TaskId>(i);
  }
  for (std::size_t b = 0; b < graph.barriers.size(); ++b) {
    const TaskId first = graph.barriers[b].firstTask;
    if (first <= 0 || static_cast<std::size_t>(first) >= n || (b > 0 && first <= graph.barriers[b - 1].firstTask))
      return diags.error({}) << "loop barrier " << b << " stands before task " << first
                             << "; barriers must stand strictly inside the task list, in ascending order";
  }
  bool ok = true;
  for (CoreType type : kCoreTypes) {
    if (config.cores(type) > 0) continue;
    std::vector<TaskId> stranded;
    for (const Task& task : graph.tasks)
      if (task.coreType == type) stranded.push_back(task.id);
    if (stranded.empty()) continue;
    bool one = stranded.size() == 1;
    diags.error({}) << taskList(stranded) << (one ? " needs" : " need") << " an " << name(type)
                    << " core, but the runtime has 0 " << name(type) << " cores: " << (one ? "it" : "they")
                    << " can never run";
    ok = false;
  }
  if (std::vector<TaskId> cycle = findCycle(consumers); !cycle.empty()) {
    std::ostringstream path;
    for (std::size_t i = 0; i < cycle.size(); ++i) path << (i ? " -> " : "") << cycle[i];
    diags.error({}) << "dependency cycle among tasks " << path.str()
                    << " (each feeds the next): none of them can ever become ready";
    ok = false;
  }
  return ok;
}

class Simulation {
public:
  Simulation(const ExecuteGraph& graph, const SchedulerConfig& config, Executor& executor, DiagnosticEngine& diags,
             ConsumerLists consumers)
      : m_graph(&graph), m_config(&config), m_executor(&executor), m_diags(&diags), m_consumers(std::move(consumers)) {}

  // With `fork`, the state at the first choice the affinity rule toggled would make otherwise is kept there.
  std::optional<Schedule> run(std::optional<ScheduleFork>* fork);
  // A copy of this run (taken by takeFork) continues under `config` (the
  // policy with the affinity rule toggled) with `executor` (the copy of the
  // executor taken with it, or a wrapper of that copy).
  std::optional<Schedule> resume(const SchedulerConfig& config, Executor& executor, DiagnosticEngine& diags);
  std::int64_t now() const { return m_now; }

private:
  // ThreadFree only wakes the loop when a scheduler thread's job has no event of its own at its end.
  enum class EventKind { CoreFreed, Resolved, DispatchLanded, DeviceTaskArrives, ThreadFree };
  struct Event {
    std::int64_t cycle = 0;
    EventKind kind = EventKind::CoreFreed;
    int id = 0;  // task, device task or core index
    CoreType type = CoreType::AIV;
    friend auto operator<=>(const Event&, const Event&) = default;
  };
  struct CoreState {
    int assigned = 0;             // tasks handed to it whose completion is not yet handled (0: idle)
    bool runningEnded = false;    // the task it ran last has ended (its completion not yet handled)
    TaskId pending = -1;          // a task waiting in its pending slot for the running one to end
    std::int64_t pendingLands = 0;  // when that task's dispatch reaches the core
    int owner = 0;  // the scheduler thread that serves it when threads own cores (SchedulerConfig::partitioned)
    bool idle() const { return assigned == 0; }
  };

  void push(Event event) { m_events.push(event); }
  bool handleExecutorCompletions();
  void handle(const Event& event);
  void makeReady(TaskId task);
  // Pushes the arrival of device task k, handed to the scheduler threads at cycle `from`.
  void submitDeviceTask(std::size_t k, std::int64_t from);
  void sampleReady(CoreType type);
  // The main loop, from the executor's reset (or a fork's resumption) to the end.
  std::optional<Schedule> loop();
  // Rounds of jobs for the free threads, the first from thread `aicpu` on
  // with `progress` already made in it (a resumed run finishes the round it
  // was forked in).
  void assignJobs(int aicpu = 0, bool progress = false);
  // Keeps a copy of this run for the toggled policy, as it stands before
  // thread `aicpu`'s dispatch in the current round.
  void takeFork(int aicpu);
  bool takeCompletion(int aicpu);
  bool takeDispatch(int aicpu);
  bool mayServe(int aicpu, CoreId core) const { return !m_config->partitioned() || coreState(core).owner == aicpu; }
  CoreState& coreState(CoreId core) { return m_cores[slot(core.type)][static_cast<std::size_t>(core.index)]; }
  const CoreState& coreState(CoreId core) const { return m_cores[slot(core.type)][static_cast<std::size_t>(core.index)]; }
  // Also clears m_affinityChangedNothing when the affinity rule would choose otherwise than the policy does.
  std::optional<CoreId> chooseCore(const Task& task, int aicpu);
  std::optional<CoreId> choosePendingSlot(const Task& task, int aicpu) const;
  bool inTailBatch(const Task& task) const;
  void busy(int aicpu, std::int64_t cycles);
  std::vector<TaskId> runningTasks() const {
    std::vector<TaskId> tasks;
    for (std::size_t i = 0; i < m_running.size(); ++i)
      if (m_running[i]) tasks.push_back(static_cast<TaskId>(i));
    return tasks;
  }

  // Pointers, not references: a fork is a copy of the run, pointed at the resumed run's policy and executor.
  const ExecuteGraph* m_graph;
  const SchedulerConfig* m_config;
  Executor* m_executor;
  DiagnosticEngine* m_diags;
  ConsumerLists m_consumers;
  // Where the fork goes (null: none wanted, or it was taken), and whether
  // the current round of assignJobs has made progress before the thread at work.
  std::optional<ScheduleFork>* m_fork = nullptr;
  bool m_roundProgress = false;
  int m_resumeAicpu = 0;  // in a fork: the thread whose dispatch the resumed run redoes

  std::int64_t m_now = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
  std::array<std::vector<CoreState>, 2> m_cores;
  // (ready cycle, task), earliest first: a heap, not a set, so that a ready
  // task costs no allocation.
  using ReadyEntry = std::pair<std::int64_t, TaskId>;
  std::array<std::priority_queue<ReadyEntry, std::vector<ReadyEntry>, std::greater<>>, 2> m_ready;
  // (end cycle, task), ascending: completions not yet handled (no more than the cores).
  std::vector<std::pair<std::int64_t, TaskId>> m_finished;
  // By task: started and its completion not yet handled (a flag per task, not a set: set or cleared once per task).
  std::vector<char> m_running;
  std::size_t m_runningCount = 0;
  std::vector<int> m_counters;
  std::vector<int> m_deviceTaskOf;
  // Device task k holds tasks [m_deviceTaskBegin[k], m_deviceTaskBegin[k + 1]): deviceTasksOf numbers
  // consecutive runs of tasks 0, 1, 2, ...
  std::vector<std::size_t> m_deviceTaskBegin;
  std::vector<bool> m_arrived;
  std::vector<std::size_t> m_unresolvedOfDeviceTask;
  std::vector<std::int64_t> m_aicpuFreeAt;
  std::size_t m_resolved = 0;
  // No core choice so far would differ with the affinity rule toggled (Schedule::affinityChangedNothing).
  bool m_affinityChangedNothing = true;
  Schedule m_schedule;
};

std::optional<Schedule> Simulation::run(std::optional<ScheduleFork>* fork) {
  m_fork = fork;
  const std::size_t n = m_graph->tasks.size();
  for (CoreType type : kCoreTypes) {
    m_cores[slot(type)].resize(static_cast<std::size_t>(m_config->cores(type)));
    const auto cores = m_cores[slot(type)].size();
    const auto threads = static_cast<std::size_t>(m_config->aicpuCount);
    // Sections (PyPTO's per-thread core ranges) when threads own cores, else round robin (the fair policies).
    for (std::size_t i = 0; i < cores; ++i)
      m_cores[slot(type)][i].owner = static_cast<int>(m_config->threadsOwnCores ? i * threads / cores : i % threads);
    m_schedule.readySamples[slot(type)] = {ReadySample{0, 0}};
  }
  m_aicpuFreeAt.assign(static_cast<std::size_t>(m_config->aicpuCount), 0);
  m_schedule.aicpuBusyCycles.assign(m_aicpuFreeAt.size(), 0);
  m_schedule.tasks.resize(n);
  m_counters.resize(n);
  m_running.assign(n, 0);
  m_deviceTaskOf = deviceTasksOf(*m_graph, m_config->stitchFunctionMaxNum);
  m_deviceTaskBegin.assign(1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    m_schedule.tasks[i].task = static_cast<TaskId>(i);
    m_schedule.tasks[i].deviceTask = m_deviceTaskOf[i];
    m_counters[i] = static_cast<int>(m_graph->tasks[i].predecessors.size());
    if (static_cast<std::size_t>(m_deviceTaskOf[i]) + 1 > m_deviceTaskBegin.size()) m_deviceTaskBegin.push_back(i);
  }
  const std::size_t deviceTasks = n == 0 ? 0 : m_deviceTaskBegin.size();
  m_deviceTaskBegin.push_back(n);
  m_schedule.deviceTaskCount = static_cast<int>(deviceTasks);
  m_arrived.assign(deviceTasks, false);
  m_unresolvedOfDeviceTask.resize(deviceTasks);
  for (std::size_t k = 0; k < deviceTasks; ++k) m_unresolvedOfDeviceTask[k] = m_deviceTaskBegin[k + 1] - m_deviceTaskBegin[k];
  // One device task at a time: the next once this one has finished (see the Resolved event).
  if (deviceTasks > 0) submitDeviceTask(0, 0);

  m_executor->reset(*m_graph);
  m_schedule.pipeIntervals.reserve(m_executor->pipeIntervalEstimate());
  return loop();
}

std::optional<Schedule> Simulation::resume(const SchedulerConfig& config, Executor& executor, DiagnosticEngine& diags) {
  const int aicpu = m_resumeAicpu;
  m_config = &config;
  m_executor = &executor;
  m_diags = &diags;
  m_fork = nullptr;
  // The rest of the round the fork was taken in, then the loop as the run would have gone on.
  assignJobs(aicpu, m_roundProgress);
  return loop();
}

std::optional<Schedule> Simulation::loop() {
  const std::size_t n = m_graph->tasks.size();
  while (true) {
    std::optional<std::int64_t> next;
    if (!m_events.empty()) next = m_events.top().cycle;
    // Nothing starts before the next scheduler event, so the executor only
    // needs to know whether a task ends by then.
    if (auto completion = m_executor->completionBy(next.value_or(std::numeric_limits<std::int64_t>::max())))
      next = next ? std::min(*next, completion->endCycle) : completion->endCycle;
    if (!next) break;
    if (*next < m_now) {
      m_diags->error({}) << "internal error: the executor reported a task ending at cycle " << *next
                        << ", before the current cycle " << m_now;
      return std::nullopt;
    }
    m_now = *next;
    if (!handleExecutorCompletions()) return std::nullopt;
    while (!m_events.empty() && m_events.top().cycle == m_now) {
      Event event = m_events.top();
      m_events.pop();
      handle(event);
    }
    assignJobs();
  }

  if (m_runningCount > 0) {
    m_diags->error({}) << "internal error: the executor reports no completion for running " << taskList(runningTasks());
    return std::nullopt;
  }
  if (m_resolved != n) {
    std::vector<TaskId> stuck;
    for (std::size_t i = 0; i < n; ++i)
      if (m_counters[i] >= 0) stuck.push_back(static_cast<TaskId>(i));
    m_diags->error({}) << "internal error: the scheduler stopped with " << taskList(stuck) << " never finished";
    return std::nullopt;
  }
  for (const TaskRecord& record : m_schedule.tasks)
    m_schedule.makespanCycles = std::max(m_schedule.makespanCycles, record.endCycle);
  m_schedule.affinityChangedNothing = m_affinityChangedNothing;
  return std::move(m_schedule);
}

bool Simulation::handleExecutorCompletions() {
  while (auto completion = m_executor->completionBy(m_now)) {
    if (completion->endCycle != m_now) break;
    TaskId task = completion->task;
    if (task < 0 || static_cast<std::size_t>(task) >= m_running.size() || !m_running[static_cast<std::size_t>(task)]) {
      m_diags->error({}) << "internal error: the executor reported task " << task << " finishing at cycle " << m_now
                        << ", but it is not running";
      return false;
    }
    m_running[static_cast<std::size_t>(task)] = 0;
    --m_runningCount;
    TaskRecord& record = m_schedule.tasks[static_cast<std::size_t>(task)];
    record.endCycle = m_now;
    const std::size_t firstPipe = m_schedule.pipeIntervals.size();
    m_executor->finish(task, m_now, m_schedule.pipeIntervals);
    if (m_schedule.pipeIntervals.size() > std::numeric_limits<std::uint32_t>::max()) {
      m_diags->error({}) << "the schedule holds more than " << std::numeric_limits<std::uint32_t>::max()
                        << " pipe intervals; simulate fewer tasks at once";
      return false;
    }
    record.firstPipe = static_cast<std::uint32_t>(firstPipe);
    record.pipeCount = static_cast<std::uint32_t>(m_schedule.pipeIntervals.size() - firstPipe);
    const std::pair<std::int64_t, TaskId> finished{m_now, task};
    m_finished.insert(std::lower_bound(m_finished.begin(), m_finished.end(), finished), finished);
    // A task in the core's pending slot starts now (or when its dispatch lands).
    CoreState& core = coreState(record.core);
    if (core.pending >= 0) {
      TaskRecord& next = m_schedule.tasks[static_cast<std::size_t>(core.pending)];
      next.startCycle = std::max(m_now, core.pendingLands);
      push({next.startCycle, EventKind::DispatchLanded, core.pending});
      core.pending = -1;
      core.runningEnded = false;
    } else {
      core.runningEnded = true;
    }
  }
  return true;
}

void Simulation::handle(const Event& event) {
  switch (event.kind) {
  case EventKind::CoreFreed: {
    CoreState& core = coreState(CoreId{event.type, event.id});
    if (--core.assigned == 0) core.runningEnded = false;
    break;
  }
  case EventKind::Resolved: {
    auto task = static_cast<std::size_t>(event.id);
    m_schedule.tasks[task].resolvedCycle = m_now;
    m_counters[task] = -1;  // finished
    ++m_resolved;
    // The device task's last task has finished: PyPTO's scheduler threads sync on it (its tail) and only
    // then take the next one.
    if (const auto k = static_cast<std::size_t>(m_deviceTaskOf[task]);
        --m_unresolvedOfDeviceTask[k] == 0 && k + 1 < m_unresolvedOfDeviceTask.size())
      submitDeviceTask(k + 1, m_now);
    for (TaskId consumer : m_consumers.of(task)) {
      auto c = static_cast<std::size_t>(consumer);
      if (--m_counters[c] == 0 && m_arrived[static_cast<std::size_t>(m_deviceTaskOf[c])]) makeReady(consumer);
    }
    break;
  }
  case EventKind::DispatchLanded: {
    TaskRecord& record = m_schedule.tasks[static_cast<std::size_t>(event.id)];
    if (!m_running[static_cast<std::size_t>(event.id)]) ++m_runningCount;
    m_running[static_cast<std::size_t>(event.id)] = 1;
    m_executor->start(m_graph->tasks[static_cast<std::size_t>(event.id)], record.core, m_now);
    break;
  }
  case EventKind::DeviceTaskArrives:
    m_arrived[static_cast<std::size_t>(event.id)] = true;
    for (std::size_t task = m_deviceTaskBegin[static_cast<std::size_t>(event.id)];
         task < m_deviceTaskBegin[static_cast<std::size_t>(event.id) + 1]; ++task)
      if (m_counters[task] == 0) makeReady(static_cast<TaskId>(task));
    break;
  case EventKind::ThreadFree: break;
  }
}

void Simulation::submitDeviceTask(std::size_t k, std::int64_t from) {
  // The control flow builds device tasks one after another, device task k ready (k+1) submits and k stitches
  // after the start; the scheduler threads take it one submit after they are free for it (`from`).
  const AicpuCosts& costs = m_config->costs;
  const auto index = static_cast<std::int64_t>(k);
  const std::int64_t built = (index + 1) * costs.deviceTaskSubmitCycles + index * costs.stitchCycles;
  push({std::max(built, from + costs.deviceTaskSubmitCycles), EventKind::DeviceTaskArrives, static_cast<int>(k)});
}

void Simulation::makeReady(TaskId task) {
  CoreType type = m_graph->tasks[static_cast<std::size_t>(task)].coreType;
  m_schedule.tasks[static_cast<std::size_t>(task)].readyCycle = m_now;
  m_ready[slot(type)].emplace(m_now, task);
  sampleReady(type);
}

void Simulation::sampleReady(CoreType type) {
  std::vector<ReadySample>& samples = m_schedule.readySamples[slot(type)];
  int count = static_cast<int>(m_ready[slot(type)].size());
  if (samples.back().cycle == m_now) {
    samples.back().count = count;
    if (samples.size() >= 2 && samples[samples.size() - 2].count == count) samples.pop_back();
  } else if (samples.back().count != count) {
    samples.push_back({m_now, count});
  }
}

void Simulation::busy(int aicpu, std::int64_t cycles) {
  m_aicpuFreeAt[static_cast<std::size_t>(aicpu)] = m_now + cycles;
  m_schedule.aicpuBusyCycles[static_cast<std::size_t>(aicpu)] += cycles;
}

// Rounds: every free thread takes at most one job per round (thread 0 first),
// until no free thread finds one.
void Simulation::assignJobs(int aicpu, bool progress) {
  while (true) {
    for (; aicpu < m_config->aicpuCount; ++aicpu) {
      if (m_aicpuFreeAt[static_cast<std::size_t>(aicpu)] > m_now) continue;
      m_roundProgress = progress;  // what a fork taken in this thread's dispatch resumes with
      if (takeCompletion(aicpu) || takeDispatch(aicpu)) progress = true;
    }
    if (!progress) return;
    aicpu = 0;
    progress = false;
  }
}

bool Simulation::takeCompletion(int aicpu) {
  for (auto it = m_finished.begin(); it != m_finished.end(); ++it) {
    TaskRecord& record = m_schedule.tasks[static_cast<std::size_t>(it->second)];
    if (!mayServe(aicpu, record.core)) continue;
    const AicpuCosts& costs = m_config->costs;
    record.completionAicpu = aicpu;
    record.coreFreedCycle = m_now + costs.completionCycles;
    push({m_now + costs.completionCycles, EventKind::CoreFreed, record.core.index, record.core.type});
    push({m_now + costs.completionCycles + costs.resolveCycles, EventKind::Resolved, record.task});
    busy(aicpu, costs.completionCycles + costs.resolveCycles);
    m_finished.erase(it);
    return true;
  }
  return false;
}

std::optional<CoreId> Simulation::chooseCore(const Task& task, int aicpu) {
  auto usable = [&](CoreId core) { return coreState(core).idle() && mayServe(aicpu, core); };
  std::optional<CoreId> lowest;  // policy 0's rule: the lowest-numbered usable core
  for (int i = 0; i < m_config->cores(task.coreType) && !lowest; ++i)
    if (usable(CoreId{task.coreType, i})) lowest = CoreId{task.coreType, i};
  if (!lowest) return std::nullopt;  // then the affinity rule finds none either
  const bool affinity = m_config->affinity();
  if (!affinity && !m_affinityChangedNothing) return lowest;
  // The affinity rule: of the producers of the same core type whose core is
  // usable, the latest-ending one's (then the larger task id). Worked out
  // under the other policies too, while no choice has differed yet, to tell
  // whether the run is also the one with the rule toggled.
  const TaskRecord* latest = nullptr;
  for (TaskId p : task.predecessors) {
    if (m_graph->tasks[static_cast<std::size_t>(p)].coreType != task.coreType) continue;
    const TaskRecord& producer = m_schedule.tasks[static_cast<std::size_t>(p)];
    if (!usable(producer.core)) continue;
    if (!latest || std::tie(producer.endCycle, producer.task) > std::tie(latest->endCycle, latest->task))
      latest = &producer;
  }
  const CoreId byAffinity = latest ? latest->core : *lowest;
  if (byAffinity != *lowest) m_affinityChangedNothing = false;
  return affinity ? byAffinity : *lowest;
}

// The device task's unresolved tasks are no more than the cores of the
// task's type: PyPTO then hands tasks to idle cores only, so that the last
// ones do not queue behind a running task while another core is free.
bool Simulation::inTailBatch(const Task& task) const {
  const std::size_t unresolved = m_unresolvedOfDeviceTask[static_cast<std::size_t>(m_deviceTaskOf[static_cast<std::size_t>(task.id)])];
  return m_config->aicpuCount > 1 && unresolved <= static_cast<std::size_t>(m_config->cores(task.coreType));
}

// A busy core whose pending slot is free (the lowest index this thread may serve).
std::optional<CoreId> Simulation::choosePendingSlot(const Task& task, int aicpu) const {
  if (m_config->coreTaskSlots < 2 || inTailBatch(task)) return std::nullopt;
  for (int i = 0; i < m_config->cores(task.coreType); ++i) {
    const CoreId core{task.coreType, i};
    const CoreState& state = coreState(core);
    if (state.assigned == 1 && mayServe(aicpu, core)) return core;  // one task: running, or reserved to run
  }
  return std::nullopt;
}

bool Simulation::takeDispatch(int aicpu) {
  // Choosing changes nothing but m_affinityChangedNothing: when the first
  // choice the toggled rule makes otherwise is among these, the state is
  // still the one before this dispatch, the fork's.
  const bool forkPossible = m_fork && m_affinityChangedNothing;
  // The oldest ready task, of either type, that has a core this thread may use: an idle one, else (two
  // task slots) a busy one's pending slot.
  std::optional<std::pair<std::int64_t, TaskId>> best;
  std::optional<CoreId> bestCore;
  for (CoreType type : kCoreTypes) {
    if (m_ready[slot(type)].empty()) continue;
    auto head = m_ready[slot(type)].top();
    if (best && *best < head) continue;
    const Task& candidate = m_graph->tasks[static_cast<std::size_t>(head.second)];
    std::optional<CoreId> core = chooseCore(candidate, aicpu);
    if (!core) core = choosePendingSlot(candidate, aicpu);
    if (core) {
      best = head;
      bestCore = core;
    }
  }
  if (forkPossible && !m_affinityChangedNothing) takeFork(aicpu);
  if (!best) return false;
  TaskId task = best->second;
  CoreType type = m_graph->tasks[static_cast<std::size_t>(task)].coreType;
  m_ready[slot(type)].pop();  // the head of its queue
  sampleReady(type);
  CoreState& core = coreState(*bestCore);
  TaskRecord& record = m_schedule.tasks[static_cast<std::size_t>(task)];
  record.core = *bestCore;
  record.dispatchAicpu = aicpu;
  record.dispatchCycle = m_now;
  const std::int64_t lands = m_now + m_config->costs.dispatchCycles;
  if (core.assigned++ == 0 || core.runningEnded) {
    // An idle core, or one whose task has ended though its completion is not yet handled: it starts on landing.
    record.startCycle = lands;
    core.runningEnded = false;
    push({record.startCycle, EventKind::DispatchLanded, task});
  } else {
    core.pending = task;  // starts when the running task ends (handleExecutorCompletions)
    core.pendingLands = lands;
    push({lands, EventKind::ThreadFree, aicpu});
  }
  busy(aicpu, m_config->costs.dispatchCycles);
  return true;
}

} // namespace scheduler_internal

struct ScheduleFork::State {
  scheduler_internal::Simulation simulation;  // as it stood, pointed at `config` and `executor`
  std::unique_ptr<Executor> executor;
  SchedulerConfig config;  // the forked run's
  bool used = false;       // resumed already
};

ScheduleFork::ScheduleFork(std::unique_ptr<State> state) : m_state(std::move(state)) {}
ScheduleFork::ScheduleFork(ScheduleFork&&) noexcept = default;
ScheduleFork& ScheduleFork::operator=(ScheduleFork&&) noexcept = default;
ScheduleFork::~ScheduleFork() = default;
std::int64_t ScheduleFork::cycle() const { return m_state->simulation.now(); }
SchedulerConfig ScheduleFork::resumedConfig() const {
  SchedulerConfig config = m_state->config;
  config.deviceSchedMode ^= 1;
  return config;
}
Executor& ScheduleFork::executor() { return *m_state->executor; }

void scheduler_internal::Simulation::takeFork(int aicpu) {
  std::optional<ScheduleFork>& fork = *m_fork;
  m_fork = nullptr;  // one fork a run
  std::unique_ptr<Executor> executor = m_executor->clone();
  if (!executor) return;
  auto state = std::make_unique<ScheduleFork::State>(ScheduleFork::State{*this, std::move(executor), *m_config, false});
  // The copy outlives this run's scheduler and diagnostics.
  Simulation& copy = state->simulation;
  copy.m_config = &state->config;
  copy.m_executor = state->executor.get();
  copy.m_diags = nullptr;
  copy.m_resumeAicpu = aicpu;
  copy.m_affinityChangedNothing = false;  // the resumed run's next choice is the first that differs
  fork.emplace(ScheduleFork(std::move(state)));
}

std::vector<int> deviceTasksOf(const ExecuteGraph& graph, int maxRootCalls) {
  std::vector<int> result(graph.tasks.size(), 0);
  int deviceTask = -1;
  int callsInDeviceTask = 0;
  auto barrier = graph.barriers.begin();
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const bool newCall = i == 0 || graph.tasks[i].rootCall != graph.tasks[i - 1].rootCall;
    const bool atBarrier = barrier != graph.barriers.end() && barrier->firstTask == static_cast<TaskId>(i);
    if (atBarrier) ++barrier;
    // A barrier submits what came before: the device task ends there.
    if (deviceTask < 0 || atBarrier || (newCall && callsInDeviceTask >= std::max(1, maxRootCalls))) {
      ++deviceTask;
      callsInDeviceTask = 0;
    }
    if (newCall || callsInDeviceTask == 0) ++callsInDeviceTask;
    result[i] = deviceTask;
  }
  return result;
}

SchedulerConfig equivalentConfig(SchedulerConfig config, const ExecuteGraph& graph) {
  if (config.fair() && (config.threadsOwnCores || config.aicpuCount == 1)) config.deviceSchedMode -= 2;
  if (config.stitchFunctionMaxNum > 1) {
    // Root calls per device task, counted as deviceTasksOf counts them: a
    // call begins at a new rootCall or at a device task's first task.
    const std::vector<int> deviceTasks = deviceTasksOf(graph, config.stitchFunctionMaxNum);
    std::vector<int> calls;
    for (std::size_t i = 0; i < deviceTasks.size(); ++i) {
      const auto deviceTask = static_cast<std::size_t>(deviceTasks[i]);
      if (deviceTask >= calls.size()) calls.resize(deviceTask + 1, 0);
      if (i == 0 || deviceTasks[i] != deviceTasks[i - 1] || graph.tasks[i].rootCall != graph.tasks[i - 1].rootCall)
        ++calls[deviceTask];
    }
    const int most = calls.empty() ? 1 : *std::max_element(calls.begin(), calls.end());
    config.stitchFunctionMaxNum = std::min(config.stitchFunctionMaxNum, std::max(1, most));
  }
  return config;
}

std::optional<Schedule> Scheduler::run(const ExecuteGraph& graph, Executor& executor, DiagnosticEngine& diags,
                                       std::optional<ScheduleFork>* fork) const {
  using namespace scheduler_internal;
  if (fork) fork->reset();
  ConsumerLists consumers;
  if (!validateConfig(m_config, diags) || !validateGraph(graph, m_config, consumers, diags)) return std::nullopt;
  return Simulation(graph, m_config, executor, diags, std::move(consumers)).run(fork);
}

std::optional<Schedule> Scheduler::resume(ScheduleFork& fork, Executor& executor, DiagnosticEngine& diags) const {
  if (!scheduler_internal::validateConfig(m_config, diags)) return std::nullopt;
  if (fork.m_state->used) {
    diags.error({}) << "internal error: a fork resumes once";
    return std::nullopt;
  }
  const SchedulerConfig expected = fork.resumedConfig();
  if (m_config != expected) {
    diags.error({}) << "internal error: a run forked under device_sched_mode " << fork.m_state->config.deviceSchedMode
                    << " resumes only under device_sched_mode " << expected.deviceSchedMode
                    << " and otherwise the same runtime configuration";
    return std::nullopt;
  }
  fork.m_state->used = true;
  return fork.m_state->simulation.resume(m_config, executor, diags);
}

} // namespace pto
