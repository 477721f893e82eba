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
//       - ops that do not tile (sort, gather/scatter, concat, general
//         reshape) get one tile op over the whole tensor.
//       A vector op without any tile shape, or with one of the wrong rank, is
//       an error at its kernel line.
#pragma once

#include "compiler/passes/Compilation.h"

namespace pto {

bool expandFunction(Compilation& compilation, DiagnosticEngine& diags);

} // namespace pto
