// The places a user can set a tile shape, and what each one governs: every
// set_vec_tile_shapes / set_cube_tile_shapes call of the traced kernel (key
// "kernel.py:12"), every semantic label, and the vec DEFAULT. What a key
// governs follows ExpandFunction's precedence (tileShapeSource: call site,
// then label, then the kernel's own value, then DEFAULT, which only vec has),
// so the panel and `pto settings` show what the compiler will do.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "compiler/settings/TileSettings.h"
#include "core/DataType.h"
#include "core/project/OperatorProject.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pto {

enum class TileSiteKind : unsigned char { CallSite, Label, Default };

// One op a tile key decides, with what the panel shows about it.
struct GovernedOp {
  OpId op = kNoId;
  TensorOpKind kind = TensorOpKind::Copy;
  std::string label;
  int line = 0;  // kernel line of the op
  std::vector<std::int64_t> shape;  // the tiled tensor's concrete shape (reductions: the input's); empty if unknown
};

struct TileSite {
  TileSection section = TileSection::Vec;
  TileSiteKind kind = TileSiteKind::CallSite;
  std::string key;            // the tile_settings key: "kernel.py:12", a label, or "DEFAULT"
  SourceLocation location;    // the call (call sites only)
  std::vector<GovernedOp> governs;  // ops whose tile this key decides when the project sets it
  // The kernel's own value at this call (vec: [dims]; cube: {"m", "k", "n",
  // "enable_split_k"} as tile_settings spells it); null for labels and DEFAULT.
  nlohmann::ordered_json kernelValue;
  nlohmann::ordered_json projectValue;  // tile_settings.<section>.<key>, null when absent
  // What the governed ops use now: the project's value, else what they fall
  // back to (`effectiveFrom` says which key, or "kernel"); null when they differ or none.
  nlohmann::ordered_json effectiveValue;
  std::string effectiveFrom;
  std::vector<DataType> operandDtypes;  // distinct dtypes of the governed ops' operands

  std::vector<std::string> labels() const;  // distinct, in op order
  std::vector<int> lines() const;           // distinct, ascending
};

// The sites of `graph` under `tileSettings` (the project's tile_settings):
// call sites in line order, then labels, then DEFAULT; project keys that
// name nothing in the kernel are listed too (with no governed ops) so a stale
// setting is visible. `bindings` give dynamic dims their values (shapes).
std::vector<TileSite> collectTileSites(const TensorGraph& graph, const nlohmann::ordered_json& tileSettings,
                                       const Bindings& bindings);

// The kernel's dynamic dims as the project's argument shapes bind them
// (dims the project cannot bind are left out).
Bindings projectDimBindings(const OperatorProject& project, const TensorGraph& graph);

} // namespace pto
