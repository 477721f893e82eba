// Diagnostics: user-facing errors and warnings with source locations, and
// the engine that collects and prints them like a compiler does.
#pragma once

#include "core/SourceLocation.h"

#include <concepts>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace pto {

enum class Severity { Note, Warning, Error };
std::string_view name(Severity severity);

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLocation location;
  std::string message;
  // Notes attached to this diagnostic (context such as "declared here").
  std::vector<Diagnostic> notes;
};

class DiagnosticEngine;

// Streams text into a diagnostic that is recorded when the builder dies:
//   return diags.error(loc) << "expected an integer, got " << got;
// Converts to `false` and to an empty std::optional, so a failing function
// can record and fail in one statement (MLIR's InFlightDiagnostic).
class DiagnosticBuilder {
public:
  DiagnosticBuilder(DiagnosticEngine& engine, Severity severity, SourceLocation location);
  DiagnosticBuilder(DiagnosticBuilder&& other) noexcept;
  DiagnosticBuilder(const DiagnosticBuilder&) = delete;
  DiagnosticBuilder& operator=(const DiagnosticBuilder&) = delete;
  DiagnosticBuilder& operator=(DiagnosticBuilder&&) = delete;
  ~DiagnosticBuilder();

  template <typename T> DiagnosticBuilder& operator<<(const T& value) & {
    m_message << value;
    return *this;
  }
  template <typename T> DiagnosticBuilder&& operator<<(const T& value) && {
    m_message << value;
    return std::move(*this);
  }
  // Attaches a note; the note's text follows in the returned stream.
  DiagnosticBuilder& note(SourceLocation location, std::string text);

  // Only these two conversions: a plain `operator bool` would also let
  // std::optional<int64_t> be built from it, as optional(0).
  template <typename T>
    requires std::same_as<T, bool>
  operator T() const {
    return false;
  }
  template <typename T> operator std::optional<T>() const { return std::nullopt; }

private:
  DiagnosticEngine* m_engine;
  Diagnostic m_diagnostic;
  std::ostringstream m_message;
};

// Collects diagnostics. Printing needs the text of the file a diagnostic
// points at (to show the line and a caret); the engine reads it from disk on
// first use unless the caller registered the text (e.g. an unsaved editor buffer).
class DiagnosticEngine {
public:
  DiagnosticBuilder error(SourceLocation location);
  DiagnosticBuilder warning(SourceLocation location);
  DiagnosticBuilder note(SourceLocation location);
  void report(Diagnostic diagnostic);

  const std::vector<Diagnostic>& diagnostics() const { return m_diagnostics; }
  bool hasErrors() const { return m_errorCount > 0; }
  std::size_t errorCount() const { return m_errorCount; }
  std::size_t warningCount() const { return m_warningCount; }
  void clear();

  // Text to quote for `file` instead of reading it from disk.
  void setSourceText(const std::string& file, std::string text);
  // The source line `line` (1-based) of `file`, without its newline; empty when unknown.
  std::string sourceLine(const std::string& file, int line) const;

  // Prints every diagnostic as
  //   file:line:col: error: message
  //     <source line>
  //           ^
  // followed by its notes. `color` adds ANSI colours as compilers do on a terminal.
  void print(std::ostream& out, bool color = false) const;
  // What print() writes, without colours, as one string.
  std::string printed() const;
  // One diagnostic in the same format.
  std::string format(const Diagnostic& diagnostic, bool color = false) const;

  // Called for every diagnostic as it is reported (the IDE streams them).
  void setListener(std::function<void(const Diagnostic&)> listener) { m_listener = std::move(listener); }

private:
  std::vector<Diagnostic> m_diagnostics;
  std::size_t m_errorCount = 0;
  std::size_t m_warningCount = 0;
  mutable std::map<std::string, std::shared_ptr<const std::string>> m_sourceTexts;
  std::function<void(const Diagnostic&)> m_listener;
};

} // namespace pto
