// Running an operator project end to end: trace the kernel, make the
// arguments, compute the golden, execute, compare. `pto run` and the IDE's
// Run both call this.
#pragma once

#include "analysis/PrecisionCompare.h"
#include "compiler/frontend/ProjectTrace.h"
#include "compiler/passes/Pipeline.h"
#include "core/HostTensor.h"

#include <string>
#include <vector>

namespace pto {

struct ProjectRunOptions {
  ProjectTraceOptions trace;
  CompileOptions compile;
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
  std::string executor;  // what produced `actual`: "tiles" (the tile graph on the CPU) until the simulator exists
  std::optional<CompileResult> compiled;
  double traceMs = 0.0;
  double compileMs = 0.0;
  double goldenMs = 0.0;
  double executeMs = 0.0;
  bool pass() const;
};

// nullopt when the run could not complete (diagnostics say why); a run whose
// outputs miss their golden still returns a result, with pass() false.
// The settings a project compiles its traced graph with: dynamic dims bound
// from the argument shapes, the project's tile settings and pass options.
// The machine is found by the project's "machine" name; an unknown name is an
// error listing the machines there are.
std::optional<CompileSettings> compileSettingsFor(const OperatorProject& project, const TensorGraph& graph,
                                                  const std::vector<HostTensor>& arguments, DiagnosticEngine& diags);

std::optional<ProjectRunResult> runProject(const OperatorProject& project, DiagnosticEngine& diags,
                                           const ProjectRunOptions& options = {});

} // namespace pto
