// The event loop of the timing model: pipes, flags, barriers, shared GM bandwidth.
#include "npusim/NpuExecutor.h"

#include "npusim/BandwidthSharing.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace pto {

namespace {

constexpr std::uint8_t kReady = 0;
constexpr std::uint8_t kBusy = 1;    // compute, or a GM transfer's start-up latency
constexpr std::uint8_t kMoving = 2;  // a GM transfer in its data phase

// Events closer than this (cycles) are simultaneous: fair sharing computes
// end times in floating point, and rounding must not split one instant.
constexpr double kTimeEpsilon = 1e-6;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
// Below this share of its bytes from HBM a transfer counts as wholly an L2 hit.
constexpr double kMissEpsilon = 1e-9;

// The event heap's order (a function object, so the heap operations inline it).
struct LaterEvent {
  bool operator()(const NpuExecutor::Event& a, const NpuExecutor::Event& b) const {
    if (a.time != b.time) return a.time > b.time;
    if (a.core != b.core) return a.core > b.core;
    return a.pipe > b.pipe;
  }
};
constexpr LaterEvent laterEvent;

// Two doubles at once (SSE2 on x86-64, NEON on Arm): the per-transfer
// arithmetic of a resharing, its most frequent loops. Each lane does the
// very operation the scalar code did (IEEE subtraction, multiplication and
// division round the same in a vector), so the times are bit for bit equal.
using DoublePair = double __attribute__((vector_size(2 * sizeof(double))));

DoublePair loadPair(const double* from) {
  DoublePair pair;
  std::memcpy(&pair, from, sizeof pair);
  return pair;
}

void storePair(double* to, DoublePair pair) { std::memcpy(to, &pair, sizeof pair); }

// remaining[i] -= rates[i] * elapsed: what moved since the last sharing.
void subtractMoved(double* remaining, const double* rates, double elapsed, std::size_t n) {
  std::size_t i = 0;
  const DoublePair elapsedPair = {elapsed, elapsed};
  for (; i + 2 <= n; i += 2) storePair(remaining + i, loadPair(remaining + i) - loadPair(rates + i) * elapsedPair);
  for (; i < n; ++i) remaining[i] -= rates[i] * elapsed;
}

// ends[i] = now + max(0, remaining[i]) / rates[i]; returns the earliest.
double endTimesFrom(double* ends, const double* remaining, const double* rates, double now, std::size_t n) {
  std::size_t i = 0;
  const DoublePair zero = {0.0, 0.0};
  const DoublePair nowPair = {now, now};
  for (; i + 2 <= n; i += 2) {
    const DoublePair left = loadPair(remaining + i);
    // std::max(0.0, x): x when 0 < x, else 0 (a negative zero or NaN too).
    const DoublePair positive = zero < left ? left : zero;
    storePair(ends + i, nowPair + positive / loadPair(rates + i));
  }
  for (; i < n; ++i) ends[i] = now + std::max(0.0, remaining[i]) / rates[i];
  double first = kInfinity;
  for (std::size_t j = 0; j < n; ++j) first = std::min(first, ends[j]);
  return first;
}

// rates[i]: the path's peak (limitRates[i]) for a transfer served by L2
// (missFractions[i] <= kMissEpsilon) or given all it draws from HBM, else its
// HBM share per HBM byte it draws per byte moved (hbmRates[i] / missFractions[i];
// a division by 1 is exact, so whole misses need no case of their own).
void scaleBackFromHbm(double* rates, const double* hbmRates, const double* hbmLimits, const double* limitRates,
                      const double* missFractions, std::size_t n) {
  std::size_t i = 0;
  const DoublePair missEpsilon = {kMissEpsilon, kMissEpsilon};
  for (; i + 2 <= n; i += 2) {
    const DoublePair miss = loadPair(missFractions + i);
    const DoublePair hbm = loadPair(hbmRates + i);
    const auto atPeak = (miss <= missEpsilon) | (hbm == loadPair(hbmLimits + i));
    // The quotient of a lane at its peak (maybe 0 / 0) is never used.
    storePair(rates + i, atPeak ? loadPair(limitRates + i) : hbm / miss);
  }
  for (; i < n; ++i)
    rates[i] = missFractions[i] <= kMissEpsilon || hbmRates[i] == hbmLimits[i] ? limitRates[i] : hbmRates[i] / missFractions[i];
}

// hbmSums from `from` on, after the transfers there changed.
void redoHbmSums(NpuExecutor::ChipState& state, std::size_t from) {
  const std::size_t n = state.hbmLimits.size();
  state.hbmSums.resize(n);
  double sum = from > 0 && from <= n ? state.hbmSums[from - 1] : 0.0;
  for (std::size_t i = std::min(from, n); i < n; ++i) {
    sum += state.hbmLimits[i];
    state.hbmSums[i] = sum;
  }
}

std::int64_t cycleAtOrAfter(double time) { return static_cast<std::int64_t>(std::ceil(time - kTimeEpsilon)); }
std::int64_t cycleAtOrBefore(double time) { return static_cast<std::int64_t>(std::floor(time + kTimeEpsilon)); }

} // namespace

