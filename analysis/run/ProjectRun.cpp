// Implementation of runProject.
#include "analysis/run/ProjectRun.h"

#include "compiler/passes/PassResultCache.h"

#include "analysis/simulation/OutputRules.h"
#include "analysis/simulation/TimingInputKey.h"
#include "analysis/run/StagedGolden.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/reference/TileInterpreter.h"
#include "core/Npy.h"
#include "core/project/ArgumentData.h"
#include "npusim/MachineFile.h"
#include "npusim/TimingRun.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <variant>

namespace pto {
namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::vector<HostTensor> deepCopy(const std::vector<HostTensor>& tensors) {
  std::vector<HostTensor> copies;
  copies.reserve(tensors.size());
  for (const HostTensor& tensor : tensors) copies.push_back(tensor.contiguous());
  return copies;
}

bool verifyRequested(const OperatorProject& project) {
  const auto& options = project.passOptions;
  return options.is_object() && options.contains("enable_pass_verify") && options["enable_pass_verify"].is_boolean() &&
         options["enable_pass_verify"].get<bool>();
}

// Runs the tile graph a pass produced on the project's inputs and compares
// every output with the golden (with the project's tolerances).
bool verifyAfterPass(const PassInfo& pass, const Compilation& state, const std::vector<HostTensor>& inputs,
                     const std::vector<HostTensor>& golden, const OperatorProject& project, DiagnosticEngine& diags,
                     const ReferenceOptions& referenceOptions) {
  std::vector<HostTensor> arguments = deepCopy(inputs);
  DiagnosticEngine runDiags;
  const TensorGraph& graph = state.tiles.graph;
  if (!runTiles(state.tiles, arguments, runDiags, referenceOptions)) {
    DiagnosticBuilder error = diags.error(graph.kernelLocation);
    error << "pass verify: the tile graph after " << pass.name << " cannot be executed";
    for (const Diagnostic& problem : runDiags.diagnostics()) error.note(problem.location, problem.message);
    return false;
  }
  for (TensorId id : graph.writtenArguments()) {
    std::size_t index = static_cast<std::size_t>(graph.tensor(id).argumentIndex);
    const std::string& argName = graph.tensor(id).name;
    const KernelArgument* arg = project.findArgument(argName);
    Tolerance tolerance = arg ? project.toleranceFor(*arg) : defaultTolerance(arguments[index].dtype());
    OutputComparison comparison = compareOutput(arguments[index], golden[index], tolerance);
    if (comparison.pass()) continue;
    // Point at the last op that writes this output: where the wrong values land.
    SourceLocation where = graph.kernelLocation;
    for (const TensorOp& op : graph.ops())
      for (TensorId output : op.outputs)
        if (op.kind != TensorOpKind::View && graph.storageOf(output) == id) where = op.location;
    std::int64_t at = comparison.firstMismatch;
    return diags.error(where) << "pass verify: after " << pass.name << ", output '" << argName << "' differs from the golden in "
                              << comparison.mismatches << " of " << comparison.elements << " elements (first at flat index "
                              << at << ": " << arguments[index].getAsDouble(at) << " instead of " << golden[index].getAsDouble(at)
                              << "); the passes before it kept the result";
  }
  return true;
}

// disable_pass from the project's pass options; unknown pass names are warnings.
void applyProjectPassOptions(const OperatorProject& project, CompileOptions& options, DiagnosticEngine& diags) {
  options.disabledPasses = disabledPassesFrom(project.passOptions, project.locationOf("pass_options"), diags);
}

std::optional<MachineDescription> machineFor(const OperatorProject& project, const std::string& machineOverride,
                                             DiagnosticEngine& diags) {
  if (!machineOverride.empty()) return findMachine(machineOverride, diags, SourceLocation{"--machine"});
  return findMachine(project.machine, diags, project.locationOf("machine"), project.directory());
}

bool readsElementsOf(const TensorGraph& graph, std::size_t argument) {
  return std::binary_search(graph.elementReadArguments.begin(), graph.elementReadArguments.end(), static_cast<int>(argument));
}

// A group of the kernel's own options (its jit decorator) with the project's
// entries over them: the project file is where a kernel is tuned.
nlohmann::ordered_json withKernelOptions(const TensorGraph& graph, const std::string& group,
                                         const nlohmann::ordered_json& projectOptions) {
  const auto found = graph.kernelOptions.find(group);
  if (found == graph.kernelOptions.end() || !found->is_object()) return projectOptions;
  nlohmann::ordered_json merged = *found;
  if (projectOptions.is_object())
    for (const auto& [key, value] : projectOptions.items()) merged[key] = value;
  return merged;
}

} // namespace

