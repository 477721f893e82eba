// The Runs panel's engine: a project's recorded runs with what changed
// between them (analysis/ledger/RunHistory.h), and a recorded run's swimlane rebuilt
// from its ledger task table (analysis/ledger/RunRecordTrace.h). Expected values are
// worked out by hand from the hand-built runs below.
#include "analysis/ledger/RunHistory.h"
#include "analysis/ledger/RunRecordTrace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <limits>
#include <random>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

RunRow row(std::int64_t id, double makespanUs, int nbuffer, const std::string& kernel = "k1") {
  RunRow run;
  run.id = id;
  run.makespanUs = makespanUs;
  run.kernelHash = kernel;
  run.settings = {{"machine", "a2"}, {"pass_options", {{"vec_nbuffer_setting", {{"softmax", nbuffer}}}}}};
  run.traceBytes = 100;
  return run;
}

TEST(RunHistoryTest, ChangesFromThePreviousAndTheCurrentRun) {
  // Newest first: #3 (nbuffer 8), #2 (nbuffer 1, kernel edited), #1 (nbuffer 1).
  RunHistory history = runHistory({row(3, 10.0, 8), row(2, 25.0, 1, "k2"), row(1, 20.0, 1)}, 2);
  ASSERT_EQ(history.runs.size(), 3u);
  EXPECT_EQ(history.currentId, 2);
  EXPECT_FALSE(history.runs[0].current);
  EXPECT_TRUE(history.runs[1].current);

  const RunHistoryEntry& newest = history.runs[0];
  ASSERT_TRUE(newest.deltaUsFromPrevious);
  EXPECT_DOUBLE_EQ(*newest.deltaUsFromPrevious, 10.0 - 25.0);
  EXPECT_TRUE(newest.kernelChangedFromPrevious);  // k1 vs k2
  ASSERT_EQ(newest.sincePrevious.size(), 1u);
  EXPECT_EQ(newest.sincePrevious[0].pointer, "/pass_options/vec_nbuffer_setting/softmax");
  EXPECT_EQ(*newest.sincePrevious[0].a, 1);
  EXPECT_EQ(*newest.sincePrevious[0].b, 8);
  // Against the current run #2: a is #2's value, b this run's.
  ASSERT_EQ(newest.againstCurrent.size(), 1u);
  EXPECT_EQ(*newest.againstCurrent[0].a, 1);
  EXPECT_EQ(*newest.againstCurrent[0].b, 8);

  EXPECT_TRUE(history.runs[1].againstCurrent.empty());  // the current run itself
  EXPECT_TRUE(history.runs[1].sincePrevious.empty());   // same settings as #1
  EXPECT_TRUE(history.runs[1].kernelChangedFromPrevious);
  EXPECT_FALSE(history.runs[2].deltaUsFromPrevious);  // the first run
  EXPECT_TRUE(history.runs[2].againstCurrent.empty());  // same settings as #2

  // No current run: nothing is marked, nothing compared with it.
  RunHistory none = runHistory({row(3, 10.0, 8), row(1, 20.0, 1)}, 99);
  EXPECT_EQ(none.currentId, 0);
  EXPECT_FALSE(none.runs[0].current);
  EXPECT_TRUE(none.runs[0].againstCurrent.empty());
  EXPECT_EQ(none.find(1), &none.runs[1]);
  EXPECT_EQ(none.find(2), nullptr);
}

TEST(RunHistoryTest, AProjectWithoutALedgerHasNoRunsAndGetsNoLedger) {
  std::filesystem::path folder = std::filesystem::temp_directory_path() / ("pto-history-" + std::to_string(std::random_device{}()));
  std::filesystem::create_directories(folder);
  DiagnosticEngine diags;
  auto history = readRunHistory(folder, 0, diags);
  ASSERT_TRUE(history);
  EXPECT_TRUE(history->runs.empty());
  EXPECT_EQ(history->ledgerFile, RunLedger::fileIn(folder));
  EXPECT_FALSE(std::filesystem::exists(RunLedger::fileIn(folder)));
  std::filesystem::remove_all(folder);
}

