// Execute graph dumps: JSON (every task with its subgraph, program, core
// type, loop indices, kernel line, concrete global-memory regions and
// predecessors, plus counts by core type) and Graphviz DOT for small graphs.
#pragma once

#include "compiler/ir/Compilation.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

// {"stage": "execute", "kernel", "task_count", "edge_count",
//  "core_types": {"AIC": n, "AIV": n},
//  "tasks": [{"id", "subgraph", "program", "core_type", "label",
//             "loop_indices": {"<index symbol>": value, ...} (outermost first),
//             "source": {"file", "line"}  (the subgraph's first tile op's kernel line),
//             "reads"/"writes": [{"tensor": id, "name", "offsets": [...], "shape": [...]}],
//             "predecessors": [ids]}]}
nlohmann::ordered_json executeGraphToJson(const Compilation& compilation);

// One box per task (AIC blue, AIV green) labelled "#id label" and its loop
// indices, one edge per dependency. Meant for graphs of up to a few hundred
// tasks; Graphviz lays out nothing larger usefully.
std::string executeGraphToDot(const Compilation& compilation);

} // namespace pto
