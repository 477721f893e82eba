// Lane rows with idle lanes collapsed: row positions from the stated metrics
// (recomputed by hand here), grouping only consecutive idle lanes of one core
// kind, hit testing in rows and gaps, and lane → row lookups.
#include "widgets/models/LaneLayout.h"

#include <gtest/gtest.h>

namespace pto::widgets {
namespace {

using trace::LaneIndex;
using trace::LaneKind;

// 4 AIC lanes (idle, idle, busy, idle) then 3 AIV lanes (busy, idle, idle).
struct Lanes {
  std::vector<LaneIndex> order{0, 1, 2, 3, 4, 5, 6};
  std::vector<LaneKind> kinds{LaneKind::Aic, LaneKind::Aic, LaneKind::Aic, LaneKind::Aic,
                              LaneKind::Aiv, LaneKind::Aiv, LaneKind::Aiv};
  std::vector<std::size_t> tasks{0, 0, 5, 0, 9, 0, 0};
};

LaneLayoutMetrics metrics() {
  LaneLayoutMetrics m;
  m.topMarginPx = 6;
  m.laneHeightPx = 22;
  m.laneGapPx = 4;
  m.kindGapPx = 10;
  m.idleRowHeightPx = 14;
  return m;
}

TEST(LaneLayout, ExpandedEveryLaneHasItsRow) {
  Lanes l;
  LaneLayout layout(l.order, l.kinds, l.tasks, false, metrics());
  ASSERT_EQ(layout.rows().size(), 7u);
  // Rows at 6 + 26 i, plus 10 from the first AIV lane on.
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_DOUBLE_EQ(layout.rows()[i].topPx, 6 + 26.0 * static_cast<double>(i) + (i >= 4 ? 10 : 0)) << i;
    EXPECT_EQ(layout.laneOfRow(i), std::optional<LaneIndex>(static_cast<LaneIndex>(i)));
  }
  EXPECT_DOUBLE_EQ(layout.contentHeightPx(), 6 + 7 * 26.0 + 10);
  EXPECT_EQ(layout.collapsedLaneCount(), 0u);
}

TEST(LaneLayout, CollapsedIdleRunsOfOneKindShareAThinRow) {
  Lanes l;
  LaneLayout layout(l.order, l.kinds, l.tasks, true, metrics());
  // Rows: [AIC_0, AIC_1 idle] [AIC_2] [AIC_3 idle] | [AIV_4] [AIV_5, AIV_6 idle]
  ASSERT_EQ(layout.rows().size(), 5u);
  const auto& rows = layout.rows();
  EXPECT_TRUE(rows[0].idleGroup);
  EXPECT_EQ(rows[0].laneCount(), 2u);
  EXPECT_FALSE(rows[1].idleGroup);
  EXPECT_TRUE(rows[2].idleGroup);
  EXPECT_EQ(rows[2].laneCount(), 1u);
  EXPECT_FALSE(rows[3].idleGroup);
  EXPECT_TRUE(rows[4].idleGroup);
  EXPECT_EQ(rows[4].laneCount(), 2u);
  EXPECT_EQ(rows[4].kind, LaneKind::Aiv);
  double expectedTops[] = {6, 6 + 18, 6 + 18 + 26, 6 + 18 + 26 + 18 + 10, 6 + 18 + 26 + 18 + 10 + 26};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_DOUBLE_EQ(rows[i].topPx, expectedTops[i]) << i;
  EXPECT_DOUBLE_EQ(rows[0].heightPx, 14);
  EXPECT_DOUBLE_EQ(rows[1].heightPx, 22);
  EXPECT_DOUBLE_EQ(layout.contentHeightPx(), expectedTops[4] + 18);
  EXPECT_EQ(layout.collapsedLaneCount(), 5u);
  EXPECT_EQ(layout.laneOfRow(0), std::nullopt);
  EXPECT_EQ(layout.laneOfRow(1), std::optional<LaneIndex>(2));
  EXPECT_EQ(layout.laneOfRow(3), std::optional<LaneIndex>(4));
  EXPECT_EQ(layout.rowOfLane(1), std::optional<std::size_t>(0));
  EXPECT_EQ(layout.rowOfLane(6), std::optional<std::size_t>(4));
  EXPECT_EQ(layout.rowOfLane(99), std::nullopt);
}

TEST(LaneLayout, HitTestingFindsRowsAndNotGaps) {
  Lanes l;
  LaneLayout layout(l.order, l.kinds, l.tasks, true, metrics());
  EXPECT_EQ(layout.rowAt(0), std::nullopt);            // top margin
  EXPECT_EQ(layout.rowAt(6), std::optional<std::size_t>(0));
  EXPECT_EQ(layout.rowAt(19.9), std::optional<std::size_t>(0));
  EXPECT_EQ(layout.rowAt(21), std::nullopt);           // gap below the idle row (6 + 14 .. 6 + 18)
  EXPECT_EQ(layout.rowAt(24), std::optional<std::size_t>(1));
  EXPECT_EQ(layout.rowAt(45.9), std::optional<std::size_t>(1));
  EXPECT_EQ(layout.rowAt(46), std::nullopt);
  EXPECT_EQ(layout.rowAt(70), std::nullopt);           // the kind gap (68 .. 78)
  EXPECT_EQ(layout.rowAt(78), std::optional<std::size_t>(3));
  EXPECT_EQ(layout.rowAt(1e6), std::nullopt);
}

TEST(LaneLayout, EmptyAndAllBusy) {
  LaneLayout empty(std::span<const LaneIndex>(), std::span<const LaneKind>(), std::span<const std::size_t>(), true);
  EXPECT_TRUE(empty.rows().empty());
  EXPECT_EQ(empty.contentHeightPx(), 0);
  EXPECT_EQ(empty.rowAt(10), std::nullopt);
  Lanes l;
  l.tasks.assign(7, 1);
  LaneLayout busy(l.order, l.kinds, l.tasks, true, metrics());
  EXPECT_EQ(busy.rows().size(), 7u);
  EXPECT_EQ(busy.collapsedLaneCount(), 0u);
}

} // namespace
} // namespace pto::widgets
