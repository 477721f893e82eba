// Swimlane coordinate maths: window, visible range, folding.
#include "widgets/models/SwimlaneCoordinates.h"

#include <algorithm>
#include <cmath>

namespace pto::widgets {

void SwimlaneCoordinates::setExtent(std::int64_t startNs, std::int64_t endNs) {
  m_extentStartNs = startNs;
  // An empty or single-instant trace still gets a window to show.
  m_extentEndNs = std::max(endNs, startNs + 1);
  clamp();
}

void SwimlaneCoordinates::setWidthPx(double widthPx) {
  m_widthPx = std::max(widthPx, 1.0);
  clamp();
}

double SwimlaneCoordinates::maxNsPerPx() const {
  double span = static_cast<double>(m_extentEndNs - m_extentStartNs);
  return std::max(4 * span / m_widthPx, kMinNsPerPx);
}

void SwimlaneCoordinates::fit() {
  double span = static_cast<double>(m_extentEndNs - m_extentStartNs);
  double margin = span * 0.01;
  showRange(static_cast<double>(m_extentStartNs) - margin, static_cast<double>(m_extentEndNs) + margin);
}

void SwimlaneCoordinates::showRange(double fromNs, double toNs) {
  if (toNs < fromNs) std::swap(fromNs, toNs);
  double centre = (fromNs + toNs) / 2;
  m_nsPerPx = std::clamp((toNs - fromNs) / m_widthPx, kMinNsPerPx, maxNsPerPx());
  m_startNs = centre - m_nsPerPx * m_widthPx / 2;
  clamp();
}

void SwimlaneCoordinates::zoomAbout(double x, double factor) {
  if (!(factor > 0)) return;
  double anchorNs = nsAt(x);
  m_nsPerPx = std::clamp(m_nsPerPx / factor, kMinNsPerPx, maxNsPerPx());
  m_startNs = anchorNs - x * m_nsPerPx;
  clamp();
}

void SwimlaneCoordinates::panPx(double dx) {
  m_startNs += dx * m_nsPerPx;
  clamp();
}

void SwimlaneCoordinates::centreOn(double ns) {
  m_startNs = ns - m_nsPerPx * m_widthPx / 2;
  clamp();
}

void SwimlaneCoordinates::clamp() {
  m_nsPerPx = std::clamp(m_nsPerPx, kMinNsPerPx, maxNsPerPx());
  // Keep at least a tenth of the window over the extent, so the trace can
  // never be panned out of sight.
  double windowNs = m_widthPx * m_nsPerPx;
  double lowest = static_cast<double>(m_extentStartNs) - 0.9 * windowNs;
  double highest = static_cast<double>(m_extentEndNs) - 0.1 * windowNs;
  m_startNs = std::clamp(m_startNs, lowest, std::max(lowest, highest));
}

std::pair<std::size_t, std::size_t> visibleTaskRange(const trace::Trace& trace, trace::LaneIndex lane,
                                                      double fromNs, double toNs, std::int64_t laneMaxDurNs) {
  const auto& order = trace.lanes()[lane].tasksByStart;
  double lowestStart = fromNs - static_cast<double>(laneMaxDurNs);
  auto first = std::partition_point(order.begin(), order.end(), [&](trace::TaskIndex t) {
    return static_cast<double>(trace.taskStartNs(t)) < lowestStart;
  });
  auto last = std::partition_point(first, order.end(), [&](trace::TaskIndex t) {
    return static_cast<double>(trace.taskStartNs(t)) <= toNs;
  });
  return {static_cast<std::size_t>(first - order.begin()), static_cast<std::size_t>(last - order.begin())};
}

void foldSlices(const trace::Trace& trace, trace::LaneIndex lane, std::pair<std::size_t, std::size_t> positions,
                const SwimlaneCoordinates& coords, double minWidthPx, std::vector<SliceRun>& out) {
  out.clear();
  const auto& order = trace.lanes()[lane].tasksByStart;
  auto widthOf = [&](std::size_t pos) { return static_cast<double>(trace.taskDurNs(order[pos])) / coords.nsPerPx(); };
  std::size_t pos = positions.first;
  std::size_t last = positions.second;
  while (pos < last) {
    std::int64_t startNs = trace.taskStartNs(order[pos]);
    double x0 = coords.xOf(static_cast<double>(startNs));
    double x1 = coords.xOf(static_cast<double>(startNs + trace.taskDurNs(order[pos])));
    if (x1 - x0 >= minWidthPx) {
      out.push_back({pos, pos + 1, x0, x1, false});
      ++pos;
      continue;
    }
    // A fold: every task starting before the pixel boundary minWidthPx to the
    // right of this one (found by binary search). On a lane of disjoint
    // tasks a wide one among them reaches past the boundary, so only tasks
    // starting with it can follow: the last start's group (zero-length
    // tasks sort after a longer one with the same start). A wide task there
    // ends the fold and is drawn on its own.
    double boundaryNs = coords.nsAt(std::floor(x0) + minWidthPx);
    auto boundary = std::partition_point(order.begin() + static_cast<std::ptrdiff_t>(pos + 1),
                                         order.begin() + static_cast<std::ptrdiff_t>(last),
                                         [&](trace::TaskIndex t) { return static_cast<double>(trace.taskStartNs(t)) < boundaryNs; });
    std::size_t end = static_cast<std::size_t>(boundary - order.begin());
    std::int64_t lastStart = trace.taskStartNs(order[end - 1]);
    for (std::size_t tie = end - 1; tie > pos && trace.taskStartNs(order[tie]) == lastStart; --tie)
      if (widthOf(tie) >= minWidthPx) end = tie;
    double foldEndX = coords.xOf(static_cast<double>(trace.taskEndNs(order[end - 1])));
    double foldX0 = std::floor(x0);
    out.push_back({pos, end, foldX0, std::max(foldEndX, foldX0 + minWidthPx), true});
    pos = end;
  }
}

} // namespace pto::widgets
