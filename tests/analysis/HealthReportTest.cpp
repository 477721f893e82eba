// The health report on a run written by hand: five tasks of three subgraphs on a machine of 2 cube and 2
// vector cores whose one scheduler thread spends 20 cycles per task (a round over 2 cores: 40 cycles). Every
// expected figure is worked out in the comments from the task records alone.
#include "analysis/report/HealthReport.h"

#include "HandTaskRecord.h"

#include <gtest/gtest.h>

namespace pto::testing {
namespace {

constexpr std::size_t kUb = static_cast<std::size_t>(MemoryKind::UB);

// Completion 5 cycles after the end, then resolve 5.
TaskRecord record(Schedule& schedule, TaskId task, CoreType type, int core, std::int64_t ready, std::int64_t dispatch,
                  std::int64_t start, std::int64_t end, const std::vector<PipeInterval>& pipes) {
  return handTaskRecord(schedule, task, CoreId{type, core}, {ready, dispatch, start, end, end + 5, end + 10}, pipes);
}

class HealthReportTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_machine.name = "hand";
    m_machine.aicCores = 2;
    m_machine.aivCores = 2;
    m_machine.clockGHz = 1.0;
    m_machine.scheduler.dispatchCycles = 10;
    m_machine.scheduler.completionCycles = 5;
    m_machine.scheduler.resolveCycles = 5;

    // Tile graph: a diamond. #0 makes t0; #1 and #2 read it; #3 reads both results.
    TensorGraph& graph = m_compilation.tiles.graph;
    auto temporary = [&](DataType dtype, std::vector<std::int64_t> shape) {
      TensorValue value;
      value.dtype = dtype;
      value.role = TensorRole::Temporary;
      const TensorId id = graph.addTensor(value);
      m_compilation.tiles.setShape(id, std::move(shape));
      return id;
    };
    const TensorId t0 = temporary(DataType::Fp32, {4, 8});  // 128 bytes
    const TensorId t1 = temporary(DataType::Fp16, {16});    // 32 bytes
    const TensorId t2 = temporary(DataType::Fp16, {16});
    const TensorId t3 = temporary(DataType::Fp16, {16});
    auto whole = [&](TensorId id) {
      SymbolicShape offsets;
      for (std::size_t d = 0; d < m_compilation.tiles.shapeOf(id).size(); ++d) offsets.push_back(SymbolicScalar(0));
      return TileRegion{id, offsets, m_compilation.tiles.shapeOf(id), {}};
    };
    auto addTile = [&](std::vector<TileRegion> inputs, std::vector<TileRegion> outputs) {
      TileOp op;
      op.kind = TensorOpKind::Exp;
      op.inputs = std::move(inputs);
      op.outputs = std::move(outputs);
      m_compilation.tiles.addTileOp(std::move(op));
    };
    addTile({}, {whole(t0)});
    addTile({whole(t0)}, {whole(t1)});
    addTile({whole(t0)}, {whole(t2)});
    addTile({whole(t1), whole(t2)}, {whole(t3)});

    // Subgraphs: sg0 on the cube (program 0); sg1 and sg2 alike on the vector cores (program 1).
    for (int s = 0; s < 3; ++s) {
      Subgraph subgraph;
      subgraph.id = s;
      subgraph.coreType = s == 0 ? CoreType::AIC : CoreType::AIV;
      subgraph.programId = s == 0 ? 0 : 1;
      subgraph.label = s == 0 ? "mm" : "v";
      m_compilation.blocks.subgraphs.push_back(subgraph);
    }
    m_compilation.blocks.subgraphs[1].peakBytes[kUb] = 4096;
    m_compilation.settings.target.capacityBytes[kUb] = 16384;

    // Tasks: T0-T2 of sg0; T3 (sg1) after T0, reading t0 and writing t1; T4 (sg2) after T3, reading t1.
    auto region = [&](TensorId id) {
      return ConcreteRegion{id, std::vector<std::int64_t>(m_compilation.tiles.shapeOf(id).size(), 0),
                            m_compilation.tiles.shapeOf(id)};
    };
    ExecuteGraph& tasks = m_compilation.tasks;
    for (TaskId t = 0; t < 5; ++t) {
      Task task;
      task.id = t;
      task.subgraph = t < 3 ? 0 : t - 2;
      tasks.tasks.push_back(task);
    }
    tasks.tasks[0].writes = {region(t0)};
    tasks.tasks[3].reads = {region(t0)};
    tasks.tasks[3].writes = {region(t1)};
    tasks.tasks[4].reads = {region(t1)};
    tasks.tasks[3].predecessors = {0};
    tasks.tasks[4].predecessors = {3};
    tasks.edgeCount = 2;

