// Implementation of the tile sites catalog.
#include "analysis/tuning/TileSites.h"


#include <algorithm>
#include <set>

namespace pto {
namespace {

// Whether an op takes part in `section` at all under some setting: the
// settings a key could add only widen vec tiling to assemble/copy.
bool mayUseSection(TileSection section, const TensorOp& op) {
  if (section == TileSection::Cube) return cutByCubeTile(op);
  nlohmann::ordered_json anyVec = {{"vec", {{"DEFAULT", nlohmann::ordered_json::array()}}}};
  return cutByVecTile(anyVec, op);
}

bool cutIn(TileSection section, const nlohmann::ordered_json& settings, const TensorOp& op) {
  return section == TileSection::Cube ? cutByCubeTile(op) : cutByVecTile(settings, op);
}

nlohmann::ordered_json kernelValueOf(TileSection section, const TensorOp& op) {
  if (section == TileSection::Vec) return op.tiles.vec.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(op.tiles.vec);
  return op.tiles.cube ? cubeShapeJson(*op.tiles.cube) : nlohmann::ordered_json();
}

std::vector<std::int64_t> concreteShape(const TensorValue& tensor, const Bindings& bindings) {
  std::vector<std::int64_t> dims;
  for (const SymbolicScalar& dim : tensor.shape) {
    SymbolicEvaluation value = dim.evaluate(bindings);
    if (!value.ok()) return {};
    dims.push_back(*value.value);
  }
  return dims;
}

} // namespace

Bindings projectDimBindings(const OperatorProject& project, const TensorGraph& graph) {
  Bindings bindings;
  for (const SymbolSource& symbol : graph.dynamicSymbols) {
    if (symbol.argument < 0 || static_cast<std::size_t>(symbol.argument) >= project.args.size()) continue;
    auto shape = project.concreteShape(project.args[static_cast<std::size_t>(symbol.argument)]);
    if (shape && symbol.dim >= 0 && static_cast<std::size_t>(symbol.dim) < shape->size())
      if (auto value = symbol.valueFor((*shape)[static_cast<std::size_t>(symbol.dim)])) bindings[symbol.symbol] = *value;
  }
  return bindings;
}

std::vector<std::string> TileSite::labels() const {
  std::vector<std::string> result;
  for (const GovernedOp& op : governs)
    if (!op.label.empty() && std::find(result.begin(), result.end(), op.label) == result.end()) result.push_back(op.label);
  return result;
}

std::vector<int> TileSite::lines() const {
  std::set<int> lines;
  for (const GovernedOp& op : governs)
    if (op.line > 0) lines.insert(op.line);
  return {lines.begin(), lines.end()};
}

std::vector<TileSite> collectTileSites(const TensorGraph& graph, const nlohmann::ordered_json& tileSettings,
                                       const Bindings& bindings) {
  const nlohmann::ordered_json settings = tileSettings.is_object() ? tileSettings : nlohmann::ordered_json::object();
  std::vector<TileSite> sites;
  auto listed = [&](TileSection section, const std::string& key) {
    return std::any_of(sites.begin(), sites.end(), [&](const TileSite& s) { return s.section == section && s.key == key; });
  };
  auto add = [&](TileSection section, TileSiteKind kind, const std::string& key, SourceLocation location = {}) {
    if (key.empty() || listed(section, key)) return;
    TileSite site;
    site.section = section;
    site.kind = kind;
    site.key = key;
    site.location = std::move(location);
    sites.push_back(std::move(site));
  };

  std::vector<OpId> order = graph.opsInProgramOrder();
  for (TileSection section : {TileSection::Vec, TileSection::Cube}) {
    // Call sites in line order.
    std::vector<std::pair<int, OpId>> calls;
    for (OpId id : order) {
      const TensorOp& op = graph.op(id);
      const SourceLocation& site = section == TileSection::Vec ? op.tiles.vecSite : op.tiles.cubeSite;
      if (site.known() && mayUseSection(section, op) && !kernelValueOf(section, op).is_null()) calls.emplace_back(site.line, id);
    }
    std::stable_sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [line, id] : calls) {
      const TensorOp& op = graph.op(id);
      const SourceLocation& site = section == TileSection::Vec ? op.tiles.vecSite : op.tiles.cubeSite;
      add(section, TileSiteKind::CallSite, tileSiteKey(site), site);
      if (sites.back().kernelValue.is_null() && sites.back().key == tileSiteKey(site)) sites.back().kernelValue = kernelValueOf(section, op);
    }
    for (OpId id : order) {
      const TensorOp& op = graph.op(id);
      if (!op.label.empty() && mayUseSection(section, op)) add(section, TileSiteKind::Label, op.label);
    }
    if (section == TileSection::Vec) add(section, TileSiteKind::Default, "DEFAULT");
    // Project keys the kernel has nothing for: stale or misspelt settings.
    if (settings.contains(name(section)) && settings[std::string(name(section))].is_object())
      for (const auto& [key, value] : settings[std::string(name(section))].items()) {
        (void)value;
        bool looksLikeSite = key.find(".py:") != std::string::npos;
        add(section, key == "DEFAULT" ? TileSiteKind::Default : looksLikeSite ? TileSiteKind::CallSite : TileSiteKind::Label, key);
      }
  }

