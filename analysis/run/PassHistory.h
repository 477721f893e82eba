// PassHistory: a project compiled with the IR kept after every pass, for the
// IDE's pass viewer and graph views (what `pto passes` prints, as data).
// With `enable_pass_verify` the kernel also runs after each pass and the
// first pass whose result leaves the golden is marked.
#pragma once

#include "analysis/irviews/PassDiff.h"
#include "core/Diagnostics.h"
#include "core/project/OperatorProject.h"
#include "compiler/ir/TensorGraph.h"
#include "compiler/passes/Pipeline.h"

#include <nlohmann/json.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct PassStep {
  std::string name;
  double milliseconds = 0.0;
  bool changed = false;
  bool skipped = false;
  // The IR after the pass (a skipped pass shares its predecessor's).
  std::shared_ptr<const nlohmann::json> snapshot;
  std::array<LevelCounts, kIrLevelCount> counts{};
  std::vector<NodeChange> changes;  // against the step before (the first: against nothing)
  bool diverged = false;            // pass verify: its result left the golden
};

struct PassHistory {
  nlohmann::json tensor;  // the traced kernel (tensorGraphToJson); null when tracing failed
  std::shared_ptr<const TensorGraph> traced;  // the same, for checking partition edits without tracing again
  std::vector<PassStep> steps;
  int divergedAt = -1;     // the step pass verify stopped at, -1 when none
  std::string divergence;  // what it said
  int divergenceLine = 0;  // the kernel line of the op that writes the wrong output
  std::vector<Diagnostic> diagnostics;
  std::string problems;  // the diagnostics as the CLI prints them
  bool complete = false;  // every pass ran
  // Only the last step has its IR (PassHistoryDepth::FinalIr): the graph can
  // show at once while the snapshots of every pass are still being made.
  bool finalOnly = false;
  double hostMs = 0.0;
};

// Steps from the pass runner's records (with snapshots): parsed, each diffed
// against the one before. compilePassHistory ends with this; benchmarks and
// tools that compile on their own call it directly.
void appendPassSteps(PassHistory& history, std::vector<PassRecord> records);

// FinalIr: compile once and keep the IR after the last pass only (one
// snapshot instead of one per changed pass: for a kernel of thousands of
// tile ops, most of the time). EveryPass: a snapshot per pass, and pass
// verify when the project asks for it.
enum class PassHistoryDepth { FinalIr, EveryPass };

PassHistory compilePassHistory(const OperatorProject& project, const std::optional<std::string>& sourceText,
                               const std::function<bool()>& cancelled,
                               PassHistoryDepth depth = PassHistoryDepth::EveryPass);

// The step the partition is edited at: ApplyPartitionOverrides (the tile op
// indices of partition_overrides are counted there), -1 when not reached.
int partitionStep(const PassHistory& history);

// Whether `overrides` (a whole partition_overrides array) compiles for the
// project: empty when it does, else the compiler's reason (cycle, order,
// cube/vector data path, buffer capacity with bytes, a name that matches
// nothing). Compiles only up to ApplyPartitionOverrides.
std::string partitionOverridesProblem(const OperatorProject& project, const TensorGraph& traced,
                                      const nlohmann::ordered_json& overrides);

} // namespace pto
