// The timing validation suite: loading validation.json, running its cases,
// and the first-principles bounds they are held to.
#include "analysis/Validation.h"

#include "analysis/ProjectRun.h"
#include "core/InstallPaths.h"
#include "core/project/ProjectFile.h"
#include "npusim/MachineFile.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace pto {
namespace {

using Json = nlohmann::ordered_json;

// The 1-based line of the first occurrence of `needle` in `text`, or 0.
int lineOf(const std::string& text, const std::string& needle) {
  std::size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
}

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.0f%%", fraction * 100.0);
  return buffer;
}

std::string ratioText(double ratio) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3gx", ratio);
  return buffer;
}

double elements(const std::vector<std::int64_t>& shape) {
  double count = 1.0;
  for (std::int64_t extent : shape) count *= static_cast<double>(extent);
  return count;
}

// The case's bound in microseconds from the machine's peak figures and the
// compiled kernel (its matmul tile ops and its arguments), or an error text.
std::optional<double> boundUs(const ValidationCase& validation, const ProjectRunResult& run,
                              const MachineDescription& machine, std::string& why) {
  const Compilation& compilation = run.compiled->compilation;
  const double cyclesPerUs = machine.clockGHz * 1e3;
  if (validation.bound == "cube") {
    // Every task's matmuls at the cube's peak rate for their input dtype.
    double cycles = 0.0;
    for (const Task& task : compilation.tasks.tasks)
      for (TileOpId id : compilation.blocks.subgraph(task.subgraph).ops) {
        const TileOp& op = compilation.tiles.tileOp(id);
        if (op.kind != TensorOpKind::Matmul || op.inputs.empty() || op.inputs[0].shape.empty()) continue;
        const DataType dtype = compilation.tiles.graph.tensor(op.inputs[0].tensor).dtype;
        const std::optional<CubeRate>& rate = machine.cube[static_cast<std::size_t>(dtype)];
        if (!rate) {
          why = "the cube of machine '" + machine.name + "' takes no " + std::string(name(dtype));
          return std::nullopt;
        }
        double macs = elements(op.outputs[0].shape) * static_cast<double>(op.inputs[0].shape.back());
        cycles += macs / static_cast<double>(rate->macsPerCycle);
      }
    if (cycles <= 0.0) {
      why = "the kernel has no matmul";
      return std::nullopt;
    }
    return cycles / machine.aicCores / cyclesPerUs;
  }
  double argumentBytes = 0.0;
  for (const HostTensor& argument : run.arguments)
    argumentBytes += elements(argument.shape().dims()) * static_cast<double>(sizeOf(argument.dtype()));
  if (validation.bound == "hbm") return argumentBytes / (machine.memory.bandwidthTBps * 1e6);
  if (validation.bound == "vector") {
    // Each op reads one argument's worth of bytes (the chain's input size).
    const double perOp = run.arguments.empty()
                             ? 0.0
                             : elements(run.arguments[0].shape().dims()) * static_cast<double>(sizeOf(run.arguments[0].dtype()));
    double cycles = 0.0;
    for (const auto& [opClass, count] : validation.vectorOps) {
      auto parsed = parseVectorOpClass(opClass);
      if (!parsed) {
        why = "unknown vector op class '" + opClass + "'";
        return std::nullopt;
      }
      cycles += count * perOp * machine.vector.costFactors[static_cast<std::size_t>(*parsed)] / machine.vector.bytesPerCycle;
    }
    return cycles / machine.aivCores / cyclesPerUs;
  }
  why = "unknown bound '" + validation.bound + "' (cube, hbm or vector)";
  return std::nullopt;
}

} // namespace

std::filesystem::path validationSuiteFolder() {
  std::vector<std::filesystem::path> folders =
      existingFolders({sharedDataFolder("validation"), std::filesystem::path(PTO_VALIDATION_SOURCE_DIR)});
  return folders.empty() ? std::filesystem::path(PTO_VALIDATION_SOURCE_DIR) : folders.front();
}

std::optional<ValidationSuite> loadValidationSuite(const std::filesystem::path& folder, DiagnosticEngine& diags) {
  const std::filesystem::path file = folder / "validation.json";
  std::ifstream in(file, std::ios::binary);
  if (!in) return diags.error(SourceLocation{file.string()}) << "cannot read the validation suite";
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("cases") || !document["cases"].is_array())
    return diags.error(SourceLocation{file.string()}) << "not a validation suite: expected an object with a \"cases\" array";
  ValidationSuite suite;
  suite.folder = folder;
  for (const Json& entry : document["cases"]) {
    ValidationCase validation;
    validation.name = entry.value("name", "");
    validation.location = SourceLocation{file.string(), lineOf(text, "\"" + validation.name + "\""), 0};
    auto fail = [&](const std::string& what) {
      return static_cast<bool>(diags.error(validation.location) << "case '" << validation.name << "': " << what);
    };
    if (validation.name.empty()) {
      fail("every case needs a \"name\"");
      return std::nullopt;
    }
    validation.kind = entry.value("kind", "");
    validation.machine = entry.value("machine", "a2");
    validation.source = entry.value("source", "");
    validation.publishedUs = entry.value("published_us", 0.0);
    if (entry.contains("tolerance") && entry["tolerance"].is_object()) {
      validation.toleranceBelow = entry["tolerance"].value("below", 0.15);
      validation.toleranceAbove = entry["tolerance"].value("above", 0.15);
    }
    validation.toleranceReason = entry.value("tolerance_reason", "");
    validation.bound = entry.value("bound", "");
    validation.maxRatio = entry.value("max_ratio", 1.0);
    if (entry.contains("vector_ops"))
      for (const Json& op : entry["vector_ops"]) validation.vectorOps.emplace_back(op.value("class", ""), op.value("count", 0));
    validation.pending = entry.value("pending", "");
    if (entry.contains("project")) validation.project = entry["project"];
    if (validation.kind != "measured" && validation.kind != "bound" && validation.kind != "pending") {
      fail("\"kind\" must be \"measured\", \"bound\" or \"pending\"");
      return std::nullopt;
    }
    if (validation.kind == "measured" && !(validation.publishedUs > 0.0)) {
      fail("a measured case needs \"published_us\" > 0");
      return std::nullopt;
    }
    if (validation.kind == "bound" && !(validation.maxRatio >= 1.0)) {
      fail("a bound case needs \"max_ratio\" >= 1");
      return std::nullopt;
    }
    if (validation.kind != "pending" && !validation.project.is_object()) {
      fail("needs a \"project\" object (source, entry, args)");
      return std::nullopt;
    }
    suite.cases.push_back(std::move(validation));
  }
  return suite;
}

