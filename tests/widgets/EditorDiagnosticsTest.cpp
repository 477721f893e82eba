// Engine diagnostics -> editor marks: the file filter, notes folded into the
// hover text and marked at their own lines, whole-file diagnostics on line 1.
#include "widgets/models/EditorDiagnostics.h"

#include <gtest/gtest.h>

namespace pto::widgets {
namespace {

using S = EditorDiagnostic::Severity;

TEST(EditorDiagnostics, SameSourceFile) {
  EXPECT_TRUE(sameSourceFile("kernel.py", "/home/u/proj/kernel.py"));
  EXPECT_TRUE(sameSourceFile("/home/u/proj/kernel.py", "/home/u/proj/kernel.py"));
  EXPECT_TRUE(sameSourceFile("lib/kernel.py", "/home/u/proj/lib/kernel.py"));
  EXPECT_FALSE(sameSourceFile("other/kernel.py", "/home/u/proj/lib/kernel.py"));
  EXPECT_FALSE(sameSourceFile("pto-project.json", "/home/u/proj/kernel.py"));
  EXPECT_FALSE(sameSourceFile("/elsewhere/kernel.py", "/home/u/proj/kernel.py"));
  EXPECT_FALSE(sameSourceFile("", "/home/u/proj/kernel.py"));
  EXPECT_FALSE(sameSourceFile("xkernel.py", "/home/u/proj/kernel.py"));
}

TEST(EditorDiagnostics, ConvertsSeveritiesNotesAndFilters) {
  const std::string editor = "/p/kernel.py";
  Diagnostic error{Severity::Error, {"kernel.py", 12, 5}, "shapes (4, 8) and (8, 3) do not broadcast", {}};
  error.notes.push_back({Severity::Note, {"kernel.py", 30, 9}, "called from here", {}});
  error.notes.push_back({Severity::Note, {"helper.py", 3, 1}, "defined here", {}});
  Diagnostic warning{Severity::Warning, {"/p/kernel.py", 4, 0}, "tile too small", {}};
  Diagnostic project{Severity::Error, {"/p/pto-project.json", 9, 22}, "args[0].shape[1]: expected an integer", {}};
  Diagnostic wholeFile{Severity::Error, {"kernel.py", 0, 0}, "the kernel file is empty", {}};

  std::vector<EditorDiagnostic> marks = editorDiagnostics({error, warning, project, wholeFile}, editor);
  std::vector<EditorDiagnostic> expected = {
      {12, 5, 0, S::Error,
       "error: shapes (4, 8) and (8, 3) do not broadcast\nnote: called from here (line 30)\nnote: defined here (helper.py:3:1)",
       "kernel.py"},
      {30, 9, 0, S::Note,
       "note: called from here\n(for the error at line 12: shapes (4, 8) and (8, 3) do not broadcast)", "kernel.py"},
      {4, 0, 0, S::Warning, "warning: tile too small", "/p/kernel.py"},
      {1, 0, 0, S::Error, "error: the kernel file is empty", "kernel.py"},
  };
  EXPECT_EQ(marks, expected);
}

TEST(EditorDiagnostics, ANoteInTheEditorForAnErrorElsewhere) {
  Diagnostic error{Severity::Error, {"pto-project.json", 7, 3}, "tile_settings.vec.softmax: no op has this label", {}};
  error.notes.push_back({Severity::Note, {"kernel.py", 22, 5}, "labels are set here", {}});
  std::vector<EditorDiagnostic> marks = editorDiagnostics({error}, "/p/kernel.py");
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].line, 22);
  EXPECT_EQ(marks[0].severity, S::Note);
  EXPECT_EQ(marks[0].message, "note: labels are set here\n(for the error at pto-project.json:7:3: tile_settings.vec.softmax: "
                              "no op has this label)");
}

} // namespace
} // namespace pto::widgets
