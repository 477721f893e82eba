// What the widget GUI tests share: a swimlane view or pane shown on a trace.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <QSize>
#include <QTest>

#include <memory>

namespace pto::testing {

// `widget` (a SwimlaneView or a SwimlanePane) resized to `size`, given `trace` and shown; false unless its
// window was exposed.
template <typename TraceWidget>
bool showOnTrace(TraceWidget& widget, QSize size, std::shared_ptr<const widgets::TraceIndex> trace) {
  widget.resize(size);
  widget.setTrace(std::move(trace));
  widget.show();
  return QTest::qWaitForWindowExposed(&widget);
}

} // namespace pto::testing
