// Tracing the kernel of an operator project with the project's argument types.
#pragma once

#include "compiler/frontend/KernelTracer.h"
#include "core/project/OperatorProject.h"

namespace pto {

struct ProjectTraceOptions {
  std::optional<std::string> sourceText;  // the kernel's unsaved text, if any
  double timeoutSeconds = 60.0;
  std::function<bool()> cancelled;
  std::int64_t maxElements = std::int64_t{1} << 31;
};

std::optional<TensorGraph> traceProject(const OperatorProject& project, DiagnosticEngine& diags,
                                        const ProjectTraceOptions& options = {});

} // namespace pto
