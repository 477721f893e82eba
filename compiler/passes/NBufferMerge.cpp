// Implementation of NBufferMerge.
#include "compiler/passes/NBufferMerge.h"

#include "compiler/passes/SubgraphMerge.h"

namespace pto {

bool nBufferMerge(Compilation& compilation, DiagnosticEngine& diags) {
  const std::optional<MergeCountSetting> setting =
      readMergeCountSetting(compilation.settings, compilation.tiles.graph, "vec_nbuffer_setting", diags);
  if (!setting) return false;
  mergeIsomorphicGroups(compilation, diags, CoreType::AIV, *setting, "vec_nbuffer_setting");
  return true;
}

const std::vector<OptionInfo>& nBufferMergeOptions() {
  static const std::vector<OptionInfo> declarations = {
      declareOption("vec_nbuffer_setting", OptionScope::Pass, OptionType::MergeSetting, nullptr, "absent: no merging",
                    "Vector subgraphs per task: N, or {\"DEFAULT\": N, \"<label>\": N}; {} = automatic "
                    "(subgraphs / vector cores). Fewer, longer tasks overlap copy-in with compute.",
                    "NBufferMerge")};
  return declarations;
}

bool checkNBufferMergeOptions(const CompileSettings& settings, const TensorGraph& graph, DiagnosticEngine& diags) {
  return readMergeCountSetting(settings, graph, "vec_nbuffer_setting", diags).has_value();
}

} // namespace pto
