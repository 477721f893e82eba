// FakeExecutor: fixed task durations for the scheduler's tests.
#include "runtime/FakeExecutor.h"

#include <algorithm>
#include <stdexcept>

namespace pto {

FakeExecutor::FakeExecutor(std::int64_t aicCycles, std::int64_t aivCycles)
    : m_aicCycles(aicCycles), m_aivCycles(aivCycles) {}

FakeExecutor::FakeExecutor(std::vector<std::int64_t> cyclesPerTask) : m_cyclesPerTask(std::move(cyclesPerTask)) {}

void FakeExecutor::reset(const ExecuteGraph&) {
  m_running.clear();
  m_startOf.clear();
  m_runningCount = {};
  m_peak = {};
}

std::int64_t FakeExecutor::durationCycles(const Task& task) const {
  if (!m_cyclesPerTask.empty()) return m_cyclesPerTask.at(static_cast<std::size_t>(task.id));
  return task.coreType == CoreType::AIC ? m_aicCycles : m_aivCycles;
}

void FakeExecutor::start(const Task& task, CoreId core, std::int64_t startCycle) {
  m_running.emplace(std::pair{startCycle + durationCycles(task), task.id}, core);
  m_startOf[task.id] = startCycle;
  auto type = static_cast<std::size_t>(core.type);
  m_peak[type] = std::max(m_peak[type], ++m_runningCount[type]);
}

std::optional<Completion> FakeExecutor::nextCompletion() const {
  if (m_running.empty()) return std::nullopt;
  const auto& [key, core] = *m_running.begin();
  return Completion{key.second, key.first};
}

void FakeExecutor::finish(TaskId task, std::int64_t endCycle, std::vector<PipeInterval>& intervals) {
  auto it = m_running.find({endCycle, task});
  if (it == m_running.end()) throw std::logic_error("FakeExecutor::finish: task is not running");
  --m_runningCount[static_cast<std::size_t>(it->second.type)];
  m_running.erase(it);
  static const PipeName fake("FAKE");
  intervals.push_back(PipeInterval{fake, m_startOf.at(task), endCycle});
}

} // namespace pto
