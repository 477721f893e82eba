#include "analysis/Advisor.h"

#include "analysis/AdvisorContext.h"
#include "analysis/PredictionConfidence.h"

#include "core/project/ProjectFile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace pto {
namespace advisor {

using json = nlohmann::json;

namespace {

double microseconds(const VariantRun& run) { return run.simulation.stats.makespanUs; }

std::string pointerToken(const std::string& key) {
  std::string token;
  for (char c : key) {
    if (c == '~') token += "~0";
    else if (c == '/') token += "~1";
    else token += c;
  }
  return token;
}

} // namespace

std::string formatUs(double us) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f us", us);
  return text;
}

json setMemberPatch(const json& document, const std::string& group, const std::string& member, const std::string& key,
                    const json& value) {
  json patch = json::array();
  const std::string groupPath = "/" + pointerToken(group);
  if (!document.contains(group) || !document[group].is_object()) {
    patch.push_back({{"op", "add"}, {"path", groupPath}, {"value", {{member, {{key, value}}}}}});
    return patch;
  }
  const std::string memberPath = groupPath + "/" + pointerToken(member);
  if (!document[group].contains(member) || !document[group][member].is_object()) {
    patch.push_back({{"op", "add"}, {"path", memberPath}, {"value", {{key, value}}}});
    return patch;
  }
  patch.push_back({{"op", "add"}, {"path", memberPath + "/" + pointerToken(key)}, {"value", value}});
  return patch;
}

int mergeCountFor(const OperatorProject& project, const std::string& option, const std::string& label) {
  const auto& options = project.passOptions;
  if (!options.is_object() || !options.contains(option)) return 1;
  const auto& setting = options[option];
  if (setting.is_number_integer()) return setting.get<int>();
  if (!setting.is_object()) return 1;
  for (const char* key : {label.c_str(), "DEFAULT", "-1"})
    if (setting.contains(key) && setting[key].is_number_integer()) return setting[key].get<int>();
  return 1;
}

Context::Context(const TracedProject& tracedProject, const VariantRun& baselineRun, const AdviceOptions& options,
                 Advice& advice)
    : traced(tracedProject), baseline(baselineRun),
      health(healthReport(baselineRun.compiled.compilation, baselineRun.simulation.schedule, baselineRun.machine)),
      m_options(options), m_advice(advice) {}

std::optional<double> Context::tryGraph(const TensorGraph& graph) {
  if (m_options.cancelled && m_options.cancelled()) return std::nullopt;
  DiagnosticEngine quiet;
  TracedProject variant{traced.project, graph, traced.arguments, traced.traceMs, traced.sourceText};
  ++m_advice.variantsSimulated;
  auto run = simulateVariant(variant, variant.project, quiet);
  if (!run) return std::nullopt;
  return microseconds(*run);
}

void Context::proposeSuggestion(Suggestion suggestion) {
  if (suggestion.predictedUs > suggestion.baselineUs * (1.0 - m_options.minimumGain)) return;
  m_advice.suggestions.push_back(std::move(suggestion));
}

std::optional<double> Context::tryPatch(const json& patch) {
  if (m_options.cancelled && m_options.cancelled()) return std::nullopt;
  DiagnosticEngine quiet;
  auto variant = patchedProject(traced.project, patch, quiet);
  if (!variant) return std::nullopt;
  ++m_advice.variantsSimulated;
  auto run = simulateVariant(traced, *variant, quiet);
  if (!run) return std::nullopt;
  return microseconds(*run);
}

void Context::propose(const std::string& rule, const std::string& target, const std::string& evidence,
                      const std::function<std::string(const std::string& value)>& title,
                      const std::vector<std::pair<std::string, json>>& candidates,
                      const std::vector<double>& estimatesUs) {
  Suggestion suggestion;
  suggestion.id = rule + ":" + target;
  suggestion.rule = rule;
  suggestion.evidence = evidence;
  suggestion.baselineUs = microseconds(baseline);
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto us = tryPatch(candidates[i].second);
    if (!us) continue;
    suggestion.tried.emplace_back(candidates[i].first, *us);
    if (!best || *us < suggestion.predictedUs) best = i, suggestion.predictedUs = *us;
  }
  if (!best || suggestion.predictedUs > suggestion.baselineUs * (1.0 - m_options.minimumGain)) return;
  suggestion.title = title(candidates[*best].first);
  suggestion.patch = candidates[*best].second;
  if (*best < estimatesUs.size()) suggestion.estimatedUs = estimatesUs[*best];
  m_advice.suggestions.push_back(std::move(suggestion));
}

} // namespace advisor