TEST(RunRecordTraceTest, LanesTimesAndNamesFromTheTaskTable) {
  RunRecord run;
  run.clockGHz = 1.5;  // 2/3 ns per cycle
  run.metrics = {{"core_types", Json::array({{{"core_type", "AIC"}, {"cores", 2}}, {{"core_type", "AIV"}, {"cores", 4}}})}};
  run.taskTable = {
      {"mm|i=0|c@0,0", "mm", 0, "AIC", 1, 0, 300},       // 0 .. 200 ns
      {"softmax|b=0|y@0,0", "softmax", 1, "AIV", 3, 301, 451},  // 200.67 -> 201, 300.67 -> 301
      {"softmax|b=1|y@1,0", "softmax", 1, "AIV", 0, 3, 4},      // 2 -> 2, 2.67 -> 3
  };
  trace::Trace trace = runRecordTrace(run);
  // Every core the metrics name, cube cores first.
  ASSERT_EQ(trace.lanes().size(), 6u);
  EXPECT_EQ(trace.str(trace.lanes()[0].name), "AIC_0");
  EXPECT_EQ(trace.str(trace.lanes()[1].name), "AIC_1");
  EXPECT_EQ(trace.str(trace.lanes()[2].name), "AIV_0");
  EXPECT_EQ(trace.str(trace.lanes()[5].name), "AIV_3");
  ASSERT_EQ(trace.tasks().size(), 3u);
  const trace::Task& mm = trace.tasks()[0];
  EXPECT_EQ(trace.str(trace.lanes()[mm.lane].name), "AIC_1");
  EXPECT_EQ(mm.startNs, 0);
  EXPECT_EQ(mm.endNs, 200);
  EXPECT_EQ(trace.str(mm.label), "mm");
  EXPECT_EQ(trace.str(mm.name), "mm|i=0|c@0,0 (sg 0)");
  const trace::Task& second = trace.tasks()[1];
  EXPECT_EQ(trace.str(trace.lanes()[second.lane].name), "AIV_3");
  EXPECT_EQ(second.startNs, 201);
  EXPECT_EQ(second.endNs, 301);
  EXPECT_EQ(second.id, 1);
  EXPECT_EQ(second.subgraph, 1);
  ASSERT_EQ(trace.args(1).size(), 1u);
  EXPECT_EQ(trace.str(trace.args(1)[0].value), "softmax|b=0|y@0,0");
  EXPECT_EQ(trace.tasks()[2].startNs, 2);
  EXPECT_EQ(trace.tasks()[2].endNs, 3);
  EXPECT_EQ(trace.edgeCount(), 0u);  // the table keeps no dependencies

  // Without metrics: lanes up to the highest core used.
  run.metrics = Json::object();
  trace::Trace bare = runRecordTrace(run);
  ASSERT_EQ(bare.lanes().size(), 2u + 4u);  // AIC_0..1 (core 1 used), AIV_0..3 (core 3 used)
  run.taskTable.clear();
  EXPECT_TRUE(runRecordTrace(run).tasks().empty());  // a pruned table
}

TEST(RunRecordTraceTest, ADamagedTableCannotAskForBillionsOfLanes) {
  RunRecord run;
  run.clockGHz = 1.0;
  run.metrics = {{"core_types", Json::array({{{"core_type", "AIV"}, {"cores", 4'000'000'000LL}},
                                             {{"core_type", 7}, {"cores", "many"}}})}};
  run.taskTable = {
      {"a", "a", 0, "AIV", std::numeric_limits<int>::max(), 0, 10},  // INT_MAX + 1 overflowed before
      {"b", "b", 0, "AIC", -5, 0, 10},
      {"c", "c", 0, "AIV", 2, 0, 10},
  };
  trace::Trace trace = runRecordTrace(run);
  EXPECT_LE(trace.lanes().size(), std::size_t{1} << 16);  // bounded, not 4e9 lanes
  ASSERT_EQ(trace.tasks().size(), 1u);  // only the task on a real core
  EXPECT_EQ(trace.str(trace.lanes()[trace.tasks()[0].lane].name), "AIV_2");
}

} // namespace
} // namespace pto
