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
//       Which setting governs an op, and the notes about a tile, are the tile
//       settings module's (compiler/settings/TileSettings.h), which the CLI,
//       the analysis and the tuning panel share.
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


namespace pto {

bool expandFunction(Compilation& compilation, DiagnosticEngine& diags);

} // namespace pto
