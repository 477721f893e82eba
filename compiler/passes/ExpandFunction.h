// ExpandFunction: tensor ops -> tile ops, by the tile shapes in force.
//
// Pre:  `compilation.tiles.graph` holds the traced Tensor graph; the settings
//       bind every dynamic dim.
// Post: every tensor has a concrete shape; every tensor op that moves or
//       computes data has its tile ops, in execution order:
//       - vector ops are cut by their vec tile shape (project tile_settings
//         for the op's set_vec_tile_shapes call site, then its semantic
//         label, then the kernel's own call, then "DEFAULT"); tail tiles keep
//         their valid (smaller) shape; inputs broadcast into each tile;
//       - reductions tile their input: a reduced axis the tile does not cover
//         whole becomes partial reductions accumulated into the output (arg
//         reductions keep the reduced axis whole);
//       - matmul is cut by the cube tile: one output block of mL0 x nL0 per
//         tile, k in steps of kL0 accumulated in an fp32 accumulator (L0C),
//         then converted into the output when its dtype is not fp32;
//       - views become one `view` tile op each (RemoveRedundantOp folds them);
//       - scatter_update's paged-cache form written into its own cache
//         (attribute rows) is cut by the vec tile over src's rows: each tile
//         an MSCATTER of its rows to the cache rows its index slice names
//         (kScatterRowsToGm); the cache is neither loaded nor a tile;
//       - ops that do not tile (sort, gather/scatter, concat, general
//         reshape) get one tile op over the whole tensor.
//       A vector op without any tile shape, or with one of the wrong rank, is
//       an error at its kernel line.
//       A tile larger than everything it cuts is clamped (tiles stop at the
//       tensor's edge), with one note per place the tile is set: at the
//       set_vec_tile_shapes / set_cube_tile_shapes call, or at the project's
//       tile_settings entry (settings.settingLocations; without it, at the
//       first op it cuts), naming the requested and the clamped tile and the
//       ops it cuts.
#pragma once

#include "compiler/ir/Compilation.h"

#include <string>
#include <string_view>
#include <vector>

namespace pto {

bool expandFunction(Compilation& compilation, DiagnosticEngine& diags);

// The rules above, shared with the tuning panel so that it shows what the
// compiler will do.

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
// `section` is "vec" or "cube". Looks only at which keys exist, not at their values.
TileShapeSource tileShapeSource(const nlohmann::ordered_json& tileSettings, std::string_view section,
                                const TensorOp& op);
// The tile_settings key of a set_*_tile_shapes call: "kernel.py:12" (empty when unknown).
std::string tileSiteKey(const SourceLocation& site);
// Whether ExpandFunction cuts `op` by a vec tile shape under these settings:
// vector compute and reductions always; assemble/copy when some vec tile
// applies; creation ops when the kernel set a vec tile; nothing else.
bool cutByVecTile(const nlohmann::ordered_json& tileSettings, const TensorOp& op);

// A project's cube tile setting ({"m": [mL0, mL1], "k": [kL0, kL1] or
// [kL0, kAL1, kBL1], "n": [nL0, nL1], "enable_split_k": bool?}) as a shape;
// nullopt with `error` naming the expected form when it is not one. The
// compiler, the tuning panel's check and the write-back all read it here.
std::optional<CubeTileShape> cubeTileShapeFromSetting(const nlohmann::ordered_json& setting, std::string& error);
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
// The clamping note for a tile set once (section "vec" or "cube"; a cube
// tile is {mL0, kL0, nL0}), or "" when nothing is clamped:
// "vec tile [64, 1024] is larger than what it cuts (exp at kernel.py:7: [32, 100]); it is clamped to [32, 100]".
std::string tileClampNote(std::string_view section, const std::vector<std::int64_t>& tile,
                          const std::vector<TileCut>& cuts);

} // namespace pto
