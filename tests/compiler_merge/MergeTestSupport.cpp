// Helpers for the merge tests.
#include "MergeTestSupport.h"

#include "compiler/ir/ProgramWalker.h"
#include "compiler/passes/RemoveRedundantOp.h"

#include <map>
#include <set>

namespace pto::testing {

std::optional<CompileResult> compileOn(const TensorGraph& graph, const nlohmann::ordered_json& passOptions,
                                       const TargetInfo& target, DiagnosticEngine& diags) {
  CompileSettings settings;
  settings.passOptions = passOptions;
  settings.projectFile = "pto-project.json";
  settings.target = target;
  return compileKernel(graph, settings, diags);
}

std::string summary(const Compilation& compilation) {
  std::string text;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) {
    text += describe(compilation, subgraph);
    if (!subgraph.memberStarts.empty()) {
      text += "  members";
      for (int start : subgraph.memberStarts) text += " " + std::to_string(start);
      text += "\n";
    }
  }
  return text;
}

} // namespace pto::testing
