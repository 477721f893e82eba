// Diff-friendly JSON printing for files people read and edit.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace pto {

// Two-space indentation, one member per line, keys in document order. An
// array or object holding only plain values stays on one line when the line
// fits in `lineWidth` ("shape": [32, 32, 1, 256]): a shape spread over six
// lines is harder to read and to diff. Ends with a newline.
std::string printJson(const nlohmann::ordered_json& value, std::size_t lineWidth = 100);

} // namespace pto
