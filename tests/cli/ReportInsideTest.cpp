// `pto report --task N` (inside a task), `--bubbles` and the critical path's
// split, on the softmax example. The inside view is simulated again: its task
// must start and end where the run's memory map (the run's own schedule)
// says; its slices must keep each pipe in order and inside the task, and a
// flag wait must end when its raising pipe finishes an instruction.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace pto::test {
namespace {

const std::string kSoftmax = std::string(PTO_SOURCE_DIR) + "/resources/examples/softmax";
constexpr double kEpsilon = 1e-6;  // cycles: slice times are fractional

TEST(ReportInside, TaskJsonKeepsEveryPipeInOrderInsideTheRunsTask) {
  const nlohmann::json inside = runPtoJson("report '" + kSoftmax + "' --task 3 --no-record");
  ASSERT_FALSE(inside.is_null());
  const nlohmann::json memory = runPtoJson("report '" + kSoftmax + "' --memory --task 3 --no-record");
  const auto& task = inside.at("inside_task");
  EXPECT_EQ(task.at("start_cycle"), memory.at("memory_map").at("task").at("start_cycle"));
  EXPECT_EQ(task.at("end_cycle"), memory.at("memory_map").at("task").at("end_cycle"));
  const double start = task.at("start_cycle").get<double>(), end = task.at("end_cycle").get<double>();
  std::map<std::string, std::set<double>> instructionEnds;
  std::set<std::string> pipes;
  double chain = 0.0;
  for (const auto& pipe : task.at("pipes")) {
    pipes.insert(pipe.at("pipe").get<std::string>());
    double previousEnd = start, busy = 0.0;
    for (const auto& slice : pipe.at("slices")) {
      const double from = slice.at("start_cycle").get<double>(), to = slice.at("end_cycle").get<double>();
      EXPECT_GE(from, previousEnd - kEpsilon) << pipe.at("pipe") << " overlaps itself";
      EXPECT_LE(from, to);
      EXPECT_LE(to, end + 1.0) << "a slice ends after the task (the task's end is rounded up)";
      previousEnd = to;
      if (slice.at("kind") == "instruction") {
        busy += to - from;
        instructionEnds[pipe.at("pipe")].insert(to);
      }
    }
    EXPECT_NEAR(pipe.at("busy_cycles").get<double>(), busy, 1e-3);
    chain += pipe.at("chain_cycles").get<double>();
  }
  for (const char* pipe : {"MTE2", "VECTOR", "MTE3"}) EXPECT_TRUE(pipes.count(pipe)) << pipe;
  EXPECT_NEAR(chain + task.at("chain_idle_cycles").get<double>(), end - start, 1e-3);
  // A flag wait ends when the pipe that raises the flag ends an instruction.
  int flagWaits = 0;
  for (const auto& pipe : task.at("pipes"))
    for (const auto& slice : pipe.at("slices")) {
      if (slice.at("kind") != "wait" || !slice.contains("waits_for_pipe")) continue;
      ++flagWaits;
      const auto& ends = instructionEnds[slice.at("waits_for_pipe").get<std::string>()];
      const double waitEnd = slice.at("end_cycle").get<double>();
      auto near = ends.lower_bound(waitEnd - kEpsilon);
      EXPECT_TRUE(near != ends.end() && std::abs(*near - waitEnd) < kEpsilon)
          << "wait on " << slice.at("reason") << " ending at " << waitEnd;
    }
  EXPECT_GT(flagWaits, 0) << "the vector pipe waits for its loads";
  EXPECT_FALSE(task.at("why").get<std::string>().empty());
}

TEST(ReportInside, TaskTextHasPipeRowsAndAnUnknownTaskSaysWhichExist) {
  Result text = runPto("report '" + kSoftmax + "' --task 3 --no-record");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  for (const char* expected : {"task 3 on AIV", "why: the chain that sets its end", "MTE2 ", "VECTOR ", "waits: flag"})
    EXPECT_NE(text.out.find(expected), std::string::npos) << expected << "\n" << text.out;
  Result unknown = runPto("report '" + kSoftmax + "' --task 100000 --no-record");
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("--task 100000: the run has"), std::string::npos) << unknown.err;
}

// Per core the tasks do not overlap, so from the chip's first start to the
// core's last end every cycle is one of its tasks or one of its gaps, and
// every gap is a schedule or a predecessor wait. The critical path's four
// parts sum to its length.
TEST(ReportInside, BubblesAccountForEveryCycleOfEachCoreAndTheCriticalPathSplitForItsLength) {
  const nlohmann::json report = runPtoJson("report '" + kSoftmax + "' --bubbles --no-record");
  ASSERT_FALSE(report.is_null());
  const auto& bubbles = report.at("bubbles");
  int tasks = 0;
  for (const auto& core : bubbles.at("cores")) {
    tasks += core.at("tasks").get<int>();
    EXPECT_EQ(core.at("work_cycles").get<std::int64_t>(),
              core.at("busy_cycles").get<std::int64_t>() + core.at("gap_cycles").get<std::int64_t>())
        << core.at("core");
    EXPECT_EQ(core.at("gap_cycles").get<std::int64_t>(), core.at("schedule_wait_cycles").get<std::int64_t>() +
                                                             core.at("predecessor_wait_cycles").get<std::int64_t>());
    EXPECT_LE(core.at("max_gap_cycles").get<std::int64_t>(), core.at("gap_cycles").get<std::int64_t>());
    for (const auto& [pipe, use] : core.at("pipes").items()) EXPECT_LE(use.at("usage").get<double>(), 1.0) << pipe;
  }
  EXPECT_FALSE(bubbles.at("pipe_usage").empty());

  // The normal report: its task count, and the critical path's split summing to its length.
  const nlohmann::json health = runPtoJson("report '" + kSoftmax + "' --no-record");
  EXPECT_EQ(tasks, health.at("execute_graph").at("tasks").get<int>());
  const auto& path = health.at("critical_path");
  const auto& split = path.at("split");
  EXPECT_EQ(split.at("running_cycles").get<std::int64_t>() + split.at("data_wait_cycles").get<std::int64_t>() +
                split.at("core_wait_cycles").get<std::int64_t>() + split.at("dispatch_cycles").get<std::int64_t>(),
            path.at("length_cycles").get<std::int64_t>());
  EXPECT_EQ(path.at("length_cycles"), health.at("makespan_cycles"));
}

} // namespace
} // namespace pto::test
