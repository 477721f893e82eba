// Row gathers as an MGATHER performs them: the tile interpreter and the
// functional simulator both copy with this, so they agree on what a row is.
#pragma once

#include "core/HostTensor.h"

#include <string>

namespace pto {

// Copies row index[i] of `table` into row i of `target` for every i, where a
// row of `table` is one index over all its dims but the last (a paged cache
// [blocks, 128, 1, d] has blocks * 128 rows of d), and `target` is
// [index count, d]. `index` is an integer tensor of any shape, read in C
// order. Returns an empty string, or what was wrong (an index outside the
// table's rows, shapes that do not fit) for the caller to locate.
std::string gatherRows(const HostTensor& table, const HostTensor& index, HostTensor& target);

} // namespace pto
