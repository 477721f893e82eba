// Implementation of printJson.
#include "core/json/JsonPrinter.h"

namespace pto {
namespace {

bool isScalarArray(const nlohmann::ordered_json& value) {
  if (!value.is_array()) return false;
  for (const auto& element : value)
    if (element.is_structured()) return false;
  return true;
}

void printValue(const nlohmann::ordered_json& value, int depth, std::size_t inlineWidth, std::string& out) {
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
      out += indent;
      out += nlohmann::ordered_json(key).dump();
      out += ": ";
      printValue(member, depth + 1, inlineWidth, out);
    }
    out += "\n" + closingIndent + "}";
    return;
  }
  if (value.is_array()) {
    if (value.empty()) {
      out += "[]";
      return;
    }
    if (isScalarArray(value)) {
      std::string line = "[";
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (i) line += ", ";
        line += value[i].dump();
      }
      line += "]";
      if (line.size() <= inlineWidth) {
        out += line;
        return;
      }
    }
    out += "[\n";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += ",\n";
      out += indent;
      printValue(value[i], depth + 1, inlineWidth, out);
    }
    out += "\n" + closingIndent + "]";
    return;
  }
  out += value.dump();
}

} // namespace

std::string printJson(const nlohmann::ordered_json& value, std::size_t inlineWidth) {
  std::string out;
  printValue(value, 0, inlineWidth, out);
  out += "\n";
  return out;
}

} // namespace pto
