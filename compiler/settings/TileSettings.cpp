// Implementation of the tile settings: forms, precedence and notes.
#include "compiler/settings/TileSettings.h"

#include "core/Shape.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace pto {
namespace {

using Dims = std::vector<std::int64_t>;


// Reads integers separated by commas/spaces; stops at a letter.
bool readInts(std::string_view text, std::size_t& pos, Dims& out) {
  while (pos < text.size()) {
    char c = text[pos];
    if (c == ',' || c == ' ' || c == '\t' || c == '[' || c == ']' || c == '(' || c == ')') {
      ++pos;
      continue;
    }
    if (c == '-' || std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t start = pos;
      ++pos;
      while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
      std::string number(text.substr(start, pos - start));
      if (number == "-" || number.size() > 15) return false;
      out.push_back(std::stoll(number));
      continue;
    }
    break;
  }
  return true;
}

std::optional<Dims> parseVecShapeText(std::string_view text, std::string& error) {
  Dims dims;
  std::size_t pos = 0;
  if (!readInts(text, pos, dims) || pos != text.size()) {
    error = "expected tile dims such as \"64, 128\"";
    return std::nullopt;
  }
  if (dims.empty()) {
    error = "no tile dims given";
    return std::nullopt;
  }
  return dims;
}

std::optional<CubeTileShape> parseCubeShapeText(std::string_view text, std::string& error) {
  Dims m, k, n;
  bool splitK = false;
  std::size_t pos = 0;
  const char* form = "expected \"m mL0,mL1 k kL0,kL1 n nL0,nL1\" (k may be kL0,kAL1,kBL1; add \"split_k\" to split k)";
  while (pos < text.size()) {
    char c = text[pos];
    if (c == ' ' || c == ',' || c == '\t') {
      ++pos;
      continue;
    }
    if (text.substr(pos, 7) == "split_k") {
      splitK = true;
      pos += 7;
      continue;
    }
    Dims* target = c == 'm' ? &m : c == 'k' ? &k : c == 'n' ? &n : nullptr;
    if (!target || !target->empty()) {
      error = form;
      return std::nullopt;
    }
    ++pos;
    if (pos < text.size() && text[pos] == ':') ++pos;
    if (!readInts(text, pos, *target)) {
      error = form;
      return std::nullopt;
    }
  }
  if (m.size() != 2 || n.size() != 2 || (k.size() != 2 && k.size() != 3)) {
    error = form;
    return std::nullopt;
  }
  nlohmann::ordered_json setting{{"m", m}, {"k", k}, {"n", n}, {"enable_split_k", splitK}};
  return cubeTileShapeFromSetting(setting, error);
}

} // namespace

// ---- forms -----------------------------------------------------------------

std::string_view name(TileSection section) { return section == TileSection::Vec ? "vec" : "cube"; }

std::optional<TileSection> tileSectionNamed(std::string_view section) {
  if (section == "vec") return TileSection::Vec;
  if (section == "cube") return TileSection::Cube;
  return std::nullopt;
}

TileShape TileShape::ofVec(std::vector<std::int64_t> dims) {
  TileShape shape;
  shape.section = TileSection::Vec;
  shape.vec = std::move(dims);
  return shape;
}

TileShape TileShape::ofCube(const CubeTileShape& cube) {
  TileShape shape;
  shape.section = TileSection::Cube;
  shape.cube = cube;
  return shape;
}

std::optional<TileShape> TileShape::fromJson(TileSection section, const nlohmann::ordered_json& value,
                                             std::string& error) {
  if (section == TileSection::Vec) {
    if (auto dims = vecShapeFromJson(value, error)) return ofVec(std::move(*dims));
  } else if (auto cube = cubeTileShapeFromSetting(value, error)) {
    return ofCube(*cube);
  }
  return std::nullopt;
}

std::optional<TileShape> TileShape::parse(TileSection section, std::string_view text, std::string& error) {
  if (section == TileSection::Vec) {
    if (auto dims = parseVecShapeText(text, error)) return ofVec(std::move(*dims));
  } else if (auto cube = parseCubeShapeText(text, error)) {
    return ofCube(*cube);
  }
  return std::nullopt;
}

nlohmann::ordered_json TileShape::json() const {
  return section == TileSection::Vec ? nlohmann::ordered_json(vec) : cubeShapeJson(cube);
}

std::string TileShape::text() const { return section == TileSection::Vec ? vecShapeText(vec) : cubeShapeText(cube); }

