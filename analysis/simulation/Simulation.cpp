#include "analysis/simulation/Simulation.h"

#include "compiler/ir/ElementBindings.h"
#include "compiler/settings/Options.h"

#include "npusim/FunctionalExecutor.h"
#include "npusim/NpuExecutor.h"
#include "runtime/ScheduleTrace.h"
#include "runtime/Scheduler.h"

#include <chrono>
#include <memory>

namespace pto {

std::string_view name(SimulationMode mode) { return mode == SimulationMode::Timing ? "timing" : "functional"; }

std::optional<SimulationMode> parseSimulationMode(std::string_view text) {
  if (text == "timing") return SimulationMode::Timing;
  if (text == "functional") return SimulationMode::Functional;
  return std::nullopt;
}

std::optional<TimingRunOptions> runtimeSettingsFrom(const nlohmann::ordered_json& runtimeOptions,
                                                    const SourceLocation& where, DiagnosticEngine& diags) {
  TimingRunOptions settings;
  if (runtimeOptions.is_null()) return settings;
  if (!runtimeOptions.is_object())
    return diags.error(where) << "runtime_options must be an object, e.g. {\"device_sched_mode\": 1}";
  bool ok = true;
  // The ranges are the declarations' (compiler/settings/Options.h).
  auto integer = [&](const char* key, const char* meaning) -> std::optional<int> {
    const OptionInfo& declared = *findDeclaration(runtimeOptionDeclarations(), key);
    if (!runtimeOptions.contains(key)) return std::nullopt;
    const auto& value = runtimeOptions[key];
    if (!value.is_number_integer() || value.get<std::int64_t>() < declared.minimum ||
        value.get<std::int64_t>() > declared.maximum) {
      diags.error(where) << "runtime_options." << key << ": expected an integer from " << declared.minimum << " to "
                         << declared.maximum << " (" << meaning << "), got " << value.dump();
      ok = false;
      return std::nullopt;
    }
    return static_cast<int>(value.get<std::int64_t>());
  };
  if (auto mode = integer("device_sched_mode", "0 shared FIFO, 1 affinity, 2 fair, 3 both")) settings.deviceSchedMode = *mode;
  if (auto stitch = integer("stitch_function_max_num", "loop iterations per device task"))
    settings.stitchFunctionMaxNum = *stitch;
  if (auto threads = integer("launch_sched_aicpu_num", "scheduler threads")) settings.aicpuCount = threads;
  if (!ok) return std::nullopt;
  return settings;
}

Bindings dynamicDimBindings(const TensorGraph& graph,
                                                       const std::vector<HostTensor>& arguments) {
  Bindings bindings;
  for (const SymbolSource& symbol : graph.dynamicSymbols)
    if (static_cast<std::size_t>(symbol.argument) < arguments.size())
      if (auto value = symbol.valueFor(
              arguments[static_cast<std::size_t>(symbol.argument)].shape()[static_cast<std::size_t>(symbol.dim)]))
        bindings[symbol.symbol] = *value;
  // A problem with the read tensors (not integers, too large) is reported
  // where the reads are evaluated, with the kernel's location.
  bindElementReads(graph, arguments, bindings);
  return bindings;
}

namespace {

// The timing model with a hook at every task start: functional mode executes
// the task's instructions there, so both modes share one timeline.
class ObservedExecutor final : public Executor {
public:
  using StartObserver = std::function<void(const Task&, CoreId)>;
  // `copyable`: the observer does nothing a copy of the run must repeat
  // (it only polls for a cancel), so clone() may copy the timing model alone.
  ObservedExecutor(NpuExecutor& timing, StartObserver observer, bool copyable)
      : m_timing(timing), m_observer(std::move(observer)), m_copyable(copyable) {}

