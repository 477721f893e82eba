// StringTable: interned strings referred to by small integer ids, so a
// million tasks that share names and labels store each text once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pto::trace {

using StringId = std::uint32_t;
// Id 0 is always the empty string, so a default-initialised id means "none".
inline constexpr StringId kEmptyString = 0;

class StringTable {
public:
  StringTable();
  StringTable(const StringTable&) = delete;
  StringTable& operator=(const StringTable&) = delete;
  StringTable(StringTable&&) = default;
  StringTable& operator=(StringTable&&) = default;

  StringId intern(std::string_view text);
  std::string_view str(StringId id) const { return m_strings[id]; }
  std::size_t size() const { return m_strings.size(); }
  // Heap bytes held (an estimate from capacities and node sizes).
  std::size_t memoryBytes() const;

private:
  // A deque keeps each std::string in place, so the index's views stay valid.
  std::deque<std::string> m_strings;
  std::unordered_map<std::string_view, StringId> m_index;
};

} // namespace pto::trace
