// The timing validation suite behind `pto validate`: reference kernels whose
// simulated time is compared with published chip measurements and with
// first-principles bounds computed from the machine file.
//
// The suite is a folder (resources/validation, installed beside the
// binaries) holding validation.json and the kernels its cases name. A case:
//   name, machine                  which chip it runs on
//   set   "calibration" the case may be used to choose or fit global machine
//                       parameters (the suite's "fit" names which);
//         "test"        it sets nothing: its error is the model's prediction error
//   kind  "measured"  published_us and tolerance {below, above} (fractions):
//                     passes when -below <= simulated / published - 1 <= above
//         "delta"     configurations [{label, project, published_us |
//                     measured_change}]: what changing the first into each
//                     other one gains on the chip. Passes when every
//                     simulated change (t_i / t_0 - 1) is within
//                     tolerance_points (default 0.10) of the measured one and
//                     the configurations rank in the chip's order
//         "bound"     bound: "cube" | "hbm" | "vector", max_ratio: passes when
//                     bound <= simulated <= bound x max_ratio
//         "pending"   listed with its published figure and what it waits for
//   source             where the figure comes from (printed with the result)
//   validates          the kind of prediction the case checks, for the advisor's
//                      confidence (PredictionConfidence.h): "cube-bound GEMM time", ...
//   project            an operator project (source, entry, args, pass_options, ...)
//                      relative to the suite folder; a source "${PYPTO}/..." is a
//                      kernel of a PyPTO checkout (PyPTO's own kernels are not
//                      bundled): without one the case waits, listed as pending
//   stage              measured cases of the test set: {labels: [...], after: LABEL}: the
//                      published figure is one stage of the kernel, read from the swimlane:
//                      from the first start to the last end of the tasks whose semantic label is
//                      one of `labels` and that are, or depend on, a task labelled `after`
//                      (optional: every task with those labels). Without it: the makespan
//   uses_pypto         true: the suite's kernel imports PyPTO's own kernel from the
//                      checkout ($PTO_PYPTO_CHECKOUT, which pto validate sets); it
//                      waits without one, as "${PYPTO}/" sources do
// Bounds use the machine's peak figures, never the simulator:
//   cube    sum of M*N*K over the kernel's matmuls / (AIC cores x MACs per cycle x clock)
//   hbm     bytes of every argument (inputs read once, outputs written once) / sustained
//           bandwidth (peak x efficiency)
//   vector  per vector_ops entry: count x argument bytes x cost factor / (AIV cores x bytes per cycle x clock)
//
// The fit ("fit": {machine, parameters: [{key, values}]}) is a grid search:
// every calibration case of that machine is compiled once and simulated at
// every point of the grid (the machine file with those keys set); the point
// with the least sum of squared log errors wins. Leaving each case out in
// turn and refitting on the rest gives the error the fit predicts that case
// with: the leave-one-out error, which says how much the calibration set
// pins each case down. The machine file records the fitted values and the
// cases behind them in its "sources"; fit.json records the last fit's grid.
#pragma once

#include "core/Diagnostics.h"
#include "npusim/MachineDescription.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

// One configuration of a delta case.
struct ValidationConfiguration {
  std::string label;
  double publishedUs = 0.0;     // 0: not published, measuredChange is
  double measuredChange = 0.0;  // t / t_first - 1 on the chip (0 for the first)
  nlohmann::ordered_json project;
};

struct ValidationCase {
  std::string name;
  std::string kind;  // "measured", "delta", "bound", "pending"
  std::string set;   // "calibration", "test"; bounds and pending cases: "bound", "pending"
  std::string machine;
  std::string source;
  double publishedUs = 0.0;
  double toleranceBelow = 0.15;
  double toleranceAbove = 0.15;
  double tolerancePoints = 0.10;  // delta cases: simulated change - measured change
  std::string toleranceReason;
  std::string bound;  // "cube", "hbm", "vector"
  double maxRatio = 1.0;
  std::vector<std::pair<std::string, int>> vectorOps;  // cost class, count
  std::string pending;
  std::string knownGap;  // why a case that fails fails (docs/validation.md has the measurements)
  std::string validates;  // the kind of prediction it checks (PredictionConfidence.h)
  // The case's kernels (suite files) import PyPTO's own kernels from the checkout `pto validate` is given,
  // which it hands them as $PTO_PYPTO_CHECKOUT: without one the case waits, as "${PYPTO}/" sources do.
  bool usesPypto = false;
  nlohmann::ordered_json project;  // the operator project, as a project file holds it
  std::vector<ValidationConfiguration> configurations;  // delta cases
  // Measured cases of one stage of the kernel (see "stage" above); empty labels: the makespan.
  std::vector<std::string> stageLabels;
  std::string stageAfter;
  SourceLocation location;         // the case in validation.json
};

struct FitParameter {
  std::string key;  // a machine-file key path: "global_memory.efficiency"
  std::vector<double> values;
};

