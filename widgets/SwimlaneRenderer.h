// SwimlaneRenderer: paints a trace's swimlane — lane headers, time ruler,
// task slices (narrow ones folded), selection, search matches, critical
// path, dependency arrows, measure band, colour legend — into any QPainter
// (a widget, a QImage, a QSvgGenerator), from a SwimlaneState. It owns no
// input handling: SwimlaneView drives it on screen, the benchmark into a
// QImage. Geometry queries (lane rows, hit testing) live here too so
// painting and picking always agree.
//
// Dense lanes: where a lane has more than one visible task per four pixels,
// slices narrower than kMinSliceWidthPx are drawn per pixel column, shaded
// by how busy the column is and coloured by its dominant key: from the
// visible tasks at up to kTasksPerColumnFromSummary tasks per pixel, above
// that from the trace's LaneSummary (exact busy time, dominant colour from
// its pyramid), so a frame costs per pixel, not per task. Tasks wide enough
// to stand alone are drawn one by one on top.
#pragma once

#include "widgets/models/LabelPalette.h"
#include "widgets/models/LaneLayout.h"
#include "widgets/models/SwimlaneColorMode.h"
#include "widgets/models/SwimlaneCoordinates.h"
#include "widgets/models/TraceIndex.h"

#include <QColor>
#include <QPalette>
#include <QFont>
#include <QRect>
#include <QStaticText>
#include <QSize>

#include <array>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

class QPainter;

namespace pto::widgets {

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
  bool showLegend = true;  // the colour legend along the bottom
};

// One entry of the colour legend: a colour, what it means, and the busy
// time of the tasks it stands for (the legend lists the busiest first).
struct LegendEntry {
  QColor color;
  QString text;
  std::int64_t busyNs = 0;
};

class SwimlaneRenderer {
public:
  static constexpr int kRulerHeightPx = 28;
  static constexpr int kHeaderWidthPx = 96;
  static constexpr int kLaneHeightPx = 22;
  static constexpr int kLaneGapPx = 4;     // between lanes
  static constexpr int kKindGapPx = 10;    // extra gap where the core type changes
  static constexpr int kIdleRowHeightPx = 14;  // a group of collapsed idle lanes
  static constexpr int kLegendHeightPx = 22;
  static constexpr double kMinSliceWidthPx = 3;
  // A dense lane's columns come from its LaneSummary above this many visible
  // tasks per pixel, from the visible tasks below it.
  static constexpr std::size_t kTasksPerColumnFromSummary = 4;

  void setTrace(std::shared_ptr<const TraceIndex> index);
  const std::shared_ptr<const TraceIndex>& traceIndex() const { return m_index; }
  void setPalette(const QPalette& palette);
  const QPalette& palette() const { return m_palette; }
  // Lanes without tasks shrink to one thin row per run of them (default on).
  void setCollapseIdleLanes(bool collapse);
  bool collapsesIdleLanes() const { return m_collapseIdle; }
  const LaneLayout& layout() const { return m_layout; }
  // Dense lanes from the LaneSummary (default on; off paints every fold
  // from the tasks, for comparisons).
  void setUseLaneSummary(bool use) { m_useSummary = use; }
  // What the empty view says (no trace); empty restores the default.
  void setEmptyMessage(const QString& message) { m_emptyMessage = message; }

  // The time area of a widget of `size`: right of the lane headers, below the ruler.
  static QRect timeArea(QSize size);
  // Total height of all lanes (for the vertical scroll range), the legend included.
  int contentHeightPx() const;
  // Top y of display row `row` (widget coordinates, scrolled).
  double rowTopPx(std::size_t row, const SwimlaneState& state) const;
  // The display row at widget y, or nullopt between or outside rows.
  std::optional<std::size_t> rowAt(double y, const SwimlaneState& state) const;
  std::optional<std::size_t> rowOfLane(LaneIndex lane) const;
  // The lane of a display row (nullopt for a group of idle lanes).
  std::optional<LaneIndex> laneOfRow(std::size_t row) const { return m_layout.laneOfRow(row); }
  // The task drawn under `point`: the one containing it, else the nearest
  // within 3 px (so folded and zero-length tasks can be picked).
  TaskIndex taskAt(QPointF point, QSize size, const SwimlaneState& state) const;
  // Widget-coordinate rectangle of a task (may lie outside the widget).
  QRectF taskRect(TaskIndex task, QSize size, const SwimlaneState& state) const;