std::string TileShape::problem() const {
  if (section == TileSection::Vec) {
    for (std::int64_t dim : vec)
      if (dim <= 0) return dimsString(vec) + " has a non-positive dim";
    return {};
  }
  for (std::int64_t dim : {cube.mL0, cube.kL0, cube.nL0, cube.mL1, cube.kAL1, cube.kBL1, cube.nL1})
    if (dim <= 0) return cubeShapeText(cube) + " has a non-positive dim";
  return {};
}

nlohmann::ordered_json cubeShapeJson(const CubeTileShape& shape) {
  nlohmann::ordered_json k = {shape.kL0, shape.kAL1};
  if (shape.kBL1 != shape.kAL1) k.push_back(shape.kBL1);
  return {{"m", {shape.mL0, shape.mL1}}, {"k", k}, {"n", {shape.nL0, shape.nL1}}, {"enable_split_k", shape.enableSplitK}};
}

std::string vecShapeText(const Dims& dims) {
  std::string text;
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text;
}

std::string cubeShapeText(const CubeTileShape& shape) {
  std::string text = "m " + std::to_string(shape.mL0) + "," + std::to_string(shape.mL1) + " k " +
                     std::to_string(shape.kL0) + "," + std::to_string(shape.kAL1);
  if (shape.kBL1 != shape.kAL1) text += "," + std::to_string(shape.kBL1);
  text += " n " + std::to_string(shape.nL0) + "," + std::to_string(shape.nL1);
  if (shape.enableSplitK) text += " split_k";
  return text;
}

std::optional<Dims> vecShapeFromJson(const nlohmann::ordered_json& value, std::string& error) {
  if (!value.is_array() || value.empty()) {
    error = "a vec tile shape is a list of integers such as [64, 128], got " + value.dump();
    return std::nullopt;
  }
  Dims dims;
  for (const auto& dim : value) {
    if (!dim.is_number_integer()) {
      error = "a vec tile shape is a list of integers such as [64, 128], got " + value.dump();
      return std::nullopt;
    }
    dims.push_back(dim.get<std::int64_t>());
  }
  return dims;
}

std::string shapeText(TileSection section, const nlohmann::ordered_json& value) {
  std::string error;
  if (value.is_null()) return {};
  if (section == TileSection::Vec) {
    auto dims = vecShapeFromJson(value, error);
    return dims ? vecShapeText(*dims) : value.dump();
  }
  auto cube = cubeTileShapeFromSetting(value, error);
  return cube ? cubeShapeText(*cube) : value.dump();
}


// ---- apply and describe ----------------------------------------------------

std::string tileSiteKey(const SourceLocation& site) {
  if (!site.known()) return {};
  return std::filesystem::path(site.file).filename().string() + ":" + std::to_string(site.line);
}

TileShapeSource tileShapeSource(const nlohmann::ordered_json& tileSettings, TileSection section, const TensorOp& op) {
  const bool vec = section == TileSection::Vec;
  const nlohmann::ordered_json* entries = nullptr;
  if (tileSettings.is_object()) {
    auto found = tileSettings.find(std::string(name(section)));
    if (found != tileSettings.end() && found->is_object()) entries = &*found;
  }
  if (entries) {
    std::string siteKey = tileSiteKey(vec ? op.tiles.vecSite : op.tiles.cubeSite);
    if (!siteKey.empty() && entries->contains(siteKey)) return {TileShapeOrigin::CallSite, siteKey};
    if (!op.label.empty() && entries->contains(op.label)) return {TileShapeOrigin::Label, op.label};
  }
  if (vec ? !op.tiles.vec.empty() : op.tiles.cube.has_value()) return {TileShapeOrigin::Kernel, {}};
  // Matmul reads no cube DEFAULT: a cube tile is always the kernel's or a named override.
  if (vec && entries && entries->contains("DEFAULT")) return {TileShapeOrigin::Default, "DEFAULT"};
  return {TileShapeOrigin::None, {}};
}

std::optional<CubeTileShape> cubeTileShapeFromSetting(const nlohmann::ordered_json& setting, std::string& error) {
  const char* form = R"(a cube tile shape is {"m": [mL0, mL1], "k": [kL0, kL1] or [kL0, kAL1, kBL1], "n": [nL0, nL1]})";
  auto dims = [&](const char* key, std::size_t maxSize, std::vector<std::int64_t>& out) {
    if (!setting.is_object() || !setting.contains(key) || !setting[key].is_array()) return false;
    for (const auto& dim : setting[key]) {
      if (!dim.is_number_integer()) return false;
      out.push_back(dim.get<std::int64_t>());
    }
    return out.size() >= 2 && out.size() <= maxSize;
  };
  std::vector<std::int64_t> m, k, n;
  if (!dims("m", 2, m) || !dims("k", 3, k) || !dims("n", 2, n)) {
    error = std::string(form) + ", got " + setting.dump();
    return std::nullopt;
  }
  CubeTileShape shape{m[0], m[1], k[0], k[1], k.size() > 2 ? k[2] : k[1], n[0], n[1], false};
  if (setting.contains("enable_split_k"))
    shape.enableSplitK = setting["enable_split_k"].is_boolean() && setting["enable_split_k"].get<bool>();
  return shape;
}

