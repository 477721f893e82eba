// Swimlanes measured on a chip, read for calibration: the tasks with their
// identity (device task, task id, subgraph, semantic label, loop indices)
// and their start and end times in microseconds.
//
// Formats (facts from PyPTO's tools/profiling and its device-side dump):
//  - Chrome trace JSON: PyPTO's merged_swimlane.json (ts/dur in µs; names
//    "seq-func-op-root-psg(label)"; PyPTO writes it with label_type=1, so the
//    parentheses hold the semantic label) and `pto run --trace` files (args
//    subgraph, label, loop). Read by trace::readChromeTrace.
//  - tilefwk_L1_prof_data*.json: a JSON array, one object per core
//    {blockIdx, coreType "AIC"/"AIV", tasks: [{seqNo, subGraphId, taskId,
//    execStart, execEnd}]}, times in ticks of the chip's system counter
//    (PyPTO divides by 50 on DAV_2201, i.e. A2/A3, and by 1000 on DAV_3510,
//    i.e. 950, to get µs). Beside it PyPTO writes dyn_topo.txt (one line per
//    task: seqNo, taskId, rootIndex, rootHash, opMagic, leafIndex, funcHash,
//    coreType, psgId, wrapId, successors...; lines starting with a letter are
//    headers) and program.json ({functions: [{hash, operations: [{opmagic,
//    semantic_label: {label}}]}]}): a task's label is the semantic label of
//    the operation `opMagic` in the function whose hash is `rootHash`. Without
//    them tasks have no label.
#pragma once

#include "core/Diagnostics.h"
#include "runtime/trace/Trace.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct MeasuredTask {
  std::int64_t seq = 0;     // device task (PyPTO seqNo)
  std::int64_t taskId = 0;  // within the trace; program order within a device task
  int subgraph = -1;        // -1: unknown
  std::string label;        // semantic label, "" when unknown
  std::string loop;         // "i=3, j=0", "" when unknown
  std::string lane;         // "AIV_3"
  double startUs = 0.0;
  double endUs = 0.0;
  double durUs() const { return endUs - startUs; }
};

enum class MeasuredFormat { ChromeTrace, PyptoL1Profile };
std::string_view name(MeasuredFormat format);  // "chrome-trace", "pypto-l1-prof"

struct MeasuredTrace {
  std::filesystem::path file;
  MeasuredFormat format = MeasuredFormat::ChromeTrace;
  std::vector<MeasuredTask> tasks;
  // Tasks the topology lists that the profile has no times for (PyPTO keeps a
  // bounded number of tasks per core); "seq-taskId" each.
  std::vector<std::string> missingFromProfile;
  std::vector<std::string> notes;  // what was read beside the file, or could not be
};

struct MeasuredTraceOptions {
  // Ticks per microsecond of a tilefwk_L1_prof_data file's counter (PyPTO:
  // 50 on A2/A3, 1000 on 950).
  double counterMHz = 50.0;
  // Multiplies every time read (a trace written in other units than µs).
  double timeScale = 1.0;
};

// nullopt with an error naming the file (and the event, JSON path or line)
// when the file cannot be read or holds no tasks.
std::optional<MeasuredTrace> readMeasuredTrace(const std::filesystem::path& file, const MeasuredTraceOptions& options,
                                               DiagnosticEngine& diags);

// The measured tasks as a swimlane (lanes by name, task i = tasks[i]; no
// dependencies), for views that draw it beside a simulated run.
trace::Trace swimlaneOf(const MeasuredTrace& measured);

// The profiling counter's rate PyPTO uses for a machine (by its name: 950*
// is DAV_3510 at 1000 MHz, everything else DAV_2201 at 50 MHz).
double pyptoCounterMHzFor(const std::string& machineName);

} // namespace pto