  QColor taskColor(TaskIndex task, SwimlaneColorMode mode) const;
  // The colour of a LaneSummary/TraceIndex colour key in `mode`.
  QColor keyColor(std::uint32_t key, SwimlaneColorMode mode) const;
  // What the colours mean in `mode`, busiest first.
  std::vector<LegendEntry> legend(SwimlaneColorMode mode) const;

  void paint(QPainter& painter, QSize size, const SwimlaneState& state) const;

  // How many items the last paint drew and how many tasks they stood for.
  std::size_t lastItemCount() const { return m_lastItems; }
  std::size_t lastTaskCount() const { return m_lastTasks; }

private:
  struct LaneContext;
  void rebuildLayout();
  void paintLanes(QPainter& painter, QSize size, const SwimlaneState& state) const;
  // Appends a dense lane's column spans and its wide tasks; false when the
  // lane is better walked task by task at this zoom.
  bool summariseLane(LaneIndex lane, std::pair<std::size_t, std::size_t> range, const LaneContext& context) const;
  // m_columns and m_wide from the tasks at positions `range` of the lane.
  void columnsFromTasks(LaneIndex lane, std::pair<std::size_t, std::size_t> range, int firstColumn,
                        std::size_t columnCount, const LaneContext& context) const;
  void paintIdleRow(QPainter& painter, const LaneRow& row, double top, QRect area) const;
  void paintLegend(QPainter& painter, QSize size, const SwimlaneState& state) const;
  const std::vector<LegendEntry>& cachedLegend(SwimlaneColorMode mode) const;
  void paintOverlays(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintArrows(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintRuler(QPainter& painter, QSize size, const SwimlaneState& state) const;
  void paintHeaders(QPainter& painter, QSize size, const SwimlaneState& state) const;
  bool isDark() const;

  std::shared_ptr<const TraceIndex> m_index;
  QPalette m_palette;
  bool m_collapseIdle = true;
  bool m_useSummary = true;
  QString m_emptyMessage;
  LaneLayout m_layout;
  std::vector<QRgb> m_labelRgb;               // by label StringId
  mutable std::vector<ColumnSample> m_columns;  // scratch
  // Scratch of columnsFromTasks: per column, covered pixels and up to four
  // colour keys with the pixels each covers.
  struct ColumnAccumulator {
    float coveredPx = 0;
    std::uint8_t used = 0;
    std::array<std::uint32_t, 4> keys{};
    std::array<float, 4> px{};
  };
  mutable std::vector<ColumnAccumulator> m_accumulators;
  mutable std::vector<TaskIndex> m_wide;  // scratch: a dense lane's tasks wide enough to draw whole
  mutable std::vector<QRgb> m_rowPixels;        // scratch: a dense lane's image row
  // Slice names laid out once: key (StringId << 20) | (0 full, else width step + 1).
  mutable std::unordered_map<std::uint64_t, QStaticText> m_textCache;
  mutable QFont m_textFont;
  // Column colours (premultiplied) by (key, mode, busy level, dimmed): few
  // distinct values, asked for once per column per frame.
  struct ColumnColor {
    std::uint64_t key = 0;
    QRgb rgb = 0;
    bool valid = false;
  };
  static constexpr int kColumnColorBits = 10;
  mutable std::array<ColumnColor, 1u << kColumnColorBits> m_columnRgb{};
  mutable std::optional<std::vector<LegendEntry>> m_legend[kColorModeCount];  // per colour mode, on first use
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
