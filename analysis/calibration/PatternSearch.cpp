// Hooke-Jeeves pattern search in a box.
#include "analysis/calibration/PatternSearch.h"

#include <algorithm>

namespace pto {

PatternSearchResult patternSearch(const std::function<double(const std::vector<double>&)>& objective,
                                  std::vector<double> start, const std::vector<double>& lower,
                                  const std::vector<double>& upper, const PatternSearchOptions& options) {
  PatternSearchResult result;
  const std::size_t n = start.size();
  auto clamp = [&](std::vector<double> x) {
    for (std::size_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], lower[i], upper[i]);
    return x;
  };
  auto evaluate = [&](const std::vector<double>& x) {
    ++result.evaluations;
    return objective(x);
  };
  result.x = clamp(std::move(start));
  result.value = evaluate(result.x);
  double step = options.initialStep;

  // One coordinate at a time, +step then -step, from `base` (value `value`).
  auto explore = [&](std::vector<double> base, double& value) {
    for (std::size_t i = 0; i < n && result.evaluations < options.budget; ++i) {
      for (double sign : {1.0, -1.0}) {
        std::vector<double> trial = base;
        trial[i] = std::clamp(base[i] + sign * step, lower[i], upper[i]);
        if (trial[i] == base[i]) continue;
        const double got = evaluate(trial);
        if (got < value) {
          base = std::move(trial);
          value = got;
          break;
        }
        if (result.evaluations >= options.budget) break;
      }
    }
    return base;
  };

  while (step >= options.finalStep && result.evaluations < options.budget) {
    double value = result.value;
    std::vector<double> moved = explore(result.x, value);
    if (value >= result.value) {
      step *= 0.5;
      continue;
    }
    // Pattern moves: keep going the way the exploration went while it pays.
    while (result.evaluations < options.budget) {
      std::vector<double> jump(n);
      for (std::size_t i = 0; i < n; ++i) jump[i] = 2.0 * moved[i] - result.x[i];
      jump = clamp(std::move(jump));
      result.x = moved;
      result.value = value;
      double jumpValue = evaluate(jump);
      std::vector<double> next = explore(jump, jumpValue);
      if (jumpValue >= result.value) break;
      moved = std::move(next);
      value = jumpValue;
    }
  }
  result.converged = step < options.finalStep;
  return result;
}

} // namespace pto
