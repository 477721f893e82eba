// Swimlane coordinate maths: window, zoom about a point, clamps, the visible
// range (against a brute-force overlap scan) and slice folding.
#include "widgets/models/SwimlaneCoordinates.h"

#include <gtest/gtest.h>

#include <random>

namespace pto::widgets {
namespace {

using trace::LaneIndex;
using trace::TaskIndex;

SwimlaneCoordinates window(std::int64_t startNs, std::int64_t endNs, double widthPx) {
  SwimlaneCoordinates c;
  c.setWidthPx(widthPx);
  c.setExtent(startNs, endNs);
  c.fit();
  return c;
}

TEST(SwimlaneCoordinates, FitShowsTheExtentWithOnePercentMargins) {
  SwimlaneCoordinates c = window(0, 1000, 1000);
  EXPECT_DOUBLE_EQ(c.nsPerPx(), 1020.0 / 1000);
  EXPECT_DOUBLE_EQ(c.startNs(), -10);
  EXPECT_NEAR(c.endNs(), 1010, 1e-9);
  EXPECT_NEAR(c.xOf(0), 10 / 1.02, 1e-9);
  EXPECT_NEAR(c.nsAt(c.xOf(123.5)), 123.5, 1e-9);
}

TEST(SwimlaneCoordinates, ZoomKeepsTheTimeUnderTheCursor) {
  SwimlaneCoordinates c = window(0, 100000, 800);
  double anchor = c.nsAt(250);
  double before = c.nsPerPx();
  c.zoomAbout(250, 2);
  EXPECT_NEAR(c.nsAt(250), anchor, 1e-6);
  EXPECT_NEAR(c.nsPerPx(), before / 2, 1e-9);
  c.zoomAbout(600, 1 / 3.0);
  EXPECT_NEAR(c.nsPerPx(), before * 1.5, 1e-9);
}

TEST(SwimlaneCoordinates, ZoomStopsAtTheLimits) {
  SwimlaneCoordinates c = window(0, 100000, 800);
  for (int i = 0; i < 100; ++i) c.zoomAbout(400, 4);
  EXPECT_DOUBLE_EQ(c.nsPerPx(), SwimlaneCoordinates::kMinNsPerPx);
  for (int i = 0; i < 100; ++i) c.zoomAbout(400, 0.25);
  EXPECT_DOUBLE_EQ(c.nsPerPx(), 4 * 100000.0 / 800);  // the extent in a quarter of the width
}

TEST(SwimlaneCoordinates, PanningCannotLoseTheTrace) {
  SwimlaneCoordinates c = window(0, 1000, 500);
  c.zoomAbout(0, 10);  // window is now ~102 ns wide
  double windowNs = c.endNs() - c.startNs();
  c.panPx(1e9);
  EXPECT_NEAR(c.startNs(), 1000 - 0.1 * windowNs, 1e-6);
  c.panPx(-1e9);
  EXPECT_NEAR(c.startNs(), 0 - 0.9 * windowNs, 1e-6);
}

TEST(SwimlaneCoordinates, ShowRangeFillsTheWidth) {
  SwimlaneCoordinates c = window(0, 100000, 1000);
  c.showRange(2000, 3000);
  EXPECT_NEAR(c.startNs(), 2000, 1e-9);
  EXPECT_NEAR(c.endNs(), 3000, 1e-9);
  EXPECT_NEAR(c.nsPerPx(), 1, 1e-12);
}

// One lane of disjoint tasks with random gaps and durations, one of them long.
trace::Trace randomLane(int count, std::uint32_t seed) {
  trace::Trace trace;
  LaneIndex lane = trace.addLane("AIV_0", 0);
  std::mt19937 rng(seed);
  std::int64_t t = 0;
  for (int i = 0; i < count; ++i) {
    trace::Task task;
    task.lane = lane;
    task.id = i;
    task.startNs = t + static_cast<std::int64_t>(rng() % 50);
    std::int64_t dur = i == count / 3 ? 100000 : static_cast<std::int64_t>(rng() % 40);
    task.endNs = task.startNs + dur;
    t = task.endNs;
    trace.addTask(task);
  }
  trace.finalize();
  return trace;
}

std::int64_t maxDuration(const trace::Trace& trace) {
  std::int64_t result = 0;
  for (const trace::Task& task : trace.tasks()) result = std::max(result, task.durNs());
  return result;
}

TEST(VisibleTaskRange, ContainsEveryTaskOverlappingTheWindow) {
  trace::Trace trace = randomLane(2000, 1);
  std::int64_t maxDur = maxDuration(trace);
  const auto& order = trace.lanes()[0].tasksByStart;
  std::int64_t end = trace.tasks().back().endNs;
  std::mt19937 rng(2);
  for (int query = 0; query < 300; ++query) {
    double from = static_cast<double>(rng() % static_cast<std::uint32_t>(end));
    double to = from + static_cast<double>(rng() % 5000);
    auto [first, last] = visibleTaskRange(trace, 0, from, to, maxDur);
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      const trace::Task& task = trace.tasks()[order[pos]];
      bool overlaps = static_cast<double>(task.startNs) < to && static_cast<double>(task.endNs) > from;
      if (overlaps) {
        EXPECT_GE(pos, first) << "query " << query;
        EXPECT_LT(pos, last) << "query " << query;
      }
    }
  }
}

TEST(VisibleTaskRange, ALongTaskStartingBeforeTheWindowIsIncluded) {
  trace::Trace trace = randomLane(2000, 3);
  TaskIndex longTask = 2000 / 3;
  const trace::Task& task = trace.tasks()[longTask];
  double from = static_cast<double>(task.startNs + 50000);
  auto [first, last] = visibleTaskRange(trace, 0, from, from + 10, maxDuration(trace));
  const auto& order = trace.lanes()[0].tasksByStart;
  EXPECT_NE(std::find(order.begin() + static_cast<std::ptrdiff_t>(first), order.begin() + static_cast<std::ptrdiff_t>(last), longTask),
            order.begin() + static_cast<std::ptrdiff_t>(last));
}

TEST(FoldSlices, CoversEveryTaskOnceAndFoldsOnlyNarrowOnes) {
  trace::Trace trace = randomLane(5000, 4);
  SwimlaneCoordinates c = window(0, trace.tasks().back().endNs, 1200);
  for (double zoom : {1.0, 8.0, 64.0}) {
    c.fit();
    c.zoomAbout(600, zoom);
    auto range = visibleTaskRange(trace, 0, c.startNs(), c.endNs(), maxDuration(trace));
    std::vector<SliceRun> runs;
    foldSlices(trace, 0, range, c, 3, runs);
    std::size_t expectedFirst = range.first;
    const auto& order = trace.lanes()[0].tasksByStart;
    for (const SliceRun& run : runs) {
      ASSERT_EQ(run.first, expectedFirst);  // contiguous: nothing skipped or drawn twice
      ASSERT_GT(run.last, run.first);
      expectedFirst = run.last;
      if (run.folded) {
        EXPECT_GE(run.x1 - run.x0, 3);
        for (std::size_t pos = run.first; pos < run.last; ++pos) {
          const trace::Task& task = trace.tasks()[order[pos]];
          EXPECT_LT(static_cast<double>(task.durNs()) / c.nsPerPx(), 3) << "a wide task was folded: pos " << pos << " of run [" << run.first << "," << run.last << ") zoom " << zoom << " x0 " << run.x0;
        }
      } else {
        EXPECT_EQ(run.count(), 1u);
        const trace::Task& task = trace.tasks()[order[run.first]];
        EXPECT_NEAR(run.x0, c.xOf(static_cast<double>(task.startNs)), 1e-9);
      }
    }
    EXPECT_EQ(expectedFirst, range.second);
  }
}

TEST(FoldSlices, DrawsAboutOneItemPerFewPixelsNotOnePerTask) {
  // 200 000 tasks of 1 ns on a 1000 px wide window: the items are bounded by
  // the width (one fold per 3 px), not by the task count.
  trace::Trace trace;
  LaneIndex lane = trace.addLane("AIC_0", 0);
  for (int i = 0; i < 200000; ++i) {
    trace::Task task;
    task.lane = lane;
    task.startNs = 2 * i;
    task.endNs = 2 * i + 1;
    trace.addTask(task);
  }
  trace.finalize();
  SwimlaneCoordinates c = window(0, 400000, 1000);
  auto range = visibleTaskRange(trace, lane, c.startNs(), c.endNs(), 1);
  std::vector<SliceRun> runs;
  foldSlices(trace, lane, range, c, 3, runs);
  EXPECT_EQ(range.second - range.first, 200000u);
  EXPECT_LE(runs.size(), 1000u / 3 + 2);
  EXPECT_GE(runs.size(), 1000u / 4);
}

} // namespace
} // namespace pto::widgets
