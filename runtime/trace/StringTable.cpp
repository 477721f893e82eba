// Interning of trace strings.
#include "runtime/trace/StringTable.h"

namespace pto::trace {

StringTable::StringTable() {
  m_strings.emplace_back();
  m_index.emplace(std::string_view(m_strings.back()), kEmptyString);
}

StringId StringTable::intern(std::string_view text) {
  if (auto found = m_index.find(text); found != m_index.end()) return found->second;
  auto id = static_cast<StringId>(m_strings.size());
  m_strings.emplace_back(text);
  m_index.emplace(std::string_view(m_strings.back()), id);
  return id;
}

std::size_t StringTable::memoryBytes() const {
  std::size_t bytes = m_strings.size() * sizeof(std::string);
  for (const std::string& text : m_strings)
    if (text.capacity() > 15) bytes += text.capacity() + 1;  // beyond the small-string buffer
  // One hash node (next pointer, key, value, cached hash) per entry plus the bucket array.
  bytes += m_index.size() * (sizeof(void*) + sizeof(std::pair<const std::string_view, StringId>) + sizeof(std::size_t));
  bytes += m_index.bucket_count() * sizeof(void*);
  return bytes;
}

} // namespace pto::trace