namespace {

using json = nlohmann::json;
using advisor::Context;
using advisor::formatUs;
using advisor::mergeCountFor;
using advisor::setMemberPatch;

std::vector<int> mergeCounts(int current, int limit) {
  std::vector<int> counts;
  for (int n : {2, 4, 8, 16, 32, 64})
    if (n != current && n <= std::max(2, limit)) counts.push_back(n);
  return counts;
}

// Tasks of each label on a core type, with how many of them are scheduling-bound.
struct LabelTasks {
  int tasks = 0, schedulingBound = 0;
  bool onCriticalPath = false;
};

std::map<std::string, LabelTasks> labelTasks(const Context& context, CoreType type) {
  const Compilation& compilation = context.baseline.compiled.compilation;
  const Schedule& schedule = context.baseline.simulation.schedule;
  std::map<std::string, LabelTasks> labels;
  std::set<TaskId> onPath(context.health.criticalPath.tasks.begin(), context.health.criticalPath.tasks.end());
  for (const Task& task : compilation.tasks.tasks) {
    if (schedule.tasks[static_cast<std::size_t>(task.id)].core.type != type) continue;
    LabelTasks& entry = labels[compilation.blocks.subgraph(task.subgraph).label];
    ++entry.tasks;
    entry.schedulingBound += context.health.taskBounds[static_cast<std::size_t>(task.id)].kind == "scheduling";
    entry.onCriticalPath = entry.onCriticalPath || onPath.count(task.id);
  }
  return labels;
}

const CoreTypeHealth& coreTypeHealth(const HealthReport& health, CoreType type) {
  return health.coreTypes[static_cast<std::size_t>(type)];
}

// scheduling-bound-vector: see the header.
void adviseVectorMerging(Context& context) {
  const CoreTypeHealth& aiv = coreTypeHealth(context.health, CoreType::AIV);
  if (aiv.idleWhileReady < 0.05) return;
  for (const auto& [label, tasks] : labelTasks(context, CoreType::AIV)) {
    if (label.empty() || tasks.tasks < 2 * aiv.cores || 2 * tasks.schedulingBound < tasks.tasks) continue;
    const int current = mergeCountFor(context.traced.project, "vec_nbuffer_setting", label);
    std::vector<std::pair<std::string, json>> candidates;
    // Up to twice the tasks per core: fewer tasks than cores can still win when dispatching dominates.
    for (int n : mergeCounts(current, 2 * tasks.tasks / aiv.cores))
      if (n > current)
        candidates.emplace_back(std::to_string(n), setMemberPatch(context.traced.project.document, "pass_options",
                                                                  "vec_nbuffer_setting", label, n));
    char evidence[400];
    std::snprintf(evidence, sizeof evidence,
                  "%d '%s' vector tasks, %d of them shorter than a scheduler round over the %d vector cores (%s); "
                  "the vector cores sat idle %.0f %% of the time while tasks were ready",
                  tasks.tasks, label.c_str(), tasks.schedulingBound, aiv.cores,
                  formatUs(aiv.schedulerRoundCycles / (context.health.clockGHz * 1000.0)).c_str(),
                  100.0 * aiv.idleWhileReady);
    context.propose("scheduling-bound-vector", label, evidence,
                    // A copy: clang before 16 cannot capture a structured binding.
                    [label = label](const std::string& value) {
                      return "vec_nbuffer_setting " + value + " for '" + label + "': " + value +
                             " of its tiles per vector task";
                    },
                    candidates);
  }
}

// l1-reuse: see the header.
void adviseL1Reuse(Context& context) {
  const Compilation& compilation = context.baseline.compiled.compilation;
  const Schedule& schedule = context.baseline.simulation.schedule;
  // Per label: how many of its cube tasks read each GM region.
  std::map<std::string, std::map<std::tuple<TensorId, std::vector<std::int64_t>, std::vector<std::int64_t>>, int>> reads;
  std::map<std::string, int> tasksOf;
  for (const Task& task : compilation.tasks.tasks) {
    if (schedule.tasks[static_cast<std::size_t>(task.id)].core.type != CoreType::AIC) continue;
    const std::string& label = compilation.blocks.subgraph(task.subgraph).label;
    ++tasksOf[label];
    for (const ConcreteRegion& region : task.reads)
      if (!region.gathered) ++reads[label][{region.tensor, region.offsets, region.shape}];
  }
  for (const auto& [label, regions] : reads) {
    if (label.empty()) continue;
    int shared = 0;
    for (const auto& [region, count] : regions) shared = std::max(shared, count);
    if (shared < 4) continue;
    const int current = mergeCountFor(context.traced.project, "cube_l1_reuse_setting", label);
    std::vector<std::pair<std::string, json>> candidates;
    for (int n : mergeCounts(current, shared))
      if (n > current)
        candidates.emplace_back(std::to_string(n), setMemberPatch(context.traced.project.document, "pass_options",
                                                                  "cube_l1_reuse_setting", label, n));
    const std::string evidence = std::to_string(tasksOf[label]) + " '" + label + "' cube tasks; one global-memory " +
                                 "region is loaded by " + std::to_string(shared) +
                                 " of them, each loading it into L1 again";
    context.propose("l1-reuse", label, evidence,
                    [label = label](const std::string& value) {
                      return "cube_l1_reuse_setting " + value + " for '" + label + "': " + value +
                             " matmuls per cube task share one load of their common operand";
                    },
                    candidates);
  }
}

// wave-tail: see the header.
void adviseWaveTail(Context& context) {
  for (const WaveHealth& wave : context.health.waves) {
    if (wave.label.empty() || wave.waves <= 1.0 || wave.waves > 4.0 || wave.lastWaveTasks * 4 > wave.cores * 3) continue;
    const CoreType type = wave.coreType == "AIC" ? CoreType::AIC : CoreType::AIV;
    const auto labels = labelTasks(context, type);
    auto found = labels.find(wave.label);
    if (found == labels.end() || !found->second.onCriticalPath) continue;
    const std::string option = type == CoreType::AIC ? "cube_l1_reuse_setting" : "vec_nbuffer_setting";
    const int current = mergeCountFor(context.traced.project, option, wave.label);
    if (current <= 1) continue;  // nothing merged: the task count is the tiles'; see the other rules
    std::vector<std::pair<std::string, json>> candidates;
    std::set<int> counts;
    for (int n = std::max(1, current / 2); n <= current * 2; n += std::max(1, current / 8)) counts.insert(n);
    counts.erase(current);
    for (int n : counts)
      candidates.emplace_back(std::to_string(n),
                              setMemberPatch(context.traced.project.document, "pass_options", option, wave.label, n));
    char evidence[300];
    std::snprintf(evidence, sizeof evidence,
                  "%d '%s' tasks on %d %s cores: %.2f waves, the last with %d of %d cores busy, on the critical path",
                  wave.tasks, wave.label.c_str(), wave.cores, type == CoreType::AIC ? "cube" : "vector", wave.waves,
                  wave.lastWaveTasks, wave.cores);
    context.propose("wave-tail", wave.label, evidence,
                    [&](const std::string& value) {
                      return option + " " + value + " for '" + wave.label + "' (now " + std::to_string(current) +
                             "): waves that end less ragged";
                    },
                    candidates);
  }
}

// stitch: see the header.
void adviseStitching(Context& context) {
  const Schedule& schedule = context.baseline.simulation.schedule;
  if (schedule.deviceTaskCount <= 1) return;
  const double idleWhileNone = std::min(coreTypeHealth(context.health, CoreType::AIC).idleWhileNoneReady,
                                        coreTypeHealth(context.health, CoreType::AIV).idleWhileNoneReady);
  if (idleWhileNone < 0.1) return;
  const auto& runtime = context.traced.project.runtimeOptions;
  const int current = runtime.is_object() && runtime.contains("stitch_function_max_num") &&
                              runtime["stitch_function_max_num"].is_number_integer()
                          ? runtime["stitch_function_max_num"].get<int>()
                          : 128;
  std::vector<std::pair<std::string, json>> candidates;
  for (int n : {current * 2, current * 4, current * 16}) {
    json patch = json::array();
    const json& document = context.traced.project.document;
    if (!document.contains("runtime_options") || !document["runtime_options"].is_object())
      patch.push_back({{"op", "add"}, {"path", "/runtime_options"}, {"value", {{"stitch_function_max_num", n}}}});
    else
      patch.push_back({{"op", "add"}, {"path", "/runtime_options/stitch_function_max_num"}, {"value", n}});
    candidates.emplace_back(std::to_string(n), patch);
  }
  const std::string evidence = std::to_string(schedule.deviceTaskCount) + " device tasks of at most " +
                               std::to_string(current) + " loop iterations each; both core types idle with nothing " +
                               "ready at least " + std::to_string(static_cast<int>(100 * idleWhileNone)) + " % of the time";
  context.propose("stitch", "runtime", evidence,
                  [&](const std::string& value) {
                    return "stitch_function_max_num " + value + " (now " + std::to_string(current) +
                           "): fewer, larger device tasks";
                  },
                  candidates);
}

} // namespace

