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

} // namespace pto
