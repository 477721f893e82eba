// Reading a swimlane file (PyPTO merged_swimlane.json or any Chrome trace)
// into a TraceIndex. Blocking and thread-safe: the IDE calls it on a worker
// thread, tests and benchmarks call it directly.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace pto::widgets {

struct TraceLoadResult {
  std::shared_ptr<const TraceIndex> index;  // null on failure
  std::string error;                        // the formatted diagnostics on failure
  bool cancelled = false;                   // stopped by the caller's flag (error is "cancelled")
  double parseMs = 0;
  double indexMs = 0;
  double previewMs = 0;  // from the start until the preview was handed over (0: none)
};

// How a load reports and is steered; every member is optional. The load
// touches these only through atomics and the callback, so a GUI thread can
// poll them while a worker loads.
struct TraceLoadControl {
  // Checked every few thousand events while reading and between the stages
  // of indexing: a cancelled load stops within a fraction of a second.
  const std::atomic<bool>* cancelled = nullptr;
  // The share of the work done, 0 to 1: reading is counted by bytes (the
  // first 85 %), indexing by stage.
  std::atomic<double>* fraction = nullptr;
  // A first picture of a large file: when reading is still under way after
  // previewAfterMs, the events read so far are indexed and handed to
  // `preview` (on the loading thread), then the whole file is read from the
  // start. A file read sooner gets no preview.
  double previewAfterMs = 0;
  std::function<void(std::shared_ptr<const TraceIndex>)> preview;
};

TraceLoadResult loadTraceFile(const std::filesystem::path& path, const TraceLoadControl& control);
// `cancelled` (may be null): see TraceLoadControl.
TraceLoadResult loadTraceFile(const std::filesystem::path& path, const std::atomic<bool>* cancelled = nullptr);

} // namespace pto::widgets
