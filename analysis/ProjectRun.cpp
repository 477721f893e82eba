// Implementation of runProject.
#include "analysis/ProjectRun.h"

#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/reference/TileInterpreter.h"
#include "core/Npy.h"
#include "core/project/ArgumentData.h"

#include <chrono>
#include <map>

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

} // namespace

CompileSettings compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                   const std::vector<HostTensor>& arguments) {
  CompileSettings settings;
  for (const SymbolSource& symbol : graph.dynamicSymbols)
    if (static_cast<std::size_t>(symbol.argument) < arguments.size())
      settings.bindings[symbol.symbol] =
          arguments[static_cast<std::size_t>(symbol.argument)].shape()[static_cast<std::size_t>(symbol.dim)];
  settings.tileSettings = project.tileSettings;
  settings.passOptions = project.passOptions;
  settings.projectFile = project.file.string();
  return settings;
}

bool ProjectRunResult::pass() const {
  for (const OutputResult& output : outputs)
    if (!output.comparison.pass()) return false;
  return true;
}

std::optional<ProjectRunResult> runProject(const OperatorProject& project, DiagnosticEngine& diags,
                                           const ProjectRunOptions& options) {
  ProjectRunResult result;
  auto start = std::chrono::steady_clock::now();
  auto graph = traceProject(project, diags, options.trace);
  if (!graph) return std::nullopt;
  result.graph = std::move(*graph);
  result.traceMs = millisecondsSince(start);
  const TensorGraph& traced = result.graph;

  // Inputs as the project describes them; outputs the kernel returns
  // (functional style) get zero-filled buffers of their traced shape.
  SourceLocation projectLocation{project.file.string()};
  std::map<std::string, std::int64_t> bindings;
  for (std::size_t i = 0; i < project.args.size(); ++i) {
    const KernelArgument& arg = project.args[i];
    auto shape = *project.concreteShape(arg);
    auto data = makeArgumentData(arg, shape, project.directory(), diags, projectLocation, static_cast<int>(i));
    if (!data) return std::nullopt;
    result.arguments.push_back(std::move(*data));
    result.argumentNames.push_back(arg.name);
  }
  for (const SymbolSource& symbol : traced.dynamicSymbols)
    if (static_cast<std::size_t>(symbol.argument) < result.arguments.size())
      bindings[symbol.symbol] = result.arguments[static_cast<std::size_t>(symbol.argument)].shape()[static_cast<std::size_t>(symbol.dim)];
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

  // The golden: the reference interpreter on a copy of the inputs.
  start = std::chrono::steady_clock::now();
  std::vector<HostTensor> golden = deepCopy(result.arguments);
  if (!runReference(traced, golden, diags, referenceOptions)) return std::nullopt;
  result.goldenMs = millisecondsSince(start);

  // Compile, then execute the tile graph on the CPU (the simulator replaces
  // this step behind the same result).
  start = std::chrono::steady_clock::now();
  result.compiled = compileKernel(traced, compileSettingsFor(project, traced, result.arguments), diags, options.compile);
  if (!result.compiled) return std::nullopt;
  result.compileMs = millisecondsSince(start);
  start = std::chrono::steady_clock::now();
  result.executor = "tiles";
  if (!runTiles(result.compiled->compilation.tiles, result.arguments, diags, referenceOptions)) return std::nullopt;
  result.executeMs = millisecondsSince(start);

  for (TensorId id : traced.writtenArguments()) {
    std::size_t index = static_cast<std::size_t>(traced.tensor(id).argumentIndex);
    OutputResult output;
    output.name = result.argumentNames[index];
    output.actual = result.arguments[index];
    output.expected = golden[index];
    output.goldenSource = "reference";
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
    output.comparison = compareOutput(output.actual, output.expected, tolerance);
    result.outputs.push_back(std::move(output));
  }
  return result;
}

} // namespace pto
