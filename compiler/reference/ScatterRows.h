// Row scatters as an MSCATTER performs them: the reference kernel, the tile
// interpreter and the functional simulator all write with this, so they
// agree on what a row is (the mirror of GatherRows).
#pragma once

#include "core/HostTensor.h"

#include <string>

namespace pto {

// Writes row i of `rows` over row index[i] of `target` for every i, in
// index order (a repeated index: the last write wins), where a row of
// `target` is one index over all its dims but the last (a paged cache
// [blocks, 128, 1, d] has blocks * 128 rows of d) and `rows` is [index
// count, ..., d] with as many elements. Rows not named keep their values.
// `index` is an integer tensor of any shape, read in C order; every index is
// checked before any row moves. Returns an empty string, or what was wrong
// (an index outside the target's rows, shapes that do not fit) for the
// caller to locate.
std::string scatterRows(HostTensor& target, const HostTensor& index, const HostTensor& rows);

} // namespace pto
