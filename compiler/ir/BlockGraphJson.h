// Block graph dumps: JSON (scopes, subgraphs with core type, program id,
// tile ops and global-memory copies) and Graphviz DOT (one cluster per
// subgraph, edges between the subgraphs of a scope where one copies in what
// an earlier one copied out).
#pragma once

#include "compiler/ir/Compilation.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

// {"stage": "block", "kernel", "program_count",
//  "scopes": [{"id", "loop" (name or null), "loop_id", "body", "path", "ops": [tensor op ids]}],
//  "subgraphs": [{"id", "scope", "core_type", "program_id", "label", "pinned",
//                 "ops": [{"id", "opcode"}],
//                 "copy_ins"/"copy_outs": [{"tensor" (name), "tensor_id", "offset" ([simplified
//                                           expressions as text]), "shape"}]}]}
nlohmann::ordered_json blockGraphToJson(const Compilation& compilation);
std::string blockGraphToDot(const Compilation& compilation);

} // namespace pto
