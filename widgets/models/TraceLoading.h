// Reading a swimlane file (PyPTO merged_swimlane.json or any Chrome trace)
// into a TraceIndex. Blocking and thread-safe: the IDE calls it on a worker
// thread, tests and benchmarks call it directly.
#pragma once

#include "widgets/models/TraceIndex.h"

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

namespace pto::widgets {

struct TraceLoadResult {
  std::shared_ptr<const TraceIndex> index;  // null on failure
  std::string error;                        // the formatted diagnostics on failure
  double parseMs = 0;
  double indexMs = 0;
};

// `cancelled` (may be null) is checked between the parse and the indexing;
// a cancelled load returns no index and the error "cancelled".
TraceLoadResult loadTraceFile(const std::filesystem::path& path, const std::atomic<bool>* cancelled = nullptr);

} // namespace pto::widgets