std::optional<NpuExecutor> NpuExecutor::create(const MachineDescription& machine, const std::vector<PtoProgram>& programs,
                                               std::vector<GmTensorLayout> layouts, DiagnosticEngine& diags) {
  NpuExecutor executor;
  executor.m_machine = machine;
  executor.m_capBytesPerCycle = machine.sustainedGmBytesPerCycle();
  if (!(executor.m_capBytesPerCycle > 0.0)) {
    diags.error({}) << "machine '" << machine.name << "' has no global-memory bandwidth to share";
    return std::nullopt;
  }
  bool ok = true;
  for (const PtoProgram& program : programs) {
    if (program.programId < 0) continue;
    auto id = static_cast<std::size_t>(program.programId);
    if (executor.m_programs.size() <= id) executor.m_programs.resize(id + 1);
    executor.m_programs[id] = timeProgram(program, machine, diags);
    if (!executor.m_programs[id]) ok = false;
    else executor.m_maxFlagSlots = std::max(executor.m_maxFlagSlots, executor.m_programs[id]->flagSlots);
  }
  if (!ok) return std::nullopt;
  executor.m_l2Cap = machine.l2BytesPerCycle();
  executor.m_state.l2 =
      L2CacheModel(machine.l2.effectiveBytes(), machine.l2.lineBytes, std::move(layouts), L2Replacement::Random);
  return executor;
}

bool NpuExecutor::checkGraph(const ExecuteGraph& graph, DiagnosticEngine& diags) const {
  bool ok = true;
  for (const Task& task : graph.tasks) {
    auto id = static_cast<std::size_t>(task.programId);
    if (task.programId < 0 || id >= m_programs.size() || !m_programs[id]) {
      diags.error({}) << "task " << task.id << " runs program " << task.programId << ", which does not exist";
      ok = false;
      continue;
    }
    const TimedProgram& program = *m_programs[id];
    if (program.coreType != task.coreType) {
      diags.error({}) << "task " << task.id << " is an " << name(task.coreType) << " task but program "
                      << task.programId << " runs on " << name(program.coreType) << " cores";
      ok = false;
    }
    if (static_cast<int>(task.reads.size()) < program.readRegionCount ||
        static_cast<int>(task.writes.size()) < program.writeRegionCount) {
      diags.error({}) << "task " << task.id << " has " << task.reads.size() << " read and " << task.writes.size()
                      << " written regions; program " << task.programId << " loads from " << program.readRegionCount
                      << " and stores to " << program.writeRegionCount;
      ok = false;
    }
  }
  return ok;
}

void NpuExecutor::reset(const ExecuteGraph& graph) {
  m_graph = &graph;
  L2CacheModel l2 = std::move(m_state.l2);  // the machine's cache, emptied
  l2.clear();
  m_state = ChipState{};
  m_state.l2 = std::move(l2);
  m_coreOfSlot.clear();
  m_intervals.clear();
  m_instructions = 0;
  m_cachedCompletion.reset();
}

