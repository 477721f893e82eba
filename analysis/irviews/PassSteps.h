// A compilation kept pass by pass, as plain data: each pass's IR, what it
// changed and what it counted. analysis/run/PassHistory.h makes one (it
// traces and compiles, so it needs Python); the IDE's graph views only read
// one, so they include this header and link no Python.
#pragma once

#include "analysis/irviews/IrGraph.h"
#include "analysis/irviews/PassDiff.h"
#include "compiler/ir/TensorGraph.h"
#include "compiler/passes/Pipeline.h"
#include "core/Diagnostics.h"

#include "analysis/irviews/IrJson.h"

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace pto {

struct PassStep {
  std::string name;
  double milliseconds = 0.0;
  bool changed = false;
  bool skipped = false;
  // The IR after the pass (a skipped pass shares its predecessor's).
  std::shared_ptr<const IrJson> snapshot;
  std::array<LevelCounts, kIrLevelCount> counts{};
  std::vector<NodeChange> changes;  // against the step before (the first: against nothing)
  bool diverged = false;            // pass verify: its result left the golden
  // Read from another compiler's dumps (PyPTO's compile_debug_mode,
  // analysis/pypto): no snapshot of ours, each level already a graph (by
  // GraphLevel; null where the pass dumped none).
  std::array<std::shared_ptr<const IrGraph>, 4> graphs{};
};

struct PassHistory {
  IrJson tensor;  // the traced kernel (tensorGraphToJson); null when tracing failed
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
  // The folder of PyPTO pass dumps it was read from ("" when compiled here):
  // the steps hold graphs, not snapshots, and there is no run.
  std::string importedFrom;
};

// Steps from the pass runner's records (with snapshots): parsed, each diffed
// against the one before. compilePassHistory ends with this; benchmarks and
// tools that compile on their own call it directly.
void appendPassSteps(PassHistory& history, std::vector<PassRecord> records);

// The step the partition is edited at: ApplyPartitionOverrides (the tile op
// indices of partition_overrides are counted there), -1 when not reached.
int partitionStep(const PassHistory& history);

} // namespace pto
