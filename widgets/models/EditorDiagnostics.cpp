// Engine diagnostics -> editor marks.
#include "widgets/models/EditorDiagnostics.h"

#include <filesystem>

namespace pto::widgets {
namespace {

EditorDiagnostic::Severity editorSeverity(pto::Severity severity) {
  switch (severity) {
  case pto::Severity::Error: return EditorDiagnostic::Severity::Error;
  case pto::Severity::Warning: return EditorDiagnostic::Severity::Warning;
  case pto::Severity::Note: return EditorDiagnostic::Severity::Note;
  }
  return EditorDiagnostic::Severity::Error;
}

std::string severityWord(pto::Severity severity) { return std::string(name(severity)); }

} // namespace

bool sameSourceFile(std::string_view diagnosticFile, std::string_view editorFile) {
  if (diagnosticFile.empty() || editorFile.empty()) return false;
  if (diagnosticFile == editorFile) return true;
  std::filesystem::path diagnosticPath(diagnosticFile);
  std::filesystem::path editorPath(editorFile);
  if (diagnosticPath.filename() != editorPath.filename()) return false;
  // A relative name ("kernel.py", "sub/kernel.py") is taken to be relative to
  // the project folder: accept it when the editor's path ends with it.
  if (diagnosticPath.is_relative()) {
    std::string editor = editorPath.lexically_normal().generic_string();
    std::string suffix = diagnosticPath.lexically_normal().generic_string();
    return editor == suffix || (editor.size() > suffix.size() && editor.ends_with("/" + suffix));
  }
  return diagnosticPath.lexically_normal() == editorPath.lexically_normal();
}

std::vector<EditorDiagnostic> editorDiagnostics(const std::vector<Diagnostic>& diagnostics, std::string_view editorFile) {
  std::vector<EditorDiagnostic> marks;
  auto inEditor = [&](const SourceLocation& location) {
    return editorFile.empty() || sameSourceFile(location.file, editorFile);
  };
  for (const Diagnostic& diagnostic : diagnostics) {
    std::string text = severityWord(diagnostic.severity) + ": " + diagnostic.message;
    for (const Diagnostic& note : diagnostic.notes) {
      text += "\nnote: " + note.message;
      if (note.location.known() && (!inEditor(note.location) || note.location.line != diagnostic.location.line))
        text += " (" + (inEditor(note.location) ? "line " + std::to_string(note.location.line) : note.location.str()) + ")";
    }
    if (inEditor(diagnostic.location))
      marks.push_back({std::max(1, diagnostic.location.line), diagnostic.location.line > 0 ? diagnostic.location.column : 0,
                       0, editorSeverity(diagnostic.severity), text, diagnostic.location.file});
    for (const Diagnostic& note : diagnostic.notes) {
      if (!inEditor(note.location) || note.location.line <= 0) continue;
      if (inEditor(diagnostic.location) && note.location.line == diagnostic.location.line) continue;
      marks.push_back({note.location.line, note.location.column, 0, EditorDiagnostic::Severity::Note,
                       "note: " + note.message + "\n(for the " + severityWord(diagnostic.severity) + " " +
                           (inEditor(diagnostic.location) && diagnostic.location.line > 0
                                ? "at line " + std::to_string(diagnostic.location.line)
                                : "at " + diagnostic.location.str()) +
                           ": " + diagnostic.message + ")",
                       note.location.file});
    }
  }
  return marks;
}

} // namespace pto::widgets
