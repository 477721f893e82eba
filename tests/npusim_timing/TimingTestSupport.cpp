// Builders and a driver for the timing-model tests.
#include "TimingTestSupport.h"

#include "npusim/MachineFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace pto::testing {

MachineDescription bundledMachine(const std::string& name) {
  DiagnosticEngine diags;
  auto machine = loadMachine(std::filesystem::path(PTO_SOURCE_DIR) / "resources" / "machines" / (name + ".json"), diags);
  EXPECT_TRUE(machine) << name;
  return machine.value_or(MachineDescription{});
}

double aloneCycles(const MachineDescription& machine, DataPath path, double bytes) {
  constexpr double bytesPerGiB = 1024.0 * 1024.0 * 1024.0;
  const PathRate& rate = *machine.paths[static_cast<std::size_t>(path)];
  return (rate.saturationBytes + bytes) / (rate.peakGiBps * bytesPerGiB) * machine.clockGHz * 1e9;
}

std::string messages(const DiagnosticEngine& diags) {
  std::ostringstream out;
  diags.print(out);
  return out.str();
}

namespace {

PtoOperand operand(MemoryKind memory, std::int64_t offset, std::int64_t bytes, DataType dtype = DataType::Fp32) {
  PtoOperand result;
  result.memory = memory;
  result.offsetBytes = offset;
  result.bytes = bytes;
  result.dtype = dtype;
  result.shape = {bytes / static_cast<std::int64_t>(sizeOf(dtype))};
  return result;
}

PtoInstruction instruction(PtoOpcode opcode) {
  PtoInstruction result;
  result.opcode = opcode;
  result.pipe = pipeOf(opcode);
  return result;
}

} // namespace

ProgramBuilder::ProgramBuilder(int programId, CoreType coreType) {
  m_program.programId = programId;
  m_program.coreType = coreType;
  m_program.subgraph = 0;
}

ProgramBuilder& ProgramBuilder::load(MemoryKind to, std::int64_t bytes, int region, std::int64_t offset) {
  PtoInstruction load = instruction(PtoOpcode::TLOAD);
  PtoOperand gm = operand(MemoryKind::GM, 0, bytes);
  gm.gmRegion = region;
  gm.gmAlias = region;
  load.srcs = {gm};
  load.dst = {operand(to, offset, bytes)};
  load.bytes = bytes;
  load.elements = bytes / 4;
  m_program.instructions.push_back(load);
  return *this;
}

ProgramBuilder& ProgramBuilder::store(MemoryKind from, std::int64_t bytes, int region, std::int64_t offset) {
  PtoInstruction store = instruction(from == MemoryKind::L0C ? PtoOpcode::TSTORE_ACC : PtoOpcode::TSTORE);
  PtoOperand gm = operand(MemoryKind::GM, 0, bytes);
  gm.gmRegion = region;
  gm.gmAlias = 1000 + region;
  store.dst = {gm};
  store.srcs = {operand(from, offset, bytes)};
  store.bytes = bytes;
  store.elements = bytes / 4;
  m_program.instructions.push_back(store);
  return *this;
}

ProgramBuilder& ProgramBuilder::move(MemoryKind from, MemoryKind to, std::int64_t bytes) {
  PtoInstruction move = instruction(from == MemoryKind::L0C ? PtoOpcode::TMOV_ACC : PtoOpcode::TMOV);
  move.srcs = {operand(from, 0, bytes)};
  move.dst = {operand(to, 0, bytes)};
  move.bytes = bytes;
  move.elements = bytes / 4;
  m_program.instructions.push_back(move);
  return *this;
}

ProgramBuilder& ProgramBuilder::vector(PtoOpcode opcode, std::int64_t bytes, std::int64_t offset) {
  PtoInstruction vector = instruction(opcode);
  vector.srcs = {operand(MemoryKind::UB, offset, bytes)};
  vector.dst = {operand(MemoryKind::UB, offset, bytes)};
  vector.elements = bytes / 4;
  m_program.instructions.push_back(vector);
  return *this;
}

ProgramBuilder& ProgramBuilder::matmul(std::int64_t m, std::int64_t k, std::int64_t n, DataType dtype, bool accumulate) {
  PtoInstruction matmul = instruction(accumulate ? PtoOpcode::TMATMUL_ACC : PtoOpcode::TMATMUL);
  auto bytes = static_cast<std::int64_t>(sizeOf(dtype));
  PtoOperand a = operand(MemoryKind::L0A, 0, m * k * bytes, dtype);
  a.shape = {m, k};
  PtoOperand b = operand(MemoryKind::L0B, 0, k * n * bytes, dtype);
  b.shape = {k, n};
  PtoOperand c = operand(MemoryKind::L0C, 0, m * n * 4);
  c.shape = {m, n};
  matmul.srcs = {a, b};
  matmul.dst = {c};
  matmul.elements = m * k * n;
  if (accumulate) matmul.accumulate = TileAccumulate::Add;
  m_program.instructions.push_back(matmul);
  return *this;
}