std::optional<CompileSettings> compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                                  const std::vector<HostTensor>& arguments, DiagnosticEngine& diags) {
  auto machine = machineFor(project, {}, diags);
  if (!machine) return std::nullopt;
  return compileSettingsFor(project, graph, arguments, *machine);
}

CompileSettings compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                   const std::vector<HostTensor>& arguments, const MachineDescription& machine) {
  return compileSettingsFor(project, graph, dynamicDimBindings(graph, arguments), machine);
}

CompileSettings compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                   Bindings bindings, const MachineDescription& machine) {
  CompileSettings settings;
  settings.target = machine.targetInfo();
  settings.bindings = std::move(bindings);
  settings.tileSettings = project.tileSettings;
  settings.passOptions = withKernelOptions(graph, "pass_options", project.passOptions);
  settings.partitionOverrides = project.partitionOverrides;
  settings.partitionOverrideLocations = project.partitionOverrideLocations;
  settings.settingLocations = project.settingLocations;
  settings.projectFile = project.file.string();
  return settings;
}

std::vector<HostTensor> argumentShapes(const OperatorProject& project, const TensorGraph& graph, DiagnosticEngine& diags) {
  std::vector<HostTensor> shapes;
  for (std::size_t i = 0; i < project.args.size(); ++i) {
    const KernelArgument& arg = project.args[i];
    const std::vector<std::int64_t> shape = *project.concreteShape(arg);
    std::optional<HostTensor> data;
    if (readsElementsOf(graph, i))
      data = makeArgumentData(arg, shape, project.directory(), diags, SourceLocation{project.file.string()}, static_cast<int>(i));
    shapes.push_back(data ? std::move(*data) : HostTensor(arg.dtype, Shape(shape)));
  }
  return shapes;
}

double multiplyAddsOf(const Compilation& compilation) {
  const TileGraph& tiles = compilation.tiles;
  const std::vector<Subgraph>& subgraphs = compilation.blocks.subgraphs;
  std::vector<double> perSubgraph(subgraphs.size(), -1.0);
  auto elements = [](const std::vector<std::int64_t>& shape) {
    double count = 1.0;
    for (std::int64_t extent : shape) count *= static_cast<double>(extent);
    return count;
  };
  double total = 0.0;
  for (const Task& task : compilation.tasks.tasks) {
    if (task.subgraph < 0 || static_cast<std::size_t>(task.subgraph) >= subgraphs.size()) continue;
    double& work = perSubgraph[static_cast<std::size_t>(task.subgraph)];
    if (work < 0.0) {
      work = 0.0;
      for (TileOpId id : subgraphs[static_cast<std::size_t>(task.subgraph)].ops) {
        const TileOp& op = tiles.tileOp(id);
        double out = op.outputs.empty() ? 0.0 : elements(op.outputs[0].shape);
        if (op.kind == TensorOpKind::Matmul && !op.inputs.empty() && !op.inputs[0].shape.empty())
          out *= static_cast<double>(op.inputs[0].shape.back());
        work += out;
      }
    }
    total += work;
  }
  return total;
}

bool ProjectRunResult::pass() const {
  for (const OutputResult& output : outputs)
    if (!output.comparison.pass()) return false;
  return true;
}

