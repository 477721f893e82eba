// A sweep's result as `pto tune --json` writes it, and shards' results merged back into one.
#include "analysis/tuner/Tuner.h"

#include <algorithm>
#include <map>
#include <set>

namespace pto {

namespace {
using json = nlohmann::json;
} // namespace

nlohmann::ordered_json tuneResultJson(const TuneResult& result, const OperatorProject& project) {
  using ordered = nlohmann::ordered_json;
  auto settingsOf = [&](const TunePoint& point) {
    ordered settings = ordered::object();
    for (std::size_t d = 0; d < result.space.dimensions.size(); ++d)
      settings[result.space.dimensions[d].path] =
          ordered::parse(result.space.dimensions[d].values[static_cast<std::size_t>(point.choice[d])].dump());
    return settings;
  };
  ordered out;
  out["strategy"] = std::string(name(result.strategy));
  out["shard"] = std::to_string(result.shardIndex + 1) + "/" + std::to_string(result.shardCount);
  out["seed"] = result.seed;
  ordered space = ordered::object();
  for (const TuneDimension& dimension : result.space.dimensions) space[dimension.path] = ordered::parse(json(dimension.values).dump());
  out["space"] = space;
  out["space_origin"] = result.space.origin;
  out["space_size"] = result.space.pointCount();
  out["baseline_us"] = result.baselineUs;
  out["baseline_cached"] = result.baselineCached;
  out["evaluated"] = result.evaluated;
  out["pruned"] = result.pruned;
  ordered reasons = ordered::object();
  for (const auto& [reason, count] : result.prunedReasons) reasons[reason] = count;
  out["pruned_reasons"] = reasons;
  out["failed"] = result.failed;
  out["cached"] = result.cached;
  out["seconds"] = result.seconds;
  out["where"] = result.where;
  // What the points shared on this machine (docs/cli.md: a remote sweep's workers report none).
  out["compilations"] = result.compilations;
  out["simulations"] = result.simulations;
  out["simulations_resumed"] = result.resumedSimulations;
  // Points simulated per second: taking a point from the cache is not a rate.
  out["rate_per_second"] = result.seconds > 0 ? (result.evaluated - result.cached) / result.seconds : 0.0;
  if (result.best >= 0) {
    const TunePoint& best = result.points[static_cast<std::size_t>(result.best)];
    out["best"] = {{"settings", settingsOf(best)},
                   {"makespan_us", best.makespanUs},
                   {"busy_us", best.busyUs},
                   {"gain", result.baselineUs > 0 ? 1.0 - best.makespanUs / result.baselineUs : 0.0},
                   {"patch", ordered::parse(tunePatch(project, result.space, best.choice).dump())}};
  } else {
    out["best"] = nullptr;
  }
  out["pareto"] = result.pareto;
  out["points"] = ordered::array();
  for (const TunePoint& point : result.points) {
    ordered entry{
        {"settings", settingsOf(point)}, {"choice", point.choice}, {"status", point.status}, {"cached", point.cached}};
    if (point.status == "ok") {
      entry["makespan_us"] = point.makespanUs;
      entry["busy_us"] = point.busyUs;
    } else {
      entry["reason"] = point.reason;
    }
    out["points"].push_back(entry);
  }
  return out;
}

std::optional<TuneResult> mergeTuneShards(const std::vector<nlohmann::ordered_json>& shards, const std::vector<std::string>& files,
                                          DiagnosticEngine& diags) {
  if (shards.empty()) {
    diags.error(SourceLocation{"--merge"}) << "no shard files given";
    return std::nullopt;
  }
  TuneResult result;
  std::set<int> indices;
  int count = 0;
  for (std::size_t s = 0; s < shards.size(); ++s) {
    // Ordered: the space's keys keep the order the points' choices index.
    const nlohmann::ordered_json& shard = shards[s];
    const SourceLocation where{files[s]};
    if (!shard.is_object() || !shard.contains("shard") || !shard.contains("space") || !shard.contains("points")) {
      diags.error(where) << "not a `pto tune --json` result";
      return std::nullopt;
    }
    const std::string text = shard["shard"];
    const int k = std::stoi(text.substr(0, text.find('/'))), n = std::stoi(text.substr(text.find('/') + 1));
    if (s == 0) {
      count = n;
      result.strategy = parseTuneStrategy(shard.value("strategy", "grid")).value_or(TuneStrategy::Grid);
      result.seed = shard.value("seed", 1u);
      result.baselineUs = shard["baseline_us"];
      result.space.origin = shard.value("space_origin", "project");
      for (const auto& [path, values] : shard["space"].items()) {
        TuneDimension dimension{path, {}};
        for (const auto& value : values) dimension.values.push_back(json::parse(value.dump()));
        result.space.dimensions.push_back(std::move(dimension));
      }
    } else if (n != count || shard["strategy"] != shards[0]["strategy"] || shard["space"] != shards[0]["space"] ||
               shard.value("seed", 1u) != result.seed) {
      diags.error(where) << "shard " << text << " is not of the same sweep as " << files[0]
                         << " (strategy, space and shard count must match)";
      return std::nullopt;
    }
    if (!indices.insert(k).second) {
      diags.error(where) << "shard " << text << " is given twice";
      return std::nullopt;
    }
    for (const auto& entry : shard["points"]) {
      TunePoint point;
      point.choice = entry["choice"].get<std::vector<int>>();
      bool fits = point.choice.size() == result.space.dimensions.size();
      for (std::size_t d = 0; fits && d < point.choice.size(); ++d)
        fits = point.choice[d] >= 0 &&
               static_cast<std::size_t>(point.choice[d]) < result.space.dimensions[d].values.size();
      if (!fits) {
        diags.error(where) << "a point's \"choice\" does not index the shard's space; the file was edited or damaged";
        return std::nullopt;
      }
      point.status = entry["status"];
      point.reason = entry.value("reason", "");
      point.makespanUs = entry.value("makespan_us", 0.0);
      point.busyUs = entry.value("busy_us", 0.0);
      point.cached = entry.value("cached", false);
      result.points.push_back(std::move(point));
    }
    result.seconds += shard.value("seconds", 0.0);
    result.compilations += shard.value("compilations", 0);
    result.simulations += shard.value("simulations", 0);
    result.resumedSimulations += shard.value("simulations_resumed", 0);
  }
  if (static_cast<int>(indices.size()) != count) {
    diags.error(SourceLocation{files[0]}) << "only " << indices.size() << " of the " << count
                                          << " shards are given; merge them all";
    return std::nullopt;
  }
  // The unsharded sweep's order: the sweep order of the points (grid index, or the seeded permutation, which
  // the shards' own orders interleave); points are unique, so sorting by that order restores it.
  std::map<std::vector<int>, std::size_t> position;
  const std::vector<std::size_t> order = sweepOrder(result.space, result.strategy, result.seed);
  for (std::size_t i = 0; i < order.size(); ++i) position[result.space.choiceAt(order[i])] = i;
  std::stable_sort(result.points.begin(), result.points.end(), [&](const TunePoint& a, const TunePoint& b) {
    return position[a.choice] < position[b.choice];
  });
  result.where = std::to_string(shards.size()) + " shards, merged";
  result.shardCount = 1;
  summarise(result);
  return result;
}

} // namespace pto
