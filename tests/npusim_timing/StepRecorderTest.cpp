// The step recorder (npusim/StepRecorder.h): a hand-worked task (a load, an
// add that waits for it by a flag, a store that waits for the add) recorded
// at the machine model's formulas; recording changes no time of the run; and
// a recorded task's busy steps, rounded as the swimlane rounds them, are
// exactly its pipe intervals while eight cores share the bandwidth.
#include "TimingTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace pto::testing {
namespace {

Schedule simulateRecording(const ExecuteGraph& graph, const std::vector<PtoProgram>& programs,
                           const MachineDescription& machine, const SchedulerConfig& config, StepRecorder* recorder) {
  DiagnosticEngine diags;
  std::optional<NpuExecutor> executor = NpuExecutor::create(machine, programs, {}, diags);
  EXPECT_TRUE(executor && executor->checkGraph(graph, diags)) << messages(diags);
  if (!executor) return {};
  executor->setStepRecorder(recorder);
  std::optional<Schedule> schedule = Scheduler(config).run(graph, *executor, diags);
  EXPECT_TRUE(schedule) << messages(diags);
  return schedule.value_or(Schedule{});
}

const StepTiming& stepOf(const TaskSteps& steps, Pipe pipe, int instruction) {
  for (const StepTiming& step : steps.pipes[static_cast<std::size_t>(pipe)])
    if (step.instruction == instruction) return step;
  throw std::out_of_range("no such step");
}

TEST(StepRecorder, AFlagHoldsTheAddUntilTheLoadEnds) {
  MachineDescription a2 = bundledMachine("a2");
  const std::int64_t bytes = 32 * 1024;
  // 0 TLOAD, 1 SET_FLAG, 2 WAIT_FLAG, 3 TADD, 4 SET_FLAG, 5 WAIT_FLAG, 6 TSTORE
  PtoProgram program = ProgramBuilder(0, CoreType::AIV)
                           .load(MemoryKind::UB, bytes, 0)
                           .setFlag(Pipe::MTE2, Pipe::VECTOR, 0)
                           .waitFlag(Pipe::MTE2, Pipe::VECTOR, 0)
                           .vector(PtoOpcode::TADD, bytes)
                           .setFlag(Pipe::VECTOR, Pipe::MTE3, 0)
                           .waitFlag(Pipe::VECTOR, Pipe::MTE3, 0)
                           .store(MemoryKind::UB, bytes, 0)
                           .build();
  ExecuteGraph graph;
  addTask(graph, 0, CoreType::AIV, 1, 1);
  StepRecorder recorder({0});
  Schedule schedule = simulateRecording(graph, {program}, a2, freeScheduling(0, 1), &recorder);
  const TaskSteps* steps = recorder.steps(0);
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->endCycle, schedule.tasks[0].endCycle);

  // The machine model's formulas, worked from the machine file's figures.
  const double start = static_cast<double>(schedule.tasks[0].startCycle);
  const double load = aloneCycles(a2, DataPath::GmToUb, bytes);
  const double loadLatency = aloneCycles(a2, DataPath::GmToUb, 0);
  const double add = static_cast<double>(a2.vector.startupCycles) +
                     std::ceil(a2.vector.costFactors[0] * bytes / a2.vector.bytesPerCycle);
  const double store = aloneCycles(a2, DataPath::UbToGm, bytes);
  constexpr double kTolerance = 1e-6;  // cycles: the simulator's time is fractional