  for (TileSite& site : sites) {
    const std::string section(name(site.section));
    if (settings.contains(section) && settings[section].is_object() && settings[section].contains(site.key))
      site.projectValue = settings[section][site.key];
    // The settings as they would be with this key set: the ops whose tile
    // source becomes this key are the ones it governs.
    nlohmann::ordered_json withKey = settings;
    if (!withKey.contains(section) || !withKey[section].is_object()) withKey[section] = nlohmann::ordered_json::object();
    if (!withKey[section].contains(site.key)) withKey[section][site.key] = nlohmann::ordered_json::array();
    std::set<DataType> dtypes;
    bool first = true, mixed = false;
    nlohmann::ordered_json fallback;
    std::string fallbackFrom;
    for (OpId id : order) {
      const TensorOp& op = graph.op(id);
      if (!cutIn(site.section, withKey, op)) continue;
      TileShapeSource source = tileShapeSource(withKey, site.section, op);
      if (source.origin == TileShapeOrigin::Kernel || source.origin == TileShapeOrigin::None || source.key != site.key) continue;
      GovernedOp governed;
      governed.op = id;
      governed.kind = op.kind;
      governed.label = op.label;
      governed.line = op.location.line;
      TensorId tiled = category(op.kind) == OpCategory::Reduce && !op.inputs.empty() ? op.inputs[0] : op.outputs[0];
      governed.shape = concreteShape(graph.tensor(tiled), bindings);
      site.governs.push_back(std::move(governed));
      for (TensorId t : op.inputs) dtypes.insert(graph.tensor(t).dtype);
      for (TensorId t : op.outputs) dtypes.insert(graph.tensor(t).dtype);
      // What this op uses with the project as it is.
      nlohmann::ordered_json value;
      std::string from;
      if (cutIn(site.section, settings, op)) {
        TileShapeSource now = tileShapeSource(settings, site.section, op);
        if (now.origin == TileShapeOrigin::Kernel) {
          value = kernelValueOf(site.section, op);
          from = "kernel";
        } else if (now.origin != TileShapeOrigin::None) {
          value = settings[section][now.key];
          from = now.key;
        }
      }
      if (first) {
        fallback = value;
        fallbackFrom = from;
        first = false;
      } else if (value != fallback || from != fallbackFrom) {
        mixed = true;
      }
    }
    site.operandDtypes.assign(dtypes.begin(), dtypes.end());
    if (!site.projectValue.is_null()) {
      site.effectiveValue = site.projectValue;
      site.effectiveFrom = site.key;
    } else if (!mixed) {
      site.effectiveValue = fallback;
      site.effectiveFrom = fallbackFrom;
    } else {
      site.effectiveFrom = "mixed";
    }
  }
  return sites;
}

} // namespace pto
