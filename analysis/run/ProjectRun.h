// Running an operator project end to end: trace the kernel, make the
// arguments, compute the golden, execute, compare. `pto run` and the IDE's
// Run both call this.
#pragma once

#include "analysis/simulation/PrecisionCompare.h"
#include "analysis/simulation/Simulation.h"
#include "compiler/frontend/ProjectTrace.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/passes/StageKey.h"
#include "core/HostTensor.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

// Whether a run computes the golden and compares the outputs with it.
// Auto: always in functional mode; in timing mode only when the kernel's
// arithmetic is small enough to execute on the CPU in about a second
// (kAutoCheckMultiplyAdds), since a full-size timing run would otherwise
// spend minutes on the CPU for what the timeline does not need.
enum class PrecisionCheck { Auto, Always, Never };
constexpr double kAutoCheckMultiplyAdds = 1e9;

struct ProjectRunOptions {
  ProjectTraceOptions trace;
  CompileOptions compile;
  // `pto run --machine`: overrides the project's machine.
  std::string machineOverride;
  SimulationMode mode = SimulationMode::Timing;
  PrecisionCheck check = PrecisionCheck::Auto;
  // Called on the running thread as each stage begins ("tracing",
  // "computing the golden", "compiling", "simulating", "checking"), for a
  // progress display.
  std::function<void(std::string_view stage)> onStage;
  // Called with the traced graph as soon as tracing succeeds, so a caller
  // still has it when a later stage fails (the IDE's tuning panel lists the
  // kernel's tile sites even when the shapes do not compile).
  std::function<void(const TensorGraph& traced)> onTraced;
  // Called as soon as the timeline exists, before the golden and the
  // precision check (which can take longer than compiling and simulating
  // together): the IDE shows the new swimlane without waiting for them.
  std::function<void(const CompileResult& compiled, const Simulation& simulation)> onSimulated;
};

struct OutputResult {
  std::string name;
  HostTensor actual;
  HostTensor expected;
  std::string goldenSource;  // "reference", "reference, staged" (StagedGolden.h) or the .npy path
  OutputComparison comparison;
};

struct ProjectRunResult {
  TensorGraph graph;
  std::vector<HostTensor> arguments;  // final contents, in graph argument order
  std::vector<std::string> argumentNames;
  std::vector<OutputResult> outputs;
  // What produced `actual`: "functional" (the simulator on the data) or
  // "tiles" (timing mode: the tile graph on the CPU).
  std::string executor;
  std::optional<CompileResult> compiled;
  std::optional<Simulation> simulation;
  // The machine it was compiled and simulated for (a --machine file path
  // included): what reports on the run must use, not a lookup by name.
  std::optional<MachineDescription> machine;
  // The runtime settings it was simulated with (the project's and the
  // kernel's runtime_options): what simulating it again on another machine needs.
  TimingRunOptions runtime;
  // The arithmetic executing the kernel takes (multiply-adds for matmuls,
  // one per element for the rest), over every task.
  double multiplyAdds = 0.0;
  // Empty when the outputs were checked; otherwise why not (`pto run` says so).
  std::string precisionSkipped;
  // The golden was staged (StagedGolden.h): later stages read the kernel's own values of `handedOver`.
  bool stagedGolden = false;
  std::vector<std::string> handedOver;
  // Why a kernel that reads its own outputs was still judged on the chained golden; empty otherwise.
  std::string stagedNote;
  double traceMs = 0.0;
  double compileMs = 0.0;
  double goldenMs = 0.0;
  double executeMs = 0.0;
  double simulateMs = 0.0;
  bool pass() const;
};

// nullopt when the run could not complete (diagnostics say why); a run whose
// outputs miss their golden still returns a result, with pass() false.
// The settings a project compiles its traced graph with: dynamic dims bound
// from the argument shapes, the project's tile settings and pass options.
// The machine is found by the project's "machine" name; an unknown name is an
// error listing the machines there are.
std::optional<CompileSettings> compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                                  const std::vector<HostTensor>& arguments, DiagnosticEngine& diags);
// The same with the dims' bindings already made (dynamicDimBindings of the
// graph and its arguments), which a sweep's points share.
CompileSettings compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                   Bindings bindings, const MachineDescription& machine);
// The same for a machine already loaded (pto run --machine may replace the project's).
CompileSettings compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                   const std::vector<HostTensor>& arguments, const MachineDescription& machine);

// Tensors of the project's argument shapes and dtypes, zero-filled (calloc:
// no cost until written): what compiling needs to bind the dynamic dims
// when no data is needed. Arguments whose elements `graph` reads as scalars
// (loop bounds, offsets: graph.elementReadArguments) hold the project's
// data instead, since compiling binds their values; a failure to make that
// data is an error in `diags` (the tensor stays zero-filled).
std::vector<HostTensor> argumentShapes(const OperatorProject& project, const TensorGraph& graph, DiagnosticEngine& diags);