std::optional<ProjectRunResult> runProject(const OperatorProject& project, DiagnosticEngine& diags,
                                           const ProjectRunOptions& options) {
  auto stage = [&options](std::string_view name) {
    if (options.onStage) options.onStage(name);
  };
  ProjectRunResult result;
  auto start = std::chrono::steady_clock::now();
  stage("tracing");
  auto graph = traceProject(project, diags, options.trace);
  if (!graph) return std::nullopt;
  result.graph = std::move(*graph);
  if (options.onTraced) options.onTraced(result.graph);
  result.traceMs = millisecondsSince(start);
  const TensorGraph& traced = result.graph;

  // Inputs as the project describes them; outputs the kernel returns
  // (functional style) get zero-filled buffers of their traced shape.
  // A timing run reads no data unless it checks precision: generated
  // inputs (random, arange) start as zeros and are made only when the check
  // runs, so a full-size timing run does not spend seconds drawing random
  // numbers it never reads. .npy inputs are read now, so a bad file is
  // reported either way.
  const bool verify = verifyRequested(project);
  const bool dataMayWait =
      options.mode == SimulationMode::Timing && !verify && options.check != PrecisionCheck::Always;
  std::vector<bool> generatedLater(project.args.size(), false);
  for (std::size_t i = 0; i < project.args.size(); ++i) {
    const KernelArgument& arg = project.args[i];
    const SourceLocation projectLocation = project.locationOf("args[" + std::to_string(i) + "]");
    auto shape = *project.concreteShape(arg);
    // Elements read as scalars steer the schedule (loop trips, offsets), so
    // their tensors are always made.
    const bool generated = !std::holds_alternative<NpyInit>(arg.init) && !std::holds_alternative<ZerosInit>(arg.init) &&
                           !std::holds_alternative<ValuesInit>(arg.init) &&
                           !readsElementsOf(traced, i);
    std::optional<HostTensor> data;
    if (dataMayWait && generated) {
      DiagnosticEngine scratch;  // so that the message names the argument
      data = HostTensor::tryCreate(arg.dtype, Shape(shape), scratch, projectLocation);
      if (!data)
        return diags.error(projectLocation) << argumentLabel(arg, static_cast<int>(i)) << ": "
                                            << scratch.diagnostics().front().message;
      generatedLater[i] = true;
    } else {
      data = makeArgumentData(arg, shape, project.directory(), diags, projectLocation, static_cast<int>(i));
    }
    if (!data) return std::nullopt;
    result.arguments.push_back(std::move(*data));
    result.argumentNames.push_back(arg.name);
  }
  const Bindings bindings = dynamicDimBindings(traced, result.arguments);
  for (std::size_t i = project.args.size(); i < traced.arguments.size(); ++i) {
    const TensorValue& value = traced.tensor(traced.arguments[i]);
    std::vector<std::int64_t> shape;
    for (const SymbolicScalar& dim : value.shape) {
      SymbolicEvaluation evaluated = dim.evaluate(bindings);
      if (!evaluated.ok()) return diags.error(traced.kernelLocation) << "returned tensor '" << value.name << "': " << evaluated.error;
      shape.push_back(*evaluated.value);
    }
    auto buffer = HostTensor::tryCreate(value.dtype, Shape(shape), diags, traced.kernelLocation);
    if (!buffer) return std::nullopt;
    result.arguments.push_back(std::move(*buffer));
    result.argumentNames.push_back(value.name);
  }

  ReferenceOptions referenceOptions;
  referenceOptions.cancelled = options.trace.cancelled;
  referenceOptions.maxElements = options.trace.maxElements;

  // The arguments before anything ran: a functional simulation writes
  // outputs (and in-place arguments) into result.arguments.
  // The golden is the reference interpreter on a copy of them. Verify mode
  // needs it while compiling; otherwise it waits until the timeline has
  // been handed out (onSimulated).
  std::vector<HostTensor> initial;
  if (!dataMayWait) initial = deepCopy(result.arguments);
  std::vector<HostTensor> golden;
  std::vector<OutputWrite> goldenWrites;  // where the golden run wrote the outputs, for the staged golden
  auto computeGolden = [&] {
    stage("computing the golden");
    auto goldenStart = std::chrono::steady_clock::now();
    golden = deepCopy(initial);
    OutputWriteLog log(traced, golden);
    ReferenceOptions logged = referenceOptions;
    logged.onWrite = [&log](const TensorOp& op, const HostTensor& region) { log.onWrite(op, region); };
    if (!runReference(traced, golden, diags, logged)) return false;
    goldenWrites = log.writes();
    result.goldenMs = millisecondsSince(goldenStart);
    return true;
  };
  if (verify && !computeGolden()) return std::nullopt;

  // Compile for the machine, then simulate.
  stage("compiling");
  start = std::chrono::steady_clock::now();
  CompileOptions compileOptions = options.compile;
  applyProjectPassOptions(project, compileOptions, diags);
  if (verify) {
    // enable_pass_verify: after each pass, execute what it produced and hold
    // it to the golden; the first pass that breaks the result is reported.
    compileOptions.afterPass = [&, chained = compileOptions.afterPass](const PassInfo& pass, const Compilation& state) {
      if (chained && !chained(pass, state)) return false;
      return verifyAfterPass(pass, state, initial, golden, project, diags, referenceOptions);
    };
  }
  auto machine = machineFor(project, options.machineOverride, diags);
  auto runtime = runtimeSettingsFrom(withKernelOptions(traced, "runtime_options", project.runtimeOptions),
                                     project.locationOf("runtime_options"), diags);
  if (!machine || !runtime) return std::nullopt;
  result.compiled =
      compileKernel(traced, compileSettingsFor(project, traced, result.arguments, *machine), diags, compileOptions);
  if (!result.compiled) return std::nullopt;
  result.compileMs = millisecondsSince(start);
  // Simulate: the schedule and timeline in both modes; in functional mode
  // the outputs too. A timing run takes its outputs from the tile graph on
  // the CPU, so that its precision is still checked.
  stage("simulating");
  SimulationRequest request;
  request.machine = &*machine;
  request.mode = options.mode;
  request.runtime = *runtime;
  request.cancelled = options.trace.cancelled;
  result.simulation = simulate(result.compiled->compilation, result.arguments, request, diags);
  if (!result.simulation) return std::nullopt;
  result.machine = *machine;
  result.runtime = *runtime;
  result.simulateMs = result.simulation->simulateMs;
  if (options.onSimulated) options.onSimulated(*result.compiled, *result.simulation);
  result.multiplyAdds = multiplyAddsOf(result.compiled->compilation);
  if (!verify) {
    const bool check = options.check == PrecisionCheck::Always ||
                       (options.check == PrecisionCheck::Auto &&
                        (options.mode == SimulationMode::Functional || result.multiplyAdds <= kAutoCheckMultiplyAdds));
    if (!check) {
      char work[96];
      std::snprintf(work, sizeof work, "%.3g multiply-adds (more than %.0e)", result.multiplyAdds,
                    kAutoCheckMultiplyAdds);
      result.precisionSkipped =
          options.check == PrecisionCheck::Never
              ? "not requested"
              : std::string("timing mode, and executing the kernel on the CPU takes ") + work;
      result.executor = options.mode == SimulationMode::Timing ? "none" : std::string(name(options.mode));
      return result;
    }
    if (dataMayWait) {
      // The check runs after all: make the inputs that were left as zeros.
      for (std::size_t i = 0; i < project.args.size(); ++i) {
        if (!generatedLater[i]) continue;
        const KernelArgument& arg = project.args[i];
        auto data = makeArgumentData(arg, *project.concreteShape(arg), project.directory(), diags,
                                     project.locationOf("args[" + std::to_string(i) + "]"), static_cast<int>(i));
        if (!data) return std::nullopt;
        result.arguments[i] = std::move(*data);
      }
      initial = deepCopy(result.arguments);
    }
    if (!computeGolden()) return std::nullopt;
  }
  result.executor = std::string(name(options.mode));
  if (options.mode == SimulationMode::Timing) {
    start = std::chrono::steady_clock::now();
    result.executor = "tiles";
    if (!runTiles(result.compiled->compilation.tiles, result.arguments, diags, referenceOptions)) return std::nullopt;
    result.executeMs = millisecondsSince(start);
  }

  stage("checking");
  // A kernel whose later stages read what earlier ones wrote is judged stage by stage (StagedGolden.h).
  if (readsItsOutputs(traced)) {
    stage("computing the staged golden");
    auto stagedStart = std::chrono::steady_clock::now();
    StagedGoldenResult staged =
        stagedGolden(traced, initial, result.arguments, result.argumentNames, goldenWrites, referenceOptions);
    if (options.trace.cancelled && options.trace.cancelled())
      return diags.error(traced.kernelLocation) << "cancelled";
    result.goldenMs += millisecondsSince(stagedStart);
    if (staged.staged) {
      golden = std::move(staged.golden);
      result.handedOver = std::move(staged.handedOver);
      result.stagedGolden = true;
    } else {
      result.stagedNote = staged.reason;
    }
  }
  for (TensorId id : traced.writtenArguments()) {
    std::size_t index = static_cast<std::size_t>(traced.tensor(id).argumentIndex);
    OutputResult output;
    output.name = result.argumentNames[index];
    output.actual = result.arguments[index];
    output.expected = golden[index];
    output.goldenSource = result.stagedGolden ? "reference, staged" : "reference";
    const KernelArgument* arg = project.findArgument(output.name);
    if (auto source = project.golden.find(output.name); source != project.golden.end() && !source->second.fromReference) {
      auto loaded = readNpy(project.resolve(source->second.npyPath), diags);
      if (!loaded) return std::nullopt;
      if (loaded->shape() != output.actual.shape())
        return diags.error(SourceLocation{project.resolve(source->second.npyPath).string()})
               << "golden for '" << output.name << "' has shape " << loaded->shape().str() << " but the output is "
               << output.actual.shape().str();
      output.expected = std::move(*loaded);
      output.goldenSource = source->second.npyPath;
    }
    Tolerance tolerance = arg ? project.toleranceFor(*arg) : defaultTolerance(output.actual.dtype());
    CompareRule rule = compareRuleFor(traced, id);
    if (auto given = project.compareRules.find(output.name); given != project.compareRules.end())
      rule = parseCompareRule(given->second).value_or(rule);
    output.comparison = compareOutputByRule(output.actual, output.expected, rule, tolerance);
    result.outputs.push_back(std::move(output));
  }
  return result;
}

