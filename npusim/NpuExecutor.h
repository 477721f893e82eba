// The NPU timing model as the runtime's Executor: every running task's PTO
// program on its core's pipes, all cores sharing one global-memory bandwidth
// and one L2 cache.
//
// The model, per core (see PtoProgram.h for the program semantics):
// - each pipe runs its steps (ProgramTiming.h) in issue order, one at a time;
//   pipes run concurrently; SET_FLAG/WAIT_FLAG are counting semaphores per
//   (source pipe, destination pipe, event); BARRIER holds every pipe until all
//   have reached it. Compute and on-chip transfers take fixed cycles.
// - a transfer to or from GM first waits its path's start-up latency, then
//   moves its bytes at a rate limited by its path's peak and by its share of
//   the chip-wide cap. Alone, it takes exactly transferCycles(path, bytes).
//   A DMA queue keeps several requests in flight, so a transfer issued on a
//   pipe the moment the previous GM transfer of that pipe finished had its
//   start-up overlapped with that transfer's data phase: it waits only
//   max(0, latency - previous data time). After any gap the whole latency
//   shows (the queue ran dry).
// Chip-wide:
// - one HBM bandwidth cap, sustainedGmBytesPerCycle(), shared max-min fairly
//   (BandwidthSharing.h) by every transfer in its data phase on every core;
//   the rates are recomputed whenever a transfer starts or ends. A load's
//   bytes that hit in L2 are served by the cache, not by HBM: a load draws
//   from the cap the whole lines that missed per byte it moves (so a load of
//   256-byte rows fetches 512-byte lines; a store draws all of its bytes:
//   the lines are written back), so a cache-resident panel read by every
//   core is limited by each core's path, not by HBM.
// - the L2's own bandwidth (the machine's l2_cache.bandwidth_tb_per_s, when
//   given) caps the sum of every GM transfer's rate after the HBM share: all
//   of them pass through the cache. The cache holds l2.effectiveBytes()
//   (the capacity times the share that keeps one kernel's data).
// - the L2 cache (L2CacheModel.h) decides, when a region's first load is
//   issued, which fraction of the region is present (then its lines are in);
//   a TLOAD's start-up latency shrinks by
//   missPenaltyCycles times that fraction (a machine file's start-up latency
//   for GM paths is an L2 miss: hit + miss penalty). A task's written regions
//   enter the cache when it finishes.
//
// Time is fractional inside (fair sharing ends transfers between cycles); the
// scheduler sees whole cycles: a task ending at cycle 100.2 is reported at 101.
// Pipe intervals are each pipe's busy stretches, rounded outwards to whole
// cycles and merged when they touch; they lie inside [start, end] of the task.
//
// Cost: the state the scheduler has committed to is kept at the latest cycle
// it named. completionBy(horizon) (the scheduler's question) simulates that
// state forward, recording, to the first task end or the horizon; the
// const nextCompletion() has to simulate a copy forward to the first task
// end instead (and caches the answer until the next start or finish). Deterministic: the
// same calls give the same answers (ties by core, then pipe, then task id).
#pragma once

#include "core/Diagnostics.h"
#include "npusim/L2CacheModel.h"
#include "npusim/MachineDescription.h"
#include "npusim/ProgramTiming.h"
#include "npusim/StepRecorder.h"
#include "runtime/Executor.h"

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

namespace pto {

class NpuExecutor : public Executor {
public:
  // Prepares `programs` (indexed by programId) for `machine`; nullopt with
  // diagnostics when one cannot run there (timeProgram's errors). `layouts`
  // (by tensor id) place the tensors in GM for the L2 model; tensors without
  // one always miss.
  static std::optional<NpuExecutor> create(const MachineDescription& machine, const std::vector<PtoProgram>& programs,
                                           std::vector<GmTensorLayout> layouts, DiagnosticEngine& diags);

  // Whether every task of `graph` can run: its program exists and is for its
  // core type, and it has the GM regions the program's transfers name.
  // A task that fails this check and is started anyway takes no time.
  bool checkGraph(const ExecuteGraph& graph, DiagnosticEngine& diags) const;

  void reset(const ExecuteGraph& graph) override;
  void start(const Task& task, CoreId core, std::int64_t startCycle) override;
  std::optional<Completion> nextCompletion() const override;
  // Commits the simulation up to the first task end or `horizon`, whichever
  // comes first: no copy, and the stretch is simulated once.
  std::optional<Completion> completionBy(std::int64_t horizon) override;
  void finish(TaskId task, std::int64_t endCycle, std::vector<PipeInterval>& intervals) override;
  // At most one interval per busy step of a task's program (capped at 1 GiB).
  std::size_t pipeIntervalEstimate() const override;
  // A copy mid-run (the chip state, the L2 and the open intervals); null
  // while a step recorder or a bandwidth observer is set, hooks of this run
  // that a copy would feed too.
  std::unique_ptr<Executor> clone() const override;

  // Called in the committed simulation (never while looking ahead) each time
  // the GM bandwidth is shared anew: the cycle (fractional), the sum of the
  // transfers' rates in bytes per cycle, and how many transfers share it.
  using BandwidthObserver = std::function<void(double cycle, double bytesPerCycle, int transfers)>;
  void setBandwidthObserver(BandwidthObserver observer) { m_observer = std::move(observer); }

  // Whether finish() reports each pipe's busy intervals (the swimlane's pipe
  // rows). A caller that wants only the task times (the tuner) turns them off.
  void setRecordPipeIntervals(bool record) { m_recordPipeIntervals = record; }

  // Records when each step of the tasks `recorder` asks for ran
  // (StepRecorder.h); null (the default) records none. The recorder
  // outlives the runs it records; reset() keeps it and its earlier records.
  void setStepRecorder(StepRecorder* recorder) { m_stepRecorder = recorder; }

