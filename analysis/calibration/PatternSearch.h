// A derivative-free minimiser for a few bounded parameters whose objective
// is a re-simulation: Hooke-Jeeves pattern search (coordinate moves, then a
// jump along the direction they found; the step halves when no move helps).
//
// Calibration polishes with it after the least-squares fit: a simulated time
// is piecewise constant in the parameters (integer cycles), so slopes are
// ragged at small steps, where trying points beats following a gradient; and
// a flat direction (a parameter the traces do not constrain) stays where it
// is, since a move is taken only when it strictly lowers the objective.
#pragma once

#include <functional>
#include <vector>

namespace pto {

struct PatternSearchOptions {
  double initialStep = 0.25;   // in the units of x
  double finalStep = 0.001;    // stop when the step halves below this
  int budget = 500;            // objective evaluations at most
};

struct PatternSearchResult {
  std::vector<double> x;
  double value = 0.0;
  int evaluations = 0;
  bool converged = false;  // the step reached finalStep (not the budget)
};

// Minimises `objective` over the box [lower, upper] from `start` (inside it).
PatternSearchResult patternSearch(const std::function<double(const std::vector<double>&)>& objective,
                                  std::vector<double> start, const std::vector<double>& lower,
                                  const std::vector<double>& upper, const PatternSearchOptions& options = {});

} // namespace pto
