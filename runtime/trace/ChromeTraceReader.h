// Streaming import of Chrome trace-event JSON: PyPTO's merged_swimlane.json
// and any trace with complete ("X") events.
#pragma once

#include "core/Diagnostics.h"
#include "runtime/trace/Trace.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace pto::trace {

// Reads `{"traceEvents":[…], …}` or a bare `[…]` one event at a time (memory
// proportional to the resulting Trace, not to the file):
// - lanes from (pid, tid), named by "thread_name" and ordered by
//   "thread_sort_index" metadata; AIC_n / AIV_n names set the lane kind;
// - tasks from X events; args taskId, seqNo, subgraph, label, source
//   ("file:line"), inputs, outputs, dispatchTs, pipes fill Task fields
//   (label and subgraph fall back to PyPTO's `seq-func-op-root-psg(label)`
//   name); every other arg and unknown top-level field is kept as a TaskArg;
// - dependencies from v1 flow pairs matched by id: "s" binds to the task
//   open on its lane at ts, "f" with "bp":"e" to the task open (starting) at
//   ts, "f" without it to the next task starting at or after ts;
// - counters from C events, one per arg ("name" alone if it has one arg,
//   else "name.arg").
// On malformed input reports exactly one error, located at file:line:col and
// naming the byte offset and event index ("traceEvents[12] at byte 3456:
// …"), and returns nullopt. The result is finalized.
//
// `progress`, when set, is called every few thousand events with the bytes
// and tasks read so far. It answers Continue; Cancel, after which the read
// returns nullopt and reports nothing (the caller asked for it); or Stop,
// after which the read ends at that event as if the file ended there: the
// result holds the events read (a preview of a large file) and the
// dependencies whose both ends were read, and the rest is not checked.
enum class TraceReadStep { Continue, Stop, Cancel };
using TraceReadProgress = std::function<TraceReadStep(std::uint64_t bytesRead, std::size_t tasksRead)>;
std::optional<Trace> readChromeTrace(std::istream& in, DiagnosticEngine& diags, const std::string& fileName,
                                     const TraceReadProgress& progress = {});

// Converts a JSON number in microseconds to integer nanoseconds (exact for
// up to 3 fractional digits, rounded beyond); nullopt when out of range.
std::optional<std::int64_t> microsTextToNs(std::string_view text);

} // namespace pto::trace