std::optional<OperatorProject> patchedProject(const OperatorProject& project, const json& patch, DiagnosticEngine& diags) {
  // Ordered: the project file is saved with its keys where the user put them.
  nlohmann::ordered_json document = project.document;
  try {
    document = document.patch(nlohmann::ordered_json(patch));
  } catch (const nlohmann::ordered_json::exception& error) {
    diags.error(SourceLocation{project.file.string()}) << "the patch does not apply to the project: " << error.what();
    return std::nullopt;
  }
  // The patched text exists only here, so its line numbers would point at
  // nothing in the file, and its warnings were reported when the project was
  // loaded: only errors go on, about the project file as a whole.
  DiagnosticEngine reread;
  auto patched = parseProject(document.dump(2), project.file, reread);
  for (const Diagnostic& diagnostic : reread.diagnostics())
    if (diagnostic.severity == Severity::Error)
      diags.error(SourceLocation{project.file.string()}) << "with the patch applied: " << diagnostic.message;
  return patched;
}

std::optional<Advice> advise(const TracedProject& traced, DiagnosticEngine& diags, const AdviceOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto baseline = simulateVariant(traced, traced.project, diags);
  if (!baseline) return std::nullopt;
  Advice advice;
  Context context(traced, *baseline, options, advice);
  advice.baselineUs = baseline->simulation.stats.makespanUs;
  advice.bound = context.health.bound.kind;
  adviseVectorMerging(context);
  adviseL1Reuse(context);
  adviseWaveTail(context);
  adviseStitching(context);
  advisor::adviseUnevenWaves(context);
  advisor::adviseSmallMMatmul(context);
  advisor::adviseConsumerTiles(context);
  advisor::adviseEmptySubgraphs(context);
  advisor::adviseTileNearCapacity(context);
  advisor::adviseLowOverlap(context);
  advisor::adviseLoopBarriers(context);
  std::stable_sort(advice.suggestions.begin(), advice.suggestions.end(),
                   [](const Suggestion& a, const Suggestion& b) { return a.predictedUs < b.predictedUs; });
  for (Suggestion& suggestion : advice.suggestions)
    suggestion.confidence = confidenceOfRule(suggestion.rule, recordedConfidence());
  advice.adviseMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return advice;
}

