// Where each value of a JSON document sits in its text, so that errors found
// after parsing (wrong types, bad values) can point at file:line:column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pto {

// Built by one scan of a text that nlohmann::json already accepted. Values are
// keyed by JSON pointer ("/args/1/shape/0"; "" is the root).
class JsonLocator {
public:
  explicit JsonLocator(std::string_view text);

  // Byte offset of the value at `pointer`, or of its nearest existing
  // ancestor when the pointer names something absent (a missing key is
  // reported at the object that lacks it).
  std::size_t valueOffset(const std::string& pointer) const;
  // Byte offset of the key naming the member at `pointer` (its opening
  // quote); falls back to valueOffset for array elements and the root.
  std::size_t keyOffset(const std::string& pointer) const;

  // Members whose key appeared more than once in their object (the parser
  // keeps the last one silently; the loader warns), as JSON pointers with
  // the offset of the repeated key.
  struct DuplicateKey {
    std::string pointer;
    std::size_t keyOffset;
  };
  const std::vector<DuplicateKey>& duplicateKeys() const { return m_duplicates; }

  // Appends one reference token to a pointer, escaping '~' and '/'.
  static std::string child(const std::string& pointer, std::string_view key);
  static std::string child(const std::string& pointer, std::size_t index);

private:
  void scanValue(const std::string& pointer);
  void scanObject(const std::string& pointer);
  void scanArray(const std::string& pointer);
  std::string scanString();
  void skipWhitespace();
  // Steps to a container's next member or element; false, past `close`, at its end.
  bool nextItem(char close);

  std::string_view m_text;
  std::size_t m_pos = 0;
  std::unordered_map<std::string, std::size_t> m_values;
  std::unordered_map<std::string, std::size_t> m_keys;
  std::vector<DuplicateKey> m_duplicates;
};

} // namespace pto