std::size_t NpuExecutor::pipeIntervalEstimate() const {
  if (!m_recordPipeIntervals || !m_graph) return 0;
  // A pipe's intervals are runs of its busy steps, so a task has at most as
  // many as its program's busy steps (usually a few: the steps on a pipe
  // mostly run back to back). The bound is reserved: the pages of the part
  // never written are never touched, but past 1 GiB (a very large graph of
  // long programs) the array grows as it fills instead.
  constexpr std::size_t kMostReserved = (std::size_t{1} << 30) / sizeof(PipeInterval);
  std::vector<std::size_t> busySteps(m_programs.size(), 0);  // by program id
  for (std::size_t id = 0; id < m_programs.size(); ++id)
    if (m_programs[id])
      for (const std::vector<TimedStep>& steps : m_programs[id]->steps)
        busySteps[id] += static_cast<std::size_t>(std::count_if(steps.begin(), steps.end(), [](const TimedStep& step) {
          return step.kind == StepKind::Compute || step.kind == StepKind::GmTransfer;
        }));
  std::size_t bound = 0;
  for (const Task& task : m_graph->tasks)
    if (task.programId >= 0 && static_cast<std::size_t>(task.programId) < busySteps.size())
      bound += busySteps[static_cast<std::size_t>(task.programId)];
  return std::min(bound, kMostReserved);
}

std::unique_ptr<Executor> NpuExecutor::clone() const {
  if (m_stepRecorder || m_observer) return nullptr;
  return std::make_unique<NpuExecutor>(*this);
}

int NpuExecutor::slotOf(CoreId core) {
  for (std::size_t i = 0; i < m_coreOfSlot.size(); ++i)
    if (m_coreOfSlot[i] == core) return static_cast<int>(i);
  m_coreOfSlot.push_back(core);
  m_state.cores.emplace_back();
  m_state.flags.resize(m_coreOfSlot.size() * static_cast<std::size_t>(m_maxFlagSlots), 0);
  m_intervals.emplace_back();
  return static_cast<int>(m_coreOfSlot.size() - 1);
}

void NpuExecutor::start(const Task& task, CoreId core, std::int64_t startCycle) {
  m_cachedCompletion.reset();
  advance(m_state, static_cast<double>(startCycle), false, true);
  m_state.now = std::max(m_state.now, static_cast<double>(startCycle));
  int slot = slotOf(core);
  CoreRun& run = m_state.cores[static_cast<std::size_t>(slot)];
  // The slot's per-read vectors keep their storage from task to task.
  std::vector<double> hits = std::move(run.hits);
  std::vector<std::int64_t> missed = std::move(run.missed);
  run = CoreRun{};
  run.hits = std::move(hits);
  run.missed = std::move(missed);
  run.task = task.id;
  auto id = static_cast<std::size_t>(task.programId);
  bool known = task.programId >= 0 && id < m_programs.size() && m_programs[id];
  run.program = known ? task.programId : -1;
  run.reads = &task.reads;
  run.hits.assign(task.reads.size(), -1.0);
  run.missed.assign(task.reads.size(), -1);
  for (auto& pipe : m_intervals[static_cast<std::size_t>(slot)]) pipe.clear();
  std::fill_n(m_state.flags.begin() + static_cast<std::ptrdiff_t>(slot) * m_maxFlagSlots, m_maxFlagSlots, 0);
  if (m_stepRecorder && known && m_stepRecorder->wants(task.id)) {
    TaskSteps steps;
    steps.task = task.id;
    steps.core = core;
    steps.programId = task.programId;
    steps.startCycle = m_state.now;
    const TimedProgram& program = *m_programs[id];
    for (std::size_t p = 0; p < kPipeCount; ++p)
      for (const TimedStep& step : program.steps[p]) {
        StepTiming timing;
        timing.instruction = step.instruction;
        timing.kind = step.kind;
        if (step.kind == StepKind::GmTransfer && step.pathBytesPerCycle > 0.0)
          timing.aloneDataCycles = static_cast<double>(step.bytes) / step.pathBytesPerCycle;
        steps.pipes[p].push_back(timing);
      }
    run.recording = static_cast<int>(m_stepRecorder->recorded.size());
    m_stepRecorder->recorded.push_back(std::move(steps));
  }
  if (issue(m_state, slot, true)) {
    run.ended = true;
    run.endCycle = cycleAtOrAfter(m_state.now);
    m_state.endedSlots.push_back(slot);
  } else {
    ++m_state.running;
  }
}