std::optional<std::string> applyKernelEdit(const std::string& source, const KernelEdit& edit) {
  if (edit.line < 1 || edit.before.empty()) return std::nullopt;
  std::size_t start = 0;
  for (int line = 1; line < edit.line; ++line) {
    start = source.find('\n', start);
    if (start == std::string::npos) return std::nullopt;
    ++start;
  }
  const std::size_t end = std::min(source.find('\n', start), source.size());
  const std::size_t at = source.find(edit.before, start);
  if (at == std::string::npos || at + edit.before.size() > end) return std::nullopt;
  return source.substr(0, at) + edit.after + source.substr(at + edit.before.size());
}

nlohmann::ordered_json adviceJson(const Advice& advice) {
  nlohmann::ordered_json out;
  out["baseline_us"] = advice.baselineUs;
  out["bound"] = advice.bound;
  out["variants_simulated"] = advice.variantsSimulated;
  out["suggestions"] = nlohmann::ordered_json::array();
  for (const Suggestion& suggestion : advice.suggestions) {
    nlohmann::ordered_json tried = nlohmann::ordered_json::array();
    for (const auto& [value, us] : suggestion.tried) tried.push_back({{"value", value}, {"predicted_us", us}});
    out["suggestions"].push_back({{"id", suggestion.id},
                                  {"rule", suggestion.rule},
                                  {"title", suggestion.title},
                                  {"evidence", suggestion.evidence},
                                  {"patch", suggestion.patch}});
    nlohmann::ordered_json& entry = out["suggestions"].back();
    if (suggestion.kernelEdit)
      entry["kernel_edit"] = {{"file", suggestion.kernelEdit->file},
                              {"line", suggestion.kernelEdit->line},
                              {"before", suggestion.kernelEdit->before},
                              {"after", suggestion.kernelEdit->after}};
    entry["baseline_us"] = suggestion.baselineUs;
    if (suggestion.estimatedUs) entry["estimated_us"] = *suggestion.estimatedUs;
    entry["predicted_us"] = suggestion.predictedUs;
    entry["gain"] = suggestion.gain();
    entry["confidence"] = suggestion.confidence;
    entry["tried"] = tried;
  }
  return out;
}

} // namespace pto
