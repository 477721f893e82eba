// What the advisor's rules share (internal to Advisor.cpp and
// the rules, rules/): the baseline run and its health report, a way to try a
// patch by simulating it, and helpers that write JSON patches of the project.
#pragma once

#include "analysis/advisor/Advisor.h"

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace pto::advisor {

// Operations that set document[group][member][key] = value, creating the
// objects on the way that the document lacks.
nlohmann::json setMemberPatch(const nlohmann::json& document, const std::string& group, const std::string& member,
                              const std::string& key, const nlohmann::json& value);

// The setting now in force for `label` in a merge option ({"LABEL": N}, else DEFAULT), 1 when none.
int mergeCountFor(const OperatorProject& project, const std::string& option, const std::string& label);

std::string formatUs(double us);

class Context {
public:
  Context(const TracedProject& traced, const VariantRun& baseline, const AdviceOptions& options, Advice& advice);

  // The makespan of the project with `patch` applied; nullopt when the patched
  // project does not compile or simulate (its diagnostics are dropped: a
  // value the machine cannot take is simply not proposed).
  std::optional<double> tryPatch(const nlohmann::json& patch);
  // The makespan of the project with its traced kernel replaced by `graph` (a
  // kernel edit made on the traced program); nullopt as for tryPatch.
  std::optional<double> tryGraph(const TensorGraph& graph);
  // Adds a suggestion built by hand if it gains enough.
  void proposeSuggestion(Suggestion suggestion);

  // Tries each (value, patch) and proposes the fastest if it gains enough;
  // `estimatesUs`, when given, holds the rule's estimate of each candidate's
  // makespan (the proposal carries the chosen one's).
  void propose(const std::string& rule, const std::string& target, const std::string& evidence,
               const std::function<std::string(const std::string& value)>& title,
               const std::vector<std::pair<std::string, nlohmann::json>>& candidates,
               const std::vector<double>& estimatesUs = {});

  const Compilation& compilation() const { return baseline.compiled.compilation; }
  const Schedule& schedule() const { return baseline.simulation.schedule; }

  const TracedProject& traced;
  const VariantRun& baseline;
  const HealthReport health;

private:
  const AdviceOptions& m_options;
  Advice& m_advice;
};


} // namespace pto::advisor
