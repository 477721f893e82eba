// The timing validation suite: loading validation.json, running its cases,
// and the first-principles bounds they are held to.
#include "analysis/validation/Validation.h"

#include "analysis/run/ProjectRun.h"
#include "analysis/simulation/Simulation.h"
#include "core/InstallPaths.h"
#include "core/project/ProjectFile.h"
#include "npusim/MachineFile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

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
  // At the sustained rate (peak x efficiency): the efficiency is a fitted
  // figure, so what the bound checks is the rest (start-up, waves, scheduling).
  if (validation.bound == "hbm")
    return argumentBytes / (machine.memory.bandwidthTBps * machine.memory.efficiency * 1e6);
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

namespace {

std::string readText(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// "a.b.c" -> {"a", "b", "c"}
std::vector<std::string> keyParts(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= key.size()) {
    std::size_t end = std::min(key.find('.', start), key.size());
    parts.push_back(key.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

constexpr std::string_view kPyptoPrefix = "${PYPTO}/";

bool usesPypto(const Json& project) {
  return project.is_object() && project.contains("source") && project["source"].is_string() &&
         project["source"].get<std::string>().rfind(kPyptoPrefix, 0) == 0;
}

// The project with a "${PYPTO}/" source pointed into `checkout`.
Json withCheckout(Json project, const std::filesystem::path& checkout) {
  if (usesPypto(project))
    project["source"] = (checkout / project["source"].get<std::string>().substr(kPyptoPrefix.size())).string();
  return project;
}

// One stage of a run, in microseconds: from the first start to the last end
// of the tasks labelled with one of `labels` that are, or depend on, a task
// labelled `after` (every such-labelled task when `after` is empty); nullopt
// when no task qualifies.
std::optional<double> stageSpanUs(const ProjectRunResult& run, const std::vector<std::string>& labels,
                                  const std::string& after) {
  const Compilation& compilation = run.compiled->compilation;
  const ExecuteGraph& graph = compilation.tasks;
  const Schedule& schedule = run.simulation->schedule;
  const std::vector<Subgraph>& subgraphs = compilation.blocks.subgraphs;
  auto labelOf = [&](const Task& task) -> std::string {
    return task.subgraph >= 0 && static_cast<std::size_t>(task.subgraph) < subgraphs.size()
               ? subgraphs[static_cast<std::size_t>(task.subgraph)].label
               : std::string();
  };
  // Tasks are in dependency order (predecessors have smaller ids), so one pass marks every descendant.
  std::vector<char> reached(graph.tasks.size(), after.empty() ? 1 : 0);
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  for (const Task& task : graph.tasks) {
    const auto id = static_cast<std::size_t>(task.id);
    const std::string label = labelOf(task);
    if (!after.empty()) {
      reached[id] = label == after;
      for (TaskId predecessor : task.predecessors)
        if (reached[static_cast<std::size_t>(predecessor)]) reached[id] = 1;
    }
    if (!reached[id] || std::find(labels.begin(), labels.end(), label) == labels.end() || id >= schedule.tasks.size())
      continue;
    first = std::min(first, schedule.tasks[id].startCycle);
    last = std::max(last, schedule.tasks[id].endCycle);
  }
  if (first > last) return std::nullopt;
  return static_cast<double>(last - first) / (run.simulation->clockGHz * 1000.0);
}

// The case's project run in timing mode on `machineName`, as if it were a
// project file in the suite folder. Diagnostics go to `diags`.
struct CaseRun {
  std::optional<ProjectRunResult> run;
  std::optional<MachineDescription> machine;
};
CaseRun runCaseProject(const ValidationSuite& suite, const std::string& name, const Json& project,
                       const std::string& machineName, const SourceLocation& location, DiagnosticEngine& diags) {
  Json document = project;
  document["name"] = name;
  document["machine"] = machineName;
  DiagnosticEngine caseDiags;
  // In the suite folder, so that sources resolve there; a '/' of a configuration's label is no folder.
  std::string fileName = name;
  std::replace(fileName.begin(), fileName.end(), '/', '-');
  const std::filesystem::path projectFile = suite.folder / (fileName + ".pto-project.json");
  const std::string projectText = document.dump(2);
  diags.setSourceText(projectFile.string(), projectText);  // the file exists only in memory
  CaseRun result;
  std::optional<OperatorProject> parsed = parseProject(projectText, projectFile, caseDiags);
  if (parsed) {
    ProjectRunOptions runOptions;
    runOptions.mode = SimulationMode::Timing;
    runOptions.check = PrecisionCheck::Never;  // the timeline is what is validated
    result.run = runProject(*parsed, caseDiags, runOptions);
    result.machine = findMachine(machineName, caseDiags, location);
  }
  for (const Diagnostic& diagnostic : caseDiags.diagnostics()) diags.report(diagnostic);
  if (!result.run || !result.run->simulation || !result.machine) {
    diags.note(location) << "while running validation case '" << name << "'";
    result.run.reset();
  }
  return result;
}

// Ranks of `values` (0 = smallest); equal values share the smaller rank.
std::vector<int> ranksOf(const std::vector<double>& values) {
  std::vector<int> ranks(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    int rank = 0;
    for (double other : values) rank += other < values[i] ? 1 : 0;
    ranks[i] = rank;
  }
  return ranks;
}

void collectParameters(const Json& node, const std::string& key, std::vector<MachineParameter>& out) {
  if (node.is_object()) {
    for (const auto& [member, value] : node.items())
      collectParameters(value, key.empty() ? member : key + "." + member, out);
  } else if (node.is_number()) {
    MachineParameter parameter;
    parameter.key = key;
    parameter.value = node.get<double>();
    out.push_back(std::move(parameter));
  }
}

double squaredLogError(double simulated, double published) {
  double error = std::log(simulated / published);
  return error * error;
}

} // namespace

bool needsPyptoCheckout(const ValidationCase& validation) {
  if (validation.usesPypto || usesPypto(validation.project)) return true;
  for (const ValidationConfiguration& configuration : validation.configurations)
    if (usesPypto(configuration.project)) return true;
  return false;
}

std::filesystem::path validationSuiteFolder() {
  std::vector<std::filesystem::path> folders =
      existingFolders({sharedDataFolder("validation"), std::filesystem::path(PTO_VALIDATION_SOURCE_DIR)});
  return folders.empty() ? std::filesystem::path(PTO_VALIDATION_SOURCE_DIR) : folders.front();
}

std::optional<ValidationSuite> loadValidationSuite(const std::filesystem::path& folder, DiagnosticEngine& diags) {
  const std::filesystem::path file = folder / "validation.json";
  std::ifstream in(file, std::ios::binary);
  if (!in) return diags.error(SourceLocation{file.string()}) << "cannot read the validation suite";
  const std::string text = readText(file);
  Json document = Json::parse(text, nullptr, false);
  if (document.is_discarded() || !document.is_object() || !document.contains("cases") || !document["cases"].is_array())
    return diags.error(SourceLocation{file.string()}) << "not a validation suite: expected an object with a \"cases\" array";
  ValidationSuite suite;
  suite.folder = folder;
  for (const Json& entry : document["cases"]) {
    ValidationCase validation;
    validation.name = entry.is_object() ? entry.value("name", "") : "";
    validation.location = SourceLocation{file.string(), lineOf(text, "\"" + validation.name + "\""), 0};
    auto fail = [&](const std::string& what) {
      diags.error(validation.location) << "case '" << validation.name << "': " << what;
      return std::nullopt;
    };
    if (validation.name.empty()) return fail("every case needs a \"name\"");
    validation.kind = entry.value("kind", "");
    validation.set = entry.value("set", "");
    validation.machine = entry.value("machine", "a2");
    validation.source = entry.value("source", "");
    validation.publishedUs = entry.value("published_us", 0.0);
    if (entry.contains("tolerance") && entry["tolerance"].is_object()) {
      validation.toleranceBelow = entry["tolerance"].value("below", 0.15);
      validation.toleranceAbove = entry["tolerance"].value("above", 0.15);
    }
    validation.tolerancePoints = entry.value("tolerance_points", 0.10);
    validation.toleranceReason = entry.value("tolerance_reason", "");
    validation.knownGap = entry.value("known_gap", "");
    validation.validates = entry.value("validates", "");
    validation.bound = entry.value("bound", "");
    validation.maxRatio = entry.value("max_ratio", 1.0);
    if (entry.contains("vector_ops"))
      for (const Json& op : entry["vector_ops"]) validation.vectorOps.emplace_back(op.value("class", ""), op.value("count", 0));
    validation.pending = entry.value("pending", "");
    validation.usesPypto = entry.value("uses_pypto", false);
    if (entry.contains("project")) validation.project = entry["project"];
    if (entry.contains("stage")) {
      const Json& stage = entry["stage"];
      if (!stage.is_object() || !stage.contains("labels") || !stage["labels"].is_array() || stage["labels"].empty())
        return fail("\"stage\" needs \"labels\": the semantic labels of the stage's tasks");
      for (const Json& label : stage["labels"]) {
        if (!label.is_string() || label.get<std::string>().empty())
          return fail("\"stage\" \"labels\" must be non-empty strings");
        validation.stageLabels.push_back(label.get<std::string>());
      }
      validation.stageAfter = stage.value("after", "");
    }
    if (validation.kind != "measured" && validation.kind != "delta" && validation.kind != "bound" &&
        validation.kind != "pending")
      return fail("\"kind\" must be \"measured\", \"delta\", \"bound\" or \"pending\"");
    if (validation.kind == "measured" || validation.kind == "delta") {
      if (validation.set != "calibration" && validation.set != "test")
        return fail("a " + validation.kind +
                    " case needs \"set\": \"calibration\" (it may fit global parameters) or \"test\" (it sets nothing)");
    } else {
      if (!validation.set.empty())
        return fail("only measured and delta cases belong to a set; a " + validation.kind + " case sets nothing");
      validation.set = validation.kind;
    }
    if (validation.kind == "measured" && !(validation.publishedUs > 0.0))
      return fail("a measured case needs \"published_us\" > 0");
    // The fit simulates calibration cases for their makespan only, so a stage belongs to the test set.
    if (!validation.stageLabels.empty() && !(validation.kind == "measured" && validation.set == "test"))
      return fail("\"stage\" is for measured cases of the test set");
    if (validation.kind == "bound" && !(validation.maxRatio >= 1.0)) return fail("a bound case needs \"max_ratio\" >= 1");
    if ((validation.kind == "measured" || validation.kind == "bound") && !validation.project.is_object())
      return fail("needs a \"project\" object (source, entry, args)");
    if (validation.kind == "delta") {
      if (!(validation.tolerancePoints > 0.0 && validation.tolerancePoints < 1.0))
        return fail("\"tolerance_points\" must be a fraction in (0, 1), e.g. 0.10 for ten percentage points");
      if (!entry.contains("configurations") || !entry["configurations"].is_array() || entry["configurations"].size() < 2)
        return fail("a delta case needs \"configurations\": at least two of {label, project, published_us | measured_change}");
      for (const Json& item : entry["configurations"]) {
        ValidationConfiguration configuration;
        configuration.label = item.is_object() ? item.value("label", "") : "";
        if (configuration.label.empty()) return fail("every configuration needs a \"label\"");
        if (!item.contains("project") || !item["project"].is_object())
          return fail("configuration '" + configuration.label + "' needs a \"project\" object");
        configuration.project = item["project"];
        configuration.publishedUs = item.value("published_us", 0.0);
        configuration.measuredChange = item.value("measured_change", 0.0);
        validation.configurations.push_back(std::move(configuration));
      }
      // Changes from published times when every configuration has one.
      const bool timed = std::all_of(validation.configurations.begin(), validation.configurations.end(),
                                     [](const ValidationConfiguration& c) { return c.publishedUs > 0.0; });
      for (std::size_t i = 1; i < validation.configurations.size(); ++i) {
        ValidationConfiguration& configuration = validation.configurations[i];
        if (timed) configuration.measuredChange = configuration.publishedUs / validation.configurations[0].publishedUs - 1.0;
        else if (!entry["configurations"][i].contains("measured_change"))
          return fail("configuration '" + configuration.label +
                      "' needs \"measured_change\" (t / t_first - 1) unless every configuration has \"published_us\"");
      }
    }
    suite.cases.push_back(std::move(validation));
  }
  if (document.contains("fit")) {
    const Json& fit = document["fit"];
    const SourceLocation at{file.string(), lineOf(text, "\"fit\""), 0};
    if (!fit.is_object() || !fit.contains("machine") || !fit.contains("parameters") || !fit["parameters"].is_array())
      return diags.error(at) << "\"fit\" must be {\"machine\": NAME, \"parameters\": [{\"key\": KEY, \"values\": [...]}]}";
    ValidationFit parsed;
    parsed.machine = fit.value("machine", "");
    for (const Json& parameter : fit["parameters"]) {
      FitParameter item;
      item.key = parameter.is_object() ? parameter.value("key", "") : "";
      if (item.key.empty() || !parameter.contains("values") || !parameter["values"].is_array() ||
          parameter["values"].empty())
        return diags.error(at) << "every fit parameter needs a \"key\" and a non-empty \"values\" array";
      for (const Json& value : parameter["values"]) {
        if (!value.is_number()) return diags.error(at) << "fit parameter '" << item.key << "': values must be numbers";
        item.values.push_back(value.get<double>());
      }
      parsed.parameters.push_back(std::move(item));
    }
    suite.fit = std::move(parsed);
  }
  return suite;
}

std::vector<ValidationResult> runValidation(const ValidationSuite& suite, const ValidationOptions& options,
                                            DiagnosticEngine& diags) {
  std::vector<ValidationResult> results;
  // Makespans by machine and project: a delta configuration that is also a
  // measured case (the same kernel, arguments and settings) is not simulated twice.
  std::map<std::string, double> simulatedBefore;
  for (const ValidationCase& validation : suite.cases) {
    if (!options.only.empty() &&
        std::find(options.only.begin(), options.only.end(), validation.name) == options.only.end())
      continue;
    if (options.onCase) options.onCase(validation);
    ValidationResult result;
    result.name = validation.name;
    result.kind = validation.kind;
    result.set = validation.set;
    result.machine = options.machineOverride.empty() ? validation.machine : options.machineOverride;
    result.source = validation.source;
    result.toleranceReason = validation.toleranceReason;
    result.knownGap = validation.knownGap;
    result.validates = validation.validates;
    if (validation.kind == "measured") {
      result.referenceUs = validation.publishedUs;
      result.criterion = percent(-validation.toleranceBelow) + " .. " + percent(validation.toleranceAbove);
    } else if (validation.kind == "bound") {
      result.criterion = "1x .. " + ratioText(validation.maxRatio) + " the bound";
    } else if (validation.kind == "delta") {
      char criterion[48];
      std::snprintf(criterion, sizeof criterion, "+-%.0f pts, same order", validation.tolerancePoints * 100.0);
      result.criterion = criterion;
    }
    if (validation.kind == "pending") {
      result.referenceUs = validation.publishedUs;
      result.failure = validation.pending;
      results.push_back(std::move(result));
      continue;
    }
    if (needsPyptoCheckout(validation) && options.pyptoCheckout.empty()) {
      result.referenceUs = validation.publishedUs;
      result.waiting = true;
      result.failure = "runs PyPTO's own kernel: give a PyPTO checkout (pto validate --pypto DIR, or PTO_PYPTO_CHECKOUT)";
      results.push_back(std::move(result));
      continue;
    }
    if (validation.kind == "delta") {
      std::vector<double> measured, simulated;
      bool ran = true;
      for (const ValidationConfiguration& configuration : validation.configurations) {
        ConfigurationResult item;
        item.label = configuration.label;
        item.publishedUs = configuration.publishedUs;
        item.measuredChange = configuration.measuredChange;
        const Json project = withCheckout(configuration.project, options.pyptoCheckout);
        if (auto known = simulatedBefore.find(result.machine + "\n" + project.dump()); known != simulatedBefore.end()) {
          item.simulatedUs = known->second;  // a measured case ran this very project already
          result.configurations.push_back(item);
          continue;
        }
        CaseRun caseRun = runCaseProject(suite, validation.name + " (" + configuration.label + ")", project,
                                         result.machine, validation.location, diags);
        if (!caseRun.run) {
          ran = false;
          result.failure = "configuration '" + configuration.label + "' did not compile or simulate (see the diagnostics)";
          break;
        }
        item.simulatedUs = caseRun.run->simulation->stats.makespanUs;
        simulatedBefore[result.machine + "\n" + project.dump()] = item.simulatedUs;
        result.compileMs += caseRun.run->compileMs;
        result.simulateMs += caseRun.run->simulateMs;
        result.configurations.push_back(item);
      }
      if (ran) {
        result.ran = true;
        const double first = result.configurations.front().simulatedUs;
        double worst = 0.0;
        for (ConfigurationResult& item : result.configurations) {
          item.simulatedChange = item.simulatedUs / first - 1.0;
          measured.push_back(item.measuredChange);
          simulated.push_back(item.simulatedChange);
          if (std::abs(item.simulatedChange - item.measuredChange) > std::abs(worst))
            worst = item.simulatedChange - item.measuredChange;
        }
        result.error = worst;
        result.simulatedUs = result.configurations.back().simulatedUs;
        result.orderMatches = ranksOf(measured) == ranksOf(simulated);
        result.pass = std::abs(worst) <= validation.tolerancePoints + 1e-12 && result.orderMatches;
      }
      results.push_back(std::move(result));
      continue;
    }
    const Json project = withCheckout(validation.project, options.pyptoCheckout);
    CaseRun caseRun = runCaseProject(suite, validation.name, project, result.machine, validation.location, diags);
    if (caseRun.run) simulatedBefore[result.machine + "\n" + project.dump()] = caseRun.run->simulation->stats.makespanUs;
    if (!caseRun.run) {
      result.failure = "the case did not compile or simulate (see the diagnostics)";
      results.push_back(std::move(result));
      continue;
    }
    const ProjectRunResult& run = *caseRun.run;
    result.ran = true;
    result.simulatedUs = run.simulation->stats.makespanUs;
    if (!validation.stageLabels.empty()) {
      std::optional<double> span = stageSpanUs(run, validation.stageLabels, validation.stageAfter);
      if (!span) {
        result.ran = false;
        result.failure = "no task of the run carries the stage's labels" +
                         (validation.stageAfter.empty() ? std::string() : " after '" + validation.stageAfter + "'");
        diags.error(validation.location) << "case '" << validation.name << "': " << result.failure;
        results.push_back(std::move(result));
        continue;
      }
      result.simulatedUs = *span;
    }
    result.compileMs = run.compileMs;
    result.simulateMs = run.simulateMs;
    if (validation.kind == "bound") {
      std::string why;
      std::optional<double> bound = boundUs(validation, run, *caseRun.machine, why);
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
  entry["set"] = result.set;
  entry["machine"] = result.machine;
  entry["source"] = result.source;
  if (result.kind != "delta") entry[result.kind == "bound" ? "bound_us" : "published_us"] = result.referenceUs;
  if (result.ran) {
    if (result.kind == "delta") {
      entry["configurations"] = Json::array();
      for (const ConfigurationResult& item : result.configurations) {
        Json configuration;
        configuration["label"] = item.label;
        if (item.publishedUs > 0.0) configuration["published_us"] = item.publishedUs;
        configuration["simulated_us"] = item.simulatedUs;
        configuration["measured_change"] = item.measuredChange;
        configuration["simulated_change"] = item.simulatedChange;
        entry["configurations"].push_back(std::move(configuration));
      }
      entry["worst_points_off"] = result.error;
      entry["order_matches"] = result.orderMatches;
    } else {
      entry["simulated_us"] = result.simulatedUs;
      entry["error"] = result.error;
    }
    entry["pass"] = result.pass;
    entry["compile_ms"] = result.compileMs;
    entry["simulate_ms"] = result.simulateMs;
  } else {
    entry["pass"] = nullptr;
    entry["not_run"] = result.failure;
    if (result.waiting) entry["waiting_for"] = "pypto_checkout";
  }
  if (!result.criterion.empty()) entry["criterion"] = result.criterion;
  if (!result.toleranceReason.empty()) entry["tolerance_reason"] = result.toleranceReason;
  if (!result.knownGap.empty()) entry["known_gap"] = result.knownGap;
  if (!result.validates.empty()) entry["validates"] = result.validates;
  return entry;
}

std::vector<MachineParameter> machineParameters(const MachineDescription& machine, DiagnosticEngine& diags) {
  std::vector<MachineParameter> parameters;
  Json document = Json::parse(readText(machine.file), nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    diags.error(SourceLocation{machine.file.string()}) << "cannot read the machine file again to list its parameters";
    return parameters;
  }
  // What describes the file rather than the chip is not a parameter.
  for (const char* key : {"schema_version", "description", "notes", "sources"}) document.erase(key);
  collectParameters(document, {}, parameters);
  for (MachineParameter& parameter : parameters) {
    std::size_t longest = 0;
    for (const auto& [key, source] : machine.sources) {
      const bool covers = parameter.key == key ||
                          (parameter.key.size() > key.size() && parameter.key.compare(0, key.size(), key) == 0 &&
                           parameter.key[key.size()] == '.');
      if (covers && key.size() > longest) {
        longest = key.size();
        parameter.sourceKey = key;
        parameter.source = source;
      }
    }
  }
  return parameters;
}

std::vector<double> machineValuesAt(const MachineDescription& machine, const std::vector<std::string>& keys) {
  std::vector<double> values;
  const Json document = Json::parse(readText(machine.file), nullptr, false);
  for (const std::string& key : keys) {
    const Json* node = &document;
    for (const std::string& part : keyParts(key)) {
      if (!node || !node->is_object() || !node->contains(part)) {
        node = nullptr;
        break;
      }
      node = &(*node)[part];
    }
    values.push_back(node && node->is_number() ? node->get<double>() : std::nan(""));
  }
  return values;
}

std::optional<MachineDescription> machineWithValues(const MachineDescription& machine,
                                                    const std::vector<std::pair<std::string, double>>& values,
                                                    DiagnosticEngine& diags) {
  Json document = Json::parse(readText(machine.file), nullptr, false);
  if (document.is_discarded() || !document.is_object()) {
    diags.error(SourceLocation{machine.file.string()}) << "cannot read the machine file again to vary it";
    return std::nullopt;
  }
  for (const auto& [key, value] : values) {
    Json* node = &document;
    for (const std::string& part : keyParts(key)) {
      if (!node->is_object() || !node->contains(part)) {
        diags.error(SourceLocation{machine.file.string()}) << "the fit names '" << key << "', which the machine file "
                                                           << machine.file.filename().string() << " does not have";
        return std::nullopt;
      }
      node = &(*node)[part];
    }
    *node = value;
  }
  return parseMachine(document.dump(1), machine.file, diags);
}

std::optional<FitResult> runFit(const ValidationSuite& suite, int threads, DiagnosticEngine& diags,
                                const std::function<void(int done, int total)>& progress) {
  const std::filesystem::path file = suite.folder / "validation.json";
  if (!suite.fit)
    return diags.error(SourceLocation{file.string()}) << "the suite has no \"fit\": nothing to fit";
  const auto started = std::chrono::steady_clock::now();
  const ValidationFit& fit = *suite.fit;
  FitResult result;
  result.machine = fit.machine;
  for (const FitParameter& parameter : fit.parameters) result.keys.push_back(parameter.key);
  // Compile every calibration case once.
  std::vector<ProjectRunResult> runs;
  std::optional<MachineDescription> machine;
  for (const ValidationCase& validation : suite.cases) {
    if (validation.set != "calibration" || validation.kind != "measured" || validation.machine != fit.machine) continue;
    CaseRun caseRun = runCaseProject(suite, validation.name, validation.project, fit.machine, validation.location, diags);
    if (!caseRun.run) return std::nullopt;
    if (!machine) machine = caseRun.machine;
    FitCaseResult item;
    item.name = validation.name;
    item.publishedUs = validation.publishedUs;
    result.cases.push_back(item);
    runs.push_back(std::move(*caseRun.run));
  }
  if (runs.empty() || !machine)
    return diags.error(SourceLocation{file.string()}) << "the fit has no measured calibration case on machine '"
                                                      << fit.machine << "'";
  if (runs.size() < 2)
    return diags.error(SourceLocation{file.string()}) << "the fit needs at least two calibration cases on machine '"
                                                      << fit.machine << "' (one case would fit its own figure)";
  result.machineValues = machineValuesAt(*machine, result.keys);
  // The grid: every combination of the parameters' values, each read back
  // as a machine (so an out-of-range value is refused as in a machine file).
  std::vector<std::size_t> index(fit.parameters.size(), 0);
  std::vector<MachineDescription> machines;
  while (true) {
    std::vector<double> point;
    std::vector<std::pair<std::string, double>> values;
    for (std::size_t p = 0; p < fit.parameters.size(); ++p) {
      point.push_back(fit.parameters[p].values[index[p]]);
      values.emplace_back(fit.parameters[p].key, point.back());
    }
    std::optional<MachineDescription> variant = machineWithValues(*machine, values, diags);
    if (!variant) return std::nullopt;
    machines.push_back(std::move(*variant));
    result.points.push_back(std::move(point));
    std::size_t p = 0;
    while (p < index.size() && ++index[p] == fit.parameters[p].values.size()) index[p++] = 0;
    if (p == index.size()) break;
  }
  // Simulate every (point, case) pair; pairs are independent.
  const std::size_t total = result.points.size() * runs.size();
  result.simulatedUs.assign(result.points.size(), std::vector<double>(runs.size(), 0.0));
  result.threads = std::max(1, threads);
  std::atomic<std::size_t> next{0};
  std::atomic<int> done{0};
  std::atomic<bool> failed{false};
  std::mutex diagsMutex;
  auto worker = [&] {
    for (std::size_t job = next++; job < total && !failed; job = next++) {
      const std::size_t point = job / runs.size(), item = job % runs.size();
      SimulationRequest request;
      request.machine = &machines[point];
      request.mode = SimulationMode::Timing;
      request.runtime = runs[item].runtime;
      request.keepPipeIntervals = false;
      std::vector<HostTensor> arguments;  // timing mode reads no data
      DiagnosticEngine jobDiags;
      std::optional<Simulation> simulation = simulate(runs[item].compiled->compilation, arguments, request, jobDiags);
      if (!simulation) {
        std::lock_guard lock(diagsMutex);
        for (const Diagnostic& diagnostic : jobDiags.diagnostics()) diags.report(diagnostic);
        failed = true;
        return;
      }
      result.simulatedUs[point][item] = simulation->stats.makespanUs;
      int finished = ++done;
      if (progress) {
        std::lock_guard lock(diagsMutex);
        progress(finished, static_cast<int>(total));
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < result.threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (failed) return std::nullopt;
  scoreFit(result);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

void scoreFit(FitResult& fit) {
  // The best point over every case but `leftOut` (cases.size(): none left out).
  auto bestPoint = [&](std::size_t leftOut) {
    std::size_t best = 0;
    double bestCost = std::numeric_limits<double>::infinity();
    for (std::size_t point = 0; point < fit.points.size(); ++point) {
      double cost = 0.0;
      for (std::size_t item = 0; item < fit.cases.size(); ++item)
        if (item != leftOut) cost += squaredLogError(fit.simulatedUs[point][item], fit.cases[item].publishedUs);
      if (cost < bestCost - 1e-15) {
        bestCost = cost;
        best = point;
      }
    }
    return best;
  };
  const std::size_t fitted = bestPoint(fit.cases.size());
  fit.fittedValues = fit.points[fitted];
  for (std::size_t item = 0; item < fit.cases.size(); ++item) {
    FitCaseResult& result = fit.cases[item];
    result.fittedError = fit.simulatedUs[fitted][item] / result.publishedUs - 1.0;
    const std::size_t without = bestPoint(item);
    result.leaveOneOutValues = fit.points[without];
    result.leaveOneOutError = fit.simulatedUs[without][item] / result.publishedUs - 1.0;
  }
}

Json fitResultJson(const FitResult& fit) {
  Json json;
  json["machine"] = fit.machine;
  json["keys"] = fit.keys;
  json["fitted_values"] = fit.fittedValues;
  json["machine_values"] = fit.machineValues;
  json["seconds"] = fit.seconds;
  json["threads"] = fit.threads;
  json["cases"] = Json::array();
  for (const FitCaseResult& item : fit.cases) {
    Json entry;
    entry["name"] = item.name;
    entry["published_us"] = item.publishedUs;
    entry["fitted_error"] = item.fittedError;
    entry["leave_one_out_error"] = item.leaveOneOutError;
    entry["leave_one_out_values"] = item.leaveOneOutValues;
    json["cases"].push_back(std::move(entry));
  }
  json["grid"] = Json::array();
  for (std::size_t point = 0; point < fit.points.size(); ++point)
    json["grid"].push_back(Json{{"values", fit.points[point]}, {"simulated_us", fit.simulatedUs[point]}});
  return json;
}

std::optional<FitResult> fitResultFromJson(const nlohmann::json& json) {
  try {
    FitResult fit;
    fit.machine = json.at("machine").get<std::string>();
    fit.keys = json.at("keys").get<std::vector<std::string>>();
    fit.machineValues = json.value("machine_values", std::vector<double>{});
    fit.seconds = json.value("seconds", 0.0);
    fit.threads = json.value("threads", 1);
    for (const nlohmann::json& entry : json.at("cases")) {
      FitCaseResult item;
      item.name = entry.at("name").get<std::string>();
      item.publishedUs = entry.at("published_us").get<double>();
      if (!(item.publishedUs > 0.0)) return std::nullopt;
      fit.cases.push_back(std::move(item));
    }
    for (const nlohmann::json& point : json.at("grid")) {
      fit.points.push_back(point.at("values").get<std::vector<double>>());
      fit.simulatedUs.push_back(point.at("simulated_us").get<std::vector<double>>());
      if (fit.points.back().size() != fit.keys.size() || fit.simulatedUs.back().size() != fit.cases.size())
        return std::nullopt;
    }
    if (fit.points.empty() || fit.cases.empty()) return std::nullopt;
    scoreFit(fit);
    return fit;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

} // namespace pto
