// An Executor with fixed durations (per task, or per core type) for the
// scheduler's tests: no shared resources, so a task ends exactly
// `duration` cycles after it starts.
#pragma once

#include "runtime/Executor.h"

#include <cstdint>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace pto {

class FakeExecutor : public Executor {
public:
  // Every AIC task takes `aicCycles`, every AIV task `aivCycles`.
  FakeExecutor(std::int64_t aicCycles, std::int64_t aivCycles);
  // Task i takes cyclesPerTask[i].
  explicit FakeExecutor(std::vector<std::int64_t> cyclesPerTask);

  void reset(const ExecuteGraph& graph) override;
  void start(const Task& task, CoreId core, std::int64_t startCycle) override;
  std::optional<Completion> nextCompletion() const override;
  void finish(TaskId task, std::int64_t endCycle, std::vector<PipeInterval>& intervals) override;
  std::unique_ptr<Executor> clone() const override { return std::make_unique<FakeExecutor>(*this); }

  std::int64_t durationCycles(const Task& task) const;
  // The largest number of tasks that ran at once on cores of `type`.
  int peakRunning(CoreType type) const { return m_peak[static_cast<std::size_t>(type)]; }

private:
  std::int64_t m_aicCycles = 0;
  std::int64_t m_aivCycles = 0;
  std::vector<std::int64_t> m_cyclesPerTask;  // empty: per core type
  // Running tasks by (end cycle, task id): the first one ends first.
  std::map<std::pair<std::int64_t, TaskId>, CoreId> m_running;
  std::map<TaskId, std::int64_t> m_startOf;
  std::array<int, 2> m_runningCount{};
  std::array<int, 2> m_peak{};
};

} // namespace pto
