// Advisor: rules that turn the symptoms of a run (its health report and
// compilation) into concrete changes of the project, each proven before it is
// proposed. A rule names its evidence, writes its change as a JSON patch
// (RFC 6902) of pto-project.json, and the advisor compiles and simulates the
// patched project (the kernel traced once, TracedProject) so that the
// predicted makespan is a simulated number, not a guess. A rule proposes only
// a change that makes the kernel faster; of the values it tries, the fastest.
//
// Rules (id: symptom -> change):
//   scheduling-bound-vector: many vector tasks of one label, most shorter
//     than a scheduler round, while vector cores sat idle with tasks ready ->
//     vec_nbuffer_setting for the label (several tiles' work per task);
//   l1-reuse: cube tasks of one label load the same GM region (a shared
//     operand) again and again -> cube_l1_reuse_setting for the label;
//   wave-tail: a label's merged tasks end in a partial last wave (at most 3/4
//     of the cores busy) on the critical path -> the merge count that evens
//     the waves;
//   stitch: several device tasks while both core types sat idle with nothing
//     ready -> a larger stitch_function_max_num.
//   small-m-matmul: the matmuls of a cube tile key are cut into blocks of
//     fewer than 64 rows while the op has more -> a taller m in that key's
//     cube tile (aligned, fitting L1/L0 by TileBufferChecker);
//   consumer-finer-than-producer: a vector op reads tiles another subgraph
//     wrote to global memory in pieces at least 2 times smaller -> its vec
//     tile grown toward the producer's tile;
//   empty-subgraph: subgraphs that only move data (copies, assembles,
//     reshapes) -> copy folding back on when disable_pass turned it off, else
//     partition_overrides merging each into a subgraph of its core type that
//     reads or wrote the same region;
//   tile-near-capacity: a vector subgraph using >= 90 % of UB (or L1), so
//     not double-buffered -> a smaller vec tile;
//   low-double-buffer-overlap: tasks longer than a scheduler round whose
//     pipes are busy one after the other (summed 90 to 110 % of the task
//     time, the busiest <= 75 %) -> ooo_sched_mode 1 when it was 0, or more
//     tiles per task (vec/cube_nbuffer_setting).
// A tile rule patches the key that decides the op's tile: its call site when
// the project sets that, else its label. (No rule for false dependencies:
// dependencies follow the regions tasks touch, and no setting removes one.)
// AdvisorRules.cpp holds the rules from small-m-matmul on.
// `pto advise` lists them; `pto apply` applies one.
#pragma once

#include "analysis/HealthReport.h"
#include "analysis/ProjectRun.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct Suggestion {
  std::string id;        // stable for a project and its settings: "<rule>:<target>" ("l1-reuse:qk")
  std::string rule;      // the rule's id
  std::string title;     // one line: what to change
  std::string evidence;  // why, with numbers from the run
  nlohmann::json patch;  // RFC 6902 operations on pto-project.json
  double baselineUs = 0.0;
  double predictedUs = 0.0;  // the patched project, simulated
  // The values tried and their simulated makespans (for the report).
  std::vector<std::pair<std::string, double>> tried;
  double gain() const { return baselineUs > 0 ? 1.0 - predictedUs / baselineUs : 0.0; }
};

struct AdviceOptions {
  // A suggestion must gain at least this share of the makespan.
  double minimumGain = 0.01;
  // Called before each variant is simulated (progress); true cancels.
  std::function<bool()> cancelled;
};

struct Advice {
  double baselineUs = 0.0;
  std::string bound;  // the run's bound class
  std::vector<Suggestion> suggestions;  // best predicted gain first
  int variantsSimulated = 0;
  double adviseMs = 0.0;
};

// The baseline is `traced.project` as it stands. nullopt when the baseline
// does not compile or simulate (diagnostics say why).
std::optional<Advice> advise(const TracedProject& traced, DiagnosticEngine& diags, const AdviceOptions& options = {});

// `project` with `patch` applied to its document, re-read (so the result is
// checked as a loaded project is). nullopt with diagnostics when the patch
// does not apply or the result is not a valid project.
std::optional<OperatorProject> patchedProject(const OperatorProject& project, const nlohmann::json& patch,
                                              DiagnosticEngine& diags);

// `pto advise --json`: {baseline_us, bound, suggestions: [{id, rule, title,
// evidence, patch, baseline_us, predicted_us, gain, tried}]}.
nlohmann::ordered_json adviceJson(const Advice& advice);

} // namespace pto