ProgramBuilder& ProgramBuilder::setFlag(Pipe src, Pipe dst, int event) {
  PtoInstruction set = instruction(PtoOpcode::SET_FLAG);
  set.pipe = src;
  set.srcPipe = src;
  set.dstPipe = dst;
  set.eventId = event;
  m_program.instructions.push_back(set);
  return *this;
}

ProgramBuilder& ProgramBuilder::waitFlag(Pipe src, Pipe dst, int event) {
  PtoInstruction wait = instruction(PtoOpcode::WAIT_FLAG);
  wait.pipe = dst;
  wait.srcPipe = src;
  wait.dstPipe = dst;
  wait.eventId = event;
  m_program.instructions.push_back(wait);
  return *this;
}

ProgramBuilder& ProgramBuilder::barrier() {
  m_program.instructions.push_back(instruction(PtoOpcode::BARRIER));
  return *this;
}

PtoProgram ProgramBuilder::build() const {
  PtoProgram program = m_program;
  program.recountPipes();
  return program;
}

PtoProgram streamingKernel(int n, int buffers, std::int64_t chunk, int programId) {
  ProgramBuilder builder(programId, CoreType::AIV);
  for (int i = 0; i < n; ++i) {
    int e = i % buffers;
    std::int64_t offset = e * chunk;
    if (i >= buffers) builder.waitFlag(Pipe::MTE3, Pipe::MTE2, e);
    builder.load(MemoryKind::UB, chunk, i, offset).setFlag(Pipe::MTE2, Pipe::VECTOR, e);
    builder.waitFlag(Pipe::MTE2, Pipe::VECTOR, e).vector(PtoOpcode::TADD, chunk, offset).setFlag(Pipe::VECTOR, Pipe::MTE3, e);
    builder.waitFlag(Pipe::VECTOR, Pipe::MTE3, e).store(MemoryKind::UB, chunk, i, offset).setFlag(Pipe::MTE3, Pipe::MTE2, e);
  }
  return builder.build();
}

TaskId addTask(ExecuteGraph& graph, int programId, CoreType type, int reads, int writes,
               std::vector<TaskId> predecessors, std::int64_t bytesPerRegion) {
  Task task;
  task.id = static_cast<TaskId>(graph.tasks.size());
  task.subgraph = 0;
  task.programId = programId;
  task.coreType = type;
  std::int64_t elements = std::max<std::int64_t>(1, bytesPerRegion / 4);
  for (int i = 0; i < reads; ++i)
    task.reads.push_back({0, {static_cast<std::int64_t>(task.id) * 64 + i, 0}, {1, elements}});
  for (int i = 0; i < writes; ++i)
    task.writes.push_back({1, {static_cast<std::int64_t>(task.id) * 64 + i, 0}, {1, elements}});
  task.predecessors = std::move(predecessors);
  for (TaskId p : task.predecessors) {
    graph.tasks[static_cast<std::size_t>(p)].successors.push_back(task.id);
    ++graph.edgeCount;
  }
  graph.tasks.push_back(std::move(task));
  return graph.tasks.back().id;
}

SchedulerConfig freeScheduling(int aicCores, int aivCores) {
  SchedulerConfig config;
  config.aicCores = aicCores;
  config.aivCores = aivCores;
  config.aicpuCount = std::max(1, aicCores + aivCores);
  return config;
}

Schedule simulate(const ExecuteGraph& graph, const std::vector<PtoProgram>& programs, const MachineDescription& machine,
                  const SchedulerConfig& config, NpuExecutor::BandwidthObserver observer,
                  std::vector<GmTensorLayout> layouts) {
  DiagnosticEngine diags;
  std::optional<NpuExecutor> executor = NpuExecutor::create(machine, programs, std::move(layouts), diags);
  EXPECT_TRUE(executor && executor->checkGraph(graph, diags)) << messages(diags);
  if (!executor) return {};
  executor->setBandwidthObserver(std::move(observer));
  std::optional<Schedule> schedule = Scheduler(config).run(graph, *executor, diags);
  EXPECT_TRUE(schedule) << messages(diags);
  return schedule.value_or(Schedule{});
}

std::int64_t duration(const TaskRecord& record) { return record.endCycle - record.startCycle; }

std::int64_t busyCycles(const Schedule& schedule, const TaskRecord& record, const std::string& pipe) {
  std::int64_t busy = 0;
  for (const PipeInterval& interval : schedule.pipes(record))
    if (interval.pipe() == pipe) busy += interval.endCycle - interval.startCycle;
  return busy;
}

double pathBytesPerCycle(const MachineDescription& machine, DataPath path) {
  return machine.paths[static_cast<std::size_t>(path)]->peakGiBps * 1024.0 * 1024.0 * 1024.0 / (machine.clockGHz * 1e9);
}

} // namespace pto::testing