std::optional<TracedProject> traceForVariants(const OperatorProject& project, DiagnosticEngine& diags,
                                              const ProjectTraceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto graph = traceProject(project, diags, options);
  if (!graph) return std::nullopt;
  TracedProject traced{project, std::move(*graph), {}, 0.0, options.sourceText};
  traced.arguments = argumentShapes(project, traced.graph, diags);
  if (diags.hasErrors()) return std::nullopt;
  traced.traceMs = millisecondsSince(start);
  return traced;
}

std::optional<VariantRun> simulateVariant(const TracedProject& traced, const OperatorProject& variant,
                                          DiagnosticEngine& diags) {
  CompileOptions compileOptions;
  applyProjectPassOptions(variant, compileOptions, diags);
  auto machine = machineFor(variant, {}, diags);
  auto runtime = runtimeSettingsFrom(withKernelOptions(traced.graph, "runtime_options", variant.runtimeOptions),
                                     variant.locationOf("runtime_options"), diags);
  if (!machine || !runtime) return std::nullopt;
  auto compiled = compileKernel(traced.graph, compileSettingsFor(variant, traced.graph, traced.arguments, *machine),
                                diags, compileOptions);
  if (!compiled) return std::nullopt;
  SimulationRequest request;
  request.machine = &*machine;
  request.mode = SimulationMode::Timing;
  request.runtime = *runtime;
  std::vector<HostTensor> arguments;  // timing mode reads no data
  auto simulation = simulate(compiled->compilation, arguments, request, diags);
  if (!simulation) return std::nullopt;
  return VariantRun{std::move(*compiled), std::move(*simulation), std::move(*machine), *runtime};
}

