// ReadyCountStrip: a step plot (QCustomPlot) of the trace's ReadyCount
// counters — tasks ready but not yet running, per core type and in total —
// drawn under the swimlane. It shows exactly the swimlane's visible time
// range with the same left margin (SwimlaneView::timeAreaLeftPx()), so a
// time is at the same x in both when they are equally wide (SwimlanePane
// keeps them so). Traces without these counters leave it empty (hasData()
// false); the pane hides it then.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <QSharedPointer>
#include <QWidget>

#include <memory>

class QCustomPlot;
class QCPAxisTickerFixed;
class QLabel;

namespace pto::widgets {

class ReadyCountStrip : public QWidget {
  Q_OBJECT
public:
  explicit ReadyCountStrip(QWidget* parent = nullptr);

  // Takes the ReadyCount_AIC, ReadyCount_AIV and ReadyCount_Total counters
  // of `index` (null: none).
  void setTrace(const std::shared_ptr<const TraceIndex>& index);
  bool hasData() const { return m_hasData; }
  // The visible time window, in ns, mapped onto [leftMarginPx, width).
  void setTimeRange(double fromNs, double toNs);
  void setLeftMarginPx(int px);
  // Number of plotted series (counters found), for tests.
  int seriesCount() const;

  QCustomPlot* plot() const { return m_plot; }
  QSize sizeHint() const override { return {900, 84}; }

protected:
  void changeEvent(QEvent* event) override;

private:
  void applyPalette();

  QCustomPlot* m_plot = nullptr;
  QSharedPointer<QCPAxisTickerFixed> m_ticker;
  QLabel* m_key = nullptr;  // which line is which, in the left margin
  bool m_hasData = false;
  int m_leftMarginPx = 96;
};

} // namespace pto::widgets
