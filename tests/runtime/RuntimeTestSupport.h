// Graph builders, costs and schedule checks shared by the scheduler tests.
#pragma once

#include "runtime/FakeExecutor.h"
#include "runtime/Scheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto::testing {

// Adds a task of `type` with `predecessors` (ids already in the graph) and
// fills the successor lists; returns its id.
TaskId addTask(ExecuteGraph& graph, CoreType type, std::vector<TaskId> predecessors = {});
ExecuteGraph independentTasks(int count, CoreType type);
// A seeded random DAG: each task of a random core type depends on each earlier
// task with probability `edgeProbability`.
ExecuteGraph randomDag(std::uint32_t seed, int count, double edgeProbability);

// PyPTO's per-task AICPU costs (resources/machines/a2.json).
AicpuCosts a2Costs();
SchedulerConfig config(int aicCores, int aivCores, int aicpuCount, AicpuCosts costs = {}, int mode = 0);

std::string messages(const DiagnosticEngine& diags);

// Runs and fails the test on a diagnostic.
Schedule runOrFail(const ExecuteGraph& graph, const SchedulerConfig& config, Executor& executor);

// Structural checks every schedule must pass, written against the model's
// rules rather than the scheduler's code: dependencies, the order of a task's
// cycles and the costs between them, one task per core at a time.
void expectWellFormed(const ExecuteGraph& graph, const SchedulerConfig& config, const Schedule& schedule);

} // namespace pto::testing
