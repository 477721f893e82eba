// LaneLayout: the vertical layout of the swimlane — which display row holds
// which lane, where each row starts and how tall it is. Lanes without tasks
// can be collapsed: each run of consecutive idle lanes of one core kind
// becomes one thin row ("24 idle AIC lanes"), so a vector-only kernel does
// not spend half the height on empty cube lanes.
//
// Units: pixels from the top of the lane area (below the ruler), unscrolled.
#pragma once

#include "runtime/trace/Trace.h"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace pto::widgets {

struct LaneLayoutMetrics {
  double topMarginPx = 6;
  double laneHeightPx = 22;
  double laneGapPx = 4;      // below every row
  double kindGapPx = 10;     // extra, above a row whose core kind differs from the row before
  double idleRowHeightPx = 14;
};

struct LaneRow {
  double topPx = 0;
  double heightPx = 0;
  trace::LaneKind kind = trace::LaneKind::Other;
  // The lanes the row stands for, as positions [firstLane, lastLane) in the
  // display order; one lane for a normal row, one or more for an idle group.
  std::size_t firstLane = 0;
  std::size_t lastLane = 0;
  bool idleGroup = false;

  std::size_t laneCount() const { return lastLane - firstLane; }
};

class LaneLayout {
public:
  LaneLayout() = default;
  // `order`: lanes top to bottom; `kinds` and `taskCounts` indexed by lane.
  // With `collapseIdle`, lanes whose task count is 0 are grouped as above.
  LaneLayout(std::span<const trace::LaneIndex> order, std::span<const trace::LaneKind> kinds,
             std::span<const std::size_t> taskCounts, bool collapseIdle, LaneLayoutMetrics metrics = {});

  const std::vector<LaneRow>& rows() const { return m_rows; }
  const LaneLayoutMetrics& metrics() const { return m_metrics; }
  // The lane of a normal row, nullopt for an idle group.
  std::optional<trace::LaneIndex> laneOfRow(std::size_t row) const;
  // The row showing `lane` (its group's row when collapsed); nullopt if unknown.
  std::optional<std::size_t> rowOfLane(trace::LaneIndex lane) const;
  // The row containing y (unscrolled, from the top of the lane area); nullopt
  // in the gaps and outside.
  std::optional<std::size_t> rowAt(double yPx) const;
  // Bottom of the last row plus its gap (the scrollable height).
  double contentHeightPx() const { return m_contentHeightPx; }
  // How many lanes are folded into idle groups.
  std::size_t collapsedLaneCount() const { return m_collapsedLanes; }

private:
  LaneLayoutMetrics m_metrics;
  std::vector<LaneRow> m_rows;
  std::vector<trace::LaneIndex> m_order;
  std::vector<std::optional<std::size_t>> m_rowOfLane;
  double m_contentHeightPx = 0;
  std::size_t m_collapsedLanes = 0;
};

} // namespace pto::widgets
