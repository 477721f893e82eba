// The swimlane's coordinate maths, free of Qt so it is unit-tested directly:
// the visible time window (time <-> pixel, zoom about a point, pan, fit), the
// range of a lane's tasks that can be visible (binary search over
// tasksByStart) and the folding of slices narrower than a few pixels into one
// drawn item.
//
// Units: times in nanoseconds (double for sub-ns zoom), x in pixels from the
// left edge of the time area (not of the widget).
#pragma once

#include "runtime/trace/Trace.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pto::widgets {

class SwimlaneCoordinates {
public:
  // Deepest zoom: 50 px per ns. Shallowest: the extent in a quarter of the width.
  static constexpr double kMinNsPerPx = 0.02;

  // The trace's time extent: fit() shows it, panning stays near it.
  void setExtent(std::int64_t startNs, std::int64_t endNs);
  // The width of the time area; the window keeps its start and scale.
  void setWidthPx(double widthPx);

  double widthPx() const { return m_widthPx; }
  double startNs() const { return m_startNs; }
  double endNs() const { return m_startNs + m_widthPx * m_nsPerPx; }
  double nsPerPx() const { return m_nsPerPx; }
  std::int64_t extentStartNs() const { return m_extentStartNs; }
  std::int64_t extentEndNs() const { return m_extentEndNs; }

  double xOf(double ns) const { return (ns - m_startNs) / m_nsPerPx; }
  double nsAt(double x) const { return m_startNs + x * m_nsPerPx; }

  // The whole extent with a small margin on both sides.
  void fit();
  // [fromNs, toNs] fills the width (clamped to the zoom limits, centred).
  void showRange(double fromNs, double toNs);
  // Scales by `factor` (> 1 zooms in) keeping the time under `x` in place.
  void zoomAbout(double x, double factor);
  // Moves the window by `dx` pixels (> 0 shows later times).
  void panPx(double dx);
  // Moves the window so `ns` is at the centre, keeping the scale.
  void centreOn(double ns);

  double maxNsPerPx() const;

private:
  void clamp();

  std::int64_t m_extentStartNs = 0;
  std::int64_t m_extentEndNs = 1000;
  double m_widthPx = 1000;
  double m_startNs = 0;
  double m_nsPerPx = 1;
};

// Positions [first, last) in `lane`'s tasksByStart of every task that may
// overlap [fromNs, toNs): tasks start in [fromNs - laneMaxDurNs, toNs]. The
// max-duration bound catches a long task that starts before the window but
// is still running in it; a few tasks that ended before fromNs may be
// included, never one that overlaps left out.
std::pair<std::size_t, std::size_t> visibleTaskRange(const trace::Trace& trace, trace::LaneIndex lane,
                                                      double fromNs, double toNs, std::int64_t laneMaxDurNs);

// One item to draw on a lane: the tasks at positions [first, last) of
// tasksByStart, spanning [x0, x1) pixels. `folded` items stand for one or
// more tasks each narrower than the minimum width, merged because they start
// within the same few pixels; a non-folded item is exactly one task.
struct SliceRun {
  std::size_t first = 0;
  std::size_t last = 0;
  double x0 = 0;
  double x1 = 0;
  bool folded = false;

  std::size_t count() const { return last - first; }
};

// Appends to `out` (cleared first) the items for the tasks at positions
// [first, last) of `lane`: tasks at least `minWidthPx` wide become their own
// item; a run of narrower ones whose starts fall within `minWidthPx` of the
// run's first start becomes one folded item found by binary search (so the
// cost is per drawn item, not per task). A folded item is at least
// `minWidthPx` wide. On a lane whose tasks do not overlap, every task is
// covered by exactly one item.
void foldSlices(const trace::Trace& trace, trace::LaneIndex lane, std::pair<std::size_t, std::size_t> positions,
                const SwimlaneCoordinates& coords, double minWidthPx, std::vector<SliceRun>& out);

} // namespace pto::widgets
