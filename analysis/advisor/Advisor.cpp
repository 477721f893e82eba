#include "analysis/advisor/Advisor.h"

#include "analysis/advisor/AdvisorContext.h"
#include "analysis/advisor/rules/Rules.h"
#include "analysis/validation/PredictionConfidence.h"

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

using json = nlohmann::json;

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
  advisor::Context context(traced, *baseline, options, advice);
  advice.baselineUs = baseline->simulation.stats.makespanUs;
  advice.bound = context.health.bound.kind;
  for (advisor::Rule rule : advisor::advisorRules()) rule(context);
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
