// Tensor graph dumps: JSON (for `pto graph --format json`, tests and tools)
// and Graphviz DOT (for `--format dot`). Schemas are in docs/cli.md.
#pragma once

#include "compiler/ir/TensorGraph.h"

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

nlohmann::ordered_json tensorGraphToJson(const TensorGraph& graph);
std::string printTensorGraphJson(const TensorGraph& graph);
std::string tensorGraphToDot(const TensorGraph& graph);

// An attribute value as JSON: numbers, strings, dtype names, symbolic
// expressions as their Python text.
nlohmann::ordered_json attributeToJson(const AttributeValue& value);

} // namespace pto
