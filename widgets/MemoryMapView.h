// MemoryMapView: one subgraph's on-chip memories over time (the Memory dock),
// drawn from analysis/report/MemoryMap.h, the struct `pto report --memory`
// prints. One panel per memory (UB; or L1, L0A, L0B, L0C): x is the
// instruction index of the program, y the offset in the memory, each buffer
// a box from its first to its last instruction over its bytes, labelled with
// its tile and kernel line where the label fits; ping-pong halves in two
// shades of the tile's colour (half 0 deep, half 1 pale, no half between),
// the peak instruction dashed, and the capacity as a red line. A header per
// memory gives capacity, peak, footprint and fragmentation. Hovering a box
// shows its name, line, offset, size and lifetime. The y range is the
// footprint with some room when that is under half the capacity (the boxes
// stay readable), else the capacity; double-click switches to the whole
// capacity and back. A thin view: the map is computed off the GUI thread.
#pragma once

#include "analysis/report/MemoryMap.h"
#include "widgets/ReportCanvas.h"

#include <QRectF>

#include <memory>
#include <vector>

namespace pto::widgets {

class MemoryMapView : public ReportCanvas {
  Q_OBJECT
public:
  explicit MemoryMapView(QWidget* parent = nullptr);

  // The map to draw (null: the message instead).
  void setMap(std::shared_ptr<const MemoryMap> map);
  const MemoryMap* map() const { return m_map.get(); }

  // Every memory's y range up to its capacity (true), or up to the footprint
  // with room when that is under half the capacity (false, the default).
  void setWholeCapacity(bool whole);
  bool wholeCapacity() const { return m_wholeCapacity; }

  // Buffers drawn as boxes at the view's size (those at least a pixel wide
  // and tall), over every memory.
  int boxCount() const;
  // The buffer whose box is under `point`, or null.
  const MemoryMapBuffer* bufferAt(QPointF point) const;
  // The tooltip text of `buffer` in `space`.
  static QString describe(const MemorySpaceMap& space, const MemoryMapBuffer& buffer);

  QSize sizeHint() const override { return {420, 360}; }
  QSize minimumSizeHint() const override { return {200, 120}; }

protected:
  void clearReport() override { m_map.reset(); }
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
  // Where one memory is drawn.
  struct Panel {
    const MemorySpaceMap* space = nullptr;
    QRectF header;  // its text line
    QRectF plot;    // the boxes' area
    std::int64_t topBytes = 1;  // the offset at the plot's top
  };
  std::vector<Panel> panels() const;
  QRectF boxRect(const Panel& panel, const MemoryMapBuffer& buffer) const;
  QString title() const;

  std::shared_ptr<const MemoryMap> m_map;
  bool m_wholeCapacity = false;
};

} // namespace pto::widgets