// The arithmetic of executing `compilation` once: per task, its subgraph's
// tile ops (a matmul m*k*n multiply-adds, any other op one per output element).
double multiplyAddsOf(const Compilation& compilation);

std::optional<ProjectRunResult> runProject(const OperatorProject& project, DiagnosticEngine& diags,
                                           const ProjectRunOptions& options = {});

// A project's kernel traced once, to be compiled and simulated under other
// settings (the advisor's predictions, the tuner's points): settings change
// what the compiler and the runtime do, not what the kernel traces, so no
// point traces again. `arguments` are argumentShapes (data only where the
// kernel reads elements).
struct TracedProject {
  OperatorProject project;
  TensorGraph graph;
  std::vector<HostTensor> arguments;
  double traceMs = 0.0;
  // The kernel text traced when it was not the file's (the IDE's unsaved
  // editor): what suggestions that edit the kernel must read.
  std::optional<std::string> sourceText;
};
std::optional<TracedProject> traceForVariants(const OperatorProject& project, DiagnosticEngine& diags,
                                              const ProjectTraceOptions& options = {});

// One setting variant compiled and simulated in timing mode.
struct VariantRun {
  CompileResult compiled;
  Simulation simulation;
  MachineDescription machine;
  TimingRunOptions runtime;  // the project's runtime_options as simulated: what a re-simulation must repeat
};
// `variant` is `traced.project` with other tile_settings, pass_options,
// runtime_options, partition_overrides or machine (what the trace does not
// depend on). nullopt with diagnostics when it does not compile or simulate.
std::optional<VariantRun> simulateVariant(const TracedProject& traced, const OperatorProject& variant,
                                          DiagnosticEngine& diags);

// Simulates many setting variants of one traced project (the tuner's
// points), reusing what they share: each machine is read once, and a variant
// whose compile settings (machine, tile_settings, pass_options,
// partition_overrides) equal a recent variant's reuses that compilation,
// since runtime_options change the schedule, not the code, and a variant
// differing in what late passes read (a merge count, ooo_sched_mode) starts
// compiling from the stage before the first pass that reads something
// different (PassResultCache.h): the stages are the IR those passes made
// from the same inputs, so a variant's result is the same as compiled from
// scratch, bit for bit. Two variants whose compiled kernels are the same to
// the timing model (TimingInputKey.h: a merge count past the kernel's group
// size, a setting the kernel gives nothing to act on) and that run on one
// machine with runtime options that schedule them the same
// (equivalentConfig in runtime/Scheduler.h) share one simulation. Safe to use
// from several threads at once: a compilation or a simulation another
// thread is making is waited for, not made twice. A variant that does not
// compile gets the compilation's errors again without compiling again.
class VariantSimulator {
public:
  // `traced` outlives the simulator; it keeps the newest `keptCompilations`.
  explicit VariantSimulator(const TracedProject& traced, std::size_t keptCompilations = 32);
  ~VariantSimulator();
  VariantSimulator(const VariantSimulator&) = delete;
  VariantSimulator& operator=(const VariantSimulator&) = delete;

  struct Outcome {
    std::shared_ptr<const CompileResult> compiled;
    std::shared_ptr<const MachineDescription> machine;
    Simulation simulation;  // task times only: no pipe intervals (keepPipeIntervals)
  };
  // `reportWarnings`: also the warnings of the variant's compilation (a
  // sweep's baseline; its points report none), whichever run made it.
  std::optional<Outcome> run(const OperatorProject& variant, DiagnosticEngine& diags, bool reportWarnings = false);

  // What run(variant) would simulate, compiling the variant (or reusing its
  // compilation) but simulating nothing: variants with equal keys get the
  // same simulation. nullopt, with the errors, when it does not compile.
  std::optional<StageKey> simulationKey(const OperatorProject& variant, DiagnosticEngine& diags);

  int compilations() const;  // made so far; the other runs reused one
  int simulations() const;   // made so far; the other runs reused one
  // Of those, how many resumed the run of the point with the affinity rule
  // toggled where the two parted (ScheduleFork) instead of starting afresh.
  int resumedSimulations() const;
  // The traced graph's fingerprint (fingerprintOf), made once per simulator
  // at the first call.
  const StageKey& graphKey() const;
  // The passes each compilation made so far ran (the others it reused), in
  // the order the compilations were made.
  std::vector<std::vector<std::string>> passesRun() const;
  // The passes before which compilations keep their IR for later ones to
  // resume from (CompileOptions::keepStagesBefore; unset: every pass that
  // reads options). A sweep names the passes that read the options its
  // points vary (stagesToKeepFor in Tuner.h). Compilations made before the
  // call keep what the setting then said.
  void keepStagesBefore(std::set<std::string, std::less<>> passes);

private:
  struct State;
  struct Prepared;  // a variant's machine, runtime options, compilation and simulation key
  std::optional<Prepared> prepare(const OperatorProject& variant, DiagnosticEngine& diags, bool reportWarnings);
  const TracedProject& m_traced;
  std::unique_ptr<State> m_state;
};

} // namespace pto
