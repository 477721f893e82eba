// Levenberg-Marquardt with reweighted pseudo-Huber residuals, in a box.
#include "analysis/calibration/RobustLeastSquares.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>

namespace pto {

double robustObjective(const Residuals& residuals) {
  double total = 0.0;
  for (const WeightedResidual& residual : residuals) total += residual.weight * (std::sqrt(1.0 + residual.value * residual.value) - 1.0);
  return total;
}

RobustLeastSquaresResult robustLeastSquares(const std::function<std::optional<Residuals>(const std::vector<double>&)>& residuals,
                                            std::vector<double> start, const std::vector<double>& lower,
                                            const std::vector<double>& upper, const RobustLeastSquaresOptions& options) {
  RobustLeastSquaresResult result;
  const std::size_t n = start.size();
  constexpr double kWorst = std::numeric_limits<double>::infinity();
  auto evaluate = [&](const std::vector<double>& x) {
    ++result.evaluations;
    return residuals(x);
  };
  for (std::size_t i = 0; i < n; ++i) start[i] = std::clamp(start[i], lower[i], upper[i]);
  result.x = start;
  std::optional<Residuals> current = evaluate(result.x);
  if (!current) {
    result.value = kWorst;
    return result;
  }
  result.value = robustObjective(*current);
  const std::size_t m = current->size();
  double lambda = 1e-2;

  while (result.evaluations + static_cast<int>(n) + 1 <= options.budget) {
    // Rows sqrt(weight * irls) * r: the pseudo-Huber objective's Gauss-Newton
    // model at the current point (irls = phi'(r) / r = 1 / sqrt(1 + r^2)).
    Eigen::VectorXd rowScale(static_cast<Eigen::Index>(m)), r(static_cast<Eigen::Index>(m));
    for (std::size_t i = 0; i < m; ++i) {
      const WeightedResidual& residual = (*current)[i];
      rowScale[static_cast<Eigen::Index>(i)] =
          std::sqrt(residual.weight / std::sqrt(1.0 + residual.value * residual.value));
      r[static_cast<Eigen::Index>(i)] = residual.value;
    }
    Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(n));
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> probe = result.x;
      // Step inward at the upper bound.
      const double step = probe[j] + options.differenceStep <= upper[j] ? options.differenceStep : -options.differenceStep;
      probe[j] += step;
      std::optional<Residuals> moved = evaluate(probe);
      if (!moved || moved->size() != m) continue;  // no usable slope: the column stays zero, the parameter stays
      for (std::size_t i = 0; i < m; ++i)
        jacobian(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = ((*moved)[i].value - (*current)[i].value) / step;
    }
    const Eigen::MatrixXd weighted = rowScale.asDiagonal() * jacobian;
    const Eigen::VectorXd weightedResidual = rowScale.cwiseProduct(r);
    const Eigen::MatrixXd normal = weighted.transpose() * weighted;
    const Eigen::VectorXd gradient = weighted.transpose() * weightedResidual;

    bool improved = false;
    double largestMove = 0.0;
    while (result.evaluations < options.budget && lambda < 1e8) {
      Eigen::MatrixXd damped = normal;
      for (Eigen::Index j = 0; j < damped.rows(); ++j) damped(j, j) += lambda * std::max(normal(j, j), 1e-12);
      const Eigen::VectorXd delta = damped.ldlt().solve(-gradient);
      std::vector<double> trial = result.x;
      largestMove = 0.0;
      for (std::size_t j = 0; j < n; ++j) {
        const double moved = std::isfinite(delta[static_cast<Eigen::Index>(j)]) ? delta[static_cast<Eigen::Index>(j)] : 0.0;
        trial[j] = std::clamp(result.x[j] + moved, lower[j], upper[j]);
        largestMove = std::max(largestMove, std::abs(trial[j] - result.x[j]));
      }
      if (largestMove < options.finalStep) break;
      std::optional<Residuals> next = evaluate(trial);
      const double value = next && next->size() == m ? robustObjective(*next) : kWorst;
      if (value < result.value) {
        result.x = std::move(trial);
        result.value = value;
        current = std::move(next);
        lambda = std::max(lambda * 0.3, 1e-7);
        improved = true;
        break;
      }
      lambda *= 4.0;
    }
    if (!improved) {
      result.converged = largestMove < options.finalStep || lambda >= 1e8;
      break;
    }
  }
  return result;
}

} // namespace pto
