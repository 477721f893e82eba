// A place in a user's file: what diagnostics point at.
#pragma once

#include <compare>
#include <string>

namespace pto {

// Lines and columns are 1-based; 0 means "unknown" (a diagnostic about a
// whole file has line 0, one about a whole line has column 0).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  bool known() const { return !file.empty(); }
  // "file:line:col", "file:line" or "file", as far as known.
  std::string str() const;

  friend bool operator==(const SourceLocation&, const SourceLocation&) = default;
};

// Line and column of a byte offset in a text; computed on demand so that
// parsers only carry offsets (Ninja's lexer does the same).
struct LineColumn {
  int line = 1;
  int column = 1;
};
LineColumn lineColumnAt(std::string_view text, std::size_t offset);

} // namespace pto