    m_schedule.tasks = {
        record(m_schedule, 0, CoreType::AIC, 0, 0, 0, 10, 110, {{"CUBE", 10, 90}, {"MTE2", 10, 40}}),
        record(m_schedule, 1, CoreType::AIC, 1, 0, 10, 20, 120, {{"MTE2", 20, 110}, {"CUBE", 50, 80}}),
        record(m_schedule, 2, CoreType::AIC, 0, 0, 120, 130, 250, {{"FIXPIPE", 130, 240}}),
        record(m_schedule, 3, CoreType::AIV, 0, 120, 130, 140, 170, {{"VECTOR", 140, 160}}),
        record(m_schedule, 4, CoreType::AIV, 1, 180, 180, 190, 300, {{"VECTOR", 190, 290}, {"MTE3", 290, 300}}),
    };
    m_schedule.makespanCycles = 300;
    m_schedule.aicpuBusyCycles = {0};  // one scheduler thread
    m_schedule.readySamples[0] = {{0, 2}, {10, 1}, {120, 0}};  // AIC: T1 and T2 wait, then T2 alone
    m_schedule.readySamples[1] = {{0, 0}, {120, 1}, {130, 0}};  // AIV: T3 waits 10 cycles; T4 is taken at once
  }

  HealthReport report() const { return healthReport(m_compilation, m_schedule, m_machine); }

  MachineDescription m_machine;
  Compilation m_compilation;
  Schedule m_schedule;
};

TEST_F(HealthReportTest, TheTileGraphsShapeIsThatOfItsDiamond) {
  const TileGraphHealth tiles = report().tileGraph;
  EXPECT_EQ(tiles.tileOps, 4);
  EXPECT_EQ(tiles.edges, 4);  // 0->1, 0->2, 1->3, 2->3
  EXPECT_EQ(tiles.depth, 3);
  EXPECT_EQ(tiles.width, 2);  // #1 and #2
  EXPECT_EQ(tiles.maxFanIn, 2);
  EXPECT_EQ(tiles.maxFanInOp, 3);
  EXPECT_EQ(tiles.maxFanOut, 2);
  EXPECT_EQ(tiles.maxFanOutOp, 0);
  EXPECT_DOUBLE_EQ(tiles.meanFanIn, 4.0 / 3.0);  // 4 edges into 3 ops
  EXPECT_DOUBLE_EQ(tiles.meanFanOut, 4.0 / 3.0);
}

TEST_F(HealthReportTest, TasksAreBoundByTheirBusiestPipeUnlessShorterThanASchedulerRound) {
  const HealthReport health = report();
  ASSERT_EQ(health.taskBounds.size(), 5u);
  EXPECT_EQ(health.taskBounds[0].kind, "CUBE");     // CUBE 80 of 100, MTE2 30
  EXPECT_EQ(health.taskBounds[1].kind, "MTE2");     // MTE2 90 of 100, CUBE 30
  EXPECT_EQ(health.taskBounds[2].kind, "FIXPIPE");  // 110 of 120
  EXPECT_EQ(health.taskBounds[3].kind, "scheduling");  // 30 cycles < 2 cores x 20 / 1 thread = 40
  EXPECT_EQ(health.taskBounds[4].kind, "VECTOR");   // 100 of 110
  EXPECT_NE(health.taskBounds[0].evidence.find("CUBE busy 80 of 100 cycles (80 %)"), std::string::npos)
      << health.taskBounds[0].evidence;
  EXPECT_NE(health.taskBounds[3].evidence.find("= 40"), std::string::npos) << health.taskBounds[3].evidence;
}

TEST_F(HealthReportTest, CoreTypesSplitIdleTimeByTheReadyQueue) {
  const HealthReport health = report();
  ASSERT_EQ(health.coreTypes.size(), 2u);
  const CoreTypeHealth& aic = health.coreTypes[0];
  EXPECT_EQ(aic.tasks, 3);
  EXPECT_DOUBLE_EQ(aic.utilization, 320.0 / 600.0);  // 100 + 100 + 120 busy of 2 cores x 300
  // Cores count as taken from dispatch: idle with tasks ready [0, 10) and [110, 120), one core each: 20;
  // idle with none ready: one core over [120, 250), two over [250, 300): 230.
  EXPECT_DOUBLE_EQ(aic.idleWhileReady, 20.0 / 600.0);
  EXPECT_DOUBLE_EQ(aic.idleWhileNoneReady, 230.0 / 600.0);
  EXPECT_DOUBLE_EQ(aic.meanDispatchLatency, (10.0 + 20.0 + 130.0) / 3.0);
  EXPECT_EQ(aic.maxDispatchLatency, 130);
  EXPECT_EQ(aic.schedulerRoundCycles, 40);
  const CoreTypeHealth& aiv = health.coreTypes[1];
  EXPECT_DOUBLE_EQ(aiv.utilization, 140.0 / 600.0);
  // T3 waits over [120, 130) with both cores idle: 10 core-cycles could have run it, 10 could not; the rest
  // of 2 x 300 - (40 + 120) taken is idle with none ready.
  EXPECT_DOUBLE_EQ(aiv.idleWhileReady, 10.0 / 600.0);
  EXPECT_DOUBLE_EQ(aiv.idleWhileNoneReady, 430.0 / 600.0);
  EXPECT_DOUBLE_EQ(aiv.meanDispatchLatency, 15.0);
}