namespace {

// The ended task with the earliest end (ties: the smaller task id).
std::optional<Completion> firstEnded(const NpuExecutor::ChipState& state) {
  std::optional<Completion> first;
  for (std::int32_t slot : state.endedSlots) {
    const NpuExecutor::CoreRun& run = state.cores[static_cast<std::size_t>(slot)];
    if (!first || run.endCycle < first->endCycle || (run.endCycle == first->endCycle && run.task < first->task))
      first = Completion{run.task, run.endCycle};
  }
  return first;
}

// Whether a running task could still end before `answer`: one is running and
// `answer` (a task that already ended) is still ahead of the state's time.
bool mayEndEarlier(const NpuExecutor::ChipState& state, const std::optional<Completion>& answer) {
  return state.running > 0 && (!answer || static_cast<double>(answer->endCycle) > state.now);
}

} // namespace

std::optional<Completion> NpuExecutor::nextCompletion() const {
  if (m_cachedCompletion) return *m_cachedCompletion;
  std::optional<Completion> answer = firstEnded(m_state);
  if (mayEndEarlier(m_state, answer)) {
    ChipState lookahead = m_state;
    advance(lookahead, answer ? static_cast<double>(answer->endCycle) : kInfinity, true, false);
    answer = firstEnded(lookahead);
  }
  m_cachedCompletion = answer;
  return answer;
}

std::optional<Completion> NpuExecutor::completionBy(std::int64_t horizon) {
  if (m_cachedCompletion) {
    if (*m_cachedCompletion && (*m_cachedCompletion)->endCycle > horizon) return std::nullopt;
    return *m_cachedCompletion;
  }
  std::optional<Completion> answer = firstEnded(m_state);
  if (mayEndEarlier(m_state, answer)) {
    double limit = horizon == std::numeric_limits<std::int64_t>::max() ? kInfinity : static_cast<double>(horizon);
    if (answer) limit = std::min(limit, static_cast<double>(answer->endCycle));
    advance(m_state, limit, true, true);
    answer = firstEnded(m_state);
  }
  // The next completion is known when one was found within the horizon or
  // nothing runs; otherwise the state stopped at the horizon, and the next
  // question simulates on from there.
  if (answer && answer->endCycle > horizon) return std::nullopt;
  if (answer || !mayEndEarlier(m_state, answer)) m_cachedCompletion = answer;
  return answer;
}