struct VariantSimulator::State {
  // What compiling one set of settings gave: the result and what the timing
  // model reads of it, or the errors.
  struct Compiled {
    std::shared_ptr<const CompileResult> result;
    StageKey timingInputs;
    std::vector<Diagnostic> errors;
    std::vector<Diagnostic> warnings;
  };
  // What simulating one key gave: the simulation, or the errors.
  struct Simulated {
    std::shared_ptr<const Simulation> simulation;
    std::vector<Diagnostic> errors;
  };
  std::size_t kept;
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const MachineDescription>> machines;
  std::map<std::string, std::shared_future<Compiled>> compiled;
  std::deque<std::string> order;  // keys of `compiled`, oldest first
  int compilations = 0;
  // Simulations by simulation key, the oldest forgotten once the kept
  // schedules hold more than kKeptTaskRecords tasks (about 170 MB of task
  // records; a sweep's points of one compilation come together, so the
  // twins of a point are close by).
  static constexpr std::size_t kKeptTaskRecords = std::size_t{1} << 21;
  std::map<StageKey, std::shared_future<Simulated>> simulated;
  std::deque<std::pair<StageKey, std::size_t>> simulatedOrder;  // key and task records, oldest first
  // Keys whose simulation is known to be another key's, record for record
  // (the affinity rule toggled on a run where it changed no choice).
  std::map<StageKey, StageKey> sameSimulationAs;
  std::size_t simulatedRecords = 0;
  int simulations = 0;
  // Runs kept where the affinity rule toggled would first have chosen
  // otherwise (ScheduleFork), by the toggled point's simulation key, with
  // the compilation whose graph they point into; taken by that point's
  // simulation, which resumes there. A fork holds a copy of the run's task
  // records and of the timing model's state, so the oldest go beyond
  // kKeptForks or kKeptTaskRecords / 2 records, and a graph larger than
  // that keeps none.
  struct Fork {
    std::shared_ptr<const CompileResult> compiled;
    std::shared_ptr<ScheduleFork> fork;
    std::size_t records = 0;
  };
  static constexpr std::size_t kKeptForks = 8;
  static constexpr std::size_t kKeptForkRecords = kKeptTaskRecords / 2;
  std::map<StageKey, Fork> forks;
  std::deque<StageKey> forkOrder;  // keys of `forks` (or taken since), oldest first
  std::size_t forkRecords = 0;     // of the forks kept
  int resumedSimulations = 0;
  // Stages of the compilations, for variants that differ in what late
  // passes read (PassResultCache.h); a sweep reports no warnings, so places
  // are not part of the key.
  PassResultCache stages{64, false};
  std::optional<std::set<std::string, std::less<>>> keepStagesBefore;
  // The stages are this simulator's own and its traced graph never changes,
  // so their keys start from a constant instead of the graph's fingerprint
  // (a walk of the whole graph); that is made only when asked for
  // (graphKey(): the result cache in the ledger keys by it).
  const StageKey stagesGraphKey = StageKeyBuilder().add("the simulator's traced graph").key();
  std::once_flag graphKeyMade;
  StageKey graphKey;
  Bindings bindings;  // the traced graph's dims, the same for every variant
  std::vector<std::vector<std::string>> passesRunByCompilation;  // the passes each compilation ran, in order made
};