TEST_F(HealthReportTest, SubgraphsSumTheirTasksPipesAndTakeTheClassOfMostOfTheirTime) {
  const HealthReport health = report();
  ASSERT_EQ(health.subgraphs.size(), 3u);
  const SubgraphHealth& mm = health.subgraphs[0];
  EXPECT_EQ(mm.tasks, 3);
  EXPECT_EQ(mm.minCycles, 100);
  EXPECT_EQ(mm.maxCycles, 120);
  EXPECT_DOUBLE_EQ(mm.meanCycles, 320.0 / 3.0);
  EXPECT_DOUBLE_EQ(mm.meanBoundCycles, (80.0 + 90.0 + 110.0) / 3.0);  // each task's busiest pipe
  ASSERT_EQ(mm.pipes.size(), 3u);
  EXPECT_EQ(mm.pipes[0].pipe, "MTE2");  // 30 + 90
  EXPECT_EQ(mm.pipes[0].cycles, 120);
  EXPECT_DOUBLE_EQ(mm.pipes[0].share, 120.0 / 320.0);
  EXPECT_EQ(mm.bound.kind, "FIXPIPE");  // 120 cycles of task time against CUBE's 100 and MTE2's 100
  EXPECT_EQ(health.subgraphs[1].bound.kind, "scheduling");
  EXPECT_EQ((health.subgraphs[1].buffers.at("ub")), (std::array<std::int64_t, 2>{4096, 16384}));
}

TEST_F(HealthReportTest, TheExecuteGraphCountsSharedProgramsAndTheWorkspaceLiveAtOnce) {
  const ExecuteGraphHealth execute = report().executeGraph;
  EXPECT_EQ(execute.tasks, 5);
  EXPECT_EQ(execute.programs, 2);
  EXPECT_DOUBLE_EQ(execute.isomorphicRate, 2.0 / 3.0);  // sg1 and sg2 share program 1
  EXPECT_EQ(execute.minTaskCycles, 30);
  EXPECT_EQ(execute.maxTaskCycles, 120);
  EXPECT_DOUBLE_EQ(execute.meanTaskCycles, 460.0 / 5.0);
  // t0 (128 bytes) lives from T0's start to T3's end [10, 170), t1 (32 bytes) over [140, 300): both at once
  // over [140, 170).
  EXPECT_EQ(execute.gmWorkspacePeakBytes, 160);
}

TEST_F(HealthReportTest, WavesAndTheCriticalPath) {
  const HealthReport health = report();
  ASSERT_EQ(health.waves.size(), 2u);
  EXPECT_EQ(health.waves[0].label, "mm");  // busy 320 before v's 140
  EXPECT_DOUBLE_EQ(health.waves[0].waves, 1.5);
  EXPECT_EQ(health.waves[0].lastWaveTasks, 1);
  EXPECT_EQ(health.waves[1].lastWaveTasks, 2);  // 2 tasks on 2 cores: one full wave
  const CriticalPathHealth& path = health.criticalPath;
  EXPECT_EQ(path.tasks, (std::vector<TaskId>{0, 3, 4}));
  EXPECT_EQ(path.lengthCycles, 300);
  EXPECT_EQ(path.busyCycles, 100 + 30 + 110);
  EXPECT_EQ(path.waitCycles, 10 + 30 + 20);  // before T0, T0 -> T3, T3 -> T4
  EXPECT_EQ(path.cyclesByClass.at("scheduling"), 30 + 60);  // T3 itself plus the waits
  // Each producer made its consumer ready when it resolved, 10 cycles after its end ("data"); T3 then waited
  // [120, 130) with both vector cores idle and its landing [130, 140), T4 only its landing; T0 its landing.
  ASSERT_EQ(path.steps.size(), 3u);
  EXPECT_EQ(path.steps[0].waitedFor, "submission");
  EXPECT_EQ(path.steps[1].waitedFor, "data");
  EXPECT_EQ(path.steps[1].after, 0);
  EXPECT_EQ(path.steps[2].waitedFor, "data");
  EXPECT_EQ(path.steps[2].after, 3);
  EXPECT_EQ(path.steps[1].waitCycles, (std::map<std::string, std::int64_t>{{"data", 10}, {"scheduling", 20}}));
  EXPECT_EQ(path.waitCyclesByCause, (std::map<std::string, std::int64_t>{{"data", 20}, {"scheduling", 40}}));
  EXPECT_EQ(path.runningCyclesByClass,
            (std::map<std::string, std::int64_t>{{"CUBE", 100}, {"VECTOR", 110}, {"scheduling", 30}}));
  EXPECT_EQ(health.bound.kind, "VECTOR");  // 110 against CUBE 100 and scheduling 90
}

} // namespace
} // namespace pto::testing
