// The validation suite's fit and parameter table: the grid search and its
// leave-one-out errors against answers worked by hand, machine files varied
// at a key path, and every figure of the bundled A2 and A3 files traced to a
// source.
#include "analysis/validation/PredictionConfidence.h"
#include "analysis/validation/Validation.h"
#include "npusim/MachineFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

namespace {

using namespace pto;
namespace fs = std::filesystem;

const fs::path kMachines = fs::path(PTO_SOURCE_DIR) / "resources/machines";

// Three cases (published 100, 200, 50 us) on a grid of three points. Sums
// of squared log errors, worked by hand:
//   p0 (100, 260, 50): ln(1.3)^2            = 0.0688
//   p1 (110, 200, 55): 2 ln(1.1)^2          = 0.0182   <- best
//   p2 (150, 200, 75): 2 ln(1.5)^2          = 0.3288
// Leaving A out: p0 0.0688, p1 0.0091 -> p1, A at +10 %. Leaving B out: p0 0
// -> p0, B at +30 %. Leaving C out: p1, C at +10 %.
FitResult handWorkedFit() {
  FitResult fit;
  fit.keys = {"global_memory.efficiency"};
  for (auto [name, published] : {std::pair{"A", 100.0}, {"B", 200.0}, {"C", 50.0}}) {
    FitCaseResult item;
    item.name = name;
    item.publishedUs = published;
    fit.cases.push_back(item);
  }
  fit.points = {{0.5}, {0.6}, {0.7}};
  fit.simulatedUs = {{100.0, 260.0, 50.0}, {110.0, 200.0, 55.0}, {150.0, 200.0, 75.0}};
  return fit;
}

TEST(ValidationFit, TheGridPointWithTheLeastSquaredLogErrorWinsAndEachCaseIsScoredWithoutItself) {
  FitResult fit = handWorkedFit();
  scoreFit(fit);
  ASSERT_EQ(fit.fittedValues.size(), 1u);
  EXPECT_DOUBLE_EQ(fit.fittedValues[0], 0.6);
  EXPECT_NEAR(fit.cases[0].fittedError, 0.10, 1e-12);
  EXPECT_NEAR(fit.cases[1].fittedError, 0.0, 1e-12);
  EXPECT_NEAR(fit.cases[2].fittedError, 0.10, 1e-12);
  EXPECT_NEAR(fit.cases[0].leaveOneOutError, 0.10, 1e-12);
  EXPECT_NEAR(fit.cases[1].leaveOneOutError, 0.30, 1e-12);
  EXPECT_DOUBLE_EQ(fit.cases[1].leaveOneOutValues[0], 0.5);
  EXPECT_NEAR(fit.cases[2].leaveOneOutError, 0.10, 1e-12);
}

TEST(ValidationFit, ARecordedGridReadsBackToTheSameScores) {
  FitResult fit = handWorkedFit();
  scoreFit(fit);
  std::optional<FitResult> back = fitResultFromJson(nlohmann::json::parse(fitResultJson(fit).dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->fittedValues, fit.fittedValues);
  EXPECT_NEAR(back->cases[1].leaveOneOutError, 0.30, 1e-12);
  // A grid whose rows do not match its cases is refused, not misread.
  nlohmann::json broken = nlohmann::json::parse(fitResultJson(fit).dump());
  broken["grid"][0]["simulated_us"] = {1.0};
  EXPECT_FALSE(fitResultFromJson(broken));
}

TEST(ValidationFit, AMachineVariedAtAKeyPathIsReadBackAsAMachine) {
  DiagnosticEngine diags;
  std::optional<MachineDescription> a3 = loadMachine(kMachines / "a3.json", diags);
  ASSERT_TRUE(a3) << diags.diagnostics().size();
  std::optional<MachineDescription> varied =
      machineWithValues(*a3, {{"global_memory.efficiency", 0.5}, {"l2_cache.retained_share", 0.5}}, diags);
  ASSERT_TRUE(varied);
  ASSERT_NE(a3->memory.efficiency, 0.5) << "vary the file's values to something else";
  ASSERT_NE(a3->l2.effectiveBytes(), a3->l2.bytes / 2) << "vary the file's values to something else";
  EXPECT_DOUBLE_EQ(varied->memory.efficiency, 0.5);
  EXPECT_EQ(varied->l2.effectiveBytes(), a3->l2.bytes / 2);
  EXPECT_DOUBLE_EQ(varied->sustainedGmBytesPerCycle(), a3->sustainedGmBytesPerCycle() * 0.5 / a3->memory.efficiency);
  // A key the file lacks and a value out of range are errors, as in a machine file.
  DiagnosticEngine missing;
  EXPECT_FALSE(machineWithValues(*a3, {{"global_memory.speed", 1.0}}, missing));
  EXPECT_TRUE(missing.hasErrors());
  DiagnosticEngine outOfRange;
  EXPECT_FALSE(machineWithValues(*a3, {{"l2_cache.retained_share", 1.5}}, outOfRange));
  EXPECT_TRUE(outOfRange.hasErrors());
}

TEST(ValidationFit, EveryFigureOfTheBundledA2AndA3FilesHasASource) {
  for (const char* name : {"a2", "a3"}) {
    DiagnosticEngine diags;
    std::optional<MachineDescription> machine = loadMachine(kMachines / (std::string(name) + ".json"), diags);
    ASSERT_TRUE(machine) << name;
    std::vector<MachineParameter> parameters = machineParameters(*machine, diags);
    EXPECT_GT(parameters.size(), 50u) << name;
    for (const MachineParameter& parameter : parameters) {
      EXPECT_FALSE(parameter.sourceKey.empty()) << name << ": " << parameter.key << " has no source";
      EXPECT_FALSE(parameter.source.source.empty()) << name << ": " << parameter.key;
      if (parameter.source.kind == "fit") {
        EXPECT_FALSE(parameter.source.fittedOn.empty()) << parameter.key;
      }
    }
  }
}

TEST(ValidationFit, AFittedFigureMustNameTheCasesItWasFittedOn) {
  DiagnosticEngine diags;
  std::optional<MachineDescription> machine = parseMachine(
      R"({"sources": {"global_memory.efficiency": {"kind": "fit", "source": "a guess"}}})", "m.json", diags);
  EXPECT_FALSE(machine);
  bool named = false;
  for (const Diagnostic& diagnostic : diags.diagnostics())
    named = named || diagnostic.message.find("fitted_on") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(PredictionConfidence, ARuleCitesItsValidatedKindOrSaysThereIsNone) {
  PredictionConfidence confidence;
  confidence.kinds.push_back(ValidatedKind{"vector work merged into fewer, larger tasks",
                                           {ValidatedCase{"gdn", "test", true, -0.022, true, true}}});
  confidence.kinds.push_back(ValidatedKind{"cube-bound GEMM time",
                                           {ValidatedCase{"a", "calibration", false, 0.05, true, true},
                                            ValidatedCase{"b", "test", false, -0.169, false, true}}});
  EXPECT_EQ(confidenceOfRule("scheduling-bound-vector", confidence),
            "vector work merged into fewer, larger tasks: simulated gain within 2.2 points of the chip's on 1 case "
            "(held out of the fit)");
  EXPECT_EQ(confidence.kinds[1].summary(),
            "cube-bound GEMM time: within +-17 % of the chip on 2 cases (1 held out of the fit); 1 outside the "
            "suite's criterion (known gap)");
  EXPECT_NE(confidenceOfRule("wave-tail", confidence).find("no validated case of this kind"), std::string::npos);
  EXPECT_NE(confidenceOfRule("scheduling-bound-vector", std::nullopt).find("no validation record"), std::string::npos);
  EXPECT_EQ(confidenceOfRanking(confidence).rfind("what a change gains is validated on 1 delta case: 1 within", 0), 0u);
  // The record reads back to the same summaries.
  std::optional<PredictionConfidence> back = confidenceFromJson(nlohmann::json::parse(confidenceJson(confidence).dump()));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->kinds[1].summary(), confidence.kinds[1].summary());
}

} // namespace