struct ValidationFit {
  std::string machine;
  std::vector<FitParameter> parameters;
};

struct ValidationSuite {
  std::filesystem::path folder;
  std::vector<ValidationCase> cases;
  std::optional<ValidationFit> fit;
};

// The folder the suite is read from: ../share/pto-studio/validation beside
// the executable, else the source tree's resources/validation.
std::filesystem::path validationSuiteFolder();

// Reads `folder`/validation.json; errors name the file and line.
std::optional<ValidationSuite> loadValidationSuite(const std::filesystem::path& folder, DiagnosticEngine& diags);

struct ConfigurationResult {
  std::string label;
  double publishedUs = 0.0;
  double simulatedUs = 0.0;
  double measuredChange = 0.0;
  double simulatedChange = 0.0;
};

struct ValidationResult {
  std::string name;
  std::string kind;
  std::string set;
  std::string machine;
  std::string source;
  double referenceUs = 0.0;  // the published time or the bound
  double simulatedUs = 0.0;
  double error = 0.0;        // simulated / reference - 1; delta: the largest |points| off
  bool pass = false;
  bool ran = false;          // false: pending, waiting for a PyPTO checkout, or the run failed (see failure)
  bool waiting = false;      // needs a PyPTO checkout that was not given
  std::string criterion;     // "-15% .. +15%", "bound .. 1.6x bound", "+-10 points, same order"
  std::string toleranceReason;
  std::string knownGap;
  std::string validates;
  std::string failure;       // why the case did not run
  std::vector<ConfigurationResult> configurations;  // delta cases
  bool orderMatches = true;                         // delta cases
  double compileMs = 0.0;
  double simulateMs = 0.0;
};

struct ValidationOptions {
  std::string machineOverride;  // run every case on this machine instead of its own
  std::vector<std::string> only;  // case names; empty: all
  std::function<void(const ValidationCase&)> onCase;  // called as each case starts
  // The PyPTO checkout "${PYPTO}/" sources resolve against; empty: such cases wait.
  std::filesystem::path pyptoCheckout;
};

// Whether the case runs a kernel of a PyPTO checkout ("${PYPTO}/..." sources).
bool needsPyptoCheckout(const ValidationCase& validation);

// Runs the cases; a case that cannot run is a failed result with its reason
// (its diagnostics are added to `diags` too), not an early stop.
std::vector<ValidationResult> runValidation(const ValidationSuite& suite, const ValidationOptions& options,
                                            DiagnosticEngine& diags);

nlohmann::ordered_json validationResultJson(const ValidationResult& result);

// --- Parameters and their sources -------------------------------------------

// One numeric figure of a machine file with where it comes from.
struct MachineParameter {
  std::string key;    // "paths.gm_to_l1.peak_gib_per_s"
  double value = 0.0;
  std::string sourceKey;  // the "sources" entry that covers it (itself or a parent); empty: none
  ParameterSource source;
};

// Every numeric figure of `machine`'s file, in file order, each with the
// "sources" entry of its own key or of the nearest parent key that has one.
std::vector<MachineParameter> machineParameters(const MachineDescription& machine, DiagnosticEngine& diags);

// The figures at `keys` in `machine`'s file as it is now (NaN where absent).
std::vector<double> machineValuesAt(const MachineDescription& machine, const std::vector<std::string>& keys);

// `machine`'s file with `values` set at the fit's keys, read back as a
// machine (same name). nullopt with diagnostics when a key does not exist or
// the value is out of range.
std::optional<MachineDescription> machineWithValues(const MachineDescription& machine,
                                                    const std::vector<std::pair<std::string, double>>& values,
                                                    DiagnosticEngine& diags);

// --- The fit ----------------------------------------------------------------

struct FitCaseResult {
  std::string name;
  double publishedUs = 0.0;
  double fittedError = 0.0;       // at the fitted point
  double leaveOneOutError = 0.0;  // at the point fitted without this case
  std::vector<double> leaveOneOutValues;
};

struct FitResult {
  std::string machine;
  std::vector<std::string> keys;
  std::vector<double> fittedValues;   // per key
  std::vector<double> machineValues;  // what the machine file holds now, per key
  std::vector<FitCaseResult> cases;
  // The grid: every point's values and each case's simulated time there.
  std::vector<std::vector<double>> points;
  std::vector<std::vector<double>> simulatedUs;  // [point][case]
  double seconds = 0.0;
  int threads = 1;
};

// Runs the suite's fit (nullopt with diagnostics when there is none or a
// calibration case does not run). `threads` simulate grid points in parallel.
std::optional<FitResult> runFit(const ValidationSuite& suite, int threads, DiagnosticEngine& diags,
                                const std::function<void(int done, int total)>& progress = {});

// The leave-one-out figures computed from a recorded grid (no simulation).
void scoreFit(FitResult& fit);

nlohmann::ordered_json fitResultJson(const FitResult& fit);
std::optional<FitResult> fitResultFromJson(const nlohmann::json& json);

} // namespace pto
