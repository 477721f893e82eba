// What the widget GUI tests share: a swimlane view or pane shown on a trace.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <QSize>
#include <QTest>

#include <fstream>
#include <memory>
#include <string>

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

// A Chrome trace of `tasks` complete events on 8 lanes, task i with taskId
// i, written to `path` (about 100 bytes per task): a large file for the
// load's progress, preview and cancel.
inline void writeGeneratedTrace(const std::string& path, int tasks) {
  std::ofstream out(path, std::ios::binary);
  out << "{\"traceEvents\":[\n";
  for (int lane = 0; lane < 8; ++lane)
    out << R"({"ph":"M","name":"thread_name","pid":1,"tid":)" << lane << R"(,"args":{"name":"AIV_)" << lane << "\"}},\n";
  for (int i = 0; i < tasks; ++i)
    out << R"({"ph":"X","name":"t","pid":1,"tid":)" << i % 8 << R"(,"ts":)" << (i / 8) << R"(,"dur":0.5,"args":{"taskId":)"
        << i << R"(,"label":"op"}},)" << "\n";
  out << R"({"ph":"C","name":"ReadyCount_Total","pid":1,"ts":0,"args":{"value":1}}]})" << "\n";
}

} // namespace pto::testing
