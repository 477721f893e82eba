// LaneSummary against brute force: busyNs over any window equals the union
// of the lane's tasks clipped to it (computed here by walking every task);
// each pixel column's busy time is that union over the column's edges
// rounded to the nearest level-0 bin edges, scaled from that span to the
// column's width, at many zooms and offsets, on lanes with gaps, overlapping
// and nested tasks; the lane's own
// start/duration/key columns equal the trace's tasks in start order; long
// tasks found through the pyramid equal a filter over all tasks; at level-0 resolution each column's colour
// key is the key with the most task time in it; at coarser zoom it is a key
// of a task near the column. Tolerance: 1e-6 ns relative (double sums of
// integer ns).
#include "widgets/models/LaneSummary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

namespace pto::widgets {
namespace {

using trace::LaneIndex;
using trace::TaskIndex;

struct KeyedTrace {
  trace::Trace trace;
  std::array<std::vector<std::uint32_t>, kColorModeCount> keys;
};

// Lane 0: disjoint tasks with gaps; lane 1: overlapping and nested tasks;
// lane 2: empty. Keys: label = 1 + random of 4, subgraph = 1 + random of 7,
// bound = task index % 3, error = task index % 8.
KeyedTrace randomTrace(std::uint32_t seed) {
  KeyedTrace f;
  std::mt19937 rng(seed);
  LaneIndex disjoint = f.trace.addLane("AIV_0", 0);
  LaneIndex nested = f.trace.addLane("AIV_1", 1);
  f.trace.addLane("AIC_0", 2);
  std::int64_t t = 0;
  auto add = [&](LaneIndex lane, std::int64_t start, std::int64_t dur) {
    trace::Task task;
    task.lane = lane;
    task.startNs = start;
    task.endNs = start + dur;
    f.trace.addTask(task);
    f.keys[0].push_back(1 + rng() % 4);
    f.keys[1].push_back(1 + rng() % 7);
    f.keys[2].push_back(static_cast<std::uint32_t>(f.keys[2].size() % 3));
    f.keys[3].push_back(static_cast<std::uint32_t>(f.keys[3].size() % 8));
  };
  for (int i = 0; i < 3000; ++i) {
    std::int64_t gap = rng() % 5 == 0 ? static_cast<std::int64_t>(rng() % 3000) : static_cast<std::int64_t>(rng() % 30);
    std::int64_t dur = i == 1000 ? 200000 : static_cast<std::int64_t>(rng() % 120);  // one long task, some zero-length
    add(disjoint, t + gap, dur);
    t += gap + dur;
  }
  for (int i = 0; i < 2000; ++i) add(nested, static_cast<std::int64_t>(rng() % 400000), static_cast<std::int64_t>(rng() % 900));
  f.trace.finalize();
  return f;
}

double bruteBusy(const trace::Trace& trace, LaneIndex lane, double a, double b) {
  std::vector<std::pair<double, double>> pieces;
  for (const trace::Task& task : trace.tasks()) {
    if (task.lane != lane) continue;
    double from = std::max(a, static_cast<double>(task.startNs));
    double to = std::min(b, static_cast<double>(task.endNs));
    if (to > from) pieces.emplace_back(from, to);
  }
  std::sort(pieces.begin(), pieces.end());
  double busy = 0;
  double coveredTo = -1e300;
  for (auto [from, to] : pieces) {
    from = std::max(from, coveredTo);
    if (to > from) busy += to - from;
    coveredTo = std::max(coveredTo, to);
  }
  return busy;
}

// Where the lane's level-0 bins start: the multiple of binNs at or before its first task.
double binOrigin(const trace::Trace& trace, LaneIndex lane, double binNs) {
  std::int64_t first = INT64_MAX;
  for (const trace::Task& task : trace.tasks())
    if (task.lane == lane) first = std::min(first, task.startNs);
  return std::floor(static_cast<double>(first) / binNs) * binNs;
}

TEST(LaneSummary, ColumnBusyTimeEqualsTheUnionOfTasksInTheColumn) {
  KeyedTrace f = randomTrace(7);
  LaneSummary summary(f.trace, f.keys);
  std::mt19937 rng(11);
  std::vector<ColumnSample> columns;
  int checked = 0;
  for (LaneIndex lane : {0u, 1u}) {
    double binNs = summary.binNs(lane);
    double origin = binOrigin(f.trace, lane, binNs);
    // The bins cover the lane: the last one holds its last busy nanosecond.
    std::int64_t laneEnd = 0;
    for (const trace::Task& task : f.trace.tasks())
      if (task.lane == lane) laneEnd = std::max(laneEnd, task.endNs);
    double lastEdge = origin + (std::floor((static_cast<double>(laneEnd) - 1 - origin) / binNs) + 1) * binNs;
    auto roundToBin = [&](double t) {
      return std::clamp(origin + std::round((t - origin) / binNs) * binNs, origin, lastEdge);
    };
    for (int query = 0; query < 12; ++query) {
      // Half the queries narrower than two bins, half wider.
      double nsPerPx = binNs * (query % 2 ? 1 + (rng() % 100) / 100.0 : 2 + (rng() % 4000) / 100.0);
      double from = static_cast<double>(rng() % 300000) - 5000 + (rng() % 1000) / 1000.0;
      std::size_t count = 40;
      ASSERT_TRUE(summary.resolves(lane, nsPerPx));
      summary.columns(lane, from, nsPerPx, count, SwimlaneColorMode::Label, columns);
      ASSERT_EQ(columns.size(), count);
      for (std::size_t c = 0; c < count; ++c) {
        double a = roundToBin(from + static_cast<double>(c) * nsPerPx);
        double b = roundToBin(from + static_cast<double>(c + 1) * nsPerPx);
        double expected = b > a ? bruteBusy(f.trace, lane, a, b) / (b - a) * nsPerPx : 0;
        EXPECT_NEAR(columns[c].busyNs, expected, 1e-6 * std::max(1.0, expected)) << "lane " << lane << " column " << c;
        EXPECT_EQ(columns[c].key == kNoColorKey, expected == 0) << "lane " << lane << " column " << c;
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 2 * 12 * 40);
  // busyNs over arbitrary windows, including ones starting before the lane.
  for (int query = 0; query < 200; ++query) {
    LaneIndex lane = query % 2;
    double a = static_cast<double>(rng() % 500000) - 20000;
    double b = a + static_cast<double>(rng() % 100000);
    double expected = bruteBusy(f.trace, lane, a, b);
    EXPECT_NEAR(summary.busyNs(lane, a, b), expected, 1e-6 * std::max(1.0, expected));
  }
  EXPECT_EQ(summary.busyNs(2, 0, 1e9), 0);
  EXPECT_FALSE(summary.resolves(2, 1e9));
}

// Columns exactly one level-0 bin wide and aligned to bins: each column's key
// is the key with the most task time in it (ties: the smaller key), for
// every colour mode.
TEST(LaneSummary, BinWideColumnsTakeTheDominantKey) {
  KeyedTrace f = randomTrace(5);
  LaneSummary summary(f.trace, f.keys);
  std::vector<ColumnSample> columns;
  for (LaneIndex lane : {0u, 1u}) {
    double binNs = summary.binNs(lane);
    // The documented rule: a power of two of at least four mean task spacings.
    std::int64_t first = INT64_MAX, last = INT64_MIN;
    std::size_t count = 0;
    for (const trace::Task& task : f.trace.tasks())
      if (task.lane == lane) {
        first = std::min(first, task.startNs);
        last = std::max(last, task.endNs);
        ++count;
      }
    double spacing = static_cast<double>(last - first) / static_cast<double>(count);
    EXPECT_GE(binNs, 4 * spacing);
    EXPECT_LT(binNs, 8 * spacing);
    EXPECT_EQ(std::exp2(std::round(std::log2(binNs))), binNs);
    double origin = std::floor(static_cast<double>(first) / binNs) * binNs;
    std::size_t columnCount = static_cast<std::size_t>((static_cast<double>(last) - origin) / binNs) + 1;
    for (int mode = 0; mode < kColorModeCount; ++mode) {
      summary.columns(lane, origin, binNs, columnCount, static_cast<SwimlaneColorMode>(mode), columns);
      for (std::size_t c = 0; c < columnCount; ++c) {
        double a = origin + static_cast<double>(c) * binNs;
        double b = a + binNs;
        std::map<std::uint32_t, double> timeOfKey;
        for (TaskIndex t = 0; t < f.trace.tasks().size(); ++t) {
          const trace::Task& task = f.trace.tasks()[t];
          if (task.lane != lane) continue;
          double overlap = std::min(b, static_cast<double>(task.endNs)) - std::max(a, static_cast<double>(task.startNs));
          if (overlap > 0) timeOfKey[f.keys[static_cast<std::size_t>(mode)][t]] += overlap;
        }
        if (timeOfKey.empty()) {
          EXPECT_EQ(columns[c].key, kNoColorKey);
          continue;
        }
        auto best = std::max_element(timeOfKey.begin(), timeOfKey.end(),
                                     [](const auto& x, const auto& y) { return x.second < y.second; });
        EXPECT_EQ(columns[c].key, best->first) << "lane " << lane << " mode " << mode << " column " << c;
      }
    }
  }
}

// Coarser columns: the key belongs to a task within one bin of the column.
TEST(LaneSummary, CoarseColumnsTakeAKeyFromNearby) {
  KeyedTrace f = randomTrace(9);
  LaneSummary summary(f.trace, f.keys);
  std::vector<ColumnSample> columns;
  for (double zoom : {3.0, 17.0, 250.0}) {
    LaneIndex lane = 0;
    double nsPerPx = summary.binNs(lane) * zoom;
    summary.columns(lane, -1000, nsPerPx, 64, SwimlaneColorMode::Subgraph, columns);
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].key == kNoColorKey) continue;
      double a = -1000 + static_cast<double>(c) * nsPerPx - nsPerPx;
      double b = a + 3 * nsPerPx;
      bool found = false;
      for (TaskIndex t = 0; t < f.trace.tasks().size() && !found; ++t) {
        const trace::Task& task = f.trace.tasks()[t];
        found = task.lane == lane && static_cast<double>(task.endNs) > a && static_cast<double>(task.startNs) < b &&
                f.keys[1][t] == columns[c].key;
      }
      EXPECT_TRUE(found) << "zoom " << zoom << " column " << c;
    }
  }
}

// The lane's own columns: position p of lane l is tasksByStart[p], read
// straight from the trace.
TEST(LaneSummary, LaneColumnsAreTheTasksInStartOrder) {
  KeyedTrace f = randomTrace(3);
  LaneSummary summary(f.trace, f.keys);
  for (LaneIndex lane : {0u, 1u}) {
    const auto& order = f.trace.lanes()[lane].tasksByStart;
    for (std::size_t pos = 0; pos < order.size(); ++pos) {
      trace::Task task = f.trace.tasks()[order[pos]];
      ASSERT_EQ(summary.startNs(lane, pos), task.startNs);
      ASSERT_EQ(summary.durNs(lane, pos), task.durNs());
      for (int mode = 0; mode < kColorModeCount; ++mode)
        ASSERT_EQ(summary.key(lane, pos, static_cast<SwimlaneColorMode>(mode)), f.keys[static_cast<std::size_t>(mode)][order[pos]]);
    }
  }
}

// longTasks: the tasks at least minDur long overlapping [from, to], against
// a filter over every task of the lane; the limit is honoured.
TEST(LaneSummary, LongTasksAreTheLongTasksInTheWindow) {
  KeyedTrace f = randomTrace(13);
  LaneSummary summary(f.trace, f.keys);
  std::mt19937 rng(17);
  std::vector<TaskIndex> found;
  int nonEmpty = 0;
  for (int query = 0; query < 60; ++query) {
    LaneIndex lane = query % 2;
    double from = static_cast<double>(rng() % 400000) - 10000;
    double to = from + static_cast<double>(rng() % 80000);
    double minDur = query % 3 == 0 ? 150000.0 : static_cast<double>(rng() % 900);
    std::vector<TaskIndex> expected;
    for (TaskIndex t = 0; t < f.trace.tasks().size(); ++t) {
      trace::Task task = f.trace.tasks()[t];
      if (task.lane == lane && static_cast<double>(task.durNs()) >= minDur && static_cast<double>(task.startNs) <= to &&
          static_cast<double>(task.endNs) >= from)
        expected.push_back(t);
    }
    ASSERT_TRUE(summary.longTasks(lane, from, to, minDur, 100000, found));
    std::sort(found.begin(), found.end());
    EXPECT_EQ(found, expected) << "query " << query;
    nonEmpty += expected.empty() ? 0 : 1;
    if (expected.size() > 3) {
      EXPECT_FALSE(summary.longTasks(lane, from, to, minDur, 2, found));
    }
  }
  EXPECT_GT(nonEmpty, 20);
}

} // namespace
} // namespace pto::widgets
