// Implementation of traceProject.
#include "compiler/frontend/ProjectTrace.h"

namespace pto {

std::optional<TensorGraph> traceProject(const OperatorProject& project, DiagnosticEngine& diags,
                                        const ProjectTraceOptions& options) {
  TraceRequest request;
  request.kernelFile = project.sourcePath();
  request.sourceText = options.sourceText;
  request.entry = project.entry;
  request.timeoutSeconds = options.timeoutSeconds;
  request.cancelled = options.cancelled;
  request.maxElements = options.maxElements;
  for (const KernelArgument& arg : project.args)
    request.arguments.push_back(ArgumentType{arg.dtype, *project.concreteShape(arg)});
  auto graph = traceKernel(request, diags);
  if (!graph) return std::nullopt;
  if (graph->arguments.size() != project.args.size()) {
    // Functional-style kernels return extra outputs; projects list every argument.
    if (graph->arguments.size() < project.args.size())
      return diags.error(graph->kernelLocation) << "the kernel takes " << graph->arguments.size()
                                                << " tensor arguments but the project lists " << project.args.size();
  }
  return graph;
}

} // namespace pto
