// SwimlaneRenderer: paints a trace's swimlane — lane headers, time ruler,
// task slices (narrow ones folded), selection, search matches, critical
// path, dependency arrows, measure band — into any QPainter, from a
// SwimlaneState. It owns no input handling: SwimlaneView drives it on
// screen, the benchmark into a QImage. Geometry queries (lane rows, hit
// testing) live here too so painting and picking always agree.
#pragma once

#include "widgets/models/LabelPalette.h"
#include "widgets/models/SwimlaneCoordinates.h"
#include "widgets/models/TraceIndex.h"

#include <QColor>
#include <QPalette>
#include <QRect>
#include <QSize>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace pto::widgets {

enum class SwimlaneColorMode { Label, Subgraph };

// Everything that changes between frames besides the trace.
struct SwimlaneState {
  SwimlaneCoordinates coords;
  double scrollYPx = 0;  // lanes scrolled up by this many pixels
  SwimlaneColorMode colorMode = SwimlaneColorMode::Label;
  TaskIndex selected = trace::kNoTask;
  TaskIndex hovered = trace::kNoTask;
  std::vector<DependencyEdge> arrows;  // of the selected task
  bool showCriticalPath = false;
  std::vector<TaskIndex> highlighted;  // search matches or a source line's tasks, sorted
  std::optional<std::pair<double, double>> measureNs;  // an interval being measured
  std::optional<std::pair<double, double>> boxZoomPx;  // x range being box-zoomed
};

class SwimlaneRenderer {
public:
  static constexpr int kRulerHeightPx = 28;
  static constexpr int kHeaderWidthPx = 96;
  static constexpr int kLaneHeightPx = 22;
  static constexpr int kLaneGapPx = 4;     // between lanes
  static constexpr int kKindGapPx = 10;    // extra gap where the core type changes
  static constexpr double kMinSliceWidthPx = 3;

  void setTrace(std::shared_ptr<const TraceIndex> index);
  const std::shared_ptr<const TraceIndex>& traceIndex() const { return m_index; }
  void setPalette(const QPalette& palette) { m_palette = palette; }

  // The time area of a widget of `size`: right of the lane headers, below the ruler.
  static QRect timeArea(QSize size);
  // Total height of all lanes (for the vertical scroll range).
  int contentHeightPx() const;
  // Top y of display row `row` (widget coordinates, scrolled).
  double rowTopPx(std::size_t row, const SwimlaneState& state) const;
  // The display row at widget y, or nullopt between or outside lanes.
  std::optional<std::size_t> rowAt(double y, const SwimlaneState& state) const;
  std::optional<std::size_t> rowOfLane(LaneIndex lane) const;
  // The task drawn under `point`: the one containing it, else the nearest
  // within 3 px (so folded and zero-length tasks can be picked).
  TaskIndex taskAt(QPointF point, QSize size, const SwimlaneState& state) const;
  // Widget-coordinate rectangle of a task (may lie outside the widget).
  QRectF taskRect(TaskIndex task, QSize size, const SwimlaneState& state) const;

  QColor taskColor(TaskIndex task, SwimlaneColorMode mode) const;

  void paint(QPainter& painter, QSize size, const SwimlaneState& state) const;

  // How many items the last paint drew and how many tasks they stood for.
  std::size_t lastItemCount() const { return m_lastItems; }
  std::size_t lastTaskCount() const { return m_lastTasks; }

private:
  void paintLanes(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintOverlays(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintArrows(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintRuler(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintHeaders(QPainter& painter, QSize size, const SwimlaneState& state) const;
  bool isDark() const;

  std::shared_ptr<const TraceIndex> m_index;
  QPalette m_palette;
  std::vector<double> m_rowOffsetPx;          // top of each display row, unscrolled, from the ruler
  std::vector<std::optional<std::size_t>> m_rowOfLane;
  std::vector<QRgb> m_labelRgb;               // by label StringId
  mutable std::vector<SliceRun> m_runs;       // scratch, reused between frames
  // Fill rectangles batched by colour: one drawRects per colour instead of
  // one fillRect per item (scratch, capacity kept between frames).
  mutable std::vector<std::pair<QRgb, std::vector<QRect>>> m_fillBatches;
  struct LabelledSlice {
    QRect rect;
    TaskIndex task;
    QColor fill;
  };
  mutable std::vector<LabelledSlice> m_labelled;
  mutable std::size_t m_lastItems = 0;
  mutable std::size_t m_lastTasks = 0;
};

// A Rgb from the shared palette as a QColor.
QColor toQColor(Rgb rgb);

} // namespace pto::widgets
