// A small scanner over already-validated JSON text recording value offsets.
#include "core/json/JsonLocator.h"

#include <unordered_set>

namespace pto {

JsonLocator::JsonLocator(std::string_view text) : m_text(text) {
  skipWhitespace();
  if (m_pos < m_text.size()) scanValue("");
}

std::string JsonLocator::child(const std::string& pointer, std::string_view key) {
  std::string result = pointer + "/";
  for (char c : key) {
    if (c == '~') result += "~0";
    else if (c == '/') result += "~1";
    else result += c;
  }
  return result;
}

std::string JsonLocator::child(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

std::size_t JsonLocator::valueOffset(const std::string& pointer) const {
  std::string current = pointer;
  while (true) {
    if (auto found = m_values.find(current); found != m_values.end()) return found->second;
    if (current.empty()) return 0;
    current.erase(current.rfind('/'));
  }
}

std::size_t JsonLocator::keyOffset(const std::string& pointer) const {
  if (auto found = m_keys.find(pointer); found != m_keys.end()) return found->second;
  return valueOffset(pointer);
}

void JsonLocator::skipWhitespace() {
  while (m_pos < m_text.size()) {
    char c = m_text[m_pos];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    ++m_pos;
  }
}

// Returns the decoded key text well enough to build pointers: escapes other
// than \" and \\ are rare in keys and kept verbatim.
std::string JsonLocator::scanString() {
  std::string value;
  ++m_pos;  // opening quote
  while (m_pos < m_text.size() && m_text[m_pos] != '"') {
    if (m_text[m_pos] == '\\' && m_pos + 1 < m_text.size()) {
      char escaped = m_text[m_pos + 1];
      if (escaped == '"' || escaped == '\\' || escaped == '/') value += escaped;
      else value.append(m_text.substr(m_pos, 2));
      m_pos += 2;
      continue;
    }
    value += m_text[m_pos++];
  }
  ++m_pos;  // closing quote
  return value;
}

void JsonLocator::scanValue(const std::string& pointer) {
  m_values[pointer] = m_pos;
  if (m_pos >= m_text.size()) return;
  switch (m_text[m_pos]) {
  case '{': scanObject(pointer); break;
  case '[': scanArray(pointer); break;
  case '"': scanString(); break;
  default:
    // number, true, false, null: runs until a delimiter
    while (m_pos < m_text.size()) {
      char c = m_text[m_pos];
      if (c == ',' || c == '}' || c == ']' || c == ' ' || c == '\n' || c == '\r' || c == '\t') break;
      ++m_pos;
    }
  }
}

// The text parsed already, so commas need no checking: they are skipped.
bool JsonLocator::nextItem(char close) {
  while (true) {
    skipWhitespace();
    if (m_pos >= m_text.size() || m_text[m_pos] == close) {
      ++m_pos;
      return false;
    }
    if (m_text[m_pos] != ',') return true;
    ++m_pos;
  }
}

void JsonLocator::scanObject(const std::string& pointer) {
  ++m_pos;  // '{'
  std::unordered_set<std::string> seen;
  while (nextItem('}')) {
    std::size_t keyStart = m_pos;
    std::string key = scanString();
    std::string memberPointer = child(pointer, key);
    if (!seen.insert(key).second) m_duplicates.push_back({memberPointer, keyStart});
    m_keys[memberPointer] = keyStart;
    skipWhitespace();
    if (m_pos < m_text.size() && m_text[m_pos] == ':') ++m_pos;
    skipWhitespace();
    scanValue(memberPointer);
  }
}

void JsonLocator::scanArray(const std::string& pointer) {
  ++m_pos;  // '['
  std::size_t index = 0;
  while (nextItem(']')) scanValue(child(pointer, index++));
}

} // namespace pto