struct VariantSimulator::Prepared {
  std::shared_ptr<const MachineDescription> machine;
  TimingRunOptions runtime;
  std::shared_ptr<const CompileResult> compiled;
  StageKey simulationKey;
  StageKey affinityToggledKey;  // its key with device_sched_mode's affinity rule toggled
};

VariantSimulator::VariantSimulator(const TracedProject& traced, std::size_t keptCompilations)
    : m_traced(traced), m_state(std::make_unique<State>()) {
  m_state->kept = std::max<std::size_t>(1, keptCompilations);
  m_state->bindings = dynamicDimBindings(traced.graph, traced.arguments);
}

void VariantSimulator::keepStagesBefore(std::set<std::string, std::less<>> passes) {
  std::lock_guard lock(m_state->mutex);
  m_state->keepStagesBefore = std::move(passes);
}

std::vector<std::vector<std::string>> VariantSimulator::passesRun() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->passesRunByCompilation;
}

VariantSimulator::~VariantSimulator() = default;

int VariantSimulator::compilations() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->compilations;
}

const StageKey& VariantSimulator::graphKey() const {
  std::call_once(m_state->graphKeyMade, [this] { m_state->graphKey = fingerprintOf(m_traced.graph); });
  return m_state->graphKey;
}

int VariantSimulator::simulations() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->simulations;
}

int VariantSimulator::resumedSimulations() const {
  std::lock_guard lock(m_state->mutex);
  return m_state->resumedSimulations;
}

