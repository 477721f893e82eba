// Fitting a few bounded parameters to many residuals that come from a
// simulation: Levenberg-Marquardt with a forward-difference Jacobian
// (one simulation per parameter per step: no derivatives of the simulator
// are needed) and iteratively reweighted pseudo-Huber residuals, so that a
// few outliers (a disturbed task on a real chip) weigh like their size, not
// its square.
//
// Why residuals and not one number: every task is a separate equation, and
// tasks of different kinds (cube loads, vector streams, scheduler gaps)
// respond to different parameters; a scalar objective searched coordinate by
// coordinate trades one parameter for another along such valleys and stops
// in a wrong corner, where the per-task Jacobian separates them.
#pragma once

#include <functional>
#include <optional>
#include <vector>

namespace pto {

// One residual, already divided by its scale (1 = "one scale off"), and the
// weight of its term in the objective sum_i weight_i * phi(value_i), where
// phi(r) = sqrt(1 + r^2) - 1.
struct WeightedResidual {
  double value = 0.0;
  double weight = 1.0;
};
using Residuals = std::vector<WeightedResidual>;

double robustObjective(const Residuals& residuals);

struct RobustLeastSquaresOptions {
  double differenceStep = 0.02;  // forward difference in the units of x
  double finalStep = 1e-4;       // stop when a step moves no parameter more than this
  int budget = 300;              // residual evaluations at most
};

struct RobustLeastSquaresResult {
  std::vector<double> x;
  double value = 0.0;  // robustObjective at x
  int evaluations = 0;
  bool converged = false;
};

// Minimises robustObjective(residuals(x)) over the box [lower, upper] from
// `start`. `residuals` returns nullopt where it cannot be evaluated (taken as
// worse than anything); it must return the same number of rows everywhere.
// A parameter no residual depends on stays where it started.
RobustLeastSquaresResult robustLeastSquares(const std::function<std::optional<Residuals>(const std::vector<double>&)>& residuals,
                                            std::vector<double> start, const std::vector<double>& lower,
                                            const std::vector<double>& upper, const RobustLeastSquaresOptions& options = {});

} // namespace pto
