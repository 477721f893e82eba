// The timing validation suite behind `pto validate`: reference kernels whose
// simulated time is compared with published chip measurements and with
// first-principles bounds computed from the machine file.
//
// The suite is a folder (resources/validation, installed beside the
// binaries) holding validation.json and the kernels its cases name. A case:
//   name, machine                  which chip it runs on
//   kind  "measured"  published_us and tolerance {below, above} (fractions):
//                     passes when -below <= simulated / published - 1 <= above;
//                     tolerance_reason says why a side differs from 0.15
//         "bound"     bound: "cube" | "hbm" | "vector", max_ratio: passes when
//                     bound <= simulated <= bound x max_ratio
//         "pending"   listed with its published figure and what it waits for
//   source             where the figure comes from (printed with the result)
//   project            an operator project (source, entry, args, pass_options, ...)
//                      relative to the suite folder
// Bounds use the machine's peak figures, never the simulator:
//   cube    sum of M*N*K over the kernel's matmuls / (AIC cores x MACs per cycle x clock)
//   hbm     bytes of every argument (inputs read once, outputs written once) / peak bandwidth
//   vector  per vector_ops entry: count x argument bytes x cost factor / (AIV cores x bytes per cycle x clock)
#pragma once

#include "core/Diagnostics.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pto {

struct ValidationCase {
  std::string name;
  std::string kind;  // "measured", "bound", "pending"
  std::string machine;
  std::string source;
  double publishedUs = 0.0;
  double toleranceBelow = 0.15;
  double toleranceAbove = 0.15;
  std::string toleranceReason;
  std::string bound;  // "cube", "hbm", "vector"
  double maxRatio = 1.0;
  std::vector<std::pair<std::string, int>> vectorOps;  // cost class, count
  std::string pending;
  nlohmann::ordered_json project;  // the operator project, as a project file holds it
  SourceLocation location;         // the case in validation.json
};

struct ValidationSuite {
  std::filesystem::path folder;
  std::vector<ValidationCase> cases;
};

// The folder the suite is read from: ../share/pto-studio/validation beside
// the executable, else the source tree's resources/validation.
std::filesystem::path validationSuiteFolder();

// Reads `folder`/validation.json; errors name the file and line.
std::optional<ValidationSuite> loadValidationSuite(const std::filesystem::path& folder, DiagnosticEngine& diags);

struct ValidationResult {
  std::string name;
  std::string kind;
  std::string machine;
  std::string source;
  double referenceUs = 0.0;  // the published time or the bound
  double simulatedUs = 0.0;
  double error = 0.0;        // simulated / reference - 1
  bool pass = false;
  bool ran = false;          // false: pending, or the run failed (see failure)
  std::string criterion;     // "-15% .. +15%", "bound .. 1.6x bound"
  std::string toleranceReason;
  std::string failure;       // why the case did not run
  double compileMs = 0.0;
  double simulateMs = 0.0;
};

struct ValidationOptions {
  std::string machineOverride;  // run every case on this machine instead of its own
  std::vector<std::string> only;  // case names; empty: all
  std::function<void(const ValidationCase&)> onCase;  // called as each case starts
};

// Runs the cases; a case that cannot run is a failed result with its reason
// (its diagnostics are added to `diags` too), not an early stop.
std::vector<ValidationResult> runValidation(const ValidationSuite& suite, const ValidationOptions& options,
                                            DiagnosticEngine& diags);

nlohmann::ordered_json validationResultJson(const ValidationResult& result);

} // namespace pto
