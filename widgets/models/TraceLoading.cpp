// Reading a swimlane file into a TraceIndex, with progress, cancel and a
// preview of a large file.
#include "widgets/models/TraceLoading.h"

#include "core/Diagnostics.h"
#include "core/Limits.h"
#include "runtime/trace/ChromeTraceReader.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>

namespace pto::widgets {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

// Reading is counted as this share of the load, indexing as the rest.
constexpr double kReadShare = 0.85;

bool isCancelled(const TraceLoadControl& control) { return control.cancelled && control.cancelled->load(); }

// The bar never moves back: the full read after a preview starts again at byte 0.
void reportFraction(const TraceLoadControl& control, double fraction) {
  if (!control.fraction) return;
  double shown = control.fraction->load();
  while (fraction > shown && !control.fraction->compare_exchange_weak(shown, fraction)) {
  }
}

struct ReadPass {
  std::optional<trace::Trace> trace;
  std::string error;
  bool cancelled = false;
  bool stoppedEarly = false;  // a preview: the file goes on
};

// One read of the file; with `stopAfterMs` > 0 it stops at that time if
// less than 70 % of the file has been read by then.
ReadPass readOnce(const std::filesystem::path& path, std::uintmax_t fileBytes, const TraceLoadControl& control,
                  Clock::time_point start, double stopAfterMs) {
  ReadPass pass;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    pass.error = path.string() + ": cannot open the file for reading";
    return pass;
  }
  trace::TraceReadProgress progress = [&](std::uint64_t bytesRead, std::size_t) {
    if (isCancelled(control)) {
      pass.cancelled = true;
      return trace::TraceReadStep::Cancel;
    }
    double read = fileBytes > 0 ? std::min(1.0, static_cast<double>(bytesRead) / static_cast<double>(fileBytes)) : 0.0;
    reportFraction(control, kReadShare * read);
    if (stopAfterMs > 0 && read < 0.7 && msSince(start) >= stopAfterMs) {
      pass.stoppedEarly = true;
      return trace::TraceReadStep::Stop;
    }
    return trace::TraceReadStep::Continue;
  };
  DiagnosticEngine diags;
  pass.trace = trace::readChromeTrace(in, diags, path.string(), progress);
  if (!pass.trace && !pass.cancelled) {
    for (const Diagnostic& diagnostic : diags.diagnostics()) {
      if (!pass.error.empty()) pass.error += '\n';
      pass.error += diags.format(diagnostic);
    }
    if (pass.error.empty()) pass.error = path.string() + ": not a readable swimlane trace";
  }
  return pass;
}

std::shared_ptr<const TraceIndex> indexOf(trace::Trace trace, const std::filesystem::path& path,
                                          const TraceLoadControl& control) {
  auto shared = std::make_shared<const trace::Trace>(std::move(trace));
  try {
    return std::make_shared<const TraceIndex>(shared, path.string(), std::vector<ErrorClass>{}, control.cancelled);
  } catch (const TraceIndexCancelled&) {
    return nullptr;
  }
}

TraceLoadResult cancelledResult() {
  TraceLoadResult result;
  result.cancelled = true;
  result.error = "cancelled";
  return result;
}

} // namespace

TraceLoadResult loadTraceFile(const std::filesystem::path& path, const TraceLoadControl& control) {
  TraceLoadResult result;
  auto start = Clock::now();
  // Checked before reading: a trace the size of a disk image is a wrong file, not a long wait.
  std::error_code sizeError;
  const std::uintmax_t bytes = std::filesystem::file_size(path, sizeError);
  if (!sizeError && static_cast<std::int64_t>(bytes) > limitValue(kTraceBytesLimit)) {
    result.error = path.string() + ": the file has " + std::to_string(bytes) + " bytes, " +
                   limitExceeded(kTraceBytesLimit);
    return result;
  }
  std::uintmax_t fileBytes = sizeError ? 0 : bytes;

  bool wantPreview = control.preview && control.previewAfterMs > 0;
  ReadPass pass = readOnce(path, fileBytes, control, start, wantPreview ? control.previewAfterMs : 0);
  if (pass.cancelled) return cancelledResult();
  if (!pass.trace) {
    result.error = pass.error;
    return result;
  }
  if (pass.stoppedEarly) {
    // A first picture of what was read, then the whole file.
    std::shared_ptr<const TraceIndex> preview = indexOf(std::move(*pass.trace), path, control);
    if (!preview) return cancelledResult();
    control.preview(std::move(preview));
    result.previewMs = msSince(start);
    pass = readOnce(path, fileBytes, control, start, 0);
    if (pass.cancelled) return cancelledResult();
    if (!pass.trace) {
      result.error = pass.error;
      return result;
    }
  }
  auto parsed = Clock::now();
  result.parseMs = std::chrono::duration<double, std::milli>(parsed - start).count();
  if (isCancelled(control)) return cancelledResult();
  reportFraction(control, kReadShare);
  result.index = indexOf(std::move(*pass.trace), path, control);
  if (!result.index) return cancelledResult();
  reportFraction(control, 1.0);
  result.indexMs = msSince(parsed);
  return result;
}

TraceLoadResult loadTraceFile(const std::filesystem::path& path, const std::atomic<bool>* cancelled) {
  TraceLoadControl control;
  control.cancelled = cancelled;
  return loadTraceFile(path, control);
}

} // namespace pto::widgets
