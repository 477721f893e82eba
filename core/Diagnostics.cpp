// Recording diagnostics and printing them in compiler style.
#include "core/Diagnostics.h"

#include "core/EnumNames.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <ostream>

namespace pto {

constexpr auto kSeverityNames = enumNames<Severity>({
    {Severity::Note, "note"}, {Severity::Warning, "warning"}, {Severity::Error, "error"}});

std::string_view name(Severity severity) { return kSeverityNames.name(severity); }

DiagnosticBuilder::DiagnosticBuilder(DiagnosticEngine& engine, Severity severity, SourceLocation location)
    : m_engine(&engine) {
  m_diagnostic.severity = severity;
  m_diagnostic.location = std::move(location);
}

DiagnosticBuilder::DiagnosticBuilder(DiagnosticBuilder&& other) noexcept
    : m_engine(other.m_engine), m_diagnostic(std::move(other.m_diagnostic)), m_message(std::move(other.m_message)) {
  other.m_engine = nullptr;
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (!m_engine) return;
  m_diagnostic.message = m_message.str();
  m_engine->report(std::move(m_diagnostic));
}

DiagnosticBuilder& DiagnosticBuilder::note(SourceLocation location, std::string text) {
  m_diagnostic.notes.push_back(Diagnostic{Severity::Note, std::move(location), std::move(text), {}});
  return *this;
}

DiagnosticBuilder DiagnosticEngine::error(SourceLocation location) {
  return DiagnosticBuilder(*this, Severity::Error, std::move(location));
}
DiagnosticBuilder DiagnosticEngine::warning(SourceLocation location) {
  return DiagnosticBuilder(*this, Severity::Warning, std::move(location));
}
DiagnosticBuilder DiagnosticEngine::note(SourceLocation location) {
  return DiagnosticBuilder(*this, Severity::Note, std::move(location));
}

void DiagnosticEngine::report(Diagnostic diagnostic) {
  if (diagnostic.severity == Severity::Error) ++m_errorCount;
  if (diagnostic.severity == Severity::Warning) ++m_warningCount;
  m_diagnostics.push_back(std::move(diagnostic));
  if (m_listener) m_listener(m_diagnostics.back());
}

void DiagnosticEngine::clear() {
  m_diagnostics.clear();
  m_errorCount = 0;
  m_warningCount = 0;
}

void DiagnosticEngine::setSourceText(const std::string& file, std::string text) {
  m_sourceTexts[file] = std::make_shared<const std::string>(std::move(text));
}

std::string DiagnosticEngine::sourceLine(const std::string& file, int line) const {
  if (file.empty() || line <= 0) return {};
  auto found = m_sourceTexts.find(file);
  if (found == m_sourceTexts.end()) {
    std::ifstream in(file, std::ios::binary);
    std::string text;
    if (in) text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    found = m_sourceTexts.emplace(file, std::make_shared<const std::string>(std::move(text))).first;
  }
  const std::string& text = *found->second;
  std::size_t start = 0;
  for (int current = 1; current < line; ++current) {
    start = text.find('\n', start);
    if (start == std::string::npos) return {};
    ++start;
  }
  std::size_t end = text.find('\n', start);
  std::string result = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (!result.empty() && result.back() == '\r') result.pop_back();
  return result;
}

namespace {

const char* colorOf(Severity severity) {
  switch (severity) {
  case Severity::Note: return "\033[1;36m";
  case Severity::Warning: return "\033[1;35m";
  case Severity::Error: return "\033[1;31m";
  }
  return "";
}

// The widest source line quoted under a diagnostic, in bytes.
constexpr std::size_t kQuotedLineWidth = 160;

void formatInto(const DiagnosticEngine& engine, const Diagnostic& diagnostic, bool color, std::string& out) {
  const char* bold = color ? "\033[1m" : "";
  const char* reset = color ? "\033[0m" : "";
  out += bold;
  out += diagnostic.location.str();
  out += ": ";
  out += reset;
  if (color) out += colorOf(diagnostic.severity);
  out += name(diagnostic.severity);
  out += ": ";
  out += reset;
  out += diagnostic.message;
  out += '\n';
  std::string line = engine.sourceLine(diagnostic.location.file, diagnostic.location.line);
  if (!line.empty()) {
    // A long line (a minified or generated file) is quoted as a window
    // around the column, not whole.
    const std::size_t column = diagnostic.location.column > 0 ? static_cast<std::size_t>(diagnostic.location.column - 1) : 0;
    std::size_t first = 0;
    std::size_t last = line.size();
    if (line.size() > kQuotedLineWidth) {
      first = std::min(column > kQuotedLineWidth / 2 ? column - kQuotedLineWidth / 2 : 0, line.size() - kQuotedLineWidth);
      last = first + kQuotedLineWidth;
      // Never cut a UTF-8 character in two.
      auto continuation = [&](std::size_t at) { return at < line.size() && (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80; };
      while (first > 0 && continuation(first)) --first;
      while (last < line.size() && continuation(last)) ++last;
    }
    const char* lead = first > 0 ? "..." : "";
    out += "  ";
    out += lead;
    out.append(line, first, last - first);
    if (last < line.size()) out += "...";
    out += '\n';
    if (diagnostic.location.column > 0 && column >= first && column <= last) {
      // Keep tabs so the caret lines up under the same character on any tab width.
      std::string pad(std::strlen(lead), ' ');
      for (std::size_t i = first; i < column && i < line.size(); ++i) pad += line[i] == '\t' ? '\t' : ' ';
      out += "  " + pad + (color ? "\033[1;32m^\033[0m" : "^") + "\n";
    }
  }
  for (const Diagnostic& note : diagnostic.notes) formatInto(engine, note, color, out);
}

} // namespace

std::string DiagnosticEngine::format(const Diagnostic& diagnostic, bool color) const {
  std::string out;
  formatInto(*this, diagnostic, color, out);
  return out;
}

void DiagnosticEngine::print(std::ostream& out, bool color) const {
  for (const Diagnostic& diagnostic : m_diagnostics) out << format(diagnostic, color);
}

std::string DiagnosticEngine::printed() const {
  std::string text;
  for (const Diagnostic& diagnostic : m_diagnostics) text += format(diagnostic);
  return text;
}

} // namespace pto
