// The interface through which the MPMD scheduler runs tasks on cores: the
// scheduler decides *when and where* a task starts; an executor decides *when
// it ends*. The NPU simulator implements it; FakeExecutor serves the tests.
//
// The protocol is event-driven so that an executor can model resources that
// running tasks share (chip-wide memory bandwidth): a task's end may move when
// another task starts or ends. The scheduler never asks for a duration up
// front; it keeps one simulated clock and, at every step, compares its own
// next event (a dispatch landing, a completion handled, ...) with
// `nextCompletion()`:
//
//   loop:
//     now = min(scheduler's next event, executor.completionBy(that event).endCycle)
//     while executor.completionBy(now) ends at `now`: finish(that task)
//     scheduler events at `now`; some call start(task, core, now)
//
// Contract (the scheduler checks the parts it can and reports a violation as
// an internal error, never a hang):
// - Calls come in nondecreasing cycle order: `start`'s startCycle and
//   `finish`'s endCycle never go back in time.
// - `nextCompletion()` answers "if nothing else starts, which running task
//   ends first, and when", with endCycle >= the latest cycle the executor was
//   told about. Ties are broken by the smaller task id, so runs are
//   reproducible. It is re-asked after every start and finish, so the answer
//   may change as the set of running tasks changes.
// - `finish(task, endCycle)` retires exactly the task `nextCompletion()` just
//   named; afterwards that task is no longer running.
// - One task per core at a time; a core is never started twice without a
//   finish in between.
#pragma once

#include "compiler/ir/BlockGraph.h"
#include "compiler/ir/ExecuteGraph.h"

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// One core of the chip: cores are numbered 0..n-1 within each core type.
struct CoreId {
  CoreType type = CoreType::AIV;
  int index = 0;

  friend auto operator<=>(const CoreId&, const CoreId&) = default;
};

// A pipe's name (e.g. "MTE2", "CUBE") as one byte: its index in a
// process-wide table of the names seen so far. Executors name their pipes
// from fixed tables, so the table stays tiny; they make their names once
// (making one takes a lock and a scan of the table), not per interval.
class PipeName {
public:
  PipeName() = default;  // the empty name: no pipe
  PipeName(std::string_view text);  // NOLINT(google-explicit-constructor): a name is its text
  PipeName(const char* text) : PipeName(std::string_view(text)) {}  // NOLINT(google-explicit-constructor)
  std::string_view text() const;
  std::uint8_t index() const { return m_index; }
  static PipeName atIndex(std::uint8_t index) { return PipeName(index, 0); }
  // No more names than this: a byte's values.
  static constexpr std::size_t kMostNames = 256;

private:
  PipeName(std::uint8_t index, int /*tag*/) : m_index(index) {}
  std::uint8_t m_index = 0;
};

// A stretch of time one pipe of a core spent on a task; cycles are absolute
// (the same clock as the schedule), end exclusive. 16 bytes: a schedule of a
// million tasks holds about four million of them in one array, written once
// (at 32 bytes, the first touch of their pages was about two fifths of the
// kernel time of such a run), so the pipe's name is a byte of the end's word: 56 bits of end cycle
// reach 2^55 cycles, two hundred days at 2 GHz (an end past that is held there).
struct PipeInterval {
  PipeInterval() = default;
  PipeInterval(PipeName pipe, std::int64_t start, std::int64_t end)
      : startCycle(start), endCycle(std::min(end, kLatestEnd)), m_pipe(pipe.index()) {}

  std::string_view pipe() const { return PipeName::atIndex(static_cast<std::uint8_t>(m_pipe)).text(); }

  static constexpr std::int64_t kLatestEnd = (std::int64_t{1} << 55) - 1;
  std::int64_t startCycle = 0;
  std::int64_t endCycle : 56 = 0;

private:
  std::uint64_t m_pipe : 8 = 0;
};
static_assert(sizeof(PipeInterval) == 16);

// The earliest end among the running tasks.
struct Completion {
  TaskId task = kNoId;
  std::int64_t endCycle = 0;
};

class Executor {
public:
  virtual ~Executor() = default;

  // A run over `graph` begins; drop all state of an earlier run. `graph`
  // outlives the run.
  virtual void reset(const ExecuteGraph& graph) = 0;
  // `task` starts on `core` (idle until now) at `startCycle`.
  virtual void start(const Task& task, CoreId core, std::int64_t startCycle) = 0;
  // The running task that ends first if nothing else starts; nullopt when
  // nothing is running.
  virtual std::optional<Completion> nextCompletion() const = 0;
  // The running task that ends first, if it ends at or before `horizon`;
  // nullopt when none does. The caller promises that nothing starts before
  // `horizon` (it is the scheduler's own next event), so an executor may
  // commit its state up to the answer (or to `horizon`) instead of looking
  // ahead on a copy and simulating the same stretch again when it is told
  // to finish: NpuExecutor does, which halves a timing run. The default
  // asks nextCompletion().
  virtual std::optional<Completion> completionBy(std::int64_t horizon) {
    std::optional<Completion> next = nextCompletion();
    if (next && next->endCycle > horizon) return std::nullopt;
    return next;
  }
  // Retires the task `nextCompletion()` (or completionBy) named, at `endCycle`. Appends what
  // each of the core's pipes did for it to `intervals` (maybe nothing: an
  // executor without a pipe model); the schedule keeps every task's
  // intervals in that one array.
  virtual void finish(TaskId task, std::int64_t endCycle, std::vector<PipeInterval>& intervals) = 0;
  // About how many intervals finish() will append over the run reset()
  // began, or a bound (0: unknown): reserved capacity never written costs
  // address space, not memory. The scheduler reserves the array
  // once: grown step by step through a million tasks it was copied and its
  // fresh pages faulted in about twice over.
  virtual std::size_t pipeIntervalEstimate() const { return 0; }
  // A copy of this executor mid-run, state and all, that a run resumed
  // from the same point continues (ScheduleFork); null when it cannot be
  // copied (the default).
  virtual std::unique_ptr<Executor> clone() const { return nullptr; }
};

} // namespace pto