std::vector<ValidationResult> runValidation(const ValidationSuite& suite, const ValidationOptions& options,
                                            DiagnosticEngine& diags) {
  std::vector<ValidationResult> results;
  for (const ValidationCase& validation : suite.cases) {
    if (!options.only.empty() &&
        std::find(options.only.begin(), options.only.end(), validation.name) == options.only.end())
      continue;
    if (options.onCase) options.onCase(validation);
    ValidationResult result;
    result.name = validation.name;
    result.kind = validation.kind;
    result.machine = options.machineOverride.empty() ? validation.machine : options.machineOverride;
    result.source = validation.source;
    result.toleranceReason = validation.toleranceReason;
    if (validation.kind == "measured") {
      result.referenceUs = validation.publishedUs;
      result.criterion = percent(-validation.toleranceBelow) + " .. " + percent(validation.toleranceAbove);
    } else if (validation.kind == "bound") {
      result.criterion = "1x .. " + ratioText(validation.maxRatio) + " the bound";
    }
    if (validation.kind == "pending") {
      result.referenceUs = validation.publishedUs;
      result.failure = validation.pending;
      results.push_back(std::move(result));
      continue;
    }
    // The case's project, as if it were a project file in the suite folder.
    Json document = validation.project;
    document["name"] = validation.name;
    document["machine"] = result.machine;
    DiagnosticEngine caseDiags;
    const std::filesystem::path projectFile = suite.folder / (validation.name + ".pto-project.json");
    const std::string projectText = document.dump(2);
    diags.setSourceText(projectFile.string(), projectText);  // the file exists only in memory
    std::optional<OperatorProject> project = parseProject(projectText, projectFile, caseDiags);
    std::optional<ProjectRunResult> run;
    std::optional<MachineDescription> machine;
    if (project) {
      ProjectRunOptions runOptions;
      runOptions.mode = SimulationMode::Timing;
      runOptions.check = PrecisionCheck::Never;  // the timeline is what is validated
      run = runProject(*project, caseDiags, runOptions);
      machine = findMachine(result.machine, caseDiags, validation.location);
    }
    for (const Diagnostic& diagnostic : caseDiags.diagnostics()) diags.report(diagnostic);
    if (!run || !run->simulation || !machine) {
      result.failure = "the case did not compile or simulate (see the diagnostics)";
      diags.note(validation.location) << "while running validation case '" << validation.name << "'";
      results.push_back(std::move(result));
      continue;
    }
    result.ran = true;
    result.simulatedUs = run->simulation->stats.makespanUs;
    result.compileMs = run->compileMs;
    result.simulateMs = run->simulateMs;
    if (validation.kind == "bound") {
      std::string why;
      std::optional<double> bound = boundUs(validation, *run, *machine, why);
      if (!bound) {
        result.ran = false;
        result.failure = why;
        diags.error(validation.location) << "case '" << validation.name << "': " << why;
        results.push_back(std::move(result));
        continue;
      }
      result.referenceUs = *bound;
    }
    result.error = result.simulatedUs / result.referenceUs - 1.0;
    result.pass = validation.kind == "measured"
                      ? result.error >= -validation.toleranceBelow && result.error <= validation.toleranceAbove
                      : result.simulatedUs >= result.referenceUs && result.simulatedUs <= result.referenceUs * validation.maxRatio;
    results.push_back(std::move(result));
  }
  return results;
}

Json validationResultJson(const ValidationResult& result) {
  Json entry;
  entry["name"] = result.name;
  entry["kind"] = result.kind;
  entry["machine"] = result.machine;
  entry["source"] = result.source;
  entry[result.kind == "bound" ? "bound_us" : "published_us"] = result.referenceUs;
  if (result.ran) {
    entry["simulated_us"] = result.simulatedUs;
    entry["error"] = result.error;
    entry["pass"] = result.pass;
    entry["compile_ms"] = result.compileMs;
    entry["simulate_ms"] = result.simulateMs;
  } else {
    entry["pass"] = nullptr;
    entry["not_run"] = result.failure;
  }
  if (!result.criterion.empty()) entry["criterion"] = result.criterion;
  if (!result.toleranceReason.empty()) entry["tolerance_reason"] = result.toleranceReason;
  return entry;
}

} // namespace pto