  // Since the last reset: non-sync instructions of finished tasks, and the L2.
  std::int64_t instructionsSimulated() const { return m_instructions; }
  const L2CacheModel& l2() const { return m_state.l2; }
  double gmCapBytesPerCycle() const { return m_capBytesPerCycle; }
  double l2CapBytesPerCycle() const { return m_l2Cap; }

  // The simulation state; public only so that the .cpp's helpers can name it.
  struct PipeRun {
    std::uint32_t position = 0;  // next step (or the one in progress)
    std::uint8_t phase = 0;      // Ready, Busy (compute or a transfer's latency), Moving (in the transfer list)
    bool atBarrier = false;
    double busySince = 0.0;
    double dataSince = 0.0;  // a GM transfer in its data phase: when that phase began
    // The last GM transfer's data phase on this pipe: when it ended and how
    // long it took, for hiding the next transfer's start-up behind it.
    double transferEnd = -1.0;
    double transferDataCycles = 0.0;
  };
  struct CoreRun {
    TaskId task = kNoId;  // kNoId: idle
    int program = -1;     // index into m_programs; -1: nothing to run
    bool ended = false;   // every pipe is done; waiting for finish()
    std::int64_t endCycle = 0;
    int barrierArrivals = 0;
    int recording = -1;  // index into the step recorder's records; -1: not recorded
    std::array<PipeRun, kPipeCount> pipes{};
    // Per read region of its task: its L2 hit fraction and missed bytes, set
    // when the first load of the region is issued (-1: not yet).
    const std::vector<ConcreteRegion>* reads = nullptr;  // the task's, in the graph
    std::vector<double> hits;
    std::vector<std::int64_t> missed;
  };
  struct Event {
    double time = 0.0;
    std::int32_t core = 0;
    std::int32_t pipe = 0;
  };
  struct ChipState {
    double now = 0.0;
    std::vector<CoreRun> cores;         // by core slot
    std::vector<std::int32_t> flags;    // core slot * m_maxFlagSlots + flag slot
    std::vector<Event> events;          // a min-heap of compute and latency ends
    std::vector<std::int32_t> moving;   // transfers in their data phase: core slot * kPipeCount + pipe
    // Between two sharings the rates are constant, so each transfer's end is
    // known: remainingBytes holds what was left at `sharedAt`.
    std::vector<double> remainingBytes;
    std::vector<double> hbmLimits;      // HBM bytes per cycle it draws at its path's peak
    // hbmSums[i]: hbmLimits[0] + ... + hbmLimits[i], added in index order
    // (what a loop over them gives, bit for bit), so that a sharing reads
    // the total instead of adding every transfer again; kept when transfers
    // are appended, redone from the first one removed.
    std::vector<double> hbmSums;
    std::vector<double> limitRates;     // bytes per cycle when it gets all of hbmLimits: the path's peak
    std::vector<double> missFractions;  // HBM bytes per byte of each transfer (> 1: partial lines)
    std::vector<double> rates;          // the current share
    std::vector<double> endTimes;       // sharedAt + remainingBytes / rate
    double sharedAt = 0.0;
    double firstTransferEnd = std::numeric_limits<double>::infinity();
    bool ratesStale = false;
    // Which tasks ended, and how many still run: the scheduler asks after
    // every event, and scanning every core for them was a tenth of the time.
    std::vector<std::int32_t> endedSlots;  // slots whose task ended, waiting for finish()
    int running = 0;                       // tasks started and not yet ended
    // The L2 is part of the state: a read asks it when its first load is
    // issued, so nextCompletion()'s look-ahead, which issues loads too,
    // works on its own copy and leaves the committed one as it was.
    L2CacheModel l2;
  };

private:
  NpuExecutor() = default;

  // Advances `state` to `limit`. With `stopAtFirstEnd`, the limit shrinks to
  // the (rounded-up) cycle of the first task that ends. `record` marks the
  // committed state: pipe intervals and bandwidth samples are recorded.
  void advance(ChipState& state, double limit, bool stopAtFirstEnd, bool record) const;
  // Starts what can start on `slot`'s pipes at state.now; true when the task
  // ended. `record`: the committed state (steps are recorded).
  bool issue(ChipState& state, int slot, bool record) const;
  // The recorded steps of `run`'s task, when it is recorded and `record`; else null.
  TaskSteps* recordOf(const CoreRun& run, bool record) const {
    return record && run.recording >= 0 ? &m_stepRecorder->recorded[static_cast<std::size_t>(run.recording)] : nullptr;
  }
  void recordInterval(int slot, int pipe, double from, double to) const;
  int slotOf(CoreId core);

  MachineDescription m_machine;
  std::vector<std::optional<TimedProgram>> m_programs;  // by programId; nullopt: no such program
  double m_capBytesPerCycle = 0.0;
  double m_l2Cap = std::numeric_limits<double>::infinity();  // bytes per cycle
  int m_maxFlagSlots = 0;

  const ExecuteGraph* m_graph = nullptr;
  ChipState m_state;
  std::vector<CoreId> m_coreOfSlot;
  // By core slot and pipe: the recorded busy intervals of the running task.
  mutable std::vector<std::array<std::vector<std::pair<std::int64_t, std::int64_t>>, kPipeCount>> m_intervals;
  std::int64_t m_instructions = 0;
  BandwidthObserver m_observer;
  bool m_recordPipeIntervals = true;
  StepRecorder* m_stepRecorder = nullptr;
  mutable std::optional<std::optional<Completion>> m_cachedCompletion;
};

} // namespace pto
