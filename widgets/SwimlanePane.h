// SwimlanePane: the swimlane as the window shows it — the SwimlaneView with
// the ReadyCount strip under it, the strip following the view's visible time
// range (zoom, pan, resize) and hidden for traces without ReadyCount
// counters. Give the view its trace (setTrace on either); use view() for
// everything else.
#pragma once

#include "widgets/ReadyCountStrip.h"
#include "widgets/SwimlaneView.h"

#include <QWidget>

namespace pto::widgets {

class SwimlanePane : public QWidget {
  Q_OBJECT
public:
  explicit SwimlanePane(QWidget* parent = nullptr);

  SwimlaneView* view() const { return m_view; }
  ReadyCountStrip* readyStrip() const { return m_strip; }
  // The same as view()->setTrace(index).
  void setTrace(std::shared_ptr<const TraceIndex> index) { m_view->setTrace(std::move(index)); }

private:
  void onTraceChanged();
  void onViewChanged();

  SwimlaneView* m_view = nullptr;
  ReadyCountStrip* m_strip = nullptr;
};

} // namespace pto::widgets
