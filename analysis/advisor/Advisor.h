// Advisor: rules that turn the symptoms of a run (its health report and
// compilation) into concrete changes of the project, each proven before it is
// proposed. A rule names its evidence, writes its change as a JSON patch
// (RFC 6902) of pto-project.json, and the advisor compiles and simulates the
// patched project (the kernel traced once, TracedProject) so that the
// predicted makespan is a simulated number, not a guess. A rule proposes only
// a change that makes the kernel faster; of the values it tries, the fastest.
//
// Rules (id: symptom -> change):
//   scheduling-bound-vector: many vector tasks of one label (or of none),
//     most shorter than a scheduler round, while vector cores sat idle with
//     tasks ready -> vec_nbuffer_setting for the label, or its DEFAULT for
//     unlabelled tasks (several tiles' work per task);
//   l1-reuse: cube tasks of one label (or of none) load the same GM region
//     (a shared operand) again and again -> cube_l1_reuse_setting for the
//     label, or its DEFAULT for unlabelled tasks;
//   wave-tail: a label's merged tasks end in a partial last wave (at most 3/4
//     of the cores busy) on the critical path -> the merge count that evens
//     the waves;
//   stitch: several device tasks while both core types sat idle with nothing
//     ready -> a larger stitch_function_max_num.
//   uneven-waves: the critical path waited for free cores behind a label's
//     tasks whose partial last wave costs at least 5 % of the makespan by the
//     wave arithmetic -> the cube tile (m, n) that makes its task count fill
//     its waves (or fewer, longer tasks), checked to fit L1/L0, estimated by
//     the wave arithmetic and simulated;
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
//   loop-barrier: a loop entered behind PyPTO's loop barrier
//     (submit_before_loop=True) although no task after the barrier shares
//     data with one before it, so the barrier only holds independent work
//     back -> a kernel edit, submit_before_loop=False (the one change that
//     lives in the kernel, not in pto-project.json).
// A tile rule patches the key that decides the op's tile: its call site when
// the project sets that, else its label. Dependencies themselves follow the
// regions tasks touch, so the only ordering without data is a barrier.
// AdvisorRules.cpp holds uneven-waves and the rules from small-m-matmul on but the barrier's,
// which is in AdvisorBarrierRule.cpp.
// `pto advise` lists them; `pto apply` applies one.
#pragma once

#include "analysis/report/HealthReport.h"
#include "analysis/run/ProjectRun.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// A change of the kernel's source, for what only the kernel says (a loop's
// submit_before_loop): on line `line` of `file` (as the kernel's location
// names it), the first occurrence of `before` becomes `after`.
struct KernelEdit {
  std::string file;
  int line = 0;
  std::string before, after;
};

// `source` with the edit made; nullopt when its line does not hold `before`
// (the kernel changed since the advice).
std::optional<std::string> applyKernelEdit(const std::string& source, const KernelEdit& edit);

// The traced program as the kernel traces with `edit` made, for the edits
// the advisor proposes (a loop's submit_before_loop=True turned off, at or
// just below the loop's line); nullopt for any other edit.
std::optional<TensorGraph> graphWithKernelEdit(const TensorGraph& graph, const KernelEdit& edit);

struct Suggestion {
  std::string id;        // stable for a project and its settings: "<rule>:<target>" ("l1-reuse:qk")
  std::string rule;      // the rule's id
  std::string title;     // one line: what to change
  std::string evidence;  // why, with numbers from the run
  nlohmann::json patch;  // RFC 6902 operations on pto-project.json (empty with a kernel edit)
  std::optional<KernelEdit> kernelEdit;
  double baselineUs = 0.0;
  double predictedUs = 0.0;  // the patched project, simulated
  // The rule's own estimate of the patched makespan before simulating it
  // (uneven-waves: the wave arithmetic), when the rule has one.
  std::optional<double> estimatedUs;
  // The values tried and their simulated makespans (for the report).
  std::vector<std::pair<std::string, double>> tried;
  // How sure the predicted gain is: the validated kind of change that backs
  // it, with how close the simulator came to the chip on it, or that no
  // validated case is of this kind (PredictionConfidence.h).
  std::string confidence;
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
// does not apply or the result is not a valid project; the project's own
// warnings are not repeated.
std::optional<OperatorProject> patchedProject(const OperatorProject& project, const nlohmann::json& patch,
                                              DiagnosticEngine& diags);

// `pto advise --json`: {baseline_us, bound, suggestions: [{id, rule, title,
// evidence, patch, kernel_edit (only with one), baseline_us, estimated_us
// (only with an estimate), predicted_us, gain, confidence, tried}]}.
nlohmann::ordered_json adviceJson(const Advice& advice);

} // namespace pto
