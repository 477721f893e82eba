// The advisor rule empty-subgraph (Advisor.h says what it looks for and changes).
#include "analysis/advisor/rules/Rules.h"
#include "analysis/advisor/rules/RuleSupport.h"

namespace pto::advisor {

// empty-subgraph: see Advisor.h.
void adviseEmptySubgraphs(Context& context) {
  constexpr std::size_t kMostOverrides = 256;
  const Compilation& compilation = context.compilation();
  const TileGraph& tiles = compilation.tiles;
  const BlockGraph& blocks = compilation.blocks;
  auto dataOnly = [&](const Subgraph& subgraph) {
    return !subgraph.ops.empty() && std::all_of(subgraph.ops.begin(), subgraph.ops.end(), [&](TileOpId op) {
      return movesDataOnly(tiles.tileOp(op).kind);
    });
  };
  // Where each GM region is read and written, by the subgraphs that compute.
  std::map<std::string, SubgraphId> readers, writers;
  for (const Subgraph& subgraph : blocks.subgraphs) {
    if (dataOnly(subgraph)) continue;
    for (const TileRegion& region : subgraph.copyIns) readers.emplace(regionString(tiles, region), subgraph.id);
    for (const TileRegion& region : subgraph.copyOuts) writers.emplace(regionString(tiles, region), subgraph.id);
  }
  // A subgraph as an override names it: its first tile op, by tensor op and tile index.
  auto reference = [&](const Subgraph& subgraph) {
    const TileOp& op = tiles.tileOp(subgraph.ops.front());
    const auto& siblings = tiles.tilesOf(op.tensorOp);
    const auto index = std::find(siblings.begin(), siblings.end(), op.id) - siblings.begin();
    return json{{"tensor_op", op.tensorOp}, {"tile", index}};
  };
  json merges = json::array();
  int emptySubgraphs = 0, emptyTasks = 0, withPartner = 0;
  std::string label, partnerLabel;
  std::set<SubgraphId> partners;
  for (const Subgraph& subgraph : blocks.subgraphs) {
    if (!dataOnly(subgraph)) continue;
    ++emptySubgraphs;
    if (label.empty()) label = subgraph.label;
    std::optional<SubgraphId> partner;
    for (const TileRegion& region : subgraph.copyIns) {
      const std::string text = regionString(tiles, region);
      for (const auto* map : {&readers, &writers}) {
        auto found = map->find(text);
        if (partner || found == map->end()) continue;
        const Subgraph& other = blocks.subgraph(found->second);
        if (other.scope == subgraph.scope && other.coreType == subgraph.coreType && !partners.count(other.id))
          partner = other.id;
      }
    }
    if (!partner || merges.size() >= kMostOverrides) continue;
    partners.insert(*partner);
    ++withPartner;
    if (partnerLabel.empty()) partnerLabel = blocks.subgraph(*partner).label;
    merges.push_back({{"merge", json::array({reference(subgraph), reference(blocks.subgraph(*partner))})},
                      {"note", "pto advise empty-subgraph: '" + subgraph.label + "' only moves data"}});
  }
  if (emptySubgraphs == 0) return;
  for (const Task& task : compilation.tasks.tasks) emptyTasks += dataOnly(blocks.subgraph(task.subgraph));
  std::vector<std::pair<std::string, json>> candidates;
  // Passes that fold copies and views, turned off by the project: turning them on again is the first fix.
  const auto& passOptions = context.traced.project.passOptions;
  if (passOptions.is_object() && passOptions.contains("disable_pass")) {
    json kept = json::array();
    bool folding = false;
    json disabled = passOptions["disable_pass"];
    if (!disabled.is_array()) disabled = json::array({disabled});
    for (const auto& pass : disabled) {
      if (pass == "RemoveRedundantOp" || pass == "ForwardAssemble") folding = true;
      else kept.push_back(pass);
    }
    if (folding)
      candidates.emplace_back("enable copy folding",
                              json::array({{{"op", "replace"}, {"path", "/pass_options/disable_pass"}, {"value", kept}}}));
  }
  // Otherwise each joins a subgraph of its core type that reads the same data or wrote it, so the bytes it
  // moves are loaded once and it costs no task of its own.
  if (withPartner > 0) {
    const json& document = context.traced.project.document;
    json patch = json::array();
    if (document.contains("partition_overrides") && document["partition_overrides"].is_array())
      for (const auto& entry : merges) patch.push_back({{"op", "add"}, {"path", "/partition_overrides/-"}, {"value", entry}});
    else
      patch.push_back({{"op", "add"}, {"path", "/partition_overrides"}, {"value", merges}});
    candidates.emplace_back("merge " + std::to_string(withPartner), patch);
  }
  const std::string evidence = std::to_string(emptyTasks) + " tasks of " + std::to_string(emptySubgraphs) +
                               " subgraphs ('" + label + "' first) only move data (copies, assembles, reshapes): " +
                               "each loads its tiles from global memory and stores them again" +
                               (withPartner > 0 ? "; " + std::to_string(withPartner) + " of them read what a '" +
                                                      partnerLabel + "' subgraph of the same core also reads or writes"
                                                : "");
  context.propose("empty-subgraph", label, evidence,
                  [&](const std::string& value) {
                    if (value == "enable copy folding")
                      return std::string("take RemoveRedundantOp and ForwardAssemble out of disable_pass: fold the "
                                         "copies into their producers");
                    return "partition_overrides: " + value.substr(6) + " data-moving subgraphs of '" + label +
                           "' merged into the '" + partnerLabel + "' subgraphs that share their data";
                  },
                  candidates);
}

} // namespace pto::advisor
