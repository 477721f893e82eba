// Tile settings: the tile shapes a kernel sets (set_vec_tile_shapes,
// set_cube_tile_shapes) and a project overrides (tile_settings), in one
// module that ExpandFunction, `pto settings`, the analysis (tile sites, the
// live buffer check, the advisor, the tuner, the write-back) and the IDE's
// tuning panel share, so that they all read a setting as the compiler does.
//
//   parse     TileShape::fromJson (the project file's form) and
//             TileShape::parse (the panel's text), once, into a typed value;
//   validate  TileShape::problem: what no op accepts (a non-positive dim);
//             what depends on the ops a shape cuts (rank, buffers) is the
//             compiler's and the live check's (analysis/tuning/TileBufferCheck.h);
//   apply     tileShapeSource and cutByVecTile: which key governs an op, in
//             ExpandFunction's precedence (call site, label, the kernel's own
//             value, vec DEFAULT);
//   describe  TileShape::json and TileShape::text, and the notes the
//             compiler gives about a shape (rows padded to 32 bytes, a tile
//             clamped to what it cuts).
//
// Forms (docs/project-format.md): a vec shape is [d0, d1, ...] in JSON and
// "64, 128" as text (brackets optional); a cube shape is {"m": [mL0, mL1],
// "k": [kL0, kL1] or [kL0, kAL1, kBL1], "n": [nL0, nL1], "enable_split_k":
// bool} in JSON and "m 128,128 k 64,256 n 128,128 [split_k]" as text.
#pragma once

#include "compiler/ir/TensorGraph.h"
#include "core/DataType.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pto {

enum class TileSection : unsigned char { Vec, Cube };
std::string_view name(TileSection section);  // "vec", "cube" (the tile_settings section)
std::optional<TileSection> tileSectionNamed(std::string_view section);

// One tile shape of either section.
struct TileShape {
  TileSection section = TileSection::Vec;
  std::vector<std::int64_t> vec;  // vec: one extent per dim
  CubeTileShape cube;             // cube

  static TileShape ofVec(std::vector<std::int64_t> dims);
  static TileShape ofCube(const CubeTileShape& shape);
  // nullopt with `error` naming the expected form when `value` is not one.
  static std::optional<TileShape> fromJson(TileSection section, const nlohmann::ordered_json& value, std::string& error);
  static std::optional<TileShape> parse(TileSection section, std::string_view text, std::string& error);

  nlohmann::ordered_json json() const;  // the tile_settings form
  std::string text() const;             // the panel's form: "64, 128" or "m 128,128 k 64,256 n 128,128"
  // "[0, 64] has a non-positive dim", or empty when no op would refuse the shape itself.
  std::string problem() const;
  friend bool operator==(const TileShape&, const TileShape&) = default;
};

// The parts of the above for callers that hold one section's values.
std::optional<std::vector<std::int64_t>> vecShapeFromJson(const nlohmann::ordered_json& value, std::string& error);
std::optional<CubeTileShape> cubeTileShapeFromSetting(const nlohmann::ordered_json& setting, std::string& error);
nlohmann::ordered_json cubeShapeJson(const CubeTileShape& shape);
std::string vecShapeText(const std::vector<std::int64_t>& dims);   // "64, 128"
std::string cubeShapeText(const CubeTileShape& shape);             // "m 128,128 k 64,256 n 128,128"
// A tile_settings value as the panel shows it; the JSON itself when malformed, empty for null.
std::string shapeText(TileSection section, const nlohmann::ordered_json& value);

// ---- apply: which setting governs an op ------------------------------------

// Where an op's tile shape comes from, in ExpandFunction's precedence.
enum class TileShapeOrigin : unsigned char {
  CallSite,  // tile_settings.<section>."kernel.py:12" for its set_*_tile_shapes call
  Label,     // tile_settings.<section>.<its semantic label>
  Kernel,    // the kernel's own set_*_tile_shapes value
  Default,   // tile_settings.vec.DEFAULT (there is no cube DEFAULT)
  None,      // no tile shape: an error for ops that need one
};
struct TileShapeSource {
  TileShapeOrigin origin = TileShapeOrigin::None;
  std::string key;  // the tile_settings key for CallSite, Label and Default
};
// Looks only at which keys exist, not at their values.
TileShapeSource tileShapeSource(const nlohmann::ordered_json& tileSettings, TileSection section, const TensorOp& op);
// The tile_settings key of a set_*_tile_shapes call: "kernel.py:12" (empty when unknown).
std::string tileSiteKey(const SourceLocation& site);
// Whether ExpandFunction cuts `op` by a vec tile shape under these settings:
// vector compute and reductions always; assemble/copy when some vec tile
// applies; creation ops when the kernel set a vec tile; nothing else.
bool cutByVecTile(const nlohmann::ordered_json& tileSettings, const TensorOp& op);
// Whether ExpandFunction cuts `op` by a cube tile shape (matmuls).
bool cutByCubeTile(const TensorOp& op);

// ---- describe: the compiler's notes about a shape --------------------------

// The vector unit moves tiles in 32-byte blocks. A vec tile whose innermost
// dim (in bytes of the op's first operand) is no multiple of 32 is accepted,
// as PyPTO accepts it, and each row is padded in the unified buffer. Empty
// when nothing is padded; otherwise what the padding costs ("its innermost dim
// is 20 bytes of float32; the unified buffer holds each row padded to 32 bytes
// (a multiple of 8 elements wastes none)").
inline constexpr std::int64_t kVecTileAlignmentBytes = 32;
std::string vecTilePaddingNote(const std::vector<std::int64_t>& tile, DataType operand);

// One op a tile cuts, for the clamping note: "exp 'rows' at kernel.py:7" and
// the extents the tile's dims meet there (vec: the tiled tensor's shape; a
// lower-rank op meets the tile's leading dims; cube: m, k, n of the matmul).
struct TileCut {
  std::string where;
  std::vector<std::int64_t> extents;
};
// "exp 'rows' at kernel.py:7" (the file's name only).
std::string opWhere(const TensorOp& op);
// The tile its cuts use: each dim no larger than the largest extent it meets
// (dims no op meets keep their value). Equal to `tile` when nothing is clamped.
std::vector<std::int64_t> clampedTile(const std::vector<std::int64_t>& tile, const std::vector<TileCut>& cuts);
// The clamping note for a tile set once (a cube tile is {mL0, kL0, nL0}), or
// "" when nothing is clamped: "vec tile [64, 1024] is larger than what it
// cuts (exp at kernel.py:7: [32, 100]); it is clamped to [32, 100]".
std::string tileClampNote(TileSection section, const std::vector<std::int64_t>& tile, const std::vector<TileCut>& cuts);

} // namespace pto