std::optional<VariantSimulator::Prepared> VariantSimulator::prepare(const OperatorProject& variant,
                                                                    DiagnosticEngine& diags, bool reportWarnings) {
  State& state = *m_state;
  std::shared_ptr<const MachineDescription> machine;
  {
    std::lock_guard lock(state.mutex);
    auto found = state.machines.find(variant.machine);
    if (found != state.machines.end()) machine = found->second;
  }
  if (!machine) {
    // Read outside the lock; two threads may both read a machine the first time.
    auto loaded = machineFor(variant, {}, diags);
    if (!loaded) return std::nullopt;
    machine = std::make_shared<const MachineDescription>(std::move(*loaded));
    std::lock_guard lock(state.mutex);
    machine = state.machines.try_emplace(variant.machine, machine).first->second;
  }
  auto runtime = runtimeSettingsFrom(withKernelOptions(m_traced.graph, "runtime_options", variant.runtimeOptions),
                                     variant.locationOf("runtime_options"), diags);
  if (!runtime) return std::nullopt;

  // The settings compileSettingsFor would make, as text; the settings
  // themselves (a copy of the bindings, which hold every element the kernel
  // reads as a scalar) only for a compilation not made yet.
  std::string key = variant.machine + '\n' + variant.tileSettings.dump() + '\n' +
                    withKernelOptions(m_traced.graph, "pass_options", variant.passOptions).dump() + '\n' +
                    variant.partitionOverrides.dump();
  std::shared_future<State::Compiled> ready;
  std::optional<std::promise<State::Compiled>> mine;
  {
    std::lock_guard lock(state.mutex);
    auto found = state.compiled.find(key);
    if (found != state.compiled.end()) {
      ready = found->second;
    } else {
      mine.emplace();
      ready = mine->get_future().share();
      state.compiled.emplace(key, ready);
      state.order.push_back(key);
      ++state.compilations;
      // Forget the oldest; a thread still waiting on one holds its future.
      while (state.order.size() > state.kept) {
        state.compiled.erase(state.order.front());
        state.order.pop_front();
      }
    }
  }
  if (mine) {
    CompileSettings settings = compileSettingsFor(variant, m_traced.graph, state.bindings, *machine);
    DiagnosticEngine compileDiags;
    CompileOptions compileOptions;
    compileOptions.recordChanges = false;
    compileOptions.reuse = &state.stages;
    compileOptions.graphKey = state.stagesGraphKey;
    // The compiled results are kept here, by their settings.
    compileOptions.keepLastStage = false;
    {
      std::lock_guard lock(state.mutex);
      compileOptions.keepStagesBefore = state.keepStagesBefore;
    }
    applyProjectPassOptions(variant, compileOptions, compileDiags);
    State::Compiled made;
    if (auto result = compileKernel(m_traced.graph, std::move(settings), compileDiags, compileOptions)) {
      std::vector<std::string> ran;
      for (const PassRecord& record : result->passes)
        if (!record.reused && !record.skipped) ran.push_back(record.name);
      {
        std::lock_guard lock(state.mutex);
        state.passesRunByCompilation.push_back(std::move(ran));
      }
      made.timingInputs = timingInputKey(result->compilation);
      made.result = std::make_shared<const CompileResult>(std::move(*result));
    }
    for (const Diagnostic& diagnostic : compileDiags.diagnostics())
      (diagnostic.severity == Severity::Error ? made.errors : made.warnings).push_back(diagnostic);
    mine->set_value(std::move(made));
  }
  const State::Compiled& compiled = ready.get();
  // Also when another variant's run made the compilation (a sweep's point
  // that is the baseline's settings).
  if (reportWarnings)
    for (const Diagnostic& warning : compiled.warnings) diags.report(warning);
  if (!compiled.result) {
    for (const Diagnostic& error : compiled.errors) diags.report(error);
    if (compiled.errors.empty()) diags.error(variant.locationOf("tile_settings")) << "the variant did not compile";
    return std::nullopt;
  }
  // The simulation depends on the timing model's inputs, the machine (one
  // description per name here) and the scheduler's configuration, nothing
  // else; of the runtime options only what they change of this graph's
  // schedule (equivalentConfig: on a machine whose threads own cores the
  // fair policies are the others, and a stitch limit past the calls of any
  // device task is that many calls).
  const SchedulerConfig scheduling =
      equivalentConfig(schedulerConfigFor(*machine, *runtime), compiled.result->compilation.tasks);
  auto keyWithMode = [&](int deviceSchedMode) {
    return StageKeyBuilder(compiled.timingInputs)
        .add(variant.machine)
        .add(static_cast<std::int64_t>(deviceSchedMode))
        .add(static_cast<std::int64_t>(scheduling.stitchFunctionMaxNum))
        .add(static_cast<std::int64_t>(scheduling.aicpuCount))
        .key();
  };
  StageKey simulationKey = keyWithMode(scheduling.deviceSchedMode);
  // The same point with the affinity rule toggled (0 <-> 1, 2 <-> 3): once
  // either has been simulated and its scheduler saw no choice the rule
  // changes (Schedule::affinityChangedNothing), the other takes its simulation.
  StageKey affinityToggledKey = keyWithMode(scheduling.deviceSchedMode ^ 1);
  {
    std::lock_guard lock(state.mutex);
    auto same = state.sameSimulationAs.find(simulationKey);
    if (same != state.sameSimulationAs.end()) simulationKey = same->second;
  }
  return Prepared{std::move(machine), *runtime, compiled.result, simulationKey, affinityToggledKey};
}

std::optional<StageKey> VariantSimulator::simulationKey(const OperatorProject& variant, DiagnosticEngine& diags) {
  auto prepared = prepare(variant, diags, false);
  if (!prepared) return std::nullopt;
  return prepared->simulationKey;
}

