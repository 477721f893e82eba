#include "analysis/simulation/KernelCall.h"

#include "analysis/simulation/CostModelOutput.h"
#include "analysis/simulation/PrecisionCompare.h"
#include "analysis/simulation/Simulation.h"
#include "compiler/passes/Pipeline.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/reference/TileInterpreter.h"
#include "core/Version.h"
#include "npusim/MachineFile.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace pto {
namespace {

std::string environment(const char* variable, const char* fallback) {
  const char* value = std::getenv(variable);
  return value && *value ? value : fallback;
}

const nlohmann::ordered_json& group(const nlohmann::ordered_json& options, const char* key) {
  static const nlohmann::ordered_json empty = nlohmann::ordered_json::object();
  return options.is_object() && options.contains(key) && options[key].is_object() ? options[key] : empty;
}

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

std::optional<nlohmann::ordered_json> runKernelCall(const TensorGraph& graph, std::vector<HostTensor>& arguments,
                                                    const nlohmann::ordered_json& jitOptions, DiagnosticEngine& diags) {
  const SourceLocation at = graph.kernelLocation;
  std::string modeName = environment("PTO_MODE", "functional");
  std::optional<SimulationMode> mode = parseSimulationMode(modeName);
  if (!mode) return diags.error(at) << "PTO_MODE=" << modeName << ": expected 'functional' or 'timing'";
  auto machine = findMachine(environment("PTO_MACHINE", "a2"), diags, SourceLocation{"PTO_MACHINE"});
  if (!machine) return std::nullopt;
  auto runtime = runtimeSettingsFrom(group(jitOptions, "runtime_options"), at, diags);
  if (!runtime) return std::nullopt;

  // The golden first: the reference interpreter, on a copy of each argument the kernel writes (the simulator
  // then writes the arguments themselves); one it only reads is shared, not copied. A kernel's caches are its
  // largest arguments, so each one written costs one copy here, read-only ones none.
  auto start = std::chrono::steady_clock::now();
  std::vector<HostTensor> golden = arguments;
  for (TensorId id : graph.writtenArguments()) {
    HostTensor& tensor = golden[static_cast<std::size_t>(graph.tensor(id).argumentIndex)];
    tensor = tensor.contiguous();
  }
  if (!runReference(graph, golden, diags)) return std::nullopt;
  const double goldenMs = millisecondsSince(start);

  // Compile and simulate with their own diagnostics: a kernel this compiler
  // cannot take yet still runs (on the reference interpreter), and the
  // report and a Python warning say why it was not simulated.
  DiagnosticEngine simulationDiags;
  start = std::chrono::steady_clock::now();
  CompileSettings settings;
  settings.target = machine->targetInfo();
  settings.passOptions = group(jitOptions, "pass_options");
  settings.bindings = dynamicDimBindings(graph, arguments);
  std::optional<CompileResult> compiled = compileKernel(graph, std::move(settings), simulationDiags);
  const double compileMs = millisecondsSince(start);
  std::optional<Simulation> simulation;
  if (compiled) {
    SimulationRequest request;
    request.machine = &*machine;
    request.mode = *mode;
    request.runtime = *runtime;
    // The simulator works on the arguments themselves (the caller's memory when bound without a copy, see
    // PyptoCoreModule's tensorFromBuffer); if it stops part way, the golden replaces what it wrote.
    simulation = simulate(compiled->compilation, arguments, request, simulationDiags);
    // Timing mode leaves the data alone: the compiled tile graph on the CPU
    // gives the outputs, as `pto run` does, so they are still checked.
    if (simulation && *mode == SimulationMode::Timing &&
        !runTiles(compiled->compilation.tiles, arguments, simulationDiags))
      simulation.reset();
  }
  // Not simulated: the outputs are the reference interpreter's, and there is
  // nothing to compare them with.
  const char* outputsFrom = !simulation ? "reference" : *mode == SimulationMode::Functional ? "functional" : "tiles";
  if (!simulation) arguments = golden;

  nlohmann::ordered_json report;
  report["command"] = "kernel";
  report["pto_version"] = kVersion;
  report["kernel"] = graph.kernelName;
  bool pass = true;
  nlohmann::ordered_json outputs = nlohmann::ordered_json::array();
  for (TensorId id : graph.writtenArguments()) {
    const std::size_t index = static_cast<std::size_t>(graph.tensor(id).argumentIndex);
    const HostTensor& actual = arguments[index];
    if (!simulation) {
      outputs.push_back({{"name", graph.tensor(id).name},
                         {"dtype", std::string(name(actual.dtype()))},
                         {"shape", actual.shape().dims()},
                         {"checked", false}});
      continue;
    }
    OutputComparison comparison = compareOutput(actual, golden[index], defaultTolerance(actual.dtype()));
    pass = pass && comparison.pass();
    outputs.push_back(outputReportJson(graph.tensor(id).name, actual, "reference", comparison));
  }
  report["pass"] = pass;
  report["simulated"] = simulation.has_value();
  if (simulation) {
    addSimulationReport(report, compiled->compilation, *simulation);
  } else {
    report["machine"] = machine->name;
    report["mode"] = "reference";
    // The first error: notes (a clamped tile) may come before it.
    const auto& problems = simulationDiags.diagnostics();
    auto error = std::find_if(problems.begin(), problems.end(),
                              [](const Diagnostic& problem) { return problem.severity == Severity::Error; });
    report["simulation_error"] = error == problems.end() ? std::string("unknown")
                                                         : error->location.str() + ": " + error->message;
  }
  report["outputs_from"] = outputsFrom;
  report["timings_ms"] = {{"golden", goldenMs}, {"compile", compileMs},
                          {"simulate", simulation ? simulation->simulateMs : 0.0}};
  report["outputs"] = std::move(outputs);

  // PyPTO's simulator mode writes its cost-model folder; so do we, where
  // PyPTO's tools look (analysis/simulation/CostModelOutput.h). PTO_SIM_OUTPUT=0 turns
  // it off. A folder that cannot be written is a warning, not a failed run.
  const bool simOutput = jitOptions.is_object() && jitOptions.value("sim_output", false) &&
                         environment("PTO_SIM_OUTPUT", "1") != std::string("0");
  if (simOutput && simulation) {
    std::string error;
    auto folder = writeCostModelOutput(simulationTrace(compiled->compilation, *simulation), report, error);
    if (folder)
      report["sim_output"] = folder->string();
    else
      report["sim_output_error"] = error;
  }
  return report;
}

} // namespace pto
