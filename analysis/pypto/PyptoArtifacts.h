// PyPTO's own artifacts read as they are (docs/pypto-artifacts.md has the
// formats): the per-pass graph dumps compile_debug_mode writes
// (Pass_NNN_<pass>/Before_*.json, After_*.json), its health reports
// (*_TensorGraphHealthReport.json, *_TileGraphHealthReport.json,
// *_Block_Graph_Health_Report.json, *_ExecuteGraph_Health_Report.json), its
// chip swimlane (merged_swimlane.json) and the CA model's per-core
// instruction traces (trace_core<N>.json). Plain data, no Qt: `pto inspect`
// prints them and the IDE shows them (pass views, Health dock, swimlane).
#pragma once

#include "analysis/irviews/IrGraph.h"
#include "analysis/irviews/PassSteps.h"
#include "core/Diagnostics.h"
#include "runtime/trace/Trace.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class PyptoArtifactKind {
  PassDumps,      // a folder of Pass_NNN_<pass> folders (or one of them)
  GraphDump,      // one Before_/After_ graph JSON file
  HealthReport,   // one of the four health reports
  ChipSwimlane,   // merged_swimlane.json (Chrome trace of tasks per core)
  CoreTrace,      // trace_core<N>.json (Chrome trace of instructions per pipe of one core)
};
// "pass-dumps", "graph-dump", "health-report", "swimlane", "core-trace"
std::string_view name(PyptoArtifactKind kind);

// Which artifact `path` is, by its name and, for a folder, what it holds;
// nullopt when it is none of them.
std::optional<PyptoArtifactKind> pyptoArtifactKind(const std::filesystem::path& path);

// --- Graph dumps --------------------------------------------------------

// One graph JSON file PyPTO wrote ({"version", "functions": [...]}), as a
// graph of its operations: a node per operation (opmagic, opcode, semantic
// label, subgraph), an edge from the op writing a tensor (ooperands) to each
// op reading it (ioperands), a cluster per subgraph id >= 0.
struct PyptoGraphDump {
  std::filesystem::path file;
  std::string function;  // func_magicname (or rawname)
  std::shared_ptr<const IrGraph> graph;
  int tensors = 0;  // tensors the function lists
};

// The level of a function: its "graphtype" (0 tensor, 1 tile, 2 execute,
// 3 block), else the file name (_ROOT: execute, _LEAF_program_id_: block),
// else tile when an op carries tile shapes, else tensor.
std::optional<PyptoGraphDump> readPyptoGraphDump(const std::filesystem::path& file, DiagnosticEngine& diags);

// A folder of Pass_NNN_<pass> folders (or one Pass_ folder) as a pass
// history: a step per pass in NNN order, named "<pass>", holding the graph
// after it per level (its After_ dumps; the Before_ ones for a pass that
// wrote only those); the block level joins every _LEAF_ program of the pass,
// one cluster each. Steps carry no snapshot of ours (PassStep::graphs).
std::optional<PassHistory> readPyptoPassDumps(const std::filesystem::path& folder, DiagnosticEngine& diags);

// A graph dump as a history of one step (named after the file), for the
// views that show pass histories.
PassHistory pyptoSingleDumpHistory(const PyptoGraphDump& dump);

// --- Health reports -----------------------------------------------------

enum class PyptoHealthKind { TensorGraph, TileGraph, BlockGraph, ExecuteGraph };
std::string_view name(PyptoHealthKind kind);  // "tensor-graph", "tile-graph", "block-graph", "execute-graph"

// A report's fields flattened for a table: "pipeUsageRate.PIPE_V_Usage_Rate"
// -> "12.5"; arrays of numbers as "1, 2, 3"; arrays of objects one row per
// element and field ("spillDetails[0].spillTensorSize").
struct PyptoHealthRow {
  std::string section;  // "" for top-level scalars, else the top-level key
  std::string key;      // the field within the section ("" when the section is the value)
  std::string value;
};

struct PyptoHealthReport {
  std::filesystem::path file;
  PyptoHealthKind kind = PyptoHealthKind::TileGraph;
  std::string graph;  // the dump prefix the file name starts with (pass and function)
  IrJson json;        // the report as written
  std::vector<PyptoHealthRow> rows;
  // A few headline figures: "ops 160", "depth 12", "total cycles 5120".
  std::vector<std::string> headline;
};

std::optional<PyptoHealthKind> pyptoHealthKindOfFile(const std::filesystem::path& file);
std::optional<PyptoHealthReport> readPyptoHealthReport(const std::filesystem::path& file, DiagnosticEngine& diags);

// --- Traces -------------------------------------------------------------

// merged_swimlane.json or trace_core<N>.json as a swimlane. A core trace's
// lanes are its pipes; they are named "core<N> <pipe>" so that the traces
// of several cores can be told apart.
std::optional<trace::Trace> readPyptoTrace(const std::filesystem::path& file, DiagnosticEngine& diags);

// --- Any of them --------------------------------------------------------

struct PyptoArtifact {
  std::filesystem::path path;
  PyptoArtifactKind kind = PyptoArtifactKind::GraphDump;
  std::optional<PassHistory> passes;           // PassDumps
  std::optional<PyptoGraphDump> graph;         // GraphDump
  std::optional<PyptoHealthReport> health;     // HealthReport
  std::shared_ptr<const trace::Trace> trace;   // ChipSwimlane, CoreTrace
};

// Reads whatever PyPTO artifact `path` is; nullopt with an error naming the
// file (and line:column for bad JSON) when it is none or cannot be read.
std::optional<PyptoArtifact> readPyptoArtifact(const std::filesystem::path& path, DiagnosticEngine& diags);

// What it is in a few lines, for `pto inspect` and the IDE's status bar.
std::string pyptoArtifactSummary(const PyptoArtifact& artifact);
// The same as JSON: {"path", "kind", ...kind's figures}.
IrJson pyptoArtifactJson(const PyptoArtifact& artifact);

} // namespace pto