bool cutByVecTile(const nlohmann::ordered_json& tileSettings, const TensorOp& op) {
  const OpCategory kind = category(op.kind);
  if (isElementwise(kind) || kind == OpCategory::Quantize || kind == OpCategory::Reduce) return true;
  switch (kind) {
  case OpCategory::Memory:
    // Assemble and copy are cut only when some vec tile applies; otherwise one tile.
    return op.kind != TensorOpKind::View && tileShapeSource(tileSettings, TileSection::Vec, op).origin != TileShapeOrigin::None;
  case OpCategory::Creation:
    return !op.tiles.vec.empty();
  default:
    return false;
  }
}

bool cutByCubeTile(const TensorOp& op) { return category(op.kind) == OpCategory::Matmul; }

std::string vecTilePaddingNote(const std::vector<std::int64_t>& tile, DataType operand) {
  if (tile.empty()) return {};
  const auto item = static_cast<std::int64_t>(sizeOf(operand));
  const std::int64_t bytes = tile.back() * item;
  if (bytes % kVecTileAlignmentBytes == 0) return {};
  const std::int64_t padded = (bytes + kVecTileAlignmentBytes - 1) / kVecTileAlignmentBytes * kVecTileAlignmentBytes;
  return "its innermost dim is " + std::to_string(bytes) + " bytes of " + std::string(name(operand)) +
         "; the unified buffer holds each row padded to " + std::to_string(padded) + " bytes (a multiple of " +
         std::to_string(std::max<std::int64_t>(1, kVecTileAlignmentBytes / item)) + " elements wastes none)";
}

std::string opWhere(const TensorOp& op) {
  std::string where(name(op.kind));
  if (!op.label.empty()) where += " '" + op.label + "'";
  where += " at ";
  where += op.location.known() ? std::filesystem::path(op.location.file).filename().string() + ":" +
                                     std::to_string(op.location.line)
                               : std::string("?");
  return where;
}

std::vector<std::int64_t> clampedTile(const std::vector<std::int64_t>& tile, const std::vector<TileCut>& cuts) {
  std::vector<std::int64_t> clamped = tile;
  for (std::size_t d = 0; d < tile.size(); ++d) {
    std::int64_t largest = 0;
    bool met = false;
    for (const TileCut& cut : cuts)
      if (d < cut.extents.size()) {
        largest = met ? std::max(largest, cut.extents[d]) : cut.extents[d];
        met = true;
      }
    // An empty tensor (extent 0) has no tiles to clamp.
    if (met && largest > 0) clamped[d] = std::min(tile[d], largest);
  }
  return clamped;
}

std::string tileClampNote(TileSection section, const std::vector<std::int64_t>& tile, const std::vector<TileCut>& cuts) {
  const Dims clamped = clampedTile(tile, cuts);
  if (clamped == tile) return {};
  const bool cube = section == TileSection::Cube && tile.size() == 3;
  auto text = [&](const Dims& dims, bool isTile) {
    if (!cube) return dimsString(dims);
    static const char* const kTileNames[] = {"mL0", "kL0", "nL0"};
    static const char* const kExtentNames[] = {"m", "k", "n"};
    std::string result;
    for (std::size_t d = 0; d < dims.size() && d < 3; ++d)
      result += std::string(d ? ", " : "") + (isTile ? kTileNames[d] : kExtentNames[d]) + " " + std::to_string(dims[d]);
    return result;
  };
  constexpr std::size_t kShownCuts = 3;
  std::string note = std::string(name(section)) + " tile " + text(tile, true) + " is larger than what it cuts (";
  for (std::size_t i = 0; i < cuts.size() && i < kShownCuts; ++i)
    note += (i ? "; " : "") + cuts[i].where + ": " + text(cuts[i].extents, false);
  if (cuts.size() > kShownCuts)
    note += "; and " + std::to_string(cuts.size() - kShownCuts) + (cuts.size() - kShownCuts == 1 ? " more op" : " more ops");
  return note + "); it is clamped to " + text(clamped, true);
}

} // namespace pto
