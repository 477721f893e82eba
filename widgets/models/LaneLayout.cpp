// Lane rows, with idle lanes collapsed into groups.
#include "widgets/models/LaneLayout.h"

#include <algorithm>

namespace pto::widgets {

LaneLayout::LaneLayout(std::span<const trace::LaneIndex> order, std::span<const trace::LaneKind> kinds,
                       std::span<const std::size_t> taskCounts, bool collapseIdle, LaneLayoutMetrics metrics)
    : m_metrics(metrics), m_order(order.begin(), order.end()) {
  m_rowOfLane.assign(kinds.size(), std::nullopt);
  double y = metrics.topMarginPx;
  for (std::size_t pos = 0; pos < order.size();) {
    trace::LaneIndex lane = order[pos];
    trace::LaneKind kind = kinds[lane];
    if (!m_rows.empty() && m_rows.back().kind != kind) y += metrics.kindGapPx;
    LaneRow row;
    row.topPx = y;
    row.kind = kind;
    row.firstLane = pos;
    bool idle = taskCounts[lane] == 0;
    if (collapseIdle && idle) {
      std::size_t end = pos + 1;
      while (end < order.size() && taskCounts[order[end]] == 0 && kinds[order[end]] == kind) ++end;
      row.lastLane = end;
      row.idleGroup = true;
      row.heightPx = metrics.idleRowHeightPx;
      m_collapsedLanes += end - pos;
    } else {
      row.lastLane = pos + 1;
      row.heightPx = metrics.laneHeightPx;
    }
    for (std::size_t p = row.firstLane; p < row.lastLane; ++p) m_rowOfLane[order[p]] = m_rows.size();
    pos = row.lastLane;
    y += row.heightPx + metrics.laneGapPx;
    m_rows.push_back(row);
  }
  m_contentHeightPx = m_rows.empty() ? 0 : y;
}

std::optional<trace::LaneIndex> LaneLayout::laneOfRow(std::size_t row) const {
  if (row >= m_rows.size() || m_rows[row].idleGroup) return std::nullopt;
  return m_order[m_rows[row].firstLane];
}

std::optional<std::size_t> LaneLayout::rowOfLane(trace::LaneIndex lane) const {
  return lane < m_rowOfLane.size() ? m_rowOfLane[lane] : std::nullopt;
}

std::optional<std::size_t> LaneLayout::rowAt(double yPx) const {
  auto next = std::upper_bound(m_rows.begin(), m_rows.end(), yPx,
                               [](double y, const LaneRow& row) { return y < row.topPx; });
  if (next == m_rows.begin()) return std::nullopt;
  std::size_t row = static_cast<std::size_t>(next - m_rows.begin()) - 1;
  if (yPx >= m_rows[row].topPx + m_rows[row].heightPx) return std::nullopt;
  return row;
}

} // namespace pto::widgets