  void reset(const ExecuteGraph& graph) override { m_timing.reset(graph); }
  void start(const Task& task, CoreId core, std::int64_t startCycle) override {
    if (m_observer) m_observer(task, core);
    m_timing.start(task, core, startCycle);
  }
  std::optional<Completion> nextCompletion() const override { return m_timing.nextCompletion(); }
  std::optional<Completion> completionBy(std::int64_t horizon) override { return m_timing.completionBy(horizon); }
  void finish(TaskId task, std::int64_t endCycle, std::vector<PipeInterval>& intervals) override {
    m_timing.finish(task, endCycle, intervals);
  }
  std::size_t pipeIntervalEstimate() const override { return m_timing.pipeIntervalEstimate(); }
  std::unique_ptr<Executor> clone() const override { return m_copyable ? m_timing.clone() : nullptr; }

private:
  NpuExecutor& m_timing;
  StartObserver m_observer;
  bool m_copyable = false;
};

SimulationStats statsOf(const Simulation& simulation, std::int64_t instructions) {
  SimulationStats stats;
  stats.makespanCycles = simulation.schedule.makespanCycles;
  stats.makespanUs = static_cast<double>(stats.makespanCycles) / (simulation.clockGHz * 1000.0);
  stats.instructions = instructions;
  std::array<std::int64_t, 2> busy{};
  for (const TaskRecord& record : simulation.schedule.tasks) {
    std::size_t type = static_cast<std::size_t>(record.core.type);
    ++stats.tasksByCoreType[type];
    busy[type] += record.endCycle - record.startCycle;
  }
  const std::array<int, 2> cores{simulation.aicCores, simulation.aivCores};
  for (std::size_t type = 0; type < 2; ++type)
    if (cores[type] > 0 && stats.makespanCycles > 0)
      stats.utilizationByCoreType[type] =
          static_cast<double>(busy[type]) / (static_cast<double>(cores[type]) * static_cast<double>(stats.makespanCycles));
  return stats;
}

} // namespace

std::optional<Simulation> simulate(const Compilation& compilation, std::vector<HostTensor>& arguments,
                                   const SimulationRequest& request, DiagnosticEngine& diags) {
  auto start = std::chrono::steady_clock::now();
  const MachineDescription& machine = *request.machine;
  const bool forkable = request.mode == SimulationMode::Timing && !request.stepRecorder;
  // The timing model: a fork's copy, which carries on from where the fork was taken, or a new one.
  std::optional<NpuExecutor> made;
  NpuExecutor* timing = nullptr;
  if (request.resumeFrom) {
    timing = dynamic_cast<NpuExecutor*>(&request.resumeFrom->executor());
    if (!timing || !forkable) {
      diags.error({}) << "internal error: only a timing run of the timing model resumes from a fork";
      return std::nullopt;
    }
  } else {
    made = NpuExecutor::create(machine, compilation.programs, gmLayoutsOf(compilation), diags);
    if (!made || !made->checkGraph(compilation.tasks, diags)) return std::nullopt;
    made->setRecordPipeIntervals(request.keepPipeIntervals);
    made->setStepRecorder(request.stepRecorder);
    timing = &*made;
  }

  // Functional mode executes each task's instructions on the data when it
  // starts: its producers have all finished, and the timeline stays the
  // timing model's. A failure or a cancel unwinds out of the scheduler.
  std::unique_ptr<FunctionalExecutor> functional;
  if (request.mode == SimulationMode::Functional) {
    functional = FunctionalExecutor::create(compilation, arguments, diags);
    if (!functional) return std::nullopt;
  }
  struct Stop {};
  ObservedExecutor executor(*timing, [&](const Task& task, CoreId core) {
    if (request.cancelled && request.cancelled()) {
      diags.error(compilation.tiles.graph.kernelLocation) << "cancelled";
      throw Stop{};
    }
    if (functional && !functional->executeTask(task, core.index)) throw Stop{};
  }, forkable);

  Simulation simulation;
  simulation.mode = request.mode;
  simulation.machine = machine.name;
  simulation.clockGHz = machine.clockGHz;
  simulation.aicCores = machine.aicCores;
  simulation.aivCores = machine.aivCores;
  // A resumed run takes the fork's configuration, toggled: the caller's may
  // differ from it only where equivalentConfig says they schedule the same.
  Scheduler scheduler(request.resumeFrom ? request.resumeFrom->resumedConfig()
                                         : schedulerConfigFor(machine, request.runtime));
  std::optional<Schedule> schedule;
  try {
    if (request.resumeFrom)
      schedule = scheduler.resume(*request.resumeFrom, executor, diags);
    else
      schedule = scheduler.run(compilation.tasks, executor, diags, forkable ? request.keepFork : nullptr);
  } catch (const Stop&) {
    return std::nullopt;
  }
  if (!schedule) return std::nullopt;
  simulation.schedule = std::move(*schedule);
  simulation.stats = statsOf(simulation, timing->instructionsSimulated());
  simulation.stats.l2HitLines = timing->l2().hits();
  simulation.stats.l2MissLines = timing->l2().misses();
  simulation.simulateMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return simulation;
}

trace::Trace simulationTrace(const Compilation& compilation, const Simulation& simulation) {
  return traceFromSchedule({simulation.schedule, compilation.tasks, compilation.blocks, compilation.tiles,
                            simulation.aicCores, simulation.aivCores, simulation.clockGHz});
}

void addSimulationReport(nlohmann::ordered_json& report, const Compilation& compilation, const Simulation& simulation) {
  const SimulationStats& stats = simulation.stats;
  report["machine"] = simulation.machine;
  report["mode"] = std::string(name(simulation.mode));
  report["clock_ghz"] = simulation.clockGHz;
  report["makespan_us"] = stats.makespanUs;
  report["makespan_cycles"] = stats.makespanCycles;
  report["tasks"] = simulation.schedule.tasks.size();
  report["tasks_by_core_type"] = {{"AIC", stats.tasksByCoreType[0]}, {"AIV", stats.tasksByCoreType[1]}};
  report["subgraphs"] = compilation.blocks.subgraphs.size();
  report["programs"] = compilation.programs.size();
  report["dependencies"] = compilation.tasks.edgeCount;
  report["utilization"] = {{"AIC", stats.utilizationByCoreType[0]}, {"AIV", stats.utilizationByCoreType[1]}};
  report["instructions"] = stats.instructions;
  const std::int64_t lines = stats.l2HitLines + stats.l2MissLines;
  report["l2_hit_rate"] = lines > 0 ? static_cast<double>(stats.l2HitLines) / static_cast<double>(lines) : 0.0;
  report["device_tasks"] = simulation.schedule.deviceTaskCount;
}

} // namespace pto
