// Reading a swimlane file into a TraceIndex.
#include "widgets/models/TraceLoading.h"

#include "core/Diagnostics.h"
#include "core/Limits.h"
#include "runtime/trace/ChromeTraceReader.h"

#include <chrono>
#include <fstream>

namespace pto::widgets {

TraceLoadResult loadTraceFile(const std::filesystem::path& path, const std::atomic<bool>* cancelled) {
  TraceLoadResult result;
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  // Checked before reading: a trace the size of a disk image is a wrong file, not a long wait.
  std::error_code sizeError;
  const auto bytes = std::filesystem::file_size(path, sizeError);
  if (!sizeError && static_cast<std::int64_t>(bytes) > limitValue(kTraceBytesLimit)) {
    result.error = path.string() + ": the file has " + std::to_string(bytes) + " bytes, " +
                   limitExceeded(kTraceBytesLimit);
    return result;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.error = path.string() + ": cannot open the file for reading";
    return result;
  }
  DiagnosticEngine diags;
  std::optional<trace::Trace> trace = trace::readChromeTrace(in, diags, path.string());
  auto t1 = Clock::now();
  result.parseMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (!trace) {
    for (const Diagnostic& diagnostic : diags.diagnostics()) {
      if (!result.error.empty()) result.error += '\n';
      result.error += diags.format(diagnostic);
    }
    if (result.error.empty()) result.error = path.string() + ": not a readable swimlane trace";
    return result;
  }
  if (cancelled && cancelled->load()) {
    result.error = "cancelled";
    return result;
  }
  auto shared = std::make_shared<const trace::Trace>(std::move(*trace));
  result.index = std::make_shared<const TraceIndex>(shared, path.string());
  result.indexMs = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  return result;
}

} // namespace pto::widgets
