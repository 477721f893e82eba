// Implementation of printJson.
#include "core/json/JsonPrinter.h"

namespace pto {
namespace {

bool hasOnlyScalars(const nlohmann::ordered_json& value) {
  for (const auto& element : value)
    if (element.is_structured()) return false;
  return true;
}

// `{"kind": "zeros"}` / `[32, 32, 1, 256]`, or empty when `value` holds
// containers and so is better spread over lines.
std::string oneLine(const nlohmann::ordered_json& value) {
  if (!hasOnlyScalars(value)) return {};
  std::string line = value.is_object() ? "{" : "[";
  bool first = true;
  for (const auto& [key, member] : value.items()) {
    if (!first) line += ", ";
    first = false;
    if (value.is_object()) line += nlohmann::ordered_json(key).dump() + ": ";
    line += member.dump();
  }
  return line + (value.is_object() ? "}" : "]");
}

// `column` is where the value starts on its line, so that "fits" means the
// whole line stays within the width.
void printValue(const nlohmann::ordered_json& value, int depth, std::size_t column, std::size_t inlineWidth,
                std::string& out) {
  if (value.is_structured() && !value.empty()) {
    std::string line = oneLine(value);
    if (!line.empty() && column + line.size() <= inlineWidth) {
      out += line;
      return;
    }
  }
  const std::string indent(static_cast<std::size_t>(depth + 1) * 2, ' ');
  const std::string closingIndent(static_cast<std::size_t>(depth) * 2, ' ');
  if (value.is_object()) {
    if (value.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto& [key, member] : value.items()) {
      if (!first) out += ",\n";
      first = false;
      std::string quotedKey = nlohmann::ordered_json(key).dump();
      out += indent;
      out += quotedKey;
      out += ": ";
      printValue(member, depth + 1, indent.size() + quotedKey.size() + 2, inlineWidth, out);
    }
    out += "\n" + closingIndent + "}";
    return;
  }
  if (value.is_array()) {
    if (value.empty()) {
      out += "[]";
      return;
    }
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += ",\n";
      out += indent;
      printValue(value[i], depth + 1, indent.size(), inlineWidth, out);
    }
    out += "\n" + closingIndent + "]";
    return;
  }
  out += value.dump();
}

} // namespace

std::string printJson(const nlohmann::ordered_json& value, std::size_t inlineWidth) {
  std::string out;
  printValue(value, 0, 0, inlineWidth, out);
  out += "\n";
  return out;
}

} // namespace pto
