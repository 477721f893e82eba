// Timing-mode run of a compilation: scheduler + NPU timing model.
#include "npusim/TimingRun.h"

#include "npusim/NpuExecutor.h"

namespace pto {

SchedulerConfig schedulerConfigFor(const MachineDescription& machine, const TimingRunOptions& options) {
  SchedulerConfig config;
  config.aicCores = machine.aicCores;
  config.aivCores = machine.aivCores;
  config.aicpuCount = options.aicpuCount.value_or(machine.scheduler.aicpuCount);
  config.costs.dispatchCycles = machine.scheduler.dispatchCycles;
  config.costs.resolveCycles = machine.scheduler.resolveCycles;
  config.costs.completionCycles = machine.scheduler.completionCycles;
  config.costs.deviceTaskSubmitCycles = machine.scheduler.deviceTaskSubmitCycles;
  config.costs.stitchCycles = machine.scheduler.stitchCycles;
  config.coreTaskSlots = machine.scheduler.coreTaskSlots;
  config.threadsOwnCores = machine.scheduler.threadsOwnCores;
  config.deviceSchedMode = options.deviceSchedMode;
  config.stitchFunctionMaxNum = options.stitchFunctionMaxNum;
  return config;
}

std::vector<GmTensorLayout> gmLayoutsOf(const Compilation& compilation) {
  const TensorGraph& graph = compilation.tiles.graph;
  std::vector<GmTensorLayout> layouts(graph.tensors().size());
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const TensorValue& tensor = graph.tensors()[i];
    GmTensorLayout layout;
    layout.elementBytes = static_cast<std::int64_t>(sizeOf(tensor.dtype));
    layout.bytesOf = tensor.reshapeOf;
    for (const SymbolicScalar& dim : tensor.shape) {
      SymbolicEvaluation value = dim.evaluate(compilation.settings.bindings);
      if (!value.ok()) {
        layout.shape.clear();
        break;
      }
      layout.shape.push_back(*value.value);
    }
    layouts[i] = std::move(layout);
  }
  return layouts;
}

std::optional<Schedule> simulateTiming(const Compilation& compilation, const MachineDescription& machine,
                                       const TimingRunOptions& options, DiagnosticEngine& diags) {
  std::optional<NpuExecutor> executor = NpuExecutor::create(machine, compilation.programs, gmLayoutsOf(compilation), diags);
  if (!executor || !executor->checkGraph(compilation.tasks, diags)) return std::nullopt;
  return Scheduler(schedulerConfigFor(machine, options)).run(compilation.tasks, *executor, diags);
}

} // namespace pto
