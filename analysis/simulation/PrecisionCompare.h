// Comparing a run's outputs with their golden values.
#pragma once

#include "core/HostTensor.h"
#include "core/project/OperatorProject.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace pto {

// Elementwise |actual - expected| <= atol + rtol * |expected| (numpy's
// allclose); NaN matches NaN, and an infinity matches only the same infinity.
struct OutputComparison {
  double maxAbsError = 0.0;
  double maxRelError = 0.0;  // |a - e| / |e| over elements with e != 0
  std::int64_t mismatches = 0;
  std::int64_t elements = 0;
  std::int64_t firstMismatch = -1;  // linear index (C order), -1 when none
  Tolerance tolerance;
  // The rule that judged it (OutputRules.h): "allclose", "exact", "quantized" or "topk".
  std::string rule = "allclose";
  // Differences the rule accepts: quantized elements one step off, top-k indices missing from a row within
  // its allowance.
  std::int64_t tolerated = 0;
  double mismatchRatio() const { return elements ? static_cast<double>(mismatches) / static_cast<double>(elements) : 0.0; }
  bool pass() const { return mismatches == 0; }
};

// How the rule judged an output, in words for a report: "rtol 0.001, atol 0.001", "exact",
// "quantized: within one step; 19 one step off", "topk: each row as a set".
std::string judgementText(const OutputComparison& comparison);

// Both tensors must have the same shape (dtypes may differ).
OutputComparison compareOutput(const HostTensor& actual, const HostTensor& expected, const Tolerance& tolerance);

// One entry of a run report's "outputs" (docs/cli.md): name, dtype, shape,
// golden (where the expected values came from), rule, max_abs_err,
// max_rel_err, mismatches, tolerated, mismatch_ratio, rtol, atol, pass.
nlohmann::ordered_json outputReportJson(const std::string& name, const HostTensor& actual,
                                        const std::string& goldenSource, const OutputComparison& comparison);

} // namespace pto
