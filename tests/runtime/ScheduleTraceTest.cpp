// The swimlane of a scheduled run: a kernel compiled by the whole pipeline, scheduled with fixed task
// durations, turned into a trace. Checked against the schedule and the Execute graph it came from, and
// through the Perfetto export (one flow pair per dependency edge, as the trace-format page requires).
#include "RuntimeTestSupport.h"

#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "runtime/ScheduleTrace.h"
#include "runtime/trace/ChromeTraceWriter.h"
#include "tests/support/ChromeTraceChecks.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace pto::testing {
namespace {

SourceLocation line(int number) { return {"kernel.py", number, 1}; }

// for b in range(rows): y[b] = exp(x[b]) + 1 (label "act"); x, y: [rows, 64], vec tile [1, 32].
TensorGraph rowKernel(std::int64_t rows) {
  TensorGraphBuilder builder("rows", line(1));
  const TensorId x = builder.addArgument("x", DataType::Fp32, SymbolicShape{rows, 64}, line(1));
  const TensorId y = builder.addArgument("y", DataType::Fp32, SymbolicShape{rows, 64}, line(1));
  builder.beginPath();
  builder.setVecTile({1, 32}, line(2));
  builder.setLabel("act");
  const LoopId loop = builder.beginLoop("rows", "b", 0, rows, 1, false, line(4));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  auto op = [&](TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs, int at,
                std::vector<TensorId> into = {}) {
    TensorGraphBuilder::OpResult result = builder.addOp(kind, std::move(inputs), std::move(attrs), line(at), std::move(into));
    EXPECT_EQ(result.error, "");
    return result.outputs.empty() ? kNoId : result.outputs.front();
  };
  const TensorId row = op(TensorOpKind::View, {x}, {{"offsets", SymbolicShape{b, 0}}, {"shape", SymbolicShape{1, 64}}}, 5);
  const TensorId e = op(TensorOpKind::Exp, {row}, {}, 6);
  const TensorId z = op(TensorOpKind::AddS, {e}, {{"scalar", 1.0}}, 7);
  op(TensorOpKind::Assemble, {z}, {{"offsets", SymbolicShape{b, 0}}}, 8, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  return builder.finish();
}

struct Scheduled {
  CompileResult compiled;
  Schedule schedule;
};

Scheduled compileAndSchedule(std::int64_t rows, int aivCores) {
  DiagnosticEngine diags;
  std::optional<CompileResult> compiled = compileKernel(rowKernel(rows), CompileSettings{}, diags);
  EXPECT_TRUE(compiled) << messages(diags);
  FakeExecutor executor(/*aicCycles=*/1000, /*aivCycles=*/777);
  // All rows in one device task, so that they are ready together and queue for the cores.
  SchedulerConfig stitched = config(1, aivCores, 2, a2Costs());
  stitched.stitchFunctionMaxNum = static_cast<int>(rows);
  Schedule schedule = runOrFail(compiled->compilation.tasks, stitched, executor);
  return {std::move(*compiled), std::move(schedule)};
}

trace::Trace traceOf(const Scheduled& run, int aivCores, double clockGHz) {
  const Compilation& c = run.compiled.compilation;
  return traceFromSchedule({run.schedule, c.tasks, c.blocks, c.tiles, 1, aivCores, clockGHz});
}

TEST(ScheduleTrace, EveryTaskKeepsItsCoreTimesSubgraphAndKernelLine) {
  const Scheduled run = compileAndSchedule(6, 3);
  const trace::Trace trace = traceOf(run, 3, 1.85);
  const ExecuteGraph& tasks = run.compiled.compilation.tasks;
  ASSERT_FALSE(tasks.tasks.empty());
  ASSERT_EQ(trace.tasks().size(), tasks.tasks.size());
  ASSERT_EQ(trace.lanes().size(), 4u);  // AIC_0, AIV_0..2: idle cores get a lane too
  EXPECT_EQ(trace.str(trace.lanes()[0].name), "AIC_0");
  EXPECT_EQ(trace.str(trace.lanes()[3].name), "AIV_2");
  for (const TaskRecord& record : run.schedule.tasks) {
    const trace::Task& task = trace.tasks()[static_cast<std::size_t>(record.task)];
    EXPECT_EQ(task.id, record.task);
    // ns = cycles / GHz, to the nearest ns.
    EXPECT_EQ(task.startNs, std::llround(record.startCycle / 1.85));
    EXPECT_EQ(task.endNs, std::llround(record.endCycle / 1.85));
    EXPECT_EQ(task.dispatchNs, std::llround(record.dispatchCycle / 1.85));
    EXPECT_EQ(trace.str(trace.lanes()[task.lane].name), "AIV_" + std::to_string(record.core.index));
    EXPECT_EQ(task.subgraph, tasks.tasks[static_cast<std::size_t>(record.task)].subgraph);
    EXPECT_EQ(trace.str(task.label), "act");
    EXPECT_EQ(trace.str(task.sourceFile), "kernel.py");
    // The first computing op of every subgraph is the exp (line 6) or the add (line 7), never the view.
    EXPECT_TRUE(task.sourceLine == 6 || task.sourceLine == 7) << task.sourceLine;
    EXPECT_NE(trace.str(task.inputs).find('['), std::string_view::npos);
    EXPECT_NE(trace.str(task.outputs).find('['), std::string_view::npos);
  }
}

TEST(ScheduleTrace, PredecessorsAreTheExecuteGraphsEdges) {
  const Scheduled run = compileAndSchedule(6, 2);
  const trace::Trace trace = traceOf(run, 2, 1.0);
  const ExecuteGraph& tasks = run.compiled.compilation.tasks;
  EXPECT_EQ(trace.edgeCount(), tasks.edgeCount);
  for (const Task& task : tasks.tasks) {
    std::vector<TaskId> predecessors;
    for (trace::TaskIndex p : trace.predecessors(static_cast<trace::TaskIndex>(task.id))) predecessors.push_back(p);
    std::sort(predecessors.begin(), predecessors.end());
    EXPECT_EQ(predecessors, task.predecessors) << task.id;
  }
}

TEST(ScheduleTrace, ReadyCountTotalIsTheSumOfBothQueuesAtEveryChange) {
  const Scheduled run = compileAndSchedule(12, 2);
  const trace::Trace trace = traceOf(run, 2, 1.0);
  std::map<std::string, const trace::Counter*> counters;
  for (const trace::Counter& counter : trace.counters()) counters[std::string(trace.str(counter.name))] = &counter;
  ASSERT_TRUE(counters.count("ReadyCount_AIC") && counters.count("ReadyCount_AIV") && counters.count("ReadyCount_Total"));
  auto valueAt = [](const trace::Counter& counter, std::int64_t ts) {
    double value = 0;
    for (const trace::CounterSample& sample : counter.samples)
      if (sample.tsNs <= ts) value = sample.value;
    return value;
  };
  double peak = 0;
  for (const trace::CounterSample& sample : counters["ReadyCount_Total"]->samples) {
    EXPECT_EQ(sample.value, valueAt(*counters["ReadyCount_AIC"], sample.tsNs) +
                                valueAt(*counters["ReadyCount_AIV"], sample.tsNs));
    peak = std::max(peak, sample.value);
  }
  EXPECT_GT(peak, 0);  // 12 rows on 2 cores: tasks did wait
}

// A fused task links to every line of its subgraph, not only to its first computing op's: the kernel's exp
// (line 6) and add (line 7) of a row, and the row's view (5) and assemble (8) where the subgraph holds them.
TEST(ScheduleTrace, FusedTasksListEveryKernelLineTheyRun) {
  const Scheduled run = compileAndSchedule(6, 2);
  const trace::Trace trace = traceOf(run, 2, 1.0);
  int fused = 0;
  for (trace::TaskIndex t = 0; t < trace.tasks().size(); ++t) {
    std::string lines;
    for (const trace::TaskArg& arg : trace.args(t))
      if (trace.str(arg.key) == trace::kTaskLinesArg) lines = std::string(trace.str(arg.value));
    const Subgraph& subgraph = run.compiled.compilation.blocks.subgraph(trace.tasks()[t].subgraph);
    std::set<TensorOpKind> kinds;
    for (TileOpId op : subgraph.ops) kinds.insert(run.compiled.compilation.tiles.tileOp(op).kind);
    if (kinds.count(TensorOpKind::Exp) && kinds.count(TensorOpKind::AddS)) {
      ++fused;
      std::string expected = std::string(kinds.count(TensorOpKind::View) ? "5, " : "") + "6, 7" +
                             (kinds.count(TensorOpKind::Assemble) ? ", 8" : "");
      EXPECT_EQ(lines, expected) << t;
      EXPECT_EQ(trace.tasks()[t].sourceLine, 6) << "shown at its first computing op";
    }
  }
  EXPECT_GT(fused, 0) << "the row's exp and add fuse into one subgraph";
}

TEST(ScheduleTrace, ThePerfettoExportHasOneFlowPairPerDependencyEdge) {
  const Scheduled run = compileAndSchedule(6, 2);
  const trace::Trace trace = traceOf(run, 2, 1.85);
  std::ostringstream out;
  trace::writeChromeTrace(trace, out);
  const nlohmann::json json = nlohmann::json::parse(out.str());
  EXPECT_TRUE(hasOneFlowPairPerEdge(json, static_cast<std::int64_t>(run.compiled.compilation.tasks.tasks.size()),
                                    static_cast<std::int64_t>(run.compiled.compilation.tasks.edgeCount)));
}

} // namespace
} // namespace pto::testing