  const StepTiming& loadStep = stepOf(*steps, Pipe::MTE2, 0);
  EXPECT_NEAR(loadStep.startCycle, start, kTolerance);
  EXPECT_NEAR(loadStep.dataCycle, start + loadLatency, kTolerance);
  EXPECT_NEAR(loadStep.endCycle, start + load, kTolerance);
  EXPECT_NEAR(loadStep.aloneDataCycles, load - loadLatency, kTolerance) << "alone on the chip: no sharing";
  // The vector pipe reached its wait at the task's start and left it when the load raised the flag.
  const StepTiming& wait = stepOf(*steps, Pipe::VECTOR, 2);
  EXPECT_EQ(wait.kind, StepKind::WaitFlag);
  EXPECT_NEAR(wait.startCycle, start, kTolerance);
  EXPECT_NEAR(wait.endCycle, start + load, kTolerance);
  const StepTiming& addStep = stepOf(*steps, Pipe::VECTOR, 3);
  EXPECT_NEAR(addStep.startCycle, start + load, kTolerance);
  EXPECT_NEAR(addStep.endCycle, start + load + add, kTolerance);
  const StepTiming& storeStep = stepOf(*steps, Pipe::MTE3, 6);
  EXPECT_NEAR(storeStep.startCycle, start + load + add, kTolerance);
  EXPECT_NEAR(storeStep.endCycle, start + load + add + store, kTolerance);
  EXPECT_EQ(schedule.tasks[0].endCycle, static_cast<std::int64_t>(std::ceil(start + load + add + store - 1e-6)));
  const StepTiming& raise = stepOf(*steps, Pipe::MTE2, 1);
  EXPECT_NEAR(raise.startCycle, start + load, kTolerance);
  EXPECT_NEAR(raise.endCycle, start + load, kTolerance);
}

// Eight cores stream at once (the HBM cap binds: the loads' data phases
// stretch beyond their paths' peak), so the recorded task's steps carry the
// sharing with the others.
TEST(StepRecorder, RecordingChangesNothingAndTheStepsTileThePipeIntervals) {
  MachineDescription a2 = bundledMachine("a2");
  const int cores = 8, n = 12;
  const std::int64_t chunk = 64 * 1024;
  std::vector<PtoProgram> programs = {streamingKernel(n, 2, chunk)};
  ExecuteGraph graph;
  for (int t = 0; t < 2 * cores; ++t) addTask(graph, 0, CoreType::AIV, n, n);
  Schedule plain = simulate(graph, programs, a2, freeScheduling(0, cores));
  StepRecorder recorder({3, 11});
  Schedule recorded = simulateRecording(graph, programs, a2, freeScheduling(0, cores), &recorder);
  ASSERT_EQ(plain.tasks.size(), recorded.tasks.size());
  for (std::size_t t = 0; t < plain.tasks.size(); ++t) {
    EXPECT_EQ(plain.tasks[t].startCycle, recorded.tasks[t].startCycle) << t;
    EXPECT_EQ(plain.tasks[t].endCycle, recorded.tasks[t].endCycle) << t;
  }
  ASSERT_EQ(recorder.recorded.size(), 2u);

  for (TaskId task : {3, 11}) {
    const TaskSteps& steps = *recorder.steps(task);
    const TaskRecord& record = plain.tasks[static_cast<std::size_t>(task)];
    EXPECT_EQ(steps.startCycle, static_cast<double>(record.startCycle));
    EXPECT_EQ(steps.endCycle, record.endCycle);
    // The busy steps rounded outwards and merged when they touch, as the
    // executor reports pipe intervals.
    std::map<std::string, std::vector<std::pair<std::int64_t, std::int64_t>>> fromSteps, fromRun;
    bool shared = false;
    for (std::size_t p = 0; p < kPipeCount; ++p)
      for (const StepTiming& step : steps.pipes[p]) {
        ASSERT_GE(step.startCycle, 0.0) << "every step ran";
        ASSERT_LE(step.startCycle, step.endCycle);
        if (step.kind != StepKind::Compute && step.kind != StepKind::GmTransfer) continue;
        if (step.kind == StepKind::GmTransfer && step.endCycle - step.dataCycle > step.aloneDataCycles + 1.0)
          shared = true;
        auto from = static_cast<std::int64_t>(std::floor(step.startCycle + 1e-6));
        auto to = std::min(record.endCycle, static_cast<std::int64_t>(std::ceil(step.endCycle - 1e-6)));
        auto& list = fromSteps[std::string(name(static_cast<Pipe>(p)))];
        if (!list.empty() && from <= list.back().second) list.back().second = std::max(list.back().second, to);
        else list.emplace_back(from, to);
      }
    for (const PipeInterval& interval : plain.pipes(record))
      fromRun[std::string(interval.pipe())].emplace_back(interval.startCycle, interval.endCycle);
    EXPECT_EQ(fromSteps, fromRun) << "task " << task;
    EXPECT_TRUE(shared) << "task " << task << ": some load shared the bandwidth";
  }
}

} // namespace
} // namespace pto::testing
