// Export of a Trace as Chrome trace-event JSON in PyPTO's merged_swimlane
// layout, so a run opens in Perfetto and chrome://tracing.
#pragma once

#include "runtime/trace/Trace.h"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <string>

namespace pto::trace {

// Writes, streaming (no DOM), `{"traceEvents":[…]}` with:
// - process "Machine View" (pid kMachineViewPid); per lane a thread_name and
//   thread_sort_index metadata event, tid = lane index;
// - per task an X event, args: taskId, seqNo, subgraph, label, source
//   ("file:line"), inputs, outputs, dispatchTs, pipes ("PIPE@ts+dur;…" in
//   µs), then the task's extra args;
// - per dependency edge one v1 flow pair with a unique id: "s" on the
//   producer's lane at max(start, end - 1 ns) (at its start when that
//   would not bind back to it), "f" with "bp":"e" at the consumer's start;
// - counters as C events with args {"value": v}.
// Times are microseconds with exactly three fractional digits (exact ns).
// Preconditions: `trace` is finalized.
void writeChromeTrace(const Trace& trace, std::ostream& out);

// The same into `file`, written atomically (a temporary file renamed over
// it, so a failed export never leaves half a trace): what `pto run --trace`
// and the IDE's "Export Perfetto trace" call. False with the reason in
// `error` when the file cannot be written.
bool writeChromeTraceFile(const Trace& trace, const std::filesystem::path& file, std::string& error);

inline constexpr int kMachineViewPid = 1;

// "12.345" for 12345 ns: the exact µs text the exporter writes.
std::string formatMicros(std::int64_t ns);

} // namespace pto::trace
