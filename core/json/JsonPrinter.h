// Diff-friendly JSON printing for files people read and edit.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

// Two-space indentation, one member per line, keys in document order; arrays
// of plain numbers/strings/bools that fit in `inlineWidth` characters stay on
// one line ("shape": [32, 32, 1, 256]) because a shape spread over six lines
// is harder to read and to diff. Ends with a newline.
std::string printJson(const nlohmann::ordered_json& value, std::size_t inlineWidth = 72);

} // namespace pto
