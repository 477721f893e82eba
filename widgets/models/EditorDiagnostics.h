// EditorDiagnostic: a diagnostic as the source editor marks it (a line, a
// column range, a severity and the text to show on hover), and the
// conversion from the engine's diagnostics (core/Diagnostics.h). Plain C++.
#pragma once

#include "core/Diagnostics.h"

#include <string>
#include <string_view>
#include <vector>

namespace pto::widgets {

struct EditorDiagnostic {
  enum class Severity { Error, Warning, Note };
  int line = 0;       // 1-based
  int column = 0;     // 1-based; 0: the whole line
  int endColumn = 0;  // 1-based, exclusive; 0: to the end of the token at `column`
  Severity severity = Severity::Error;
  std::string message;  // what hovering shows (notes appended, one per line)
  std::string file;     // the file it is about; empty: the editor's file

  friend bool operator==(const EditorDiagnostic&, const EditorDiagnostic&) = default;
};

// True when `diagnosticFile` names the file open as `editorFile`: the same
// path, or (a diagnostic naming a bare "kernel.py") the same file name.
bool sameSourceFile(std::string_view diagnosticFile, std::string_view editorFile);

// The diagnostics about `editorFile`, for SourceEditor::setDiagnostics. A
// diagnostic's notes are appended to its hover text ("note: ..." lines, with
// their place when it is elsewhere), and a note located in this file is also
// marked at its own line as a Note whose text names the diagnostic it belongs
// to. Diagnostics about the whole file (line 0) mark line 1. Empty
// `editorFile` keeps every diagnostic.
std::vector<EditorDiagnostic> editorDiagnostics(const std::vector<Diagnostic>& diagnostics, std::string_view editorFile);

} // namespace pto::widgets
