// Implementation of L1CopyInReuseMerge.
#include "compiler/passes/L1CopyInReuseMerge.h"

#include "compiler/ir/Regions.h"
#include "compiler/passes/GraphPartition.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "compiler/passes/SubgraphMerge.h"

#include <algorithm>
#include <map>

namespace pto {
namespace {

// The tiles a cube subgraph loads for one matmul operand (0: A, 1: B), as
// text: equal text, same data.
std::string operandKey(const Compilation& compilation, RegionBoxes& boxes, const Subgraph& subgraph, std::size_t operand) {
  const TileGraph& tiles = compilation.tiles;
  std::vector<std::string> parts;
  for (TileOpId id : subgraph.ops) {
    const TileOp& op = tiles.tileOp(id);
    if (op.kind != TensorOpKind::Matmul || op.inputs.size() <= operand) continue;
    const TileRegion region = resolveViews(tiles.graph, op.inputs[operand]);
    const RegionBox box = boxes.box(region);
    if (box.truncated) return {};  // cannot be compared safely: no sharing assumed
    std::string part = std::to_string(box.tensor);
    for (std::size_t d = 0; d < box.rank; ++d)
      part += "|" + std::to_string(box.symbol[d]) + ":" + std::to_string(box.lo[d]) + "-" + std::to_string(box.hi[d]);
    parts.push_back(std::move(part));
  }
  if (parts.empty()) return {};
  std::sort(parts.begin(), parts.end());
  parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  std::string key;
  for (const std::string& part : parts) key += part + ";";
  return key;
}

// Step 1: subgraphs of one program sharing the tiles of one operand.
void mergeSharedCopyIns(Compilation& compilation, DiagnosticEngine& diags, const MergeCountSetting& projectSetting) {
  SubgraphMerger merger(compilation, diags);
  RegionBoxes boxes;
  std::map<std::pair<ScopeId, int>, std::vector<SubgraphId>> groups;
  std::vector<std::pair<ScopeId, int>> order;
  for (const Subgraph& subgraph : compilation.blocks.subgraphs) {
    if (subgraph.coreType != CoreType::AIC || subgraph.pinned) continue;
    auto [it, inserted] = groups.try_emplace({subgraph.scope, subgraph.programId});
    if (inserted) order.push_back(it->first);
    it->second.push_back(subgraph.id);
  }
  for (const auto& key : order) {
    const std::vector<SubgraphId>& group = groups[key];
    if (group.size() < 2) continue;
    const std::optional<MergeCountSetting> groupSetting =
        groupMergeCountSetting(compilation, projectSetting, group.front(), "cube_l1_reuse_setting", diags);
    if (!groupSetting || !groupSetting->given) continue;
    const MergeCountSetting& setting = *groupSetting;
    // Cluster by the A tiles and by the B tiles; keep the operand whose
    // clusters are fewer (more subgraphs share each).
    std::vector<std::vector<SubgraphId>> best;
    for (std::size_t operand = 0; operand < 2; ++operand) {
      std::map<std::string, std::size_t> clusterOf;
      std::vector<std::vector<SubgraphId>> clusters;
      bool usable = true;
      for (SubgraphId id : group) {
        std::string text = operandKey(compilation, boxes, compilation.blocks.subgraph(id), operand);
        if (text.empty()) {
          usable = false;
          break;
        }
        auto [it, inserted] = clusterOf.try_emplace(std::move(text), clusters.size());
        if (inserted) clusters.emplace_back();
        clusters[it->second].push_back(id);
      }
      if (usable && clusters.size() < group.size() && (best.empty() || clusters.size() < best.size()))
        best = std::move(clusters);
    }
    const int groupCount = merger.groupCount(MergeCountSetting{setting.given, setting.defaultCount, setting.byProgram, {}},
                                             key.second, group);
    for (const std::vector<SubgraphId>& cluster : best) {
      // A label's count applies to the subgraphs holding it: runs of equal
      // counts are cut separately.
      std::size_t i = 0;
      while (i < cluster.size()) {
        const int count = merger.labelCount(setting, cluster[i]).value_or(groupCount);
        std::vector<SubgraphId> run;
        while (i < cluster.size() && merger.labelCount(setting, cluster[i]).value_or(groupCount) == count)
          run.push_back(cluster[i++]);
        const SubgraphMerger::ChunkResult result = merger.chunk(run, count);
        if (result.capacityLimit > 0)
          warnClamped(compilation, diags, "cube_l1_reuse_setting", run.front(), count, result.capacityLimit);
      }
    }
  }
  merger.apply();
}

} // namespace

bool l1CopyInReuseMerge(Compilation& compilation, DiagnosticEngine& diags) {
  const TensorGraph& graph = compilation.tiles.graph;
  const std::optional<MergeCountSetting> reuse =
      readMergeCountSetting(compilation.settings, graph, "cube_l1_reuse_setting", diags);
  if (!reuse) return false;
  const std::optional<MergeCountSetting> nbuffer =
      readMergeCountSetting(compilation.settings, graph, "cube_nbuffer_setting", diags);
  if (!nbuffer) return false;
  mergeSharedCopyIns(compilation, diags, *reuse);
  mergeIsomorphicGroups(compilation, diags, CoreType::AIC, *nbuffer, "cube_nbuffer_setting");
  return true;
}

const std::vector<OptionInfo>& l1CopyInReuseMergeOptions() {
  static const std::vector<OptionInfo> declarations = {
      declareOption("cube_l1_reuse_setting", OptionScope::Pass, OptionType::MergeSetting, nullptr,
                    "absent: no merging",
                    "Cube subgraphs that load the same A or B panel merged into one task, so L1 loads it once.",
                    "L1CopyInReuseMerge"),
      declareOption("cube_nbuffer_setting", OptionScope::Pass, OptionType::MergeSetting, nullptr, "absent: no merging",
                    "Cube subgraphs per task, as vec_nbuffer_setting does for the vector cores.",
                    "L1CopyInReuseMerge")};
  return declarations;
}

bool checkL1CopyInReuseMergeOptions(const CompileSettings& settings, const TensorGraph& graph, DiagnosticEngine& diags) {
  return readMergeCountSetting(settings, graph, "cube_l1_reuse_setting", diags).has_value() &&
         readMergeCountSetting(settings, graph, "cube_nbuffer_setting", diags).has_value();
}

} // namespace pto