std::optional<VariantSimulator::Outcome> VariantSimulator::run(const OperatorProject& variant, DiagnosticEngine& diags,
                                                               bool reportWarnings) {
  State& state = *m_state;
  auto prepared = prepare(variant, diags, reportWarnings);
  if (!prepared) return std::nullopt;
  std::shared_future<State::Simulated> ready;
  std::optional<std::promise<State::Simulated>> mine;
  {
    std::lock_guard lock(state.mutex);
    auto found = state.simulated.find(prepared->simulationKey);
    if (found != state.simulated.end()) {
      ready = found->second;
    } else {
      mine.emplace();
      ready = mine->get_future().share();
      state.simulated.emplace(prepared->simulationKey, ready);
      ++state.simulations;
    }
  }
  if (mine) {
    // The point with the affinity rule toggled may have left its run where
    // the two part (ScheduleFork): resume there. Otherwise keep this run's
    // own fork for that point, unless it is simulated already.
    std::optional<State::Fork> resumed;
    bool keepFork = false;
    {
      std::lock_guard lock(state.mutex);
      auto found = state.forks.find(prepared->simulationKey);
      if (found != state.forks.end()) {
        resumed = std::move(found->second);
        state.forks.erase(found);
        state.forkRecords -= resumed->records;
        ++state.resumedSimulations;
      } else {
        keepFork = !state.simulated.contains(prepared->affinityToggledKey) &&
                   prepared->compiled->compilation.tasks.tasks.size() <= State::kKeptForkRecords;
      }
    }
    SimulationRequest request;
    request.machine = prepared->machine.get();
    request.mode = SimulationMode::Timing;
    request.runtime = prepared->runtime;
    request.keepPipeIntervals = false;
    std::optional<ScheduleFork> fork;
    if (keepFork) request.keepFork = &fork;
    if (resumed) request.resumeFrom = resumed->fork.get();
    // A fork points into the graph of the compilation that made it, which
    // is this one's to the timing model (their simulation keys are equal).
    const Compilation& compilation = resumed ? resumed->compiled->compilation : prepared->compiled->compilation;
    std::vector<HostTensor> arguments;  // timing mode reads no data
    DiagnosticEngine simulateDiags;
    State::Simulated made;
    if (auto simulation = simulate(compilation, arguments, request, simulateDiags))
      made.simulation = std::make_shared<const Simulation>(std::move(*simulation));
    if (fork && made.simulation) {
      std::lock_guard lock(state.mutex);
      const std::size_t records = made.simulation->schedule.tasks.size();
      if (!state.simulated.contains(prepared->affinityToggledKey) &&
          state.forks
              .try_emplace(prepared->affinityToggledKey,
                           State::Fork{prepared->compiled, std::make_shared<ScheduleFork>(std::move(*fork)), records})
              .second) {
        state.forkOrder.push_back(prepared->affinityToggledKey);
        state.forkRecords += records;
        while (state.forkOrder.size() > State::kKeptForks || state.forkRecords > State::kKeptForkRecords) {
          if (auto oldest = state.forks.find(state.forkOrder.front()); oldest != state.forks.end()) {
            state.forkRecords -= oldest->second.records;
            state.forks.erase(oldest);
          }
          state.forkOrder.pop_front();
        }
      }
    }
    for (const Diagnostic& diagnostic : simulateDiags.diagnostics())
      if (diagnostic.severity == Severity::Error) made.errors.push_back(diagnostic);
    const std::size_t records = made.simulation ? made.simulation->schedule.tasks.size() : 0;
    const bool affinityChangedNothing = made.simulation && made.simulation->schedule.affinityChangedNothing;
    mine->set_value(std::move(made));
    // Kept once made; the oldest go while the kept schedules are too large
    // (a thread still waiting on one holds its future).
    std::lock_guard lock(state.mutex);
    if (affinityChangedNothing)
      state.sameSimulationAs.try_emplace(prepared->affinityToggledKey, prepared->simulationKey);
    state.simulatedOrder.emplace_back(prepared->simulationKey, records);
    state.simulatedRecords += records;
    while (state.simulatedOrder.size() > 1 && state.simulatedRecords > State::kKeptTaskRecords) {
      state.simulated.erase(state.simulatedOrder.front().first);
      state.simulatedRecords -= state.simulatedOrder.front().second;
      state.simulatedOrder.pop_front();
    }
  }
  const State::Simulated& simulated = ready.get();
  if (!simulated.simulation) {
    for (const Diagnostic& error : simulated.errors) diags.report(error);
    if (simulated.errors.empty()) diags.error(variant.locationOf("runtime_options")) << "the variant did not simulate";
    return std::nullopt;
  }
  return Outcome{prepared->compiled, std::move(prepared->machine), *simulated.simulation};
}

} // namespace pto
