// SourceEditor: the kernel source (QScintilla, Python lexer, line numbers)
// linked to the swimlane: a gutter stripe shows each line's semantic-label
// colour (the swimlane's colours), showLine() scrolls to and marks a task's
// line, and clicking a line emits lineClicked so its tasks can be selected.
#pragma once

#include "widgets/Qsci.h"

#include <map>
#include <string>

namespace pto::widgets {

class SourceEditor : public QsciScintilla {
  Q_OBJECT
public:
  explicit SourceEditor(QWidget* parent = nullptr);

  // Loads a file (UTF-8); on failure returns false and sets `error`.
  bool loadFile(const QString& path, QString* error);
  bool save(QString* error);
  const QString& filePath() const { return m_path; }

  // Scrolls to 1-based `line` and marks it as the selected task's line
  // (0 clears the mark). Does not emit lineClicked.
  void showLine(int line);
  int shownLine() const { return m_shownLine; }
  // Each line's semantic label (1-based line → label); the gutter shows its colour.
  void setLineLabels(const std::map<int, std::string>& labels);

Q_SIGNALS:
  void lineClicked(int line);  // 1-based, by the user (text or margin click)

protected:
  void mouseReleaseEvent(QMouseEvent* event) override;
  void changeEvent(QEvent* event) override;

private:
  void applyColours();

  QString m_path;
  int m_shownLine = 0;
  std::map<int, std::string> m_lineLabels;
};

} // namespace pto::widgets
