// Grouping validation results by the kind of prediction they check, and the
// advisor rules' kinds.
#include "analysis/validation/PredictionConfidence.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <utility>

namespace pto {
namespace {

// Which validated kind each advisor rule's change is an instance of. A rule
// missing here proposes a change no case of the suite checks on a chip.
constexpr std::array<std::pair<std::string_view, std::string_view>, 2> kRuleKinds = {{
    // Fewer, wider vector tasks: the GDN inverse's eight [16,16] tasks as one [16,128] tile.
    {"scheduling-bound-vector", "vector work merged into fewer, larger tasks"},
    {"consumer-finer-than-producer", "vector work merged into fewer, larger tasks"},
}};

std::string fixed(double value, int digits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

} // namespace

std::string ValidatedKind::summary() const {
  if (cases.empty()) return kind + ": no case";
  const bool delta = cases.front().delta;
  double worst = 0.0;
  int passed = 0, heldOut = 0, inOrder = 0;
  for (const ValidatedCase& item : cases) {
    worst = std::max(worst, std::abs(item.error));
    passed += item.pass ? 1 : 0;
    heldOut += item.set == "test" ? 1 : 0;
    inOrder += item.orderMatches ? 1 : 0;
  }
  const int n = static_cast<int>(cases.size());
  const std::string count = std::to_string(n) + (n == 1 ? " case" : " cases");
  std::string held = heldOut == n   ? (n == 1 ? "held out of the fit" : "all held out of the fit")
                    : heldOut == 0 ? (n == 1 ? "in the calibration set" : "all in the calibration set")
                                   : std::to_string(heldOut) + " held out of the fit";
  std::string text = kind + ": ";
  if (delta) {
    text += std::string(passed == n ? "simulated gain within " : "simulated gain off by up to ") +
            fixed(worst * 100.0, 1) + " points of the chip's on " + count + " (" + held + ")";
    if (inOrder < n) text += ", in the chip's order on " + std::to_string(inOrder);
  } else {
    text += "within +-" + fixed(worst * 100.0, 0) + " % of the chip on " + count + " (" + held + ")";
  }
  if (passed < n) text += "; " + std::to_string(n - passed) + " outside the suite's criterion (known gap)";
  return text;
}

const ValidatedKind* PredictionConfidence::find(std::string_view kind) const {
  for (const ValidatedKind& item : kinds)
    if (item.kind == kind) return &item;
  return nullptr;
}

PredictionConfidence confidenceFromResults(const std::vector<ValidationResult>& results) {
  PredictionConfidence confidence;
  for (const ValidationResult& result : results) {
    if (result.validates.empty() || !result.ran || (result.kind != "measured" && result.kind != "delta")) continue;
    auto kind = std::find_if(confidence.kinds.begin(), confidence.kinds.end(),
                             [&](const ValidatedKind& item) { return item.kind == result.validates; });
    if (kind == confidence.kinds.end()) {
      confidence.kinds.push_back(ValidatedKind{result.validates, {}});
      kind = std::prev(confidence.kinds.end());
    }
    kind->cases.push_back(
        ValidatedCase{result.name, result.set, result.kind == "delta", result.error, result.pass, result.orderMatches});
  }
  return confidence;
}

nlohmann::ordered_json confidenceJson(const PredictionConfidence& confidence) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const ValidatedKind& kind : confidence.kinds) {
    nlohmann::ordered_json cases = nlohmann::ordered_json::array();
    for (const ValidatedCase& item : kind.cases)
      cases.push_back({{"name", item.name},
                       {"set", item.set},
                       {"delta", item.delta},
                       {"error", item.error},
                       {"pass", item.pass},
                       {"order_matches", item.orderMatches}});
    json.push_back({{"kind", kind.kind}, {"summary", kind.summary()}, {"cases", cases}});
  }
  return json;
}

std::optional<PredictionConfidence> confidenceFromJson(const nlohmann::json& json) {
  if (!json.is_array()) return std::nullopt;
  try {
    PredictionConfidence confidence;
    for (const nlohmann::json& entry : json) {
      ValidatedKind kind;
      kind.kind = entry.at("kind").get<std::string>();
      for (const nlohmann::json& item : entry.at("cases"))
        kind.cases.push_back(ValidatedCase{item.at("name").get<std::string>(), item.at("set").get<std::string>(),
                                           item.at("delta").get<bool>(), item.at("error").get<double>(),
                                           item.at("pass").get<bool>(), item.value("order_matches", true)});
      confidence.kinds.push_back(std::move(kind));
    }
    return confidence;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

const std::optional<PredictionConfidence>& recordedConfidence() {
  static const std::optional<PredictionConfidence> recorded = [] {
    std::ifstream in(validationSuiteFolder() / "confidence.json");
    if (!in) return std::optional<PredictionConfidence>();
    nlohmann::json json = nlohmann::json::parse(in, nullptr, false);
    return json.is_discarded() ? std::optional<PredictionConfidence>() : confidenceFromJson(json);
  }();
  return recorded;
}

std::string_view validatedKindOfRule(std::string_view rule) {
  for (const auto& [name, kind] : kRuleKinds)
    if (name == rule) return kind;
  return {};
}

std::string confidenceOfRule(std::string_view rule, const std::optional<PredictionConfidence>& confidence) {
  const std::string_view kind = validatedKindOfRule(rule);
  if (kind.empty()) return "no validated case of this kind: the gain is simulated, not yet checked against a chip";
  if (!confidence) return std::string(kind) + ": no validation record found (confidence.json)";
  if (const ValidatedKind* validated = confidence->find(kind)) return validated->summary();
  return std::string(kind) + ": no validated case of this kind in the record";
}

std::string confidenceOfRanking(const std::optional<PredictionConfidence>& confidence) {
  if (!confidence) return "no validation record found (confidence.json)";
  int cases = 0, passed = 0, inOrder = 0;
  for (const ValidatedKind& kind : confidence->kinds)
    for (const ValidatedCase& item : kind.cases) {
      if (!item.delta) continue;
      ++cases;
      passed += item.pass ? 1 : 0;
      inOrder += item.orderMatches ? 1 : 0;
    }
  if (cases == 0) return "no validated case of what a change gains";
  return "what a change gains is validated on " + std::to_string(cases) + (cases == 1 ? " delta case: " : " delta cases: ") +
         std::to_string(passed) +
         " within 10 points of the chip's, " + std::to_string(inOrder) +
         " in the chip's order (docs/validation.md); a ranking between changes of other kinds is simulated, not "
         "yet checked against a chip";
}

} // namespace pto
