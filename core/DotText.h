// Text inside a Graphviz DOT string ("..."): the one escaping rule every DOT
// writer of PTO Studio uses (the IR dumps and the IDE's graph export).
#pragma once

#include <string>
#include <string_view>

namespace pto {

// `text` with quotes and backslashes escaped and line breaks written as DOT's
// centred line break (\n), ready to go between the quotes of a DOT string.
inline std::string dotEscaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

} // namespace pto
