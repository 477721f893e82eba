// Tile graph dumps in the spirit of PyPTO's pass dumps: operations with
// opcode, opmagic (tile op id), ioperands/ooperands, semantic_label, and the
// tile tensors with shape, offset, mem_type, datatype; each operation's
// `producers` and the DOT edges are both tileDataEdges (TileDataEdges.h).
#pragma once

#include "compiler/ir/TileGraph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

nlohmann::ordered_json tileGraphToJson(const TileGraph& graph);
std::string tileGraphToDot(const TileGraph& graph);

} // namespace pto
