// Builders for synthetic PTO programs and Execute graphs, and a driver that
// schedules them on the NPU timing model, for the timing model's tests.
#pragma once

#include "npusim/MachineDescription.h"
#include "npusim/NpuExecutor.h"
#include "runtime/Schedule.h"
#include "runtime/Scheduler.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pto::testing {

MachineDescription bundledMachine(const std::string& name);
std::string messages(const DiagnosticEngine& diags);
// One transfer alone on `path`: (K + bytes) / peak, in cycles, worked out from
// the machine file's figures rather than by the simulator's code.
double aloneCycles(const MachineDescription& machine, DataPath path, double bytes);

// Appends instructions to one program in issue order. GM operands name the
// task's regions by index (reads for loads, writes for stores).
class ProgramBuilder {
public:
  ProgramBuilder(int programId, CoreType coreType);

  // GM -> `to` (UB, L1 or L0C) of `bytes`, from the task's read region `region`.
  ProgramBuilder& load(MemoryKind to, std::int64_t bytes, int region, std::int64_t offset = 0);
  // `from` (UB or L0C) -> GM of `bytes`, into the task's written region `region`.
  ProgramBuilder& store(MemoryKind from, std::int64_t bytes, int region, std::int64_t offset = 0);
  // An on-chip move (L1 -> L0A, ...).
  ProgramBuilder& move(MemoryKind from, MemoryKind to, std::int64_t bytes);
  ProgramBuilder& vector(PtoOpcode opcode, std::int64_t bytes, std::int64_t offset = 0);
  ProgramBuilder& matmul(std::int64_t m, std::int64_t k, std::int64_t n, DataType dtype, bool accumulate = false);
  ProgramBuilder& setFlag(Pipe src, Pipe dst, int event);
  ProgramBuilder& waitFlag(Pipe src, Pipe dst, int event);
  ProgramBuilder& barrier();

  PtoProgram build() const;

private:
  PtoProgram m_program;
};

// A k-loop of n iterations of GM -> UB load, TADD, UB -> GM store of `chunk`
// bytes through `buffers` UB buffers: iteration i reuses buffer i % buffers
// once the store of iteration i - buffers has drained it (flag per buffer).
// Iteration i loads read region i and stores written region i.
PtoProgram streamingKernel(int n, int buffers, std::int64_t chunk, int programId = 0);

// Adds a task of program `programId` with `reads`/`writes` regions of tensor
// `tensor` (each a [1, bytes/4] fp32 row at its own offset) and returns its id.
TaskId addTask(ExecuteGraph& graph, int programId, CoreType type, int reads, int writes,
               std::vector<TaskId> predecessors = {}, std::int64_t bytesPerRegion = 4);

// A scheduler with the machine's cores but AICPU costs of zero and one
// thread per core, so that only the executor's timing shows.
SchedulerConfig freeScheduling(int aicCores, int aivCores);

// Schedules `graph` on a fresh NpuExecutor; fails the test on a diagnostic.
Schedule simulate(const ExecuteGraph& graph, const std::vector<PtoProgram>& programs, const MachineDescription& machine,
                  const SchedulerConfig& config, NpuExecutor::BandwidthObserver observer = {},
                  std::vector<GmTensorLayout> layouts = {});

std::int64_t duration(const TaskRecord& record);
// Cycles in which `pipe` was busy during `record`.
std::int64_t busyCycles(const Schedule& schedule, const TaskRecord& record, const std::string& pipe);

// Bytes per cycle of one core's copy engine on `path`.
double pathBytesPerCycle(const MachineDescription& machine, DataPath path);

} // namespace pto::testing
