// Running an operator project end to end: trace the kernel, make the
// arguments, compute the golden, execute, compare. `pto run` and the IDE's
// Run both call this.
#pragma once

#include "analysis/PrecisionCompare.h"
#include "compiler/frontend/ProjectTrace.h"
#include "core/HostTensor.h"

#include <string>
#include <vector>

namespace pto {

struct ProjectRunOptions {
  ProjectTraceOptions trace;
};

struct OutputResult {
  std::string name;
  HostTensor actual;
  HostTensor expected;
  std::string goldenSource;  // "reference" or the .npy path
  OutputComparison comparison;
};

struct ProjectRunResult {
  TensorGraph graph;
  std::vector<HostTensor> arguments;  // final contents, in graph argument order
  std::vector<std::string> argumentNames;
  std::vector<OutputResult> outputs;
  std::string executor;  // what produced `actual`: "reference" until the simulator exists
  double traceMs = 0.0;
  double goldenMs = 0.0;
  double executeMs = 0.0;
  bool pass() const;
};

// nullopt when the run could not complete (diagnostics say why); a run whose
// outputs miss their golden still returns a result, with pass() false.
std::optional<ProjectRunResult> runProject(const OperatorProject& project, DiagnosticEngine& diags,
                                           const ProjectRunOptions& options = {});

} // namespace pto
