// "Write tile shapes back into the kernel": rewrites the arguments of the
// pypto.set_vec_tile_shapes(...) / set_cube_tile_shapes(...) call on one line
// of the kernel source, keeping its indentation, the module alias it uses
// (pypto., pto., or none) and anything after the call (comments).
#pragma once

#include "analysis/tuning/TileSites.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace pto {

struct TileWriteBack {
  bool ok = false;
  std::string source;       // the whole new source (ok only)
  std::string oldLine;      // the line as it was, without its newline
  std::string newLine;      // the line as it becomes
  std::string error;        // why not (not ok): no such call on the line, a call spanning lines, ...
};

// `line` is 1-based; `value` is the tile_settings form of the new shape
// (vec: [dims]; cube: {"m", "k", "n", "enable_split_k"}).
TileWriteBack writeTileShapeBack(std::string_view source, int line, TileSection section,
                                 const nlohmann::ordered_json& value);

} // namespace pto
