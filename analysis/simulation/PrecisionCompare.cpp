// Implementation of compareOutput.
#include "analysis/simulation/PrecisionCompare.h"

#include <cmath>
#include <cstdio>

namespace pto {

OutputComparison compareOutput(const HostTensor& actual, const HostTensor& expected, const Tolerance& tolerance) {
  OutputComparison result;
  result.tolerance = tolerance;
  result.elements = actual.elementCount();
  for (std::int64_t i = 0; i < result.elements; ++i) {
    double a = actual.getAsDouble(i);
    double e = expected.getAsDouble(i);
    bool match = false;
    if (std::isnan(a) || std::isnan(e)) {
      match = std::isnan(a) && std::isnan(e);
    } else if (std::isinf(a) || std::isinf(e)) {
      match = a == e;
    } else {
      double error = std::fabs(a - e);
      result.maxAbsError = std::max(result.maxAbsError, error);
      if (e != 0.0) result.maxRelError = std::max(result.maxRelError, error / std::fabs(e));
      match = error <= tolerance.atol + tolerance.rtol * std::fabs(e);
    }
    if (!match) {
      if (result.firstMismatch < 0) result.firstMismatch = i;
      ++result.mismatches;
    }
  }
  return result;
}

std::string judgementText(const OutputComparison& c) {
  const auto count = [](std::int64_t n, const char* what) {
    return n ? "; " + std::to_string(n) + " " + what : std::string();
  };
  if (c.rule == "exact") return "exact";
  if (c.rule == "quantized") return "quantized: within one step" + count(c.tolerated, "one step off");
  if (c.rule == "topk") return "topk: each row as a set" + count(c.tolerated, "tied indices differ");
  char text[64];
  std::snprintf(text, sizeof text, "rtol %.3g, atol %.3g", c.tolerance.rtol, c.tolerance.atol);
  return text;
}

nlohmann::ordered_json outputReportJson(const std::string& name, const HostTensor& actual,
                                        const std::string& goldenSource, const OutputComparison& comparison) {
  return {{"name", name},
          {"dtype", std::string(pto::name(actual.dtype()))},
          {"shape", actual.shape().dims()},
          {"golden", goldenSource},
          {"rule", comparison.rule},
          {"max_abs_err", comparison.maxAbsError},
          {"max_rel_err", comparison.maxRelError},
          {"mismatches", comparison.mismatches},
          {"tolerated", comparison.tolerated},
          {"mismatch_ratio", comparison.mismatchRatio()},
          {"rtol", comparison.tolerance.rtol},
          {"atol", comparison.tolerance.atol},
          {"pass", comparison.pass()}};
}

} // namespace pto
