// How a diagnostic is printed: location, severity, message, the quoted
// source line and a caret under the column. Expected text is written out by
// hand.
#include "core/Diagnostics.h"

#include <gtest/gtest.h>

#include <string>

namespace pto {
namespace {

TEST(Diagnostics, QuotesTheLineWithACaretUnderTheColumn) {
  DiagnosticEngine diags;
  diags.setSourceText("kernel.py", "import pypto\n\tx = pypto.tensor(\n");
  diags.error(SourceLocation{"kernel.py", 2, 6}) << "bad shape";
  EXPECT_EQ(diags.format(diags.diagnostics().front()),
            "kernel.py:2:6: error: bad shape\n"
            "  \tx = pypto.tensor(\n"
            "  \t    ^\n");
}

TEST(Diagnostics, ALongLineIsQuotedAsAWindowAroundTheColumn) {
  // A minified one-line kernel of 100 000 characters: the message stays a
  // few lines long, and the caret still points at the character.
  std::string line(50000, 'a');
  line += 'X';
  line += std::string(49999, 'b');
  DiagnosticEngine diags;
  diags.setSourceText("min.py", line + "\n");
  diags.error(SourceLocation{"min.py", 1, 50001}) << "here";
  const std::string text = diags.format(diags.diagnostics().front());
  EXPECT_LT(text.size(), 500u);
  const std::size_t quoted = text.find("\n  ...") + 1;
  ASSERT_NE(quoted, 0u) << text;
  const std::size_t caretLine = text.find('\n', quoted) + 1;
  const std::size_t caret = text.find('^', caretLine);
  ASSERT_NE(caret, std::string::npos) << text;
  EXPECT_EQ(text[quoted + (caret - caretLine)], 'X') << text;
  EXPECT_NE(text.find("...\n", quoted), std::string::npos);  // cut on the right too

  // The start of a long line: no leading ellipsis.
  DiagnosticEngine start;
  start.setSourceText("min.py", line + "\n");
  start.error(SourceLocation{"min.py", 1, 3}) << "near the start";
  const std::string head = start.format(start.diagnostics().front());
  EXPECT_NE(head.find("\n  aaaa"), std::string::npos) << head;
  EXPECT_NE(head.find("\n    ^\n"), std::string::npos) << head;
}

TEST(Diagnostics, AWindowNeverSplitsAUtf8Character) {
  std::string line;
  for (int i = 0; i < 200; ++i) line += "\xe2\x9c\x93";  // check marks, 3 bytes each
  DiagnosticEngine diags;
  diags.setSourceText("u.py", line + "\n");
  diags.error(SourceLocation{"u.py", 1, 301}) << "x";
  const std::string text = diags.format(diags.diagnostics().front());
  const std::size_t begin = text.find("\n  ...") + 6;
  const std::size_t end = text.find("...\n", begin);
  ASSERT_NE(end, std::string::npos) << text;
  EXPECT_EQ((end - begin) % 3, 0u);
  EXPECT_EQ(static_cast<unsigned char>(text[begin]), 0xE2u);
}

} // namespace
} // namespace pto