void NpuExecutor::finish(TaskId task, std::int64_t endCycle, std::vector<PipeInterval>& intervals) {
  m_cachedCompletion.reset();
  advance(m_state, static_cast<double>(endCycle), false, true);
  m_state.now = std::max(m_state.now, static_cast<double>(endCycle));
  const std::size_t first = intervals.size();
  static const std::array<PipeName, kPipeCount> pipeNames = [] {
    std::array<PipeName, kPipeCount> names;
    for (std::size_t pipe = 0; pipe < kPipeCount; ++pipe) names[pipe] = PipeName(name(static_cast<Pipe>(pipe)));
    return names;
  }();
  for (std::size_t slot = 0; slot < m_state.cores.size(); ++slot) {
    CoreRun& run = m_state.cores[slot];
    if (run.task != task) continue;
    // Rounding may leave the task a hair short of the end it was reported
    // with; the scheduler's word stands.
    for (std::size_t pipe = 0; pipe < kPipeCount; ++pipe)
      for (const auto& [from, to] : m_intervals[slot][pipe])
        intervals.push_back({pipeNames[pipe], from, std::min(to, endCycle)});
    if (run.program >= 0) m_instructions += m_programs[static_cast<std::size_t>(run.program)]->instructionCount;
    if (TaskSteps* steps = recordOf(run, true)) steps->endCycle = endCycle;
    if (m_graph && task >= 0 && static_cast<std::size_t>(task) < m_graph->tasks.size())
      for (const ConcreteRegion& region : m_graph->tasks[static_cast<std::size_t>(task)].writes)
        if (!region.scattered) m_state.l2.access(region);  // a scatter's few rows: as for gathers, left out
    // Drop whatever is left of it (nothing, unless the report was early).
    // (A task that ended has none: its pipes are all done. Only an early
    // report leaves some, so the heap is rebuilt only then.)
    std::vector<Event>& events = m_state.events;
    auto ofTask = [&](const Event& event) { return event.core == static_cast<std::int32_t>(slot); };
    if (std::any_of(events.begin(), events.end(), ofTask)) {
      events.erase(std::remove_if(events.begin(), events.end(), ofTask), events.end());
      std::make_heap(events.begin(), events.end(), laterEvent);
    }
    for (std::size_t i = m_state.moving.size(); i-- > 0;) {
      if (m_state.moving[i] / static_cast<std::int32_t>(kPipeCount) != static_cast<std::int32_t>(slot)) continue;
      m_state.moving.erase(m_state.moving.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.remainingBytes.erase(m_state.remainingBytes.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.hbmLimits.erase(m_state.hbmLimits.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.limitRates.erase(m_state.limitRates.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.missFractions.erase(m_state.missFractions.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.rates.erase(m_state.rates.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.endTimes.erase(m_state.endTimes.begin() + static_cast<std::ptrdiff_t>(i));
      m_state.ratesStale = true;
    }
    if (m_state.hbmSums.size() != m_state.hbmLimits.size()) redoHbmSums(m_state, 0);
    if (run.ended) {
      auto& ended = m_state.endedSlots;
      ended.erase(std::find(ended.begin(), ended.end(), static_cast<std::int32_t>(slot)));
    } else if (run.task != kNoId) {
      --m_state.running;
    }
    run = CoreRun{};
    break;
  }
  std::sort(intervals.begin() + static_cast<std::ptrdiff_t>(first), intervals.end(),
            [](const PipeInterval& a, const PipeInterval& b) {
              return a.startCycle < b.startCycle || (a.startCycle == b.startCycle && a.pipe() < b.pipe());
            });
}

void NpuExecutor::recordInterval(int slot, int pipe, double from, double to) const {
  if (!m_recordPipeIntervals) return;
  auto& list = m_intervals[static_cast<std::size_t>(slot)][static_cast<std::size_t>(pipe)];
  std::int64_t start = cycleAtOrBefore(from);
  std::int64_t end = std::max(start, cycleAtOrAfter(to));
  if (!list.empty() && start <= list.back().second) list.back().second = std::max(list.back().second, end);
  else list.emplace_back(start, end);
}

bool NpuExecutor::issue(ChipState& state, int slot, bool record) const {
  CoreRun& run = state.cores[static_cast<std::size_t>(slot)];
  if (run.program < 0) return true;
  TaskSteps* recorded = recordOf(run, record);
  const TimedProgram& program = *m_programs[static_cast<std::size_t>(run.program)];
  std::int32_t* flags = state.flags.data() + static_cast<std::ptrdiff_t>(slot) * m_maxFlagSlots;
  bool progress = true;
  while (progress) {
    progress = false;
    for (int k = 0; k < program.stepPipeCount; ++k) {
      const std::size_t p = program.stepPipes[static_cast<std::size_t>(k)];
      PipeRun& pipe = run.pipes[p];
      const std::vector<TimedStep>& steps = program.steps[p];
      while (pipe.phase == kReady && pipe.position < steps.size()) {
        const TimedStep& step = steps[pipe.position];
        // The pipe reached this step now, unless it was waiting at it already.
        StepTiming* timing = recorded ? &recorded->pipes[p][pipe.position] : nullptr;
        if (timing && timing->startCycle < 0.0) timing->startCycle = state.now;
        if (step.kind == StepKind::SetFlag) {
          ++flags[step.slot];
        } else if (step.kind == StepKind::WaitFlag) {
          if (flags[step.slot] == 0) break;
          --flags[step.slot];
        } else if (step.kind == StepKind::Barrier) {
          if (!pipe.atBarrier) {
            pipe.atBarrier = true;
            ++run.barrierArrivals;
          }
          if (run.barrierArrivals < static_cast<int>(kPipeCount)) break;
          // Everyone is here: all pass; the others resume on the next sweep.
          for (std::size_t q = 0; q < kPipeCount; ++q) {
            PipeRun& other = run.pipes[q];
            if (recorded) recorded->pipes[q][other.position].endCycle = state.now;
            other.atBarrier = false;
            ++other.position;
          }
          run.barrierArrivals = 0;
          progress = true;
          continue;
        } else {
          double cycles = step.cycles;
          if (step.kind == StepKind::GmTransfer) {
            double hit = 0.0;
            const auto region = static_cast<std::size_t>(step.gmRegion);
            if (step.readsGm && region < run.hits.size()) {
              // The L2 is touched when the region's first load is issued, not
              // for all of a task's reads at its start: a task that runs a
              // core's whole block reads hundreds of MB, and touching it all
              // at once evicts what its next tile would have found.
              if (run.hits[region] < 0.0) {
                const ConcreteRegion& read = (*run.reads)[region];
                // A gather moves a few rows of a large region (a KV cache):
                // which lines they fall in is data-dependent, so they are
                // taken as misses and the cache is left as it was (touching
                // the whole region would flush it).
                if (read.gathered) {
                  run.hits[region] = 0.0;
                } else {
                  L2CacheModel::Lines lines = state.l2.accessLines(read);
                  run.hits[region] = lines.hitFraction;
                  run.missed[region] = lines.missedBytes;
                }
              }
              hit = run.hits[region];
            }
            cycles = std::max(0.0, step.latencyCycles - hit * static_cast<double>(m_machine.l2.missPenaltyCycles));
            // Issued back to back: the start-up ran during the previous data phase.
            if (pipe.transferEnd >= 0.0 && state.now <= pipe.transferEnd + kTimeEpsilon)
              cycles = std::max(0.0, cycles - pipe.transferDataCycles);
          } else if (cycles <= 0.0) {
            if (timing) timing->endCycle = state.now;
            ++pipe.position;
            progress = true;
            continue;
          }
          pipe.phase = kBusy;
          pipe.busySince = state.now;
          state.events.push_back({state.now + cycles, slot, static_cast<std::int32_t>(p)});
          std::push_heap(state.events.begin(), state.events.end(), laterEvent);
          break;
        }
        if (timing) timing->endCycle = state.now;  // a flag raised or consumed
        ++pipe.position;
        progress = true;
      }
    }
  }
  for (int k = 0; k < program.stepPipeCount; ++k) {
    const std::size_t p = program.stepPipes[static_cast<std::size_t>(k)];
    if (run.pipes[p].phase != kReady || run.pipes[p].position < program.steps[p].size()) return false;
  }
  return true;
}

void NpuExecutor::advance(ChipState& state, double limit, bool stopAtFirstEnd, bool record) const {
  thread_local std::vector<std::int32_t> touched;
  // A task ends no earlier than the cycle the scheduler last named.
  const double toldCycle = std::ceil(state.now);
  while (true) {
    if (state.ratesStale) {
      // Account what moved at the old rates, then share anew. The sums
      // below run in index order, as shareBandwidth's own do, so that
      // skipping a cap that does not bind gives the very same rates.
      const std::size_t n = state.moving.size();
      const double elapsed = state.now - state.sharedAt;
      const double hbmTotal = n > 0 ? state.hbmSums[n - 1] : 0.0;
      subtractMoved(state.remainingBytes.data(), state.rates.data(), elapsed, n);
      // Share the HBM among what each transfer draws from it, then scale
      // back: a transfer served wholly by L2 runs at its path's peak. One
      // that gets all it draws runs at its path's peak too (limitRates holds
      // that rate, divided out once when the transfer began).
      double total = 0.0;
      if (hbmTotal <= m_capBytesPerCycle) {
        for (std::size_t i = 0; i < n; ++i) {
          state.rates[i] = state.limitRates[i];
          total += state.rates[i];
        }
      } else {
        thread_local std::vector<double> hbmRates;
        hbmRates.resize(n);
        shareBandwidth(state.hbmLimits, m_capBytesPerCycle, hbmRates);
        scaleBackFromHbm(state.rates.data(), hbmRates.data(), state.hbmLimits.data(), state.limitRates.data(),
                         state.missFractions.data(), n);
        for (std::size_t i = 0; i < n; ++i) total += state.rates[i];
      }
      // Then the L2's ports, which every GM transfer passes (hits, misses on
      // their way in, stores): the rates HBM left are the limits. A transfer
      // the L2 slows leaves HBM share unused rather than passing it on; the
      // two caps rarely bind at once (a miss-heavy phase is HBM-bound, a
      // hit-heavy one L2-bound).
      if (total > m_l2Cap) {
        thread_local std::vector<double> l2Limits;
        l2Limits.assign(state.rates.begin(), state.rates.end());
        shareBandwidth(l2Limits, m_l2Cap, state.rates);
      }
      state.sharedAt = state.now;
      state.firstTransferEnd =
          endTimesFrom(state.endTimes.data(), state.remainingBytes.data(), state.rates.data(), state.now, n);
      state.ratesStale = false;
      if (record && m_observer) {
        // After the L2's share, which `total` (taken before it) does not include.
        double drawn = 0.0;
        for (double rate : state.rates) drawn += rate;
        m_observer(state.now, drawn, static_cast<int>(state.rates.size()));
      }
    }
    double next = state.events.empty() ? kInfinity : state.events.front().time;
    next = std::min(next, state.firstTransferEnd);
    if (next > limit || next == kInfinity) {
      if (limit != kInfinity) state.now = std::max(state.now, limit);
      return;
    }
    state.now = std::max(state.now, next);

    touched.clear();
    while (!state.events.empty() && state.events.front().time <= state.now + kTimeEpsilon) {
      std::pop_heap(state.events.begin(), state.events.end(), laterEvent);
      Event event = state.events.back();
      state.events.pop_back();
      CoreRun& run = state.cores[static_cast<std::size_t>(event.core)];
      PipeRun& pipe = run.pipes[static_cast<std::size_t>(event.pipe)];
      const TimedStep& step =
          m_programs[static_cast<std::size_t>(run.program)]->steps[static_cast<std::size_t>(event.pipe)][pipe.position];
      touched.push_back(event.core);
      TaskSteps* recorded = recordOf(run, record);
      if (step.kind == StepKind::GmTransfer && step.bytes > 0) {
        // The latency is over: the data phase joins the shared bandwidth.
        pipe.phase = kMoving;
        pipe.dataSince = state.now;
        if (recorded) recorded->pipes[static_cast<std::size_t>(event.pipe)][pipe.position].dataCycle = state.now;
        // HBM bytes per byte moved: the whole lines that missed (a store
        // writes all of its bytes back).
        double fromHbm = 1.0;
        const std::vector<std::int64_t>& missed = run.missed;
        if (step.readsGm && static_cast<std::size_t>(step.gmRegion) < missed.size() &&
            missed[static_cast<std::size_t>(step.gmRegion)] >= 0)
          fromHbm = static_cast<double>(missed[static_cast<std::size_t>(step.gmRegion)]) / static_cast<double>(step.bytes);
        state.moving.push_back(event.core * static_cast<std::int32_t>(kPipeCount) + event.pipe);
        state.remainingBytes.push_back(static_cast<double>(step.bytes));
        const double hbmLimit = step.pathBytesPerCycle * fromHbm;
        state.hbmLimits.push_back(hbmLimit);
        state.hbmSums.push_back((state.hbmSums.empty() ? 0.0 : state.hbmSums.back()) + hbmLimit);
        state.limitRates.push_back(fromHbm > kMissEpsilon ? hbmLimit / fromHbm : step.pathBytesPerCycle);
        state.missFractions.push_back(fromHbm);
        state.rates.push_back(0.0);
        state.endTimes.push_back(kInfinity);
        state.ratesStale = true;
        continue;
      }
      if (record) recordInterval(event.core, event.pipe, pipe.busySince, state.now);
      if (recorded) {
        StepTiming& timing = recorded->pipes[static_cast<std::size_t>(event.pipe)][pipe.position];
        timing.endCycle = state.now;
        if (step.kind == StepKind::GmTransfer) timing.dataCycle = state.now;  // no bytes: start-up only
      }
      pipe.phase = kReady;
      ++pipe.position;
    }
    if (state.firstTransferEnd <= state.now + kTimeEpsilon) {
      std::size_t kept = 0;
      std::size_t firstRemoved = state.moving.size();
      for (std::size_t i = 0; i < state.moving.size(); ++i) {
        if (state.endTimes[i] > state.now + kTimeEpsilon) {
          state.moving[kept] = state.moving[i];
          state.remainingBytes[kept] = state.remainingBytes[i];
          state.hbmLimits[kept] = state.hbmLimits[i];
          state.limitRates[kept] = state.limitRates[i];
          state.missFractions[kept] = state.missFractions[i];
          state.rates[kept] = state.rates[i];
          state.endTimes[kept] = state.endTimes[i];
          ++kept;
          continue;
        }
        firstRemoved = std::min(firstRemoved, i);
        std::int32_t core = state.moving[i] / static_cast<std::int32_t>(kPipeCount);
        std::int32_t p = state.moving[i] % static_cast<std::int32_t>(kPipeCount);
        CoreRun& run = state.cores[static_cast<std::size_t>(core)];
        PipeRun& pipe = run.pipes[static_cast<std::size_t>(p)];
        if (record) recordInterval(core, p, pipe.busySince, state.now);
        if (TaskSteps* recorded = recordOf(run, record))
          recorded->pipes[static_cast<std::size_t>(p)][pipe.position].endCycle = state.now;
        pipe.transferEnd = state.now;
        pipe.transferDataCycles = state.now - pipe.dataSince;
        pipe.phase = kReady;
        ++pipe.position;
        touched.push_back(core);
      }
      // Shrinking only: an erase at the end, which (unlike resize) has no
      // growing path to call.
      auto truncate = [kept](auto& values) { values.erase(values.begin() + static_cast<std::ptrdiff_t>(kept), values.end()); };
      truncate(state.moving);
      truncate(state.remainingBytes);
      truncate(state.hbmLimits);
      redoHbmSums(state, firstRemoved);
      truncate(state.limitRates);
      truncate(state.missFractions);
      truncate(state.rates);
      truncate(state.endTimes);
      state.firstTransferEnd = kInfinity;
      state.ratesStale = true;
    }

    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    for (std::int32_t slot : touched) {
      CoreRun& run = state.cores[static_cast<std::size_t>(slot)];
      if (run.ended || !issue(state, slot, record)) continue;
      run.ended = true;
      run.endCycle = std::max(cycleAtOrAfter(state.now), static_cast<std::int64_t>(toldCycle));
      state.endedSlots.push_back(slot);
      --state.running;
      if (stopAtFirstEnd) limit = std::min(limit, static_cast<double>(run.endCycle));
    }
  }
}

} // namespace pto
