// How sure a prediction is: which kind of validated case backs it, and how
// close the simulator came to the chip on those cases.
//
// Every measured and delta case of the validation suite names the kind of
// prediction it checks ("validates": "cube-bound GEMM time", "tile order for
// L2 reuse", ...). `pto validate --record` writes the suite's results grouped
// by kind to confidence.json beside validation.json (a CI test keeps the
// record equal to a fresh run); the advisor attaches to each suggestion the
// kind its rule's change is an instance of, with that kind's record, or says
// that no validated case of the kind exists. A predicted gain without a
// validated kind is still simulated, only not checked against a chip.
#pragma once

#include "analysis/validation/Validation.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

struct ValidatedCase {
  std::string name;
  std::string set;    // "calibration" or "test"
  bool delta = false; // error is in percentage points of gain, else a fraction of the time
  double error = 0.0;
  bool pass = false;
  bool orderMatches = true;
};

struct ValidatedKind {
  std::string kind;
  std::vector<ValidatedCase> cases;
  // One line a user reads: "tile order for L2 reuse: gain within 1.6 points
  // of the chip's on 1 case (held out)".
  std::string summary() const;
};

struct PredictionConfidence {
  std::vector<ValidatedKind> kinds;
  const ValidatedKind* find(std::string_view kind) const;
};

// The results of a whole-suite run grouped by the kind each case validates
// (cases that name none, bounds and pending cases are left out).
PredictionConfidence confidenceFromResults(const std::vector<ValidationResult>& results);

nlohmann::ordered_json confidenceJson(const PredictionConfidence& confidence);
std::optional<PredictionConfidence> confidenceFromJson(const nlohmann::json& json);

// confidence.json of the bundled suite (validationSuiteFolder()), read once;
// nullopt when there is no record.
const std::optional<PredictionConfidence>& recordedConfidence();

// The kind of validated change an advisor rule proposes ("" when none of
// the suite's kinds is one).
std::string_view validatedKindOfRule(std::string_view rule);

// What backs a suggestion of `rule`: its kind's summary, or "no validated
// case of this kind (...)".
std::string confidenceOfRule(std::string_view rule, const std::optional<PredictionConfidence>& confidence);

// What backs a tuner's ranking: the suite's delta cases as a whole.
std::string confidenceOfRanking(const std::optional<PredictionConfidence>& confidence);

} // namespace pto
