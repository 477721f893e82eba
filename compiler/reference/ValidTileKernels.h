// One tile op computed on valid parts (TileRegion::valid, compiler/ir/ValidParts.h): shared by the CPU run
// of the tile graph (TileInterpreter) and the functional simulator (npusim/FunctionalCore), so that timing
// mode's precision check and the simulated programs compute the same thing.
#pragma once

#include "compiler/ir/TileGraph.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pto::reference {

// The region's valid part under `bindings` (each size clamped to [0, shape]); its whole shape when it has
// none. nullopt with `error` set when a size cannot be evaluated.
std::optional<std::vector<std::int64_t>> evaluateValidPart(const TileRegion& region,
                                                           const Bindings& bindings,
                                                           std::string& error);

// A zero tensor of `shape` and `dtype` holding `part` in its leading box (`part` must fit).
HostTensor inLeadingBox(const HostTensor& part, DataType dtype, const std::vector<std::int64_t>& shape);

// `op`'s kernel on `inputs` (each of its tile's shape) cut to their `valids` by the shared rules. On
// success `results` holds one tensor per output of `outputDtypes`, the result's own (leading-box) shape; it
// is empty when some cut input is empty (nothing valid, no kernel ran). False after a diagnostic at the op.
bool runOnValidParts(const TensorOp& op, std::vector<HostTensor> inputs,
                     const std::vector<std::vector<std::int64_t>>& valids, const std::vector<DataType>& outputDtypes,
                     std::vector<HostTensor>& results, DiagnosticEngine& diags);

} // namespace pto::reference
