// Printing source locations and turning byte offsets into line:column.
#include "core/SourceLocation.h"

#include <algorithm>

namespace pto {

std::string SourceLocation::str() const {
  std::string text = file.empty() ? std::string("<unknown>") : file;
  if (line > 0) {
    text += ":" + std::to_string(line);
    if (column > 0) text += ":" + std::to_string(column);
  }
  return text;
}

LineColumn lineColumnAt(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  LineColumn position;
  std::size_t lineStart = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++position.line;
      lineStart = i + 1;
    }
  }
  position.column = static_cast<int>(offset - lineStart) + 1;
  return position;
}

} // namespace pto
